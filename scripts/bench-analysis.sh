#!/usr/bin/env bash
# Measures the failure analysis (docs/run.md "After a failure: classes, analysis, fallback") and the fallback chains (docs/run.md "After a failure: classes, analysis, fallback") with script
# agents, against plain retries and against waiting.
#
# 1. N issues (default 20) whose first approach fails deterministically; a plain retry
#    stumbles on the working approach only by chance (1 in 4 per retry, fixed by issue and
#    attempt), an analysed `modify` names it. Prints attempts, issues DONE and agent cost
#    to the end for plain retries (no analyst) and with the analyst, and the ratio.
#    Goal: >= 30 % fewer attempts with analysis + modify.
# 2. An agent whose API answers 429 "retry after 600 s" on every call: the time to DONE
#    with a fallback agent vs the wait the governor decides without one.
#    Goal: <= governor.fallback_after_seconds + one attempt.
#
# Usage: scripts/bench-analysis.sh BINARY [N]
set -euo pipefail

bin="$(realpath "${1:?usage: bench-analysis.sh BINARY [N]}")"
n="${2:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/runner.sh" <<'EOF'
#!/bin/sh
p=0; f=0
for t in $(ls checks/*.sh 2>/dev/null); do
  if sh "$t"; then p=$((p + 1)); else f=$((f + 1)); echo "FAILED: $t"; fi
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
EOF

# approach A fails; approach B (named by a modified approach, or found by chance on a retry)
cat > "$work/agent.sh" <<'EOF'
#!/bin/sh
prompt=$(cat)
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE attempt $SWARM_ATTEMPT" > "src/$SWARM_ISSUE.txt"
h=$(( (SWARM_ISSUE * 7 + SWARM_ATTEMPT * 13) % 4 ))
if printf '%s' "$prompt" | grep -q 'use approach B' || { [ "$SWARM_ATTEMPT" -gt 1 ] && [ "$h" -eq 0 ]; }; then
  echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
else
  echo "echo 'assertion failed: approach A cannot parse input $SWARM_ISSUE'; exit 1" > "checks/t_$SWARM_ISSUE.sh"
fi
echo '{"result": "ok", "total_cost_usd": 0.10}'
EOF

# the analyst quotes the failing line and names approach B
cat > "$work/analyst.sh" <<'EOF'
#!/bin/sh
prompt=$(cat)
if [ "$SWARM_PURPOSE" != failure-analysis ]; then echo "Implemented the issue."; exit 0; fi
echo x >> "$TRACE/analyst.log"
line=$(printf '%s\n' "$prompt" | grep -m1 '^ *assertion failed: approach A' | sed 's/^ *//; s/ *$//')
printf '{"diagnosis": "implementation_bug", "recommendation": "modify", "modified_approach": "use approach B: parse with the streaming reader", "reason": "approach A cannot parse the input", "evidence": ["%s"]}\n' "$line"
EOF

cat > "$work/good.sh" <<'EOF'
#!/bin/sh
cat > /dev/null
echo "good $SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
EOF

# always rate-limited (Claude's 429 result, 600 s asked)
cat > "$work/limited.sh" <<'EOF'
#!/bin/sh
cat > /dev/null
echo "limited $SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"rate limited, retry after 600 s\"}}","total_cost_usd":0,"api_error_status":429}'
exit 1
EOF
chmod +x "$work"/*.sh

# setup DIR ISSUES CONFIG_TAIL
setup() {
  local dir="$1" count="$2" tail="$3"
  mkdir -p "$dir/trace"
  git -C "$dir" init -q -b main
  git -C "$dir" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
  python3 - "$dir" "$count" <<'EOF'
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{d}/specs/bench", exist_ok=True)
json.dump({"issues": [{"order": i, "title": f"Issue {i}"} for i in range(1, n + 1)]},
          open(f"{d}/specs/bench/issues.json", "w"))
EOF
  printf 'coordination:\n  github_sync_enabled: false\n  thresholds: {high_confidence: 1.0, synthesis_confidence: 1.0}\ntests:\n  command: "sh %s"\n  timeout_seconds: 30\n%s' "$work/runner.sh" "$tail" > "$dir/config.yaml"
  (cd "$dir" && GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b "$bin" -q greenlight bench >/dev/null)
}

# run DIR → prints "attempts done cost"
run() {
  local dir="$1"
  (cd "$dir" && TRACE="$dir/trace" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b "$bin" -q run bench >/dev/null 2>&1 || true)
  local attempts done cost
  attempts=$(wc -l < "$dir/trace/calls.log")
  done=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(sum(t['stage']=='DONE' for t in s['tasks']))" "$dir/.swarm/state/bench.json")
  cost=$(python3 -c "print(f'{$attempts * 0.10:.2f}')")
  echo "$attempts $done $cost"
}

agents="agents:\n  - name: coder\n    command: [\"$work/agent.sh\"]\n"
plain="$(printf "$agents")
sessions:
  max_implementation_retries: 5
"
analysed="$plain
llm:
  command: [\"$work/analyst.sh\"]
"
setup "$work/plain" "$n" "$plain"
setup "$work/analysed" "$n" "$analysed"
read -r pa pd pc <<< "$(run "$work/plain")"
read -r aa ad ac <<< "$(run "$work/analysed")"
asks=$(wc -l < "$work/analysed/trace/analyst.log" 2>/dev/null || echo 0)
echo "plain retries:        $pa attempts, $pd/$n DONE, agent cost \$$pc"
echo "analysis + modify:    $aa attempts, $ad/$n DONE, agent cost \$$ac (+ $asks analyst calls)"
python3 -c "print(f'attempts ratio analysed/plain: {$aa/$pa:.2f} ({(1-$aa/$pa)*100:.0f} % fewer; goal >= 30 %)')"

# 2. persistent 429
chain="agents:
  - name: alpha
    command: [\"$work/limited.sh\"]
    fallback: [beta]
  - name: beta
    command: [\"$work/good.sh\"]
sessions:
  max_implementation_retries: 0
"
setup "$work/chain" 1 "$chain"
start=$(date +%s%N)
run "$work/chain" >/dev/null
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
stage=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['tasks'][0]['stage'])" "$work/chain/.swarm/state/bench.json")
echo "persistent 429, fallback [beta]: issue $stage after ${ms} ms (time lost to the limit: one 429 attempt; goal <= 120 s + one attempt)"
nofb="agents:
  - name: alpha
    command: [\"$work/limited.sh\"]
governor:
  max_backoff_minutes: 0
"
setup "$work/nofb" 1 "$nofb"
run "$work/nofb" >/dev/null
wait_ms=$(grep -h '"rate_limited"' "$work/nofb/.swarm/events/bench.jsonl" | python3 -c "import json,sys; print(max([json.loads(l)['retry_after_ms'] for l in sys.stdin] + [600000]))")
python3 -c "print(f'persistent 429, no fallback: the governor would wait {$wait_ms/1000:.0f} s before the next try (ratio {$wait_ms}/{$ms} = {$wait_ms/max($ms,1):.0f}x)')"
