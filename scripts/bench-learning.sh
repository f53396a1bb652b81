#!/bin/sh
# Benchmark learning (docs/learning.md "Outcomes"; docs/learning.md "Lessons", figures in docs/performance.md).
#
# 1. Routing: a simulated repository of ISSUES issues in 4 classes (labels api, ui, db, docs)
#    and three script agents whose success rate and cost depend on the class (each agent best
#    in some class; a seeded RNG inside the agent script decides each attempt). The agents
#    make realistic claims through their `covers`: each names the classes it is built for
#    (heuristic confidence 0.90 on those issues) and a generalist term every issue's title
#    matches (0.61 elsewhere) -- and some claims are wrong: `a` claims `db` where it succeeds
#    40 %, `b` claims `docs` where it succeeds 45 %, and `c`, the best agent for `docs`, does
#    not claim it. One attempt per issue (no retries); the agents share one angle, so the
#    filter runs one agent per issue (SOLO). `run` with `coordination.learn: off`, then with
#    `on` for each `learn_prior` of PRIORS; over the last LAST issues: success rate and cost
#    per success, against the best single agent's expected success rate. Goal: `on` >= the
#    best single agent and >= 15 points above `off`, at <= the cost per success of `off`.
#    Repeated for each seed of SEEDS, then the mean.
# 2. Lessons: feature `first` has an issue whose first attempt fails (the store is not
#    flushed) and whose retry passes; the analyst (`llm.command`) states the lesson. Feature
#    `second` has LESSON_ISSUES issues touching the same file that fail the same way unless
#    the prompt holds the lesson. Attempts to DONE on `second`, with lessons vs without.
#    Goal: >= 30 % fewer.
#
#   scripts/bench-learning.sh [--issues N] [--last L] [--lesson-issues M]
#                             [--seeds "7 11 13"] [--seed S] [--priors "5 2 10"]
#                             [--part all|routing|lessons]
#
# The binary: $SWARM_ATTACK_BIN, else target/debug/swarm-attack under $CARGO_TARGET_DIR
# (or ./target), built with `cargo build` when missing.
set -eu

issues=200
last=150
lesson_issues=8
seeds="7 11 13"
priors=5
part=all
while [ $# -gt 0 ]; do
  case "$1" in
    --issues) issues=$2; shift 2 ;;
    --last) last=$2; shift 2 ;;
    --lesson-issues) lesson_issues=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --seed) seeds=$2; shift 2 ;;
    --priors) priors=$2; shift 2 ;;
    --part) part=$2; shift 2 ;;
    *) echo "usage: $0 [--issues N] [--last L] [--lesson-issues M] [--seeds \"S...\"] [--priors \"P...\"] [--part all|routing|lessons]" >&2; exit 2 ;;
  esac
done
[ "$last" -le "$issues" ] || last=$issues

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SWARM_ATTACK_BIN:-${CARGO_TARGET_DIR:-$here/target}/debug/swarm-attack}
if [ ! -x "$bin" ]; then
  (cd "$here" && cargo build -q)
fi
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

# success rate (percent) and cost (USD) per agent and class: a is best in api, b in ui,
# c in db and docs
TABLE='a api 90 0.30
a ui 30 0.30
a db 40 0.30
a docs 50 0.30
b api 40 0.20
b ui 90 0.20
b db 30 0.20
b docs 45 0.20
c api 35 0.25
c ui 40 0.25
c db 90 0.25
c docs 85 0.25'
# what each agent claims (`covers`): the generalist term `code` (every title) and the
# classes it is built for
CLAIMS_A='[code, api, db]'
CLAIMS_B='[code, ui, docs]'
CLAIMS_C='[code, db]'
CLASSES='api ui db docs'
# the class of issue $1: each block of 4 issues holds each class once, in a rotating order
class_of() {
  echo $CLASSES | cut -d' ' -f$(( ($1 + $1 / 4) % 4 + 1 ))
}
tmp_table=$(mktemp)
printf '%s\n' "$TABLE" > "$tmp_table"
trap 'rm -f "$tmp_table"' EXIT

new_repo() {
  tmp=$(mktemp -d)
  mkdir -p "$tmp/repo"
  cd "$tmp/repo"
  git init -q -b main
  git config user.name bench
  git config user.email bench@example.com
  git commit -q --allow-empty -m "chore: init"
  printf '%s\n' "$TABLE" > "$tmp/table.txt"
  cat > "$tmp/runner.sh" <<'RUNNER'
#!/bin/sh
for t in checks/*.sh; do [ -f "$t" ] || continue; sh "$t" || exit 1; done
exit 0
RUNNER
}

routing_agent() {
  seed=$1
  cat > "$tmp/agent.sh" <<AGENT
#!/bin/sh
prompt=\$(cat)
class=\$(printf '%s\n' "\$prompt" | sed -n 's/.*Labels: \([a-z]*\).*/\1/p' | head -1)
row=\$(grep "^\$SWARM_AGENT \$class " "$tmp/table.txt")
rate=\$(echo "\$row" | cut -d' ' -f3)
cost=\$(echo "\$row" | cut -d' ' -f4)
roll=\$(awk -v s="$seed" -v i="\$SWARM_ISSUE" -v a="\$SWARM_AGENT" 'BEGIN { h = s * 7919 + i * 104729; for (k = 1; k <= length(a); k++) h = h * 31 + index("abc", substr(a, k, 1)); srand(h % 2147483647); print int(rand() * 100) }')
mkdir -p src checks
echo "issue \$SWARM_ISSUE by \$SWARM_AGENT" > "src/\$SWARM_ISSUE.txt"
if [ "\$roll" -lt "\$rate" ]; then echo "exit 0" > "checks/t_\$SWARM_ISSUE.sh"; else echo "exit 1" > "checks/t_\$SWARM_ISSUE.sh"; fi
echo "{\"result\": \"done\", \"total_cost_usd\": \$cost}"
AGENT
  chmod +x "$tmp/agent.sh"
}

# runs the routing simulation with seed $1, learn $2 and learn_prior $3; prints
# "success_rate cost_per_success" over the last $last issues and the success rate over all
routing() {
  seed=$1 learn=$2 prior=$3
  new_repo
  routing_agent "$seed"
  cat > config.yaml <<CONFIG
coordination:
  github_sync_enabled: false
  generate_summaries: false
  learn: $learn
  learn_prior: $prior
agents:
  - name: a
    command: ["$tmp/agent.sh"]
    angle: implementation
    covers: $CLAIMS_A
  - name: b
    command: ["$tmp/agent.sh"]
    angle: implementation
    covers: $CLAIMS_B
  - name: c
    command: ["$tmp/agent.sh"]
    angle: implementation
    covers: $CLAIMS_C
tests:
  command: "sh $tmp/runner.sh"
sessions:
  max_implementation_retries: 0
lessons:
  enabled: false
CONFIG
  mkdir -p specs/sim
  {
    echo '{"feature_id": "sim", "issues": ['
    i=1
    while [ "$i" -le "$issues" ]; do
      class=$(class_of "$i")
      sep=","; [ "$i" -eq "$issues" ] && sep=""
      echo "{\"order\": $i, \"title\": \"Update the code for item $i\", \"body\": \"Implement item $i.\", \"labels\": [\"$class\"]}$sep"
      i=$((i + 1))
    done
    echo ']}'
  } > specs/sim/issues.json
  git add config.yaml specs && git commit -q -m "chore: setup"
  "$bin" -q greenlight sim > /dev/null
  "$bin" -q run sim > /dev/null 2>&1 || true
  # the last $last issues by number
  awk -v from=$((issues - last)) '
    { match($0, /"issue":[0-9]+/); n = substr($0, RSTART + 8, RLENGTH - 8) + 0
      all++; if ($0 ~ /"result":"done"/) all_ok++
      if (n <= from) next
      c = 0; if (match($0, /"cost_usd":[0-9.]+/)) c = substr($0, RSTART + 11, RLENGTH - 11) + 0
      total += c; count++
      if ($0 ~ /"result":"done"/) ok++ }
    END { printf "%.1f %.4f %.1f\n", 100 * ok / count, (ok > 0 ? total / ok : 0), 100 * all_ok / all }
  ' .swarm/outcomes.jsonl
  if [ -n "${BENCH_KEEP_OUTCOMES:-}" ]; then
    cp .swarm/outcomes.jsonl "$BENCH_KEEP_OUTCOMES.seed$seed.$learn.$prior.jsonl"
  fi
  cd /; rm -rf "$tmp"
}

# the best single agent's expected success rate over the classes of the last $last issues
best_single=$(
  i=$((issues - last + 1))
  while [ "$i" -le "$issues" ]; do echo "class $(class_of "$i")"; i=$((i + 1)); done |
    cat - "$tmp_table" |
    awk '$1 == "class" { w[$2]++; next } { r[$1] += w[$2] * $3; t[$1] += w[$2] }
      END { b = 0; for (a in r) if (r[a] / t[a] > b) b = r[a] / t[a]; printf "%.1f\n", b }'
)

if [ "$part" != lessons ]; then
echo "routing: $issues issues in 4 classes, 3 agents, one attempt each; figures over the last $last"
echo "  best single agent (expected): $best_single %"
results=$(mktemp)
for seed in $seeds; do
  t0=$(date +%s)
  off=$(routing "$seed" off 5)
  set -- $off; off_rate=$1; off_cost=$2
  echo "  seed $seed: learn off: success $off_rate %, cost per success \$$off_cost (all $issues issues: $3 %)"
  for prior in $priors; do
    on=$(routing "$seed" on "$prior")
    set -- $on; on_rate=$1; on_cost=$2; on_all=$3
    echo "$seed $prior $off_rate $off_cost $on_rate $on_cost" >> "$results"
    awk -v on="$on_rate" -v off="$off_rate" -v best="$best_single" -v oc="$on_cost" -v fc="$off_cost" -v p="$prior" -v s="$seed" -v n="$issues" -v all="$on_all" 'BEGIN {
      printf "  seed %s: learn on (learn_prior %s): success %.1f %%, cost per success $%.4f; on - off %+.1f points (goal >= +15); on - best single %+.1f (goal >= 0); cost per success on/off %.2f (goal <= 1); all %s issues: %s %%\n", s, p, on, oc, on - off, on - best, (fc > 0 ? oc / fc : 0), n, all }'
  done
  t1=$(date +%s)
  echo "  ($((t1 - t0)) s)"
done
for prior in $priors; do
  awk -v p="$prior" -v best="$best_single" '$2 == p { n++; off += $3; fc += $4; on += $5; oc += $6 }
    END { printf "  mean over %d seeds, learn_prior %s: off %.1f %% ($%.4f per success), on %.1f %% ($%.4f per success): on - off %+.1f points, on - best single %+.1f, cost per success on/off %.2f\n",
      n, p, off / n, fc / n, on / n, oc / n, (on - off) / n, on / n - best, (fc > 0 ? oc / fc : 0) }' "$results"
done
rm -f "$results"
fi
[ "$part" != routing ] || exit 0

# 2. lessons
lessons_run() {
  enabled=$1
  new_repo
  mkdir -p src
  echo "store" > src/store.rs
  git add src && git commit -q -m "chore: store"
  cat > "$tmp/agent.sh" <<'AGENT'
#!/bin/sh
prompt=$(cat)
mkdir -p checks
echo "// $SWARM_FEATURE $SWARM_ISSUE $SWARM_ATTEMPT" >> src/store.rs
if printf '%s' "$prompt" | grep -q "flushed after every write" || [ "$SWARM_ATTEMPT" -gt 1 ]; then
  echo "exit 0" > "checks/t_${SWARM_FEATURE}_$SWARM_ISSUE.sh"
else
  echo "echo 'the store was not flushed'; exit 1" > "checks/t_${SWARM_FEATURE}_$SWARM_ISSUE.sh"
fi
echo "done"
AGENT
  chmod +x "$tmp/agent.sh"
  cat > "$tmp/llm.sh" <<'LLM'
#!/bin/sh
cat > /dev/null
if [ "$SWARM_PURPOSE" = lesson ]; then
  echo '{"fact": "The store must be flushed after every write", "files": ["src/store.rs"]}'
else
  echo "Changed the store."
fi
LLM
  chmod +x "$tmp/llm.sh"
  cat > config.yaml <<CONFIG
coordination:
  github_sync_enabled: false
agents:
  - name: a
    command: ["$tmp/agent.sh"]
llm:
  command: ["$tmp/llm.sh"]
tests:
  command: "sh $tmp/runner.sh"
sessions:
  max_implementation_retries: 3
lessons:
  enabled: $enabled
CONFIG
  mkdir -p specs/first specs/second
  echo '{"feature_id": "first", "issues": [{"order": 1, "title": "Store writes", "files": ["src/store.rs"]}]}' > specs/first/issues.json
  {
    echo '{"feature_id": "second", "issues": ['
    i=1
    while [ "$i" -le "$lesson_issues" ]; do
      sep=","; [ "$i" -eq "$lesson_issues" ] && sep=""
      echo "{\"order\": $i, \"title\": \"Store change $i\", \"files\": [\"src/store_$i.rs\"]}$sep"
      i=$((i + 1))
    done
    echo ']}'
  } > specs/second/issues.json
  git add config.yaml specs && git commit -q -m "chore: setup"
  "$bin" -q greenlight first > /dev/null
  "$bin" -q run first > /dev/null 2>&1 || true
  "$bin" -q greenlight second > /dev/null
  "$bin" -q run second > /dev/null 2>&1 || true
  grep '"feature":"second"' .swarm/outcomes.jsonl | grep '"result":"done"' |
    sed -n 's/.*"attempts":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
  cd /; rm -rf "$tmp"
}

echo "lessons: feature second, $lesson_issues issues repeating the failure feature first fixed"
without=$(lessons_run false)
with=$(lessons_run true)
echo "  attempts to DONE without lessons: $without; with lessons: $with"
awk -v a="$without" -v b="$with" 'BEGIN { printf "  %.0f %% fewer attempts (goal ≥ 30 %%)\n", (a > 0 ? 100 * (a - b) / a : 0) }'
