#!/usr/bin/env bash
# Benchmarks the git-history sync (issue 19's history rows), interleaved, medians.
#
#   scripts/bench-sync.sh [COMMITS] [ISSUES] [RUNS]     (defaults 200000 1500 5)
#
# Data (kept and reused): $BENCH_DATA/h<COMMITS> (default BENCH_DATA=/work/bench-data/sync),
# made once by scripts/gen-history.sh (one rule-1 commit in 50 for ISSUES issues, the rest
# noise full of `#123` mentions), with `specs/bench/issues.json` and the state `greenlight`
# leaves before any sync. Every run puts `main` back where the generator left it.
#
# Each of RUNS rounds times, in this order, each pair back to back (wall clock, page cache
# warm, output to /dev/null), then prints the median of each and the ratio:
#   cold     `status bench --json` with .swarm/cache removed and the greenlight state (full
#            scan, every issue found DONE; default config, so summaries are on)
#            anchor: `git log --format=%H%x00%B HEAD`                    goal <= 1.0
#   warm     the same command again, nothing new       anchor: `git rev-parse HEAD`
#                                                                         goal <= 20 ms
#            and the text `status bench` (warm_text)                      goal <= 20 ms
#   skewed   after one new commit dated before 99 % of the history (not timed)
#            anchor: the same after one new commit dated now ("ordered")  goal <= 30 ms
#   original the original Python tool's `status bench` (python -m swarm_attack) on a
#            2,000-task state in its own format (scripts/bench-original-state.py), and
#            ours, cold, on that same state file                          goal <= 0.3
#            then ours warm on it (the state as that cold run left it), `--json` and
#            text (warm_original, warm_original_text)                     goal <= 20 ms
# The original row needs its checkout and a Python with its dependencies:
#   BENCH_ORIGINAL   checkout of github.com/pcortes/swarm-attack (default
#                    /work/bench-data/original; `none` skips the row)
#   BENCH_PYTHON     its Python (default /work/bench-data/original-venv/bin/python, a venv
#                    with typer, rich, pyyaml, aiofiles from PyPI)
#   ORIGINAL_TASKS   tasks in that state (default 2000)
# BIN names the binary (default $CARGO_TARGET_DIR/release/swarm-attack, built if missing).
# PARTS picks the rows (default "cold warm skewed original"); without `cold`, one untimed
# cold run makes the warm state and cache, and each round starts from a copy of them
# (timestamps kept), e.g. `PARTS="warm skewed" BENCH_ORIGINAL=none scripts/bench-sync.sh 1000000 1500 7`.
set -euo pipefail

COMMITS=${1:-200000}
ISSUES=${2:-1500}
RUNS=${3:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${BIN:-$TARGET/release/swarm-attack}
DATA=${BENCH_DATA:-/work/bench-data/sync}/h$COMMITS
ORIGINAL=${BENCH_ORIGINAL:-/work/bench-data/original}
PY=${BENCH_PYTHON:-/work/bench-data/original-venv/bin/python}
ORIGINAL_TASKS=${ORIGINAL_TASKS:-2000}
PARTS=" ${PARTS:-cold warm skewed original} "
part() { [[ $PARTS == *" $1 "* ]]; }
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1

if [ ! -x "$BIN" ]; then
  echo "building the release binary..." >&2
  (cd "$ROOT" && cargo build --release --quiet)
fi

REPO=$DATA/repo
if [ ! -e "$DATA/generated" ]; then
  echo "generating $COMMITS commits in $REPO..." >&2
  rm -rf "$DATA"
  mkdir -p "$DATA"
  "$ROOT/scripts/gen-history.sh" "$REPO" "$COMMITS" "$ISSUES"
  touch "$DATA/generated"
fi
if [ ! -e "$DATA/ready" ]; then
  mkdir -p "$REPO/specs/bench"
  {
    printf '{"feature_id": "bench", "issues": ['
    for i in $(seq 1 "$ISSUES"); do
      [ "$i" -gt 1 ] && printf ','
      printf '{"order": %d, "title": "issue %d"}' "$i" "$i"
    done
    printf ']}\n'
  } >"$REPO/specs/bench/issues.json"
  # the state as greenlight leaves it before any sync (restored before each cold run)
  printf 'coordination:\n  auto_sync_from_git: false\n' >"$REPO/config.yaml"
  (cd "$REPO" && "$BIN" -q greenlight bench >/dev/null)
  rm "$REPO/config.yaml"
  cp "$REPO/.swarm/state/bench.json" "$DATA/state0.json"
  git -C "$REPO" rev-parse main >"$DATA/tip"
  touch "$DATA/ready"
fi
TIP=$(cat "$DATA/tip")
WITH_ORIGINAL=1
if ! part original || [ "$ORIGINAL" = none ] || [ ! -d "$ORIGINAL/swarm_attack" ] || [ ! -x "$PY" ]; then
  WITH_ORIGINAL=""
  echo "the original tool's row is skipped (BENCH_ORIGINAL=$ORIGINAL, BENCH_PYTHON=$PY)" >&2
elif [ ! -e "$DATA/state_original_$ORIGINAL_TASKS.json" ]; then
  "$PY" "$ROOT/scripts/bench-original-state.py" "$ORIGINAL" bench "$ORIGINAL_TASKS" \
    "$DATA/state_original_$ORIGINAL_TASKS.json"
fi

cd "$REPO"
git update-ref refs/heads/main "$TIP"

# times "$@" (output to /dev/null), appends the milliseconds to the array named $1
declare -A T
timed() {
  local name=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  t1=$EPOCHREALTIME
  T[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }') "
}
new_commit() { # $1: the commit date (seconds)
  GIT_AUTHOR_DATE="@$1 +0000" GIT_COMMITTER_DATE="@$1 +0000" \
    git -c user.name=B -c user.email=b@example.com commit -q --allow-empty -m "chore: new $RANDOM"
}
cold_state() { # $1: the state file to start from
  rm -rf .swarm/cache
  cp "$1" .swarm/state/bench.json
}
scanned() {
  "$BIN" events bench --event git_sync --json | tail -1 | sed 's/.*"commits_scanned":\([0-9]*\).*/\1/'
}

WARM=$(mktemp -d)
trap 'git -C "$REPO" update-ref refs/heads/main "$TIP"; cp "$DATA/state0.json" "$REPO/.swarm/state/bench.json"; rm -rf "$WARM"' EXIT
if ! part cold; then
  # the state and cache a cold run leaves, copied with their timestamps
  cold_state "$DATA/state0.json"
  "$BIN" -q status bench --json >/dev/null
  cp -a .swarm/cache .swarm/state "$WARM/"
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "commits=$COMMITS issues=$ISSUES runs=$RUNS parts=$PARTS load_before=$load_before" >&2
skewed_scanned=none
for r in $(seq 1 "$RUNS"); do
  echo "round $r/$RUNS..." >&2
  git update-ref refs/heads/main "$TIP"
  if part cold; then
    timed git git log --format=%H%x00%B HEAD
    cold_state "$DATA/state0.json"
    timed cold "$BIN" -q status bench --json
  else
    rm -rf .swarm/cache .swarm/state
    cp -a "$WARM/cache" "$WARM/state" .swarm/
  fi
  if part warm; then
    timed revparse git rev-parse HEAD
    timed warm "$BIN" -q status bench --json
    timed warm_text "$BIN" -q status bench
  fi
  if part skewed; then
    new_commit "$(date +%s)"
    timed ordered "$BIN" -q status bench --json
    new_commit $((1600000000 + COMMITS * 60 / 100))
    timed skewed "$BIN" -q status bench --json
    skewed_scanned=$(scanned)
  fi
  git update-ref refs/heads/main "$TIP"
  if [ -n "$WITH_ORIGINAL" ]; then
    cold_state "$DATA/state_original_$ORIGINAL_TASKS.json"
    timed original env PYTHONPATH="$ORIGINAL" "$PY" -m swarm_attack status bench
    cold_state "$DATA/state_original_$ORIGINAL_TASKS.json"
    timed ours_on_original "$BIN" -q status bench --json
    timed warm_original "$BIN" -q status bench --json
    timed warm_original_text "$BIN" -q status bench
  fi
done
done_count=$("$BIN" status bench --json | grep -c '"stage": "DONE"' || true)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

median() { # the median of the numbers in $1
  tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
declare -A M
for k in "${!T[@]}"; do M[$k]=$(median "${T[$k]}"); done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }'; }
echo "raw ms: $(for k in "${!T[@]}"; do printf '%s=[%s] ' "$k" "${T[$k]% }"; done)" >&2
echo "commits=$COMMITS issues=$ISSUES runs=$RUNS done_after_last=$done_count load_before=$load_before load_after=$load_after"
if part cold; then
  echo "cold: git_ms=${M[git]} cold_ms=${M[cold]} cold/git=$(ratio "${M[cold]}" "${M[git]}") (goal <= 1.0)"
fi
if part warm; then
  echo "warm: rev_parse_ms=${M[revparse]} warm_ms=${M[warm]} warm/rev_parse=$(ratio "${M[warm]}" "${M[revparse]}") (goal warm <= 20 ms)"
  echo "warm text: warm_text_ms=${M[warm_text]} (goal <= 20 ms)"
fi
if part skewed; then
  echo "skewed: ordered_ms=${M[ordered]} skewed_ms=${M[skewed]} skewed/ordered=$(ratio "${M[skewed]}" "${M[ordered]}") commits_scanned=$skewed_scanned (goal skewed <= 30 ms)"
fi
if [ -n "$WITH_ORIGINAL" ]; then
  echo "original ($ORIGINAL_TASKS tasks): original_ms=${M[original]} ours_ms=${M[ours_on_original]} ours/original=$(ratio "${M[ours_on_original]}" "${M[original]}") (goal <= 0.3)"
  echo "warm on the original's state ($ORIGINAL_TASKS tasks): json_ms=${M[warm_original]} text_ms=${M[warm_original_text]} (goal <= 20 ms)"
fi
