#!/usr/bin/env bash
# The `apply` half of the fan-out workflow (examples/workflows/swarm-fanout.yml): takes the
# git bundle an `implement` runner produced for issue N of feature F, re-verifies it, and
# lands it. Runs with write access; the agents that made the bundle never had it.
#
# Usage: apply-bundle.sh FEATURE ISSUE BUNDLE MODE   (MODE: commit | pr)
# Environment: SWARM_BASE_BRANCH (default main), SWARM_REMOTE (default origin).
#
# Verification (any failure: exit 1, nothing pushed):
#   - the bundle holds exactly one commit on top of a commit the base branch contains;
#   - its subject is the tool's rule-1 subject for (FEATURE, ISSUE) and it carries the
#     Swarm-Feature/Swarm-Issue trailers;
#   - it touches nothing under .swarm/ or .github/.
# Landing: `commit` rebases the commit onto the newest base branch and pushes it
# (fetch, rebase, re-verify, retry on a race); `pr` pushes it to swarm/FEATURE/issue-ISSUE
# (the pull request itself is opened by the workflow with `gh`, once per branch).
# Idempotent: if the base branch already has a rule-1 commit for (FEATURE, ISSUE), nothing
# is pushed (exit 0, "already landed").
set -euo pipefail

feature="$1" issue="$2" bundle="$3" mode="${4:-commit}"
base="${SWARM_BASE_BRANCH:-main}"
remote="${SWARM_REMOTE:-origin}"
case "$feature" in
  *[!a-z0-9._-]* | "") echo "bad feature id" >&2; exit 2 ;;
esac
case "$issue" in
  *[!0-9]* | "" | 0*) echo "bad issue number" >&2; exit 2 ;;
esac

# an exact, anchored, case-insensitive rule-1 subject: `#2` never matches `#22`
subject_re="^[Ff][Ee][Aa][Tt]\\(${feature//./\\.}\\): *[Ii][Mm][Pp][Ll][Ee][Mm][Ee][Nn][Tt] +[Ii][Ss][Ss][Uu][Ee] +#${issue}([^0-9A-Za-z]|\$)"

already_landed() {
  # grep reads the whole log (no -q): with pipefail, an early exit would make git log's
  # SIGPIPE look like "not found"
  git log --format=%s "$remote/$base" | grep -E "$subject_re" >/dev/null
}

verify() { # commit parent-ref
  local c="$1" onto="$2"
  [ "$(git rev-list --count "$onto..$c")" = 1 ] || { echo "the bundle must hold exactly one commit on top of $base" >&2; return 1; }
  git log -1 --format=%s "$c" | grep -E "$subject_re" >/dev/null || { echo "the commit's subject is not the rule-1 subject of $feature #$issue" >&2; return 1; }
  local body
  body="$(git log -1 --format=%B "$c")"
  grep -qx "Swarm-Feature: $feature" <<<"$body" && grep -qx "Swarm-Issue: $issue" <<<"$body" ||
    { echo "the commit lacks the Swarm-Feature/Swarm-Issue trailers" >&2; return 1; }
  if git diff --name-only "$c^" "$c" | grep -E '^(\.swarm|\.github)/' >/dev/null; then
    echo "the commit touches .swarm/ or .github/" >&2
    return 1
  fi
}

git fetch --quiet "$remote" "+refs/heads/$base:refs/remotes/$remote/$base"
if already_landed; then
  echo "already landed: $feature #$issue"
  exit 0
fi
incoming="refs/swarm-incoming/$feature/issue-$issue"
git bundle verify "$bundle" >/dev/null 2>&1 || { echo "$bundle is not a usable git bundle" >&2; exit 1; }
git fetch --quiet "$bundle" "+HEAD:$incoming"
commit="$(git rev-parse "$incoming")"
[ "$(git rev-list --count "$remote/$base..$commit")" = 1 ] ||
  { echo "the bundle must hold exactly one commit on top of $base" >&2; exit 1; }
verify "$commit" "$commit^"

if [ "$mode" = pr ]; then
  git push --quiet --force "$remote" "$commit:refs/heads/swarm/$feature/issue-$issue"
  echo "pushed swarm/$feature/issue-$issue"
  exit 0
fi

for attempt in 1 2 3 4 5 6 7 8; do
  git fetch --quiet "$remote" "+refs/heads/$base:refs/remotes/$remote/$base"
  if already_landed; then echo "already landed: $feature #$issue"; exit 0; fi
  tmp="swarm-apply-$feature-$issue-$$"
  git checkout --quiet -B "$tmp" "$remote/$base"
  if ! out="$(git -c core.hooksPath=/dev/null cherry-pick --allow-empty-message "$commit" 2>&1)"; then
    git cherry-pick --abort >/dev/null 2>&1 || true
    echo "the change of $feature #$issue conflicts with $base: $out" >&2
    exit 1
  fi
  verify HEAD "$remote/$base"
  if git push --quiet "$remote" "HEAD:refs/heads/$base" 2>/dev/null; then
    echo "landed $feature #$issue as $(git rev-parse --short HEAD)"
    exit 0
  fi
  sleep "$attempt"
done
echo "the base branch kept moving; $feature #$issue was not landed" >&2
exit 1
