#!/usr/bin/env bash
# Same-run A/B of `run`'s per-issue cost for two builds (issue 19): N independent issues,
# an agent that writes one file, tests `true`, one worker (as scripts/bench-run.sh), the
# two binaries interleaved round by round. Prints, per binary, the median wall time and CPU
# time (task-clock of the whole process tree, `perf stat`) per issue, and new/old ratios.
#
#   scripts/bench-run-ab.sh --old BIN --new BIN [--issues 100] [--rounds 3]
#                           [--data /work/bench-data/run]
#
# Uses the one-file template $DATA/small of scripts/bench-run.sh (made there). BENCH_STRACE=1
# also prints the processes each binary starts per issue (one more run each, under strace).
set -euo pipefail

ISSUES=100
ROUNDS=3
DATA=/work/bench-data/run
OLD=""
NEW=""
while [ $# -gt 0 ]; do
  case "$1" in
    --old) OLD=$2; shift 2 ;;
    --new) NEW=$2; shift 2 ;;
    --issues) ISSUES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    *) echo "usage: $0 --old BIN --new BIN [--issues N] [--rounds R] [--data DIR]" >&2; exit 2 ;;
  esac
done
if [ ! -x "$OLD" ] || [ ! -x "$NEW" ] || [ ! -f "$DATA/small/.complete" ]; then
  echo "need --old and --new binaries and $DATA/small (run scripts/bench-run.sh once)" >&2
  exit 2
fi
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-run-ab.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run-lib.sh
. "$ROOT/scripts/bench-run-lib.sh"
bench_agent "$WORK/agent.sh"
prepare() { bench_prepare "$DATA/small" "$ISSUES" "$WORK/repo" "$1" "$WORK/agent.sh"; }

measure() { # BIN: prints "wall_ms cpu_ms" of one run; checks every issue is DONE
  local bin=$1 t0 t1 cpu done_count
  prepare "$bin"
  t0=$(date +%s%N)
  (cd "$WORK/repo" && perf stat -x, -e task-clock -o "$WORK/stat" nice -n 10 "$bin" -q run runbench >/dev/null)
  t1=$(date +%s%N)
  done_count=$(grep -c '"stage": "DONE"' "$WORK/repo/.swarm/state/runbench.json" || true)
  [ "$done_count" -eq "$ISSUES" ] || { echo "only $done_count of $ISSUES issues DONE" >&2; exit 1; }
  cpu=$(grep task-clock "$WORK/stat" | cut -d, -f1)
  echo "$(((t1 - t0) / 1000000)) ${cpu%.*}"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $ISSUES issues, $ROUNDS rounds interleaved"
ow="" oc="" nw="" nc=""
for ((r = 0; r < ROUNDS; r++)); do
  read -r w c < <(measure "$OLD"); ow="$ow $w"; oc="$oc $c"
  read -r w c < <(measure "$NEW"); nw="$nw $w"; nc="$nc $c"
  echo "  round $((r + 1)): old ${ow##* } ms wall ${oc##* } ms cpu, new $w ms wall $c ms cpu (load $(cut -d' ' -f1 /proc/loadavg))"
done
awk -v n="$ISSUES" -v ow="$(echo "$ow" | median)" -v oc="$(echo "$oc" | median)" \
  -v nw="$(echo "$nw" | median)" -v nc="$(echo "$nc" | median)" 'BEGIN {
  printf "old: %.1f ms wall, %.1f ms cpu per issue\n", ow / n, oc / n
  printf "new: %.1f ms wall, %.1f ms cpu per issue\n", nw / n, nc / n
  printf "new/old: wall x%.2f, cpu x%.2f\n", nw / ow, nc / oc }'
if [ -n "${BENCH_STRACE:-}" ]; then
  for bin in "$OLD" "$NEW"; do
    prepare "$bin"
    (cd "$WORK/repo" && strace -f -qq -z -e trace=execve -o "$WORK/trace" "$bin" -q run runbench >/dev/null)
    awk -v n="$ISSUES" -v b="$bin" '/execve\(/ {a++} /execve\("[^"]*\/git"/ {g++}
      END {printf "%s: %.1f processes per issue (git %.1f)\n", b, a / n, g / n}' "$WORK/trace"
  done
fi
