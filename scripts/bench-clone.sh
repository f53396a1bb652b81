#!/usr/bin/env bash
# Benchmarks what the Action pays before any work on a big repository: clone + the first
# `status`, with a treeless partial clone (`git clone --filter=tree:0`, what actions/checkout
# offers as `filter: tree:0`) against a full clone. Interleaved rounds, medians, the ratio.
#
#   scripts/bench-clone.sh [COMMITS] [ISSUES] [RUNS]     (defaults 200000 1500 5)
#
# Data (kept and reused): $BENCH_DATA/h<COMMITS>/repo (default BENCH_DATA=/work/bench-data/sync,
# the same repository scripts/bench-sync.sh makes with scripts/gen-history.sh), served as a
# bare "origin" with `uploadpack.allowFilter` over file:// (a real transport: the local
# clone optimisation that hard-links objects is off).
# Each round: `git clone [--filter=tree:0]`, a normal clone with a
# checkout, as actions/checkout does — then `swarm-attack greenlight bench` and
# `status bench --json` (cold: no cache), timed together, the clone removed after.
# Anchor: the full clone. Goal: treeless <= 1/3 of full (>= 3x faster). Also prints the
# clones' sizes and checks that both `status` runs found the same DONE issues.
# BIN names the binary (default $CARGO_TARGET_DIR/release/swarm-attack, built if missing).
set -euo pipefail

COMMITS=${1:-200000}
ISSUES=${2:-1500}
RUNS=${3:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${BIN:-$TARGET/release/swarm-attack}
DATA=${BENCH_DATA:-/work/bench-data/sync}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release --locked --quiet)
mkdir -p "$DATA"
SRC="$DATA/h$COMMITS/repo"
if [ ! -e "$DATA/h$COMMITS/generated" ]; then
  rm -rf "$DATA/h$COMMITS"
  mkdir -p "$DATA/h$COMMITS"
  "$ROOT/scripts/gen-history.sh" "$SRC" "$COMMITS" "$ISSUES"
  touch "$DATA/h$COMMITS/generated"
fi
ORIGIN="$DATA/h$COMMITS-origin.git"
if [ ! -d "$ORIGIN" ]; then
  tmp="$ORIGIN.tmp.$$"
  git clone -q --bare "$SRC" "$tmp"
  git -C "$tmp" config uploadpack.allowFilter true
  mv "$tmp" "$ORIGIN"
fi
# the feature's issues and config travel with the clone (committed in the origin's copy)
if ! git -C "$ORIGIN" cat-file -e HEAD:specs/bench/issues.json 2>/dev/null; then
  work=$(mktemp -d)
  git clone -q "file://$ORIGIN" "$work/w"
  mkdir -p "$work/w/specs/bench"
  python3 - "$ISSUES" >"$work/w/specs/bench/issues.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"feature_id": "bench", "generated_at": "2026-01-01T00:00:00Z",
                  "issues": [{"order": i, "title": f"Issue {i}"} for i in range(1, n + 1)]}))
PY
  git -C "$work/w" add specs && git -C "$work/w" commit -q -m "chore: bench issues"
  git -C "$work/w" push -q origin HEAD:main
  rm -rf "$work"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
one() { # $1: full|treeless ; prints seconds, leaves $WORK/$1.{size,done}
  local dir="$WORK/$1" filter=()
  [ "$1" = treeless ] && filter=(--filter=tree:0)
  rm -rf "$dir"
  sync
  local t0 t1
  t0=$(now)
  git clone -q "${filter[@]}" "file://$ORIGIN" "$dir"
  (cd "$dir" && "$BIN" greenlight bench >/dev/null 2>&1 && "$BIN" status bench --json 2>/dev/null >"$WORK/$1.json")
  t1=$(now)
  du -sm "$dir/.git" | cut -f1 >"$WORK/$1.size"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for t in d["tasks"] if t["stage"]=="DONE"))' "$WORK/$1.json" >"$WORK/$1.done"
  rm -rf "$dir"
  echo "$t1 - $t0" | bc -l
}
full=() treeless=()
for i in $(seq 1 "$RUNS"); do
  full+=("$(one full)")
  treeless+=("$(one treeless)")
  echo "round $i: full ${full[-1]} s, treeless ${treeless[-1]} s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mf=$(median "${full[@]}")
mt=$(median "${treeless[@]}")
echo "DONE found: full $(cat "$WORK/full.done"), treeless $(cat "$WORK/treeless.done")"
[ "$(cat "$WORK/full.done")" = "$(cat "$WORK/treeless.done")" ] || { echo "the two clones disagree" >&2; exit 1; }
echo "git dir: full $(cat "$WORK/full.size") MB, treeless $(cat "$WORK/treeless.size") MB"
printf 'clone + first status, %s commits: full %.2f s, treeless %.2f s, ratio treeless/full %.2f (goal <= 0.33)\n' \
  "$COMMITS" "$mf" "$mt" "$(echo "$mt / $mf" | bc -l)"
