#!/usr/bin/env bash
# The per-issue cost of `run` AT a size, old binary against new, interleaved (issue 19): a
# repository whose feature has N issues DONE (made once by `run` with the old binary, kept
# under --data) gets 100 more issues; each round copies it and times `run` of those 100
# with each binary in turn. Prints each round's times, the medians and the ratio new/old.
#
#   scripts/bench-run-at.sh --old BIN --new BIN [--done 1000] [--more 100] [--rounds 5]
#                           [--data /work/bench-data/runstate]
#
# BENCH_PERF=1: the CPU figures are swarm-attack's own (perf record samples of the processes
# named like the binary), not the whole tree's. The agent writes one file, the tests are `true`, one worker (as scripts/bench-run.sh, whose
# one-file template /work/bench-data/run/small the repository starts from).
set -euo pipefail
OLD="" NEW="" DONE=1000 MORE=100 ROUNDS=5 DATA=/work/bench-data/runstate RUN_DATA=/work/bench-data/run
while [ $# -gt 0 ]; do
  case "$1" in
    --old) OLD=$2; shift 2 ;;
    --new) NEW=$2; shift 2 ;;
    --done) DONE=$2; shift 2 ;;
    --more) MORE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    *) echo "usage: $0 --old BIN --new BIN [--done N] [--more N] [--rounds R] [--data DIR]" >&2; exit 2 ;;
  esac
done
if [ ! -x "$OLD" ] || [ ! -x "$NEW" ] || [ ! -f "$RUN_DATA/small/.complete" ]; then
  echo "need --old and --new binaries and $RUN_DATA/small (run scripts/bench-run.sh once)" >&2
  exit 2
fi
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
mkdir -p "$DATA"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-run-at.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run-lib.sh
. "$ROOT/scripts/bench-run-lib.sh"
AGENT=$DATA/agent.sh
bench_agent "$AGENT"

TEMPLATE=$DATA/done-$DONE
if [ ! -f "$TEMPLATE/.complete" ]; then
  echo "making $TEMPLATE: $DONE issues DONE (once, with $OLD)..." >&2
  bench_prepare "$RUN_DATA/small" "$DONE" "$TEMPLATE" "$OLD" "$AGENT"
  (cd "$TEMPLATE" && "$OLD" -q run runbench >/dev/null)
  touch "$TEMPLATE/.complete"
fi

# time_one BIN: copies the template, adds $MORE issues, prints the wall ms of `run` and the
# CPU ms (user + system) of its whole process tree (git included)
time_one() {
  local bin=$1 repo=$WORK/repo t0 t1 done_count cpu
  rm -rf "$repo"
  cp -a "$TEMPLATE" "$repo"
  bench_issues_json $((DONE + MORE)) >"$repo/specs/runbench/issues.json"
  (cd "$repo" && "$bin" -q greenlight runbench >/dev/null)
  sync
  t0=$(date +%s%N)
  local wrap=()
  [ -n "${BENCH_PERF:-}" ] && wrap=(perf record -F 999 -q -o "$WORK/perf.data" --)
  (cd "$repo" && nice -n 10 /usr/bin/time -f "%U %S" -o "$WORK/cpu" "${wrap[@]}" "$bin" -q run runbench >/dev/null 2>&1)
  t1=$(date +%s%N)
  cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' "$WORK/cpu")
  if [ -n "${BENCH_PERF:-}" ]; then
    # samples at 999 Hz of the processes named like the binary (swarm-attack itself and
    # its supervisors; not git, the agent or the tests) ~ its own CPU ms
    local comm
    comm=$(basename "$bin" | cut -c1-15)
    cpu=$(perf report -i "$WORK/perf.data" --sort comm -F sample,comm --stdio -q -g none 2>/dev/null |
      awk -v c="$comm" '$2 == c {print $1}')
  fi
  done_count=$(grep -c '"stage": "DONE"' "$repo/.swarm/state/runbench.json" || true)
  if [ "$done_count" -ne $((DONE + MORE)) ]; then
    echo "only $done_count of $((DONE + MORE)) issues DONE" >&2
    exit 1
  fi
  echo "$(((t1 - t0) / 1000000)) $cpu"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
olds="" news="" oldc="" newc=""
for ((r = 0; r < ROUNDS; r++)); do
  read -r o oc < <(time_one "$OLD"); read -r n nc < <(time_one "$NEW")
  olds="$olds $o"; news="$news $n"; oldc="$oldc $oc"; newc="$newc $nc"
  echo "  round $((r + 1)): old $o ms (CPU $oc ms), new $n ms (CPU $nc ms)"
done
[ "$ROUNDS" -gt 0 ] || exit 0
mo=$(echo "$olds" | median); mn=$(echo "$news" | median)
co=$(echo "$oldc" | median); cn=$(echo "$newc" | median)
awk -v o="$mo" -v n="$mn" -v co="$co" -v cn="$cn" -v m="$MORE" -v d="$DONE" 'BEGIN {
  printf "at %d DONE, %d more issues, per issue: wall old %.1f ms, new %.1f ms (new/old %.2f); CPU old %.1f ms, new %.1f ms (new/old %.2f)\n",
    d, m, o / m, n / m, n / o, co / m, cn / m, cn / co }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
