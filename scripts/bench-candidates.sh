#!/bin/sh
# Benchmark "many candidates, one result" (docs/coordination.md "Many candidates, one result", issue 29).
#
# 1. Quality, under two error models with the same per-agent rates: ISSUES independent
#    issues, three script agents whose per-issue outcome is fixed by a hash of (agent,
#    issue): *correct* (the canonical 4-line solution) 70 / 65 / 60 %, *wrong but passing*
#    (the visible tests accept it) 20 / 25 / 25 %, *failing* (the visible tests fail)
#    10 / 10 / 15 %. A hidden check the tool never sees decides "correct": the landed file
#    equals the canonical solution. What a wrong answer looks like:
#      - independent mistakes: the agent's own mutation of the canonical solution, same
#        size, one token changed (an off-by-one constant, the overflow case missed, the
#        wrong operation); two agents wrong on the same issue are wrong differently;
#      - shared shortcut: a 1-line answer of the same shape for every agent (correlated
#        errors: two wrong answers resemble each other more than the right one).
#    One `run` per model with `candidates: 3`, join `all`; from its `issue_done.convergence`
#    records the script computes
#      - best-of-3 with consensus selection: what the tool landed;
#      - best-of-3 picking the smallest diff: the passing candidate with the fewest changed
#        lines (ties: rank) -- the previous rule of join `all`;
#      - each single agent: the issues where its own candidate passed verification and is
#        correct (what it lands alone: the agents are deterministic per issue).
#    Prints the correct-landed rates side by side and the gains in points.
# 2. Wall time: QISSUES issues where two fast agents (FAST s) agree and the third is slow
#    (SLOW s); join `quorum` (quorum 2) vs join `all`. Prints the ratio quorum / all.
#
#   scripts/bench-candidates.sh [--issues N] [--qissues N] [--fast S] [--slow S]
#
# The binary: $SWARM_ATTACK_BIN, else target/debug/swarm-attack under $CARGO_TARGET_DIR
# (or ./target), built with `cargo build` when missing. Needs python3 (for the analysis).
set -eu

issues=50
qissues=4
fast=1
slow=6
while [ $# -gt 0 ]; do
  case "$1" in
    --issues) issues=$2; shift 2 ;;
    --qissues) qissues=$2; shift 2 ;;
    --fast) fast=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    *) echo "usage: $0 [--issues N] [--qissues N] [--fast S] [--slow S]" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SWARM_ATTACK_BIN:-${CARGO_TARGET_DIR:-$here/target}/debug/swarm-attack}
if [ ! -x "$bin" ]; then
  (cd "$here" && cargo build -q)
fi
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

now() { date +%s.%N; }

# A repository with N issues and three agents; $1 = folder, $2 = N, $3 = coordination lines,
# $4 = agent body (sh, sees $SWARM_AGENT / $SWARM_ISSUE).
make_repo() {
  dir=$1; n=$2; coordination=$3; body=$4
  mkdir -p "$dir/repo" "$dir/bin"
  cd "$dir/repo"
  git init -q
  git -c user.name=bench -c user.email=bench@x commit -q --allow-empty -m "chore: init"
  git config user.name bench
  git config user.email bench@example.com
  for a in alpha beta gamma; do
    printf '#!/bin/sh\ncat > /dev/null\n%s\n' "$body" > "$dir/bin/$a.sh"
    chmod +x "$dir/bin/$a.sh"
  done
  cat > "$dir/bin/llm.sh" <<'LLM'
#!/bin/sh
cat > /dev/null
case "$SWARM_PURPOSE/$SWARM_AGENT" in
  proposal/alpha) echo '{"angle":"api","confidence":0.9,"covers":["api"],"solo_sufficient":true,"builds_on_other":false}' ;;
  proposal/beta) echo '{"angle":"database","confidence":0.8,"covers":["database"],"solo_sufficient":true,"builds_on_other":false}' ;;
  proposal/gamma) echo '{"angle":"frontend","confidence":0.7,"covers":["frontend"],"solo_sufficient":true,"builds_on_other":false}' ;;
  *) echo 'Implemented.' ;;
esac
LLM
  chmod +x "$dir/bin/llm.sh"
  cat > "$dir/bin/runner.sh" <<'RUNNER'
#!/bin/sh
f=0
for t in checks/*.sh; do [ -f "$t" ] || continue; sh "$t" || f=1; done
exit $f
RUNNER
  cat > config.yaml <<CONFIG
coordination:
  github_sync_enabled: false
  generate_summaries: false
  proposal_source: llm
$coordination
agents:
  - name: alpha
    command: ["$dir/bin/alpha.sh"]
    timeout_seconds: 120
  - name: beta
    command: ["$dir/bin/beta.sh"]
    timeout_seconds: 120
  - name: gamma
    command: ["$dir/bin/gamma.sh"]
    timeout_seconds: 120
llm:
  command: ["$dir/bin/llm.sh"]
tests:
  command: "sh $dir/bin/runner.sh"
sessions:
  max_implementation_retries: 0
CONFIG
  mkdir -p specs/bench
  python3 - "$n" > specs/bench/issues.json <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"feature_id": "bench", "issues": [
    {"order": i, "title": f"Issue {i}", "body": f"Solve {i}."} for i in range(1, n + 1)]}))
PY
  "$bin" -q greenlight bench > /dev/null
}

# --- 1. quality -------------------------------------------------------------------------
# The same per-agent outcome in both error models, fixed by a hash of (agent, issue):
# correct below C, wrong-but-passing below W, else failing (percent). Only the shape of a
# wrong answer differs between the models.
quality_head='
case "$SWARM_AGENT" in alpha) C=70; W=90; k=0 ;; beta) C=65; W=90; k=1 ;; *) C=60; W=85; k=2 ;; esac
h=$(printf "%s-%s" "$SWARM_AGENT" "$SWARM_ISSUE" | cksum | cut -d" " -f1)
r=$((h % 100))
n=$SWARM_ISSUE
mkdir -p src checks
solution() {
  printf "fn solve_%s(input: u64) -> u64 {\n    let scaled = input.%s(%s);\n    scaled.%s(%s)\n}\n" "$n" "$1" "$n" "$2" "$3" > "src/issue-$n.txt"
}
if [ "$r" -lt "$C" ]; then
  solution saturating_mul saturating_add 1000
  echo "exit 0" > "checks/t_$n.sh"
elif [ "$r" -lt "$W" ]; then'
quality_tail='
  echo "exit 0" > "checks/t_$n.sh"
else
  echo "broken_${SWARM_AGENT}_${n}" > "src/issue-$n.txt"
  echo "exit 1" > "checks/t_$n.sh"
fi'
# independent mistakes: a mutation of the canonical solution, same size, one token changed
# (an off-by-one constant, the overflow case missed, the wrong operation); the kind is
# (issue hash + agent index) mod 3, so two agents wrong on one issue are never wrong alike
independent_wrong='
  m=$(( ($(printf "issue-%s" "$n" | cksum | cut -d" " -f1) + k) % 3 ))
  case $m in
    0) solution saturating_mul saturating_add 999 ;;
    1) solution wrapping_mul saturating_add 1000 ;;
    *) solution saturating_mul saturating_sub 1000 ;;
  esac'
# shared shortcut: the same 1-line shape for every agent (two wrong answers resemble each
# other more than the right one)
shortcut_wrong='
  echo "const GUESS_${SWARM_AGENT}_${n}_${r}: u64 = ${r}${n};" > "src/issue-$n.txt"'

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
quality() {
  make_repo "$work/$1" "$issues" "  join: all
  candidates: 3" "$quality_head$2$quality_tail"
  s=$(now)
  "$bin" -q run bench > /dev/null || true
  e=$(now)
  echo "$e $s" | awk '{printf "%.1f", $1 - $2}'
}
ti=$(quality independent "$independent_wrong")
ts=$(quality shortcut "$shortcut_wrong")
python3 - "$issues" "independent mistakes" "$work/independent/repo" "shared shortcut" "$work/shortcut/repo" <<'PY'
import json, subprocess, sys
n = int(sys.argv[1])
models = list(zip(sys.argv[2::2], sys.argv[3::2]))
agents = ["alpha", "beta", "gamma"]
def canonical(i):
    return (f"fn solve_{i}(input: u64) -> u64 {{\n    let scaled = input.saturating_mul({i});\n"
            "    scaled.saturating_add(1000)\n}\n")
pct = lambda k: 100.0 * k / n
rows = []
for name, repo in models:
    def show(rev, path):
        r = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else None
    done = {}
    for line in open(f"{repo}/.swarm/events/bench.jsonl"):
        e = json.loads(line)
        if e.get("event") == "issue_done":
            done[e["issue"]] = e.get("convergence") or {}
    single = {a: 0 for a in agents}
    consensus = smallest = 0
    by = {}
    for i in range(1, n + 1):
        path = f"src/issue-{i}.txt"
        if show("HEAD", path) == canonical(i):
            consensus += 1
        c = done.get(i)
        if not c:
            continue
        by[c.get("selected_by")] = by.get(c.get("selected_by"), 0) + 1
        passing = [x for x in c.get("candidates", []) if x.get("result") == "passed"]
        correct = {x["agent"]: show(x["commit"], path) == canonical(i) for x in passing}
        for a in agents:
            if correct.get(a):
                single[a] += 1
        if passing:
            pick = min(passing, key=lambda x: (x.get("changed_lines", 0), agents.index(x["agent"])))
            if correct.get(pick["agent"]):
                smallest += 1
    best = max(agents, key=lambda a: (single[a], -agents.index(a)))
    print(f"{name}: {n} issues, landed DONE {len(done)}, selected_by {dict(sorted(by.items(), key=str))}; "
          + ", ".join(f"{a} alone {pct(single[a]):.1f} %" for a in agents))
    rows.append((name, best, pct(single[best]), pct(consensus), pct(smallest)))
print()
print(f"{'error model':<22} {'best single':>18} {'best-of-3 consensus':>20} {'best-of-3 smallest':>19} {'consensus - single':>19} {'consensus - smallest':>21}")
for name, best, b, c, s in rows:
    print(f"{name:<22} {f'{b:.1f} % ({best})':>18} {f'{c:.1f} %':>20} {f'{s:.1f} %':>19} {f'{c - b:+.1f} points':>19} {f'{c - s:+.1f} points':>21}")
print("goal: consensus >= best single agent + 10 points")
PY
echo "quality run wall time: independent mistakes $ti s, shared shortcut $ts s"

# --- 2. quorum vs all ---------------------------------------------------------------------
timing_body="
case \"\$SWARM_AGENT\" in gamma) sleep $slow ;; *) sleep $fast ;; esac
mkdir -p src checks
printf 'fn solve() -> u64 {\n    %s\n}\n' \"\$SWARM_ISSUE\" > \"src/issue-\$SWARM_ISSUE.txt\"
echo 'exit 0' > \"checks/t_\$SWARM_ISSUE.sh\""
timed() {
  rm -rf "$work/t"
  make_repo "$work/t" "$qissues" "  join: $1
  candidates: 3
  quorum: 2
  agree_at: 0.6" "$timing_body"
  s=$(now)
  "$bin" -q run bench > /dev/null
  e=$(now)
  echo "$e $s" | awk '{printf "%.2f", $1 - $2}'
}
tq=$(timed quorum)
ta=$(timed all)
awk -v q="$tq" -v a="$ta" -v n="$qissues" -v f="$fast" -v s="$slow" 'BEGIN {
  printf "%d issues, two agents of %.1f s agreeing, a third of %.1f s: join quorum %.2f s, join all %.2f s\n", n, f, s, q, a;
  printf "ratio quorum / all: %.2f (goal: <= 0.60)\n", q / a;
}'
