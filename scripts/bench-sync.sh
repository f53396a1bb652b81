#!/usr/bin/env bash
# Benchmarks the git-history sync against `git log` on a large generated repository.
#
#   scripts/bench-sync.sh [COMMITS]        (default 200000)
#
# Builds a repository with COMMITS commits using `git fast-import` (one small file change
# per commit, varied messages, one implementing commit every ~1000, a few reverts), builds
# the release binary, then times (best of 3):
#   git      git log --format=%H%x00%B HEAD >/dev/null
#   cold     swarm-attack status bench   with .swarm/cache removed (full scan)
#   warm     swarm-attack status bench   again (nothing new)
# and prints `cold/git=<ratio> warm_ms=<n>` (plus the raw figures). Set BENCH_KEEP=1 to keep
# the repository (its path is printed), BENCH_GRAPH=1 to also write a commit-graph first.
set -euo pipefail

COMMITS=${1:-200000}
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
awk -v n="$COMMITS" 'BEGIN {
  srand(42);
  split("chore fix refactor docs test perf style build", kinds, " ");
  for (i = 1; i <= n; i++) {
    k = kinds[(i % 8) + 1];
    if (i % 997 == 0 && i / 997 <= 200) {
      msg = sprintf("feat(bench): Implement issue #%d (#%d)\n\nAdds the piece of issue %d.\n", i / 997, i + 5000, i / 997);
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
    printf "M 644 inline src/f%d.txt\ndata %d\n%s\n", i % 100, length(content), content;
  }
}' | git -C "$REPO" fast-import --quiet
git -C "$REPO" checkout -q -f main
if [ -n "${BENCH_GRAPH:-}" ]; then git -C "$REPO" commit-graph write --reachable; fi

mkdir -p "$REPO/specs/bench"
{
  printf '{"feature_id": "bench", "issues": ['
  for i in $(seq 1 200); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"order": %d, "title": "issue %d"}' "$i" "$i"
  done
  printf ']}\n'
} >"$REPO/specs/bench/issues.json"
(cd "$REPO" && "$BIN" -q greenlight bench >/dev/null)

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
cold_ms=$(BEFORE="rm -rf .swarm/cache" best_of_3 "$BIN" -q status bench)
"$BIN" -q status bench >/dev/null
warm_ms=$(BEFORE="" best_of_3 "$BIN" -q status bench)
done_count=$("$BIN" status bench --json | grep -c '"stage": "DONE"' || true)

echo "commits=$COMMITS git_ms=$git_ms cold_ms=$cold_ms warm_ms=$warm_ms done=$done_count" >&2
awk -v c="$cold_ms" -v g="$git_ms" -v w="$warm_ms" 'BEGIN { printf "cold/git=%.2f warm_ms=%d\n", c / (g > 0 ? g : 1), w }'
if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $REPO" >&2; fi
