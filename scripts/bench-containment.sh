#!/bin/sh
# Benchmark process containment (docs/run.md "Process containment"): an agent starts processes that leave its
# process group and session (`setsid`, twice nested), a daemon (new session, its parent gone
# at once) and a grandchild, every one with a
# unique marker in its argv, then hangs. Each scenario stops it in one way and counts the
# marked processes still alive, and how long after the trigger the last one was gone:
#
#   timeout   the agent's 1 s timeout           (trigger: the timeout expires)
#   sigint    Ctrl-C: SIGINT to `run`           (trigger: the signal)
#   sigkill   SIGKILL to `run` alone            (trigger: the signal)
#   parallel  PARALLEL join first stops it      (trigger: `run` ends)
#
#   scripts/bench-containment.sh [--trials N] [scenario...]
#
# The binary: $SWARM_ATTACK_BIN, else target/debug/swarm-attack under $CARGO_TARGET_DIR
# (or ./target), built with `cargo build` when missing. Exit 1 when any process survived.
# With SWARM_ATTACK_CONTAIN=group the binary uses the process-group fallback instead of its
# supervisor (for comparison).
set -eu

trials=20
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials=$2; shift 2 ;;
    -*) echo "usage: $0 [--trials N] [timeout|sigint|sigkill|parallel...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
scenarios=${*:-timeout sigint sigkill parallel}

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SWARM_ATTACK_BIN:-${CARGO_TARGET_DIR:-$here/target}/debug/swarm-attack}
if [ ! -x "$bin" ]; then
  (cd "$here" && cargo build -q)
fi
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# marked processes alive (zombies excluded)
count() { n=0; for p in $(pgrep -f "$1" || true); do
  st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1) || continue
  [ "$st" = Z ] || [ -z "$st" ] || n=$((n + 1)); done; echo "$n"; }
wait_file() { i=0; while [ ! -e "$1" ]; do i=$((i + 1)); [ $i -lt 2000 ] || return 1; sleep 0.01; done; }

# one trial; prints "<survivors> <ms from trigger until none left>"
trial() {
  scen=$1
  tmp=$(mktemp -d)
  mark="0.00$$$(date +%N)"
  mkdir -p "$tmp/repo" && cd "$tmp/repo"
  git init -q && git -c user.name=b -c user.email=b@x commit -q --allow-empty -m "chore: init"
  git config user.name b && git config user.email b@example.com
  cat > "$tmp/hang.sh" <<AGENT
#!/bin/sh
cat > /dev/null
setsid sleep 300 $mark &
setsid sh -c 'setsid sleep 300 $mark & sleep 300 $mark' &
setsid sh -c 'sleep 300 $mark &'
sh -c 'sleep 300 $mark & wait' &
touch "$tmp/started"
sleep 300 $mark
AGENT
  cat > "$tmp/good.sh" <<'AGENT'
#!/bin/sh
cat > /dev/null
sleep 0.3
echo done > done.txt
AGENT
  cat > "$tmp/llm.sh" <<'LLM'
#!/bin/sh
cat > /dev/null
case "$SWARM_PURPOSE/$SWARM_AGENT" in
  proposal/hang) echo '{"angle":"api handlers","confidence":0.9,"covers":["rust"],"solo_sufficient":true,"builds_on_other":false}' ;;
  proposal/good) echo '{"angle":"database schema","confidence":0.8,"covers":["sql"],"solo_sufficient":true,"builds_on_other":false}' ;;
  *) echo 'Implemented.' ;;
esac
LLM
  chmod +x "$tmp"/*.sh
  tmo=120; [ "$scen" = timeout ] && tmo=1
  agents="  - name: hang
    command: [\"$tmp/hang.sh\"]
    timeout_seconds: $tmo"
  [ "$scen" = parallel ] && agents="$agents
  - name: good
    command: [\"$tmp/good.sh\"]
    timeout_seconds: 120"
  cat > config.yaml <<CONFIG
coordination:
  github_sync_enabled: false
  generate_summaries: false
  proposal_source: llm
sessions:
  max_implementation_retries: 0
agents:
$agents
llm:
  command: ["$tmp/llm.sh"]
tests:
  command: "true"
CONFIG
  mkdir -p specs/ff
  echo '{"feature_id": "ff", "issues": [{"order": 1, "title": "Issue 1"}]}' > specs/ff/issues.json
  "$bin" -q greenlight ff > /dev/null
  "$bin" -q run ff > /dev/null 2>&1 &
  run=$!
  case $scen in
    timeout|parallel)
      wait "$run" 2>/dev/null || true
      t0=$(now_ms) ;;
    sigint)
      wait_file "$tmp/started"; t0=$(now_ms); kill -INT "$run"; wait "$run" 2>/dev/null || true ;;
    sigkill)
      wait_file "$tmp/started"; t0=$(now_ms); kill -KILL "$run"; wait "$run" 2>/dev/null || true ;;
  esac
  [ -e "$tmp/started" ] || { echo "$scen: the agent never started" >&2; exit 1; }
  [ -z "${BENCH_DEBUG:-}" ] || ps -eo pid,ppid,pgid,sid,stat,args | grep "$mark" | grep -v grep >&2 || true
  # poll up to 2 s for the last marked process to go
  i=0
  while [ "$(count "$mark")" -gt 0 ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.01; done
  t1=$(now_ms)
  left=$(count "$mark")
  pkill -KILL -f "$mark" 2>/dev/null || true
  cd / && rm -rf "$tmp"
  echo "$left $((t1 - t0))"
}

bad=0
for scen in $scenarios; do
  results=""
  n=0
  while [ $n -lt "$trials" ]; do
    n=$((n + 1))
    results="$results
$(trial "$scen")"
  done
  echo "$results" | awk 'NF == 2' | sort -n -k2 | awk -v s="$scen" -v n="$trials" '{
      left += $1; ms[++k] = $2; sum += $2
    } END {
      med = ms[int((k + 1) / 2)];
      printf "%-8s %d trials: %d survivors; cleaned up %d ms after the trigger (median), %d ms max, %.0f ms mean\n", s, n, left, med, ms[k], sum / k;
      exit left > 0
    }' || bad=1
done
exit $bad
