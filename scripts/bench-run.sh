#!/usr/bin/env bash
# Benchmarks `run`'s own overhead per issue (issue 19): N independent issues, an agent that
# writes one file, tests `true`, one worker. Prints the wall time per issue at each size
# (goal: <= 40 ms, flat), then two ratios measured interleaved in the same run (median of
# RUNS pairs, 100 issues each):
#   history  a repository with COMMITS commits (scripts/gen-history.sh: noise full of
#            `#123` mentions, rule-1 commits of another feature) vs a one-commit repository
#            whose tree is exactly the big one's tip tree (1,598 files at 200k commits;
#            checked by tree hash; objects packed like the big one's, as a clone has
#            them), so the ratio measures history size only, not tree size; both get the
#            same issues, config and feature ($DATA/flat-h<COMMITS>)    (goal <= 1.5x)
#   wide     a tree of FILES files vs a one-file tree                       (goal <= 2x)
#
#   scripts/bench-run.sh [--sizes "1 100 500 1000"] [--ratio-issues 100] [--commits 200000]
#                        [--files 2000] [--runs 3] [--data /work/bench-data/run]
#                        [--parts "sizes history wide"]
#
# --parts picks what to measure (default all three): e.g. `--parts history --runs 5` runs
# only the history comparison.
#
# The generated template repositories are kept under --data and reused; the history one is
# $BENCH_SYNC_DATA/h<COMMITS>/repo (default /work/bench-data/sync, shared with
# scripts/bench-sync.sh). Each run works in a `git clone --shared` of a template. The binary:
# $SWARM_ATTACK_BIN, else the release build under $CARGO_TARGET_DIR (or ./target), built
# when missing. BENCH_STRACE=1 also counts the processes spawned per issue at the
# largest size (needs strace).
set -euo pipefail

SIZES="1 100 500 1000"
RATIO_ISSUES=100
COMMITS=200000
FILES=2000
RUNS=3
DATA=/work/bench-data/run
PARTS="sizes history wide"
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --ratio-issues) RATIO_ISSUES=$2; shift 2 ;;
    --commits) COMMITS=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --parts) PARTS=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes LIST] [--ratio-issues N] [--commits N] [--files N] [--runs R] [--data DIR] [--parts \"sizes history wide\"]" >&2; exit 2 ;;
  esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SWARM_ATTACK_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/swarm-attack}
if [ ! -x "$BIN" ]; then
  echo "building the release binary..." >&2
  (cd "$ROOT" && cargo build --release --quiet)
fi
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
mkdir -p "$DATA"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# --- template repositories (kept under $DATA) ---------------------------------------
# the history repository is shared with scripts/bench-sync.sh (same generator, same place)
gen_history() { # $1: data folder (the repository is $1/repo), $2: commits
  local data=$1 n=$2
  [ -e "$data/generated" ] && return 0
  echo "generating $n commits in $data/repo (once, scripts/gen-history.sh)..." >&2
  rm -rf "$data"
  mkdir -p "$data"
  "$ROOT/scripts/gen-history.sh" "$data/repo" "$n" 1500
  touch "$data/generated"
}

gen_tree() { # $1: path, $2: files
  local repo=$1 n=$2 i
  [ -f "$repo/.complete" ] && return 0
  echo "generating a $n-file tree in $repo (once)..." >&2
  rm -rf "$repo"
  git init -q -b main "$repo"
  for ((i = 0; i < n; i++)); do
    mkdir -p "$repo/src/m$((i % 40))"
    printf 'line one of file %d\nline two\n' "$i" >"$repo/src/m$((i % 40))/file$i.txt"
  done
  git -C "$repo" add -A
  git -C "$repo" -c user.name=Dev -c user.email=dev@example.com commit -q -m "chore: init"
  touch "$repo/.complete"
}

# one commit whose tree is the tip tree of $1 (the history template): same files, no history
gen_flat() { # $1: history repository, $2: path
  local src=$1 repo=$2 want got
  want=$(git -C "$src" rev-parse 'main^{tree}')
  [ -f "$repo/.complete" ] && [ "$(cat "$repo/.complete")" = "$want packed" ] && return 0
  echo "making a one-commit copy of $src's tip tree in $repo (once)..." >&2
  rm -rf "$repo"
  git init -q -b main "$repo"
  git -C "$src" archive main | tar -x -C "$repo"
  git -C "$repo" add -A
  git -C "$repo" -c user.name=Dev -c user.email=dev@example.com commit -q -m "chore: init"
  git -C "$repo" repack -adq # packed like the history one (and any clone), not loose objects
  got=$(git -C "$repo" rev-parse 'HEAD^{tree}')
  if [ "$got" != "$want" ]; then
    echo "the copy's tree $got differs from $src's tip tree $want" >&2
    exit 1
  fi
  echo "$want packed" >"$repo/.complete"
}

has_part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

gen_tree "$DATA/small" 1
has_part wide && gen_tree "$DATA/wide-$FILES" "$FILES"
HISTORY=${BENCH_SYNC_DATA:-/work/bench-data/sync}/h$COMMITS
if has_part history; then
  gen_history "$HISTORY" "$COMMITS"
  gen_flat "$HISTORY/repo" "$DATA/flat-h$COMMITS"
fi

# shellcheck source=scripts/bench-run-lib.sh
. "$ROOT/scripts/bench-run-lib.sh"
bench_agent "$WORK/agent.sh"

# prepare REPO_TEMPLATE ISSUES: a fresh clone with config, N issues, greenlit
prepare() { bench_prepare "$1" "$2" "$WORK/repo" "$BIN" "$WORK/agent.sh"; }

# time_run ISSUES: wall ms of `run` in $WORK/repo; checks every issue is DONE
time_run() {
  local issues=$1 t0 t1 done_count
  # the set-up's writes (clone, greenlight) are flushed first, so the run's own fsyncs do
  # not pay for them
  sync
  t0=$(date +%s%N)
  (cd "$WORK/repo" && ${BENCH_WRAP:-} nice -n 10 "$BIN" -q run runbench >/dev/null)
  t1=$(date +%s%N)
  done_count=$(grep -c '"stage": "DONE"' "$WORK/repo/.swarm/state/runbench.json" || true)
  if [ "$done_count" -ne "$issues" ]; then
    echo "only $done_count of $issues issues DONE" >&2
    exit 1
  fi
  echo $(((t1 - t0) / 1000000))
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "per-issue overhead (1 worker, agent writes one file, tests \`true\`; median of $RUNS, at least 5 up to 10 issues):"
per_issue=""
has_part sizes || SIZES=""
for size in $SIZES; do
  times=""
  # a run of a few issues takes tens of milliseconds: one sample is noise, take at least 5
  runs=$RUNS
  [ "$size" -le 10 ] && [ "$runs" -lt 5 ] && runs=5
  for ((r = 0; r < runs; r++)); do
    prepare "$DATA/small" "$size"
    times="$times $(time_run "$size")"
  done
  ms=$(echo "$times" | median)
  per=$(awk -v t="$ms" -v n="$size" 'BEGIN {printf "%.1f", t / n}')
  per_issue="$per_issue $per"
  echo "  $size issues: ${ms} ms total, ${per} ms per issue (runs:$times)"
done

if [ -n "${BENCH_STRACE:-}" ]; then
  last=${SIZES##* }
  prepare "$DATA/small" "$last"
  BENCH_WRAP="strace -f -qq -z -e trace=execve -o $WORK/trace" time_run "$last" >/dev/null
  all=$(grep -c 'execve(' "$WORK/trace" || true)
  gits=$(grep -c 'execve("[^"]*/git"' "$WORK/trace" || true)
  awk -v a="$all" -v g="$gits" -v n="$last" 'BEGIN {
    printf "  spawns per issue at %d issues: %.1f (git %.1f)\n", n, a / n, g / n }'
fi

{ has_part history || has_part wide; } && echo "ratios ($RATIO_ISSUES issues, interleaved, median of $RUNS):"
hist="" small_h="" wide="" small_w="" h=0 s1=0 w=0 s2=0
for ((r = 0; r < RUNS; r++)); do
  if has_part history; then
    prepare "$DATA/flat-h$COMMITS" "$RATIO_ISSUES"; small_h="$small_h $(time_run "$RATIO_ISSUES")"
    prepare "$HISTORY/repo" "$RATIO_ISSUES"; hist="$hist $(time_run "$RATIO_ISSUES")"
  fi
  if has_part wide; then
    prepare "$DATA/small" "$RATIO_ISSUES"; small_w="$small_w $(time_run "$RATIO_ISSUES")"
    prepare "$DATA/wide-$FILES" "$RATIO_ISSUES"; wide="$wide $(time_run "$RATIO_ISSUES")"
  fi
done
if has_part history; then
  s1=$(echo "$small_h" | median); h=$(echo "$hist" | median)
  echo "  $COMMITS commits: $h ms vs one commit, same tree $s1 ms (runs:$hist /$small_h)"
fi
if has_part wide; then
  s2=$(echo "$small_w" | median); w=$(echo "$wide" | median)
  echo "  $FILES files: $w ms vs small $s2 ms (runs:$wide /$small_w)"
fi
awk -v h="$h" -v s1="$s1" -v w="$w" -v s2="$s2" -v p="$per_issue" 'BEGIN {
  n = split(p, a, " "); max = 0; for (i = 1; i <= n; i++) if (a[i] + 0 > max) max = a[i] + 0;
  printf "per_issue_ms=%s max=%.1f (goal <= 40) history_ratio=%s (goal <= 1.5) wide_ratio=%s (goal <= 2)\n",
    p, max, (s1 > 0 ? sprintf("%.2f", h / s1) : "-"), (s2 > 0 ? sprintf("%.2f", w / s2) : "-") }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
