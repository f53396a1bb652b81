#!/usr/bin/env bash
# Benchmarks what test integrity (docs/integrity.md) adds to an attempt: `run` over ISSUES issues,
# each implemented by a script agent that adds a function and a test for it, with the
# `verify` defaults (protect_tests, skip_markers, fail_before on) against `verify` off.
# The test runner sleeps TEST_MS per run, so "one run of the new test file" has a known
# cost. Prints the extra time per attempt and its ratio to one test run, the extra CPU time
# (user + system of `run` and every process it started, /usr/bin/time) per attempt, and
# the processes each attempt adds (git commands from a `-vv` run, test-runner starts).
#
#   scripts/bench-integrity.sh [ISSUES] [TEST_MS] [RUNS]     (defaults 10 200 3)
#
# Anchor: one run of the new test files (TEST_MS plus the runner's start). Goal: the
# extra time per attempt <= 1 such run (ratio <= 1.0); the checks other than fail_before
# start no process (they read the new files from disk).
# BIN names the binary (default $CARGO_TARGET_DIR/release/swarm-attack, else debug).
set -euo pipefail

ISSUES=${1:-10}
TEST_MS=${2:-200}
RUNS=${3:-3}
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
SLEEP=$(awk "BEGIN { printf \"%.3f\", $TEST_MS / 1000 }")

cat > "$WORK/runner.sh" <<RUN
#!/bin/sh
[ -n "\$RUNLOG" ] && echo "\$*" >> "\$RUNLOG"
sleep $SLEEP
p=0; f=0
if [ "\$#" -gt 0 ]; then files="\$*"; else files=\$(ls tests/*.sh 2>/dev/null); fi
for t in \$files; do
  if sh "\$t"; then p=\$((p + 1)); else f=\$((f + 1)); fi
done
echo "\$p passed, \$f failed"
[ "\$f" -eq 0 ]
RUN
cat > "$WORK/agent.sh" <<'AGENT'
#!/bin/sh
cat > /dev/null
n=$SWARM_ISSUE
mkdir -p lib tests
printf 'f%s() { echo %s; }\n' "$n" "$n" > "lib/f$n.sh"
printf '. lib/f%s.sh\n[ "$(f%s)" = %s ]\n' "$n" "$n" "$n" > "tests/test_f$n.sh"
echo '{"result": "done"}'
AGENT
chmod +x "$WORK/agent.sh" "$WORK/runner.sh"

issues() {
  local out="[" i
  for i in $(seq 1 "$ISSUES"); do
    [ "$i" -gt 1 ] && out="$out,"
    out="$out{\"order\": $i, \"title\": \"f$i\", \"body\": \"add f$i\"}"
  done
  echo "$out]"
}

# one timed run; prints "wall_seconds cpu_seconds"; with COUNT=1 also writes the run's
# `-vv` stderr to $WORK/<verify>.log (the counted run is not timed)
one() {
  local verify=$1
  local repo="$WORK/repo-$verify-$2"
  mkdir -p "$repo" && cd "$repo"
  git init -q -b main && git commit -q --allow-empty -m init
  mkdir -p specs/bench
  echo "{\"feature_id\": \"bench\", \"issues\": $(issues)}" > specs/bench/issues.json
  {
    printf 'coordination: {github_sync_enabled: false}\n'
    printf 'agents:\n  - name: a\n    command: ["%s"]\n' "$WORK/agent.sh"
    printf 'tests: {command: "sh %s", timeout_seconds: 60}\n' "$WORK/runner.sh"
    if [ "$verify" = off ]; then
      printf 'verify: {protect_tests: false, fail_before: false, skip_markers: false}\n'
    fi
  } > config.yaml
  git add -A && git commit -q -m setup
  "$BIN" greenlight bench > /dev/null
  local t0 t1
  if [ "${COUNT:-}" = 1 ]; then
    RUNLOG="$WORK/$verify.runs" "$BIN" -vv run bench > /dev/null 2> "$WORK/$verify.log"
    cd "$WORK"
    return
  fi
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$WORK/cpu" "$BIN" run bench > /dev/null
  t1=$(date +%s.%N)
  [ "$(git log --oneline | wc -l)" -eq $((ISSUES + 2)) ] || { echo "run $verify did not land every issue" >&2; exit 1; }
  cd "$WORK"
  awk -v w="$(awk "BEGIN { print $t1 - $t0 }")" '{ printf "%.3f %.3f", w, $1 + $2 }' "$WORK/cpu"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

on=(); off=(); con=(); coff=()
for r in $(seq 1 "$RUNS"); do
  read -r w c <<< "$(one off "$r")"; off+=("$w"); coff+=("$c")
  read -r w c <<< "$(one on "$r")"; on+=("$w"); con+=("$c")
done
m_off=$(printf '%s\n' "${off[@]}" | median)
m_on=$(printf '%s\n' "${on[@]}" | median)
c_off=$(printf '%s\n' "${coff[@]}" | median)
c_on=$(printf '%s\n' "${con[@]}" | median)
# the processes: one counted run each
COUNT=1 one off count; COUNT=1 one on count
gits() { grep -c 'running `git ' "$WORK/$1.log" || true; }
# one run of a new test file, timed alone
cd "$WORK/repo-on-1"
t0=$(date +%s.%N); sh "$WORK/runner.sh" tests/test_f1.sh > /dev/null; t1=$(date +%s.%N)
one_test=$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")
extra=$(awk "BEGIN { printf \"%.3f\", ($m_on - $m_off) / $ISSUES }")
ratio=$(awk "BEGIN { printf \"%.2f\", $extra / $one_test }")
echo "issues: $ISSUES, test run: ${TEST_MS} ms + start, runs: $RUNS (medians)"
echo "run, verify off: ${m_off} s   run, verify on: ${m_on} s"
echo "one run of the new test file: ${one_test} s"
echo "extra per attempt: ${extra} s = ${ratio} x one run of the new test file (goal <= 1.0)"
cpu_extra=$(awk "BEGIN { printf \"%.3f\", ($c_on - $c_off) / $ISSUES }")
echo "CPU (user+sys, medians): verify off ${c_off} s, on ${c_on} s; extra per attempt ${cpu_extra} s"
g_off=$(gits off); g_on=$(gits on)
kind() { grep -c "running \`git $2" "$WORK/$1.log" || true; }
echo "git clean / checkout / worktree add: verify off $(kind off clean) / $(kind off checkout) / $(kind off 'worktree add'), on $(kind on clean) / $(kind on checkout) / $(kind on 'worktree add') (a checkout beyond one per reset: a tree moved to a start commit that was not where its reset went)"
echo "git processes: verify off $g_off, on $g_on; extra per attempt $(awk "BEGIN { printf \"%.1f\", ($g_on - $g_off) / $ISSUES }") (fail_before's scratch tree: its reset at the attempt's commit, in the background; one worktree add + remove per run)"
echo "test-runner starts: verify off $(wc -l < "$WORK/off.runs"), on $(wc -l < "$WORK/on.runs") (one more per attempt: the run of its new test file)"
