#!/usr/bin/env bash
# Runs every benchmark of issues 19 and 32 ("Performance at scale") once, in the order of the table
# in docs/performance.md, each script's output to its own log:
#
#   scripts/bench-scale.sh [LOG_DIR]        (default ./bench-scale-logs)
#
# The scripts reuse their generated data under /work/bench-data (see each script's header)
# and the release binary under $CARGO_TARGET_DIR (or ./target; build it first with
# `cargo build --release`). Run it on a quiet machine, twice, and read the last lines of
# each log: every script prints its own ratio to its anchor and the goal.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOGS=${1:-$PWD/bench-scale-logs}
mkdir -p "$LOGS"
cd "$ROOT"
stamp() { printf '%s %s\n' "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
step() { # $1: log name, then the command
  local name=$1
  shift
  echo "$(stamp) $name: $*" | tee -a "$LOGS/steps.log"
  "$@" >"$LOGS/$name.log" 2>&1
}
# the 200k rows include warm `status` (text and --json) on our state and on the original
# tool's 2,000-task state (goal <= 20 ms each)
step sync200k scripts/bench-sync.sh 200000 1500 5
step sync1m scripts/bench-sync.sh 1000000 1500 3
step status env SKIP_BUILD=1 scripts/bench-status.sh 2000 20000
step events env SKIP_BUILD=1 RUNS=5 PARTS="issue table" scripts/bench-events.sh 1000000 137 /work/bench-data/events
# `audit` and `audit --json` over the 1M-line log: time and max RSS (goal <= 64 MB)
step audit env SKIP_BUILD=1 RUNS=5 PARTS=audit scripts/bench-events.sh 1000000 137 /work/bench-data/events
step runsizes scripts/bench-run.sh --parts sizes --sizes "1 100 500 1000" --runs 1
step runratios scripts/bench-run.sh --parts "history wide" --runs 3
step clone scripts/bench-clone.sh 200000 1500 3
echo "$(stamp) done" | tee -a "$LOGS/steps.log"
for f in sync200k sync1m status events audit runsizes runratios clone; do
  echo "== $f"
  tail -n 8 "$LOGS/$f.log"
done
