#!/usr/bin/env bash
# Benchmarks the review gate's judgement (docs/review.md) on a labelled set of seeded
# candidates, through the real binary: CANDIDATES issues (default 40), each implemented by
# a script agent; odd issues are clean, even ones carry a planted bug on line 5 of the
# changed file. Two stand-in reviewers (r1, r2) with a known behaviour, seeded by
# (reviewer, issue) so every run is the same:
#   - a false finding with probability FALSE_RATE (default 0.30) on a random changed line,
#     `major`, confidence uniform in [70, 90);
#   - on a planted bug, the true finding (line 5, `major`) with probability CATCH (0.90),
#     confidence uniform in [70, 95).
# `run` with `review.strategy: single`, with `cross` (the contract's rule: a lone finding
# counts at min_confidence) and with `cross` plus `cross_unmatched_min_confidence: STRICT`
# (default 95: a finding only one reviewer reported counts only from there), all at
# min_confidence 80, fix_rounds 0 and no retry (a `fail` verdict is a block). Prints the
# false-block rate on clean candidates and the catch rate on planted bugs (a `fail` whose
# counted findings include the one on the planted line) for each, and the ratios against
# single. With --integrity it also runs scripts/bench-integrity.sh (the checks' extra
# time per attempt against one run of the new test file).
#
#   scripts/bench-review.sh [CANDIDATES] [FALSE_RATE] [--integrity]
#
# Anchor: `single` at 80. Goal: `cross` halves the false-block rate at <= 10 % loss of
# catches. BIN names the binary (default $CARGO_TARGET_DIR/release/swarm-attack, else debug);
# STRICT the stricter bar (default 95).
set -euo pipefail

N=${1:-40}
FALSE_RATE=${2:-0.30}
INTEGRITY=${3:-}
CATCH=0.90
STRICT=${STRICT:-95}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${BIN:-$TARGET/release/swarm-attack}
[ -x "$BIN" ] || BIN=$TARGET/debug/swarm-attack
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --locked --quiet)
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# the candidate: 8 lines in src/c<N>.sh; an even issue's line 5 is the planted bug
cat > "$WORK/agent.sh" <<'AGENT'
#!/bin/sh
cat > /dev/null
n=$SWARM_ISSUE
mkdir -p src
for l in 1 2 3 4 5 6 7 8; do
  if [ $l -eq 5 ] && [ $((n % 2)) -eq 0 ]; then echo "total=\$((a - b)) # planted" >> src/c$n.sh
  else echo "step_$l=$n" >> src/c$n.sh; fi
done
echo '{"result": "done"}'
AGENT

cat > "$WORK/reviewer.sh" <<REV
#!/bin/sh
cat > /dev/null
n=\$SWARM_ISSUE
# draw k: a CRC of (reviewer, issue, k) scaled to [0, 1) — deterministic, well spread
draw() { printf '%s-%s-%s' "\$SWARM_AGENT" "\$n" "\$1" | cksum | awk '{ printf "%.4f", (\$1 % 10007) / 10007 }'; }
awk -v n="\$n" -v fr="$FALSE_RATE" -v cr="$CATCH" -v d1="\$(draw 1)" -v d2="\$(draw 2)" -v d3="\$(draw 3)" -v d4="\$(draw 4)" -v d5="\$(draw 5)" 'BEGIN {
  out = ""
  if (d1 < fr) {
    line = 1 + int(d2 * 8); c = 70 + d3 * 20
    out = sprintf("{\"severity\": \"major\", \"confidence\": %.1f, \"file\": \"src/c%d.sh\", \"line\": %d, \"title\": \"suspicious\", \"body\": \"a guess\"}", c, n, line)
  }
  if (n % 2 == 0 && d4 < cr) {
    c = 70 + d5 * 25
    t = sprintf("{\"severity\": \"major\", \"confidence\": %.1f, \"file\": \"src/c%d.sh\", \"line\": 5, \"title\": \"subtracts\", \"body\": \"a - b\"}", c, n)
    out = (out == "") ? t : out ", " t
  }
  printf "{\"findings\": [%s], \"summary\": \"done\"}\n", out
}'
REV
chmod +x "$WORK/agent.sh" "$WORK/reviewer.sh"

issues() {
  local out="[" i
  for i in $(seq 1 "$N"); do
    [ "$i" -gt 1 ] && out="$out,"
    out="$out{\"order\": $i, \"title\": \"candidate $i\", \"body\": \"write src/c$i.sh\"}"
  done
  echo "$out]"
}

# one run with `strategy` (and extra `review` keys); prints "false_blocks catches seconds"
one() {
  local strategy=$1 tag=$2 extra=${3:-} repo="$WORK/repo-$2"
  mkdir -p "$repo" && cd "$repo"
  git init -q -b main && git commit -q --allow-empty -m init
  mkdir -p specs/bench
  echo "{\"feature_id\": \"bench\", \"issues\": $(issues)}" > specs/bench/issues.json
  {
    printf 'coordination: {github_sync_enabled: false}\n'
    printf 'agents:\n  - name: coder\n    command: ["%s"]\n' "$WORK/agent.sh"
    printf '  - name: r1\n    command: ["%s"]\n  - name: r2\n    command: ["%s"]\n' "$WORK/reviewer.sh" "$WORK/reviewer.sh"
    printf 'tests: {command: "true", timeout_seconds: 60}\n'
    printf 'sessions: {max_implementation_retries: 0}\n'
    printf 'review: {enabled: true, reviewers: [r1, r2], strategy: %s, min_confidence: 80, fix_rounds: 0%s}\n' "$strategy" "$extra"
  } > config.yaml
  git add -A && git commit -q -m setup
  "$BIN" greenlight bench > /dev/null
  local t0 t1
  t0=$(date +%s.%N)
  "$BIN" run bench > /dev/null 2>&1 || true
  t1=$(date +%s.%N)
  # the verdict per issue (fix_rounds 0: one round)
  python3 - "$repo" "$N" "$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" <<'PY'
import json, sys
repo, n, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fb = ca = 0
for i in range(1, n + 1):
    try:
        r = json.load(open(f"{repo}/.swarm/runs/bench/issue-{i}/attempt-1/review-1.json"))
    except OSError:
        sys.exit(f"no review of candidate {i}")
    if r["verdict"] != "fail":
        continue
    if i % 2:
        fb += 1  # a clean candidate blocked
    elif any(f["counted"] and f["title"] == "subtracts" for f in r["findings"]):
        ca += 1  # the planted bug blocked by the finding that names it
print(fb, ca, secs)
PY
  cd "$WORK"
}

read -r s_fb s_ca s_t <<< "$(one single single)"
read -r c_fb c_ca c_t <<< "$(one cross cross)"
read -r x_fb x_ca x_t <<< "$(one cross strict ", cross_unmatched_min_confidence: $STRICT")"
clean=$(( (N + 1) / 2 )); bugs=$(( N / 2 ))
rate() { awk "BEGIN { printf \"%.1f\", 100 * $1 / $2 }"; }
echo "candidates: $N ($clean clean, $bugs planted), stand-in false-finding rate $FALSE_RATE per reviewer, catch $CATCH"
echo "single@80: false blocks $s_fb/$clean = $(rate "$s_fb" "$clean") %, catches $s_ca/$bugs = $(rate "$s_ca" "$bugs") %  (run ${s_t} s)"
echo "cross@80:  false blocks $c_fb/$clean = $(rate "$c_fb" "$clean") %, catches $c_ca/$bugs = $(rate "$c_ca" "$bugs") %  (run ${c_t} s)"
echo "cross@80, unmatched@$STRICT: false blocks $x_fb/$clean = $(rate "$x_fb" "$clean") %, catches $x_ca/$bugs = $(rate "$x_ca" "$bugs") %  (run ${x_t} s)"
ratios() {
  awk -v name="$1" -v sf="$s_fb" -v cf="$2" -v sc="$s_ca" -v cc="$3" 'BEGIN {
    fr = (sf > 0) ? sprintf("%.2f", cf / sf) : "n/a"
    cr = (sc > 0) ? sprintf("%.2f", cc / sc) : "n/a"
    met = (sf > 0 && sc > 0 && cf / sf <= 0.5 && cc / sc >= 0.9) ? "met" : "not met"
    printf "%s/single: false blocks x%s (goal <= 0.50), catches x%s (goal >= 0.90): %s\n", name, fr, cr, met
  }'
}
ratios cross "$c_fb" "$c_ca"
ratios "cross+unmatched@$STRICT" "$x_fb" "$x_ca"
if [ "$INTEGRITY" = "--integrity" ]; then
  echo "--- integrity (scripts/bench-integrity.sh 5 200 1)"
  bash "$ROOT/scripts/bench-integrity.sh" 5 200 1
fi
