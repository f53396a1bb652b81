#!/usr/bin/env bash
# The per-issue cost of `run` AT a size, old binary against new, interleaved (issue 19): a
# repository whose feature has N issues DONE (made once by `run` with the old binary, kept
# under --data) gets 100 more issues; each round copies it and times `run` of those 100
# with each binary in turn. Prints each round's times, the medians and the ratio new/old.
#
#   scripts/bench-run-at.sh --old BIN --new BIN [--done 1000] [--more 100] [--rounds 5]
#                           [--data /work/bench-data/runstate]
#
# The agent writes one file, the tests are `true`, one worker (as scripts/bench-run.sh).
set -euo pipefail
OLD="" NEW="" DONE=1000 MORE=100 ROUNDS=5 DATA=/work/bench-data/runstate
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
[ -x "$OLD" ] && [ -x "$NEW" ] || { echo "--old and --new must be executables" >&2; exit 2; }
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
mkdir -p "$DATA"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-run-at.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
AGENT=$DATA/agent.sh
cat >"$AGENT" <<'AGENT'
#!/bin/sh
cat > /dev/null
echo "issue $SWARM_ISSUE" > "work-$SWARM_ISSUE.txt"
AGENT
chmod +x "$AGENT"

issues_json() { # $1: how many issues
  local n
  printf '{"feature_id": "runbench", "issues": ['
  for ((n = 1; n <= $1; n++)); do
    [ "$n" -gt 1 ] && printf ', '
    printf '{"order": %d, "title": "Issue %d"}' "$n" "$n"
  done
  printf ']}\n'
}

TEMPLATE=$DATA/done-$DONE
if [ ! -f "$TEMPLATE/.complete" ]; then
  echo "making $TEMPLATE: $DONE issues DONE (once, with $OLD)..." >&2
  rm -rf "$TEMPLATE"
  git init -q -b main "$TEMPLATE"
  git -C "$TEMPLATE" config user.name bench
  git -C "$TEMPLATE" config user.email bench@example.com
  echo one >"$TEMPLATE/file.txt"
  git -C "$TEMPLATE" add -A
  git -C "$TEMPLATE" commit -q -m "chore: init"
  cat >"$TEMPLATE/config.yaml" <<CONFIG
coordination:
  github_sync_enabled: false
agents:
  - name: writer
    command: ["$AGENT"]
    timeout_seconds: 120
tests:
  command: "true"
CONFIG
  mkdir -p "$TEMPLATE/specs/runbench"
  issues_json "$DONE" >"$TEMPLATE/specs/runbench/issues.json"
  (cd "$TEMPLATE" && "$OLD" -q greenlight runbench >/dev/null && "$OLD" -q run runbench >/dev/null)
  touch "$TEMPLATE/.complete"
fi

# time_one BIN: copies the template, adds $MORE issues, prints the wall ms of `run` and the
# CPU ms (user + system) of its whole process tree (git included)
time_one() {
  local bin=$1 repo=$WORK/repo t0 t1 done_count cpu
  rm -rf "$repo"
  cp -a "$TEMPLATE" "$repo"
  issues_json $((DONE + MORE)) >"$repo/specs/runbench/issues.json"
  (cd "$repo" && "$bin" -q greenlight runbench >/dev/null)
  sync
  t0=$(date +%s%N)
  (cd "$repo" && nice -n 10 /usr/bin/time -f "%U %S" -o "$WORK/cpu" ${BENCH_WRAP:-} "$bin" -q run runbench >/dev/null)
  t1=$(date +%s%N)
  cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' "$WORK/cpu")
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
