#!/usr/bin/env bash
# Benchmarks the git-history sync against `git log` on a large generated repository.
#
#   scripts/bench-sync.sh [COMMITS] [ISSUES]     (defaults 200000 and 1500)
#
# Builds a repository with COMMITS commits using `git fast-import` (one small file change
# per commit, varied messages full of `#123` mentions, one implementing commit in 50 for
# ISSUES issues, a few reverts), builds the release binary, then times (best of 3):
#   git      git log --format=%H%x00%B HEAD >/dev/null
#   cold     swarm-attack status bench --json  with .swarm/cache removed and the state as
#            greenlight left it before any sync (full scan, every issue found DONE, a
#            semantic summary made for each: default config)
#   warm     swarm-attack status bench --json  again (nothing new)
#   ordered  the same after one new commit dated now
#   skewed   the same after one new commit dated before 99 % of the history (clock skew,
#            an imported or rebased commit): the anchor is `ordered`
# and prints `cold/git=<r> warm_ms=<n> skewed_ms=<n> skewed/ordered=<r>` (plus the raw
# figures). Set BENCH_KEEP=1 to keep the repository (its path is printed), BENCH_GRAPH=1
# to also write a commit-graph first.
set -euo pipefail

COMMITS=${1:-200000}
ISSUES=${2:-1500}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/swarm-attack
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-sync.XXXXXX")
REPO=$WORK/repo
if [ -z "${BENCH_KEEP:-}" ]; then trap 'rm -rf "$WORK"' EXIT; fi
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1

echo "building the release binary..." >&2
(cd "$ROOT" && cargo build --release --quiet)

echo "generating $COMMITS commits in $REPO..." >&2
git init -q -b main "$REPO"
awk -v n="$COMMITS" -v issues="$ISSUES" 'BEGIN {
  srand(42);
  split("chore fix refactor docs test perf style build", kinds, " ");
  for (i = 1; i <= n; i++) {
    k = kinds[(i % 8) + 1];
    if (i % 50 == 0) {
      k = (i / 50 - 1) % issues + 1;
      msg = sprintf("feat(bench): Implement issue #%d (#%d)\n\nAdds the piece of issue %d.\n", k, i + 5000, k);
    } else if (i % 4999 == 0) {
      hex = "";
      for (h = 0; h < 40; h++) hex = hex substr("0123456789abcdef", int(rand() * 16) + 1, 1);
      msg = sprintf("Revert \"%s: change %d\"\n\nThis reverts commit %s.\n", k, i - 1, hex);
    } else if (i % 7 == 0) {
      msg = sprintf("%s(mod%d): change %d, see #%d\n\nA longer explanation of change %d that spans\na couple of lines, mentions feat(bench) and Ref #%d.\n\nSigned-off-by: Dev %d <dev%d@example.com>\n", k, i % 50, i, i % 300, i, i % 300, i % 13, i % 13);
    } else {
      msg = sprintf("%s: change %d in module %d\n\nBody line for change %d.\n", k, i, i % 50, i);
    }
    printf "commit refs/heads/main\nmark :%d\n", i;
    printf "author Dev <dev@example.com> %d +0000\n", 1600000000 + i * 60;
    printf "committer Dev <dev@example.com> %d +0000\n", 1600000000 + i * 60;
    printf "data %d\n%s\n", length(msg), msg;
    if (i > 1) printf "from :%d\n", i - 1;
    content = sprintf("value %d\n", i);
    if (i % 50 == 0) printf "M 644 inline src/issue%d.rs\ndata %d\n%s\n", k, length(content), content;
    else printf "M 644 inline src/f%d.txt\ndata %d\n%s\n", i % 100, length(content), content;
  }
}' | git -C "$REPO" fast-import --quiet
git -C "$REPO" checkout -q -f main
if [ -n "${BENCH_GRAPH:-}" ]; then git -C "$REPO" commit-graph write --reachable; fi

mkdir -p "$REPO/specs/bench"
{
  printf '{"feature_id": "bench", "issues": ['
  for i in $(seq 1 "$ISSUES"); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"order": %d, "title": "issue %d"}' "$i" "$i"
  done
  printf ']}\n'
} >"$REPO/specs/bench/issues.json"
# the state as greenlight leaves it before any sync (restored before each cold run)
printf 'coordination:\n  auto_sync_from_git: false\n' >"$REPO/config.yaml"
(cd "$REPO" && "$BIN" -q greenlight bench >/dev/null)
rm "$REPO/config.yaml"
cp "$REPO/.swarm/state/bench.json" "$WORK/state0.json"

now_ns() { date +%s%N; }
best_of_3() { # prints the best wall time in ms of the command "$@"
  local best="" t0 t1 ms
  for _ in 1 2 3; do
    [ -n "${BEFORE:-}" ] && eval "$BEFORE"
    t0=$(now_ns); "$@" >/dev/null; t1=$(now_ns)
    ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}

cd "$REPO"
git_ms=$(BEFORE="" best_of_3 git log --format=%H%x00%B HEAD)
cold_ms=$(BEFORE="rm -rf .swarm/cache; cp $WORK/state0.json .swarm/state/bench.json" best_of_3 "$BIN" -q status bench --json)
done_count=$("$BIN" status bench --json | grep -c '"stage": "DONE"' || true)
summaries=$(grep -c '"completion_summary": "' .swarm/state/bench.json || true)
warm_ms=$(BEFORE="" best_of_3 "$BIN" -q status bench --json)
# one new commit per run: dated now (the anchor), or before 99 % of the history
new_commit() { # $1: the commit date (seconds)
  GIT_AUTHOR_DATE="@$1 +0000" GIT_COMMITTER_DATE="@$1 +0000" \
    git -c user.name=B -c user.email=b@example.com commit -q --allow-empty -m "chore: new $RANDOM"
}
ordered_ms=$(BEFORE="new_commit $(date +%s)" best_of_3 "$BIN" -q status bench --json)
skewed_ms=$(BEFORE="new_commit $((1600000000 + COMMITS * 60 / 100))" best_of_3 "$BIN" -q status bench --json)
scanned=$("$BIN" events bench --event git_sync --json | tail -1 | sed 's/.*"commits_scanned":\([0-9]*\).*/\1/')

echo "commits=$COMMITS git_ms=$git_ms cold_ms=$cold_ms warm_ms=$warm_ms ordered_ms=$ordered_ms skewed_ms=$skewed_ms done=$done_count summaries=$summaries last_scanned=$scanned" >&2
awk -v c="$cold_ms" -v g="$git_ms" -v w="$warm_ms" -v s="$skewed_ms" -v o="$ordered_ms" 'BEGIN {
  printf "cold/git=%.2f warm_ms=%d skewed_ms=%d skewed/ordered=%.2f\n", c / (g > 0 ? g : 1), w, s, s / (o > 0 ? o : 1) }'
if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $REPO" >&2; fi
