#!/usr/bin/env bash
# Generates a large git history for the sync benchmarks with `git fast-import`.
#
#   scripts/gen-history.sh DIR COMMITS ISSUES [--skewed-tip]
#
# Creates the repository DIR (refuses an existing one) with COMMITS commits on `main`, one
# a minute from 2020-09-13: one small file change per commit (folders of at most 100
# files, so every commit writes small trees); one commit in 50 a rule-1
# commit `feat(bench): Implement issue #k (#n)` for issues k = 1..ISSUES in turn (so every
# issue is found DONE once COMMITS >= 50 * ISSUES); a revert of a noise commit every 4,999;
# the rest noise of varied shape full of `#123` mentions (subjects `fix(mod7): change 7,
# see #7`, bodies with `Ref #n` and trailers). With --skewed-tip, a last commit is added
# whose author and committer dates are before 99 % of the history (clock skew, an imported
# or rebased commit): the newest commit of `main` is then dated before most of it.
# 1,000,000 commits take about a minute and 200 MB on a quiet machine.
set -euo pipefail

DIR=${1:?usage: gen-history.sh DIR COMMITS ISSUES [--skewed-tip]}
COMMITS=${2:?COMMITS}
ISSUES=${3:?ISSUES}
SKEWED=${4:-}
if [ -e "$DIR" ]; then
  echo "gen-history.sh: $DIR already exists; remove it or choose another path" >&2
  exit 2
fi
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

git init -q -b main "$DIR"
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
    if (i % 50 == 0) printf "M 644 inline src/i%d/issue%d.rs\ndata %d\n%s\n", int(k / 100), k, length(content), content;
    else printf "M 644 inline src/f%d.txt\ndata %d\n%s\n", i % 100, length(content), content;
  }
}' | git -C "$DIR" fast-import --quiet
git -C "$DIR" checkout -q -f main
if [ "$SKEWED" = "--skewed-tip" ]; then
  when=$((1600000000 + COMMITS * 60 / 100))
  GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
    git -C "$DIR" -c user.name=B -c user.email=b@example.com \
    commit -q --allow-empty -m "chore: imported change dated before most of the history"
fi
