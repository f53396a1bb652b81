#!/bin/sh
# Benchmark `run --workers`: N independent issues, an agent that sleeps S seconds, W workers.
# Prints the makespan against the ideal bound max(critical path, total work / W) and the
# ratio (target <= 1.3x, goal <= 1.05x).
#
#   scripts/bench-workers.sh [--issues N] [--sleep S] [--workers W] [--runs R]
#
# The binary: $SWARM_ATTACK_BIN, else target/debug/swarm-attack under $CARGO_TARGET_DIR
# (or ./target), built with `cargo build` when missing.
set -eu

issues=4
sleep_s=2
workers=2
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --issues) issues=$2; shift 2 ;;
    --sleep) sleep_s=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: $0 [--issues N] [--sleep S] [--workers W] [--runs R]" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SWARM_ATTACK_BIN:-${CARGO_TARGET_DIR:-$here/target}/debug/swarm-attack}
if [ ! -x "$bin" ]; then
  (cd "$here" && cargo build -q)
fi

now() { date +%s.%N; }

best=""
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  tmp=$(mktemp -d)
  repo="$tmp/repo"
  mkdir -p "$repo"
  cd "$repo"
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  git init -q
  git -c user.name=bench -c user.email=bench@x commit -q --allow-empty -m "chore: init"
  git config user.name bench
  git config user.email bench@example.com
  cat > "$tmp/agent.sh" <<AGENT
#!/bin/sh
cat > /dev/null
sleep $sleep_s
echo "issue \$SWARM_ISSUE" > "work-\$SWARM_ISSUE.txt"
AGENT
  chmod +x "$tmp/agent.sh"
  cat > config.yaml <<CONFIG
coordination:
  github_sync_enabled: false
agents:
  - name: sleeper
    command: ["$tmp/agent.sh"]
    timeout_seconds: 120
tests:
  command: "true"
CONFIG
  mkdir -p specs/bench
  {
    printf '{"feature_id": "bench", "issues": ['
    n=1
    while [ "$n" -le "$issues" ]; do
      [ "$n" -gt 1 ] && printf ', '
      printf '{"order": %d, "title": "Issue %d"}' "$n" "$n"
      n=$((n + 1))
    done
    printf ']}\n'
  } > specs/bench/issues.json
  "$bin" -q greenlight bench > /dev/null
  start=$(now)
  "$bin" -q run bench --workers "$workers" > /dev/null
  end=$(now)
  done_count=$(grep -c '"stage": "DONE"' .swarm/state/bench.json || true)
  if [ "$done_count" -ne "$issues" ]; then
    echo "run $i: only $done_count of $issues issues DONE" >&2
    exit 1
  fi
  makespan=$(echo "$end $start" | awk '{printf "%.3f", $1 - $2}')
  echo "run $i: makespan ${makespan} s"
  if [ -z "$best" ] || awk -v a="$makespan" -v b="$best" 'BEGIN{exit !(a < b)}'; then
    best=$makespan
  fi
  cd /
  rm -rf "$tmp" 2>/dev/null || { sleep 1; ls -laR "$tmp" | head -30; rm -rf "$tmp"; }
done

awk -v n="$issues" -v s="$sleep_s" -v w="$workers" -v m="$best" 'BEGIN {
  total = n * s; crit = s; per = total / w;
  bound = (crit > per) ? crit : per;
  printf "issues %d, agent %.1f s, workers %d\n", n, s, w;
  printf "bound max(critical path %.1f s, total %.1f s / %d = %.1f s) = %.1f s\n", crit, total, w, per, bound;
  printf "best makespan %.3f s, ratio %.3fx (target <= 1.3x, goal <= 1.05x)\n", m, m / bound;
  exit (m / bound <= 1.3) ? 0 : 1
}'
