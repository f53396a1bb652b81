#!/usr/bin/env bash
# Measures what the specify gate (docs/gates.md) costs and saves on `run`, against the
# anchor: the same run with the gate off.
#   vague:   ISSUES issues titled "Improve thing N" with an empty body; the agent (a script
#            that sleeps AGENT_MS and writes a guess that fails the tests) — gate off: every
#            issue costs an attempt; gate on (offline heuristic): none is dispatched.
#   precise: ISSUES issues with goal, acceptance, scope, constraints and context; the agent
#            passes — gate on adds the scoring to each claim.
#
# Usage: scripts/bench-gates.sh BINARY [ISSUES] [AGENT_MS]
# Prints the wall time of each run and the ratios off/on (vague: the saving) and on/off
# (precise: the overhead).
set -euo pipefail

bin="${1:?usage: bench-gates.sh BINARY [ISSUES] [AGENT_MS]}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
n="${2:-20}"
agent_ms="${3:-200}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# repo KIND GATE -> prints the run's wall time in ms
repo() {
  local kind="$1" gate="$2" dir="$work/$1-$2"
  mkdir -p "$dir" && cd "$dir"
  git init -q -b main && git -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
  local secs
  secs="$(awk "BEGIN {print $agent_ms / 1000}")"
  if [ "$kind" = vague ]; then
    printf '#!/bin/sh\ncat >/dev/null\nsleep %s\necho "guess" > "g_$SWARM_ISSUE.txt"\n' "$secs" > agent.sh
  else
    printf '#!/bin/sh\ncat >/dev/null\nsleep %s\necho "$SWARM_ISSUE" > "f_$SWARM_ISSUE.txt"\n' "$secs" > agent.sh
  fi
  chmod +x agent.sh
  local tests=true
  [ "$kind" = vague ] && tests=false
  cat > config.yaml <<YAML
coordination: {github_sync_enabled: false, generate_summaries: false}
agents: [{name: a, command: ["$dir/agent.sh"], timeout_seconds: 60}]
tests: {command: "$tests"}
sessions: {max_implementation_retries: 0, max_consecutive_agent_failures: 1000}
gates: {specify: {enabled: $gate}}
YAML
  python3 - "$kind" "$n" > issues.json <<'PY'
import json, sys
kind, n = sys.argv[1], int(sys.argv[2])
precise = ("Users are logged out after 5 minutes because the cookie has no max-age.\n\n"
           "## Acceptance\n- [ ] a session lasts 24 hours\n\n## Scope\nOnly `src/session.rs`.\n\n"
           "## Constraints\nDo not rename the cookie.\n\n## Context\nSee #12.")
issues = [{"order": i, "title": f"Improve thing {i}" if kind == "vague" else f"Make sessions last {i} hours",
           "body": "" if kind == "vague" else precise} for i in range(1, n + 1)]
print(json.dumps({"feature_id": "bench", "issues": issues}))
PY
  mkdir -p specs/bench && mv issues.json specs/bench/
  "$bin" greenlight bench >/dev/null 2>&1
  local start end
  start=$(date +%s%N)
  "$bin" run bench >/dev/null 2>&1 || true
  end=$(date +%s%N)
  cd "$work"
  echo $(( (end - start) / 1000000 ))
}

vague_off="$(repo vague false)"
vague_on="$(repo vague true)"
precise_off="$(repo precise false)"
precise_on="$(repo precise true)"
echo "vague ($n issues, agent ${agent_ms} ms): gate off ${vague_off} ms, gate on ${vague_on} ms, saving ratio off/on $(awk "BEGIN {printf \"%.1f\", $vague_off / ($vague_on > 0 ? $vague_on : 1)}")"
echo "precise ($n issues): gate off ${precise_off} ms, gate on ${precise_on} ms, overhead ratio on/off $(awk "BEGIN {printf \"%.2f\", $precise_on / ($precise_off > 0 ? $precise_off : 1)}")"
