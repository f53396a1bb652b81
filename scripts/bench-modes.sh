#!/bin/sh
# Benchmark PARALLEL join `first`: one issue, two agents forced into PARALLEL (an
# `llm.command` answering fixed proposals), the primary sleeping SLOW seconds and the
# runner-up FAST seconds. The wall-clock of `run` should be close to FAST plus
# verification, not SLOW: the first passing candidate lands and the slow one is stopped.
# Also times a SOLO run of the fast agent alone (the same issue and verification), so the
# cost of the second agent is visible.
#
#   scripts/bench-modes.sh [--fast S] [--slow S] [--runs R]
#
# The binary: $SWARM_ATTACK_BIN, else target/debug/swarm-attack under $CARGO_TARGET_DIR
# (or ./target), built with `cargo build` when missing.
set -eu

fast=1
slow=5
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: $0 [--fast S] [--slow S] [--runs R]" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SWARM_ATTACK_BIN:-${CARGO_TARGET_DIR:-$here/target}/debug/swarm-attack}
if [ ! -x "$bin" ]; then
  (cd "$here" && cargo build -q)
fi

now() { date +%s.%N; }

# one timed run; $1 = parallel | solo
bench_once() {
  mode=$1
  tmp=$(mktemp -d)
  repo="$tmp/repo"
  mkdir -p "$repo"
  cd "$repo"
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  git init -q
  git -c user.name=bench -c user.email=bench@x commit -q --allow-empty -m "chore: init"
  git config user.name bench
  git config user.email bench@example.com
  for a in slow fast; do
    if [ "$a" = slow ]; then s=$slow; else s=$fast; fi
    cat > "$tmp/$a.sh" <<AGENT
#!/bin/sh
cat > /dev/null
sleep $s
echo "$a" > "work-$a.txt"
AGENT
    chmod +x "$tmp/$a.sh"
  done
  cat > "$tmp/llm.sh" <<'LLM'
#!/bin/sh
cat > /dev/null
case "$SWARM_PURPOSE/$SWARM_AGENT" in
  proposal/slow) echo '{"angle":"api handlers","confidence":0.9,"covers":["rust"],"solo_sufficient":true,"builds_on_other":false}' ;;
  proposal/fast) echo '{"angle":"database schema","confidence":0.8,"covers":["sql"],"solo_sufficient":true,"builds_on_other":false}' ;;
  *) echo 'Implemented.' ;;
esac
LLM
  chmod +x "$tmp/llm.sh"
  # verification: a test command that takes ~0.2 s
  if [ "$mode" = parallel ]; then
    agents="  - name: slow
    command: [\"$tmp/slow.sh\"]
    timeout_seconds: 120
  - name: fast
    command: [\"$tmp/fast.sh\"]
    timeout_seconds: 120"
  else
    agents="  - name: fast
    command: [\"$tmp/fast.sh\"]
    timeout_seconds: 120"
  fi
  cat > config.yaml <<CONFIG
coordination:
  github_sync_enabled: false
  generate_summaries: false
  proposal_source: llm
  join: first
agents:
$agents
llm:
  command: ["$tmp/llm.sh"]
tests:
  command: "sleep 0.2"
CONFIG
  mkdir -p specs/bench
  echo '{"feature_id": "bench", "issues": [{"order": 1, "title": "Issue 1"}]}' > specs/bench/issues.json
  "$bin" -q greenlight bench > /dev/null
  start=$(now)
  "$bin" -q run bench > /dev/null
  end=$(now)
  if ! grep -q '"stage": "DONE"' .swarm/state/bench.json; then
    echo "$mode: the issue is not DONE" >&2
    exit 1
  fi
  if [ "$mode" = parallel ] && ! grep -q '"mode":"PARALLEL"' .swarm/events/bench.jsonl; then
    echo "$mode: the decision was not PARALLEL" >&2
    exit 1
  fi
  echo "$end $start" | awk '{printf "%.3f", $1 - $2}'
  cd /
  rm -rf "$tmp"
}

best_of() {
  best=""
  i=0
  while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    t=$(bench_once "$1")
    echo "  $1 run $i: ${t} s" >&2
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then
      best=$t
    fi
  done
  echo "$best"
}

par=$(best_of parallel)
solo=$(best_of solo)
awk -v p="$par" -v s="$solo" -v f="$fast" -v sl="$slow" 'BEGIN {
  printf "PARALLEL join first, agents %.1f s and %.1f s: best wall-clock %.3f s\n", f, sl, p;
  printf "SOLO with the %.1f s agent alone (same verification): best %.3f s\n", f, s;
  printf "PARALLEL overhead over SOLO: %.3f s; saved against the slow agent: %.3f s\n", p - s, sl - p;
  exit (p < sl) ? 0 : 1
}'
