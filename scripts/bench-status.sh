#!/usr/bin/env bash
# Benchmarks `greenlight` and `status --json` as the number of tasks grows.
#
#   scripts/bench-status.sh [SIZES...]        (default 2000 5000 10000 20000)
#
# For each size N: a small repository with a feature of N issues, each depending on the one
# before (a chain, the worst case for dependency ordering) and on one earlier issue, the
# first tenth DONE by commits; times (best of 3) `greenlight` (repeated: idempotent) and
# `status --json`, and prints per size the milliseconds, then `x10=<t(10·N0)/t(N0)>` for
# the first size whose tenfold is measured (goal <= 12) and `status_ms_at_max=<n>`.
set -euo pipefail

SIZES=("${@:-2000 5000 10000 20000}")
read -r -a SIZES <<<"${SIZES[*]}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/swarm-attack
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-status.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1

if [ "${SKIP_BUILD:-0}" != 1 ]; then # SKIP_BUILD=1: use the release binary as it is
  echo "building the release binary..." >&2
  (cd "$ROOT" && cargo build --release --quiet)
fi

now_ns() { date +%s%N; }
best_of_3() {
  local best="" t0 t1 ms
  for _ in 1 2 3; do
    t0=$(now_ns); "$@" >/dev/null; t1=$(now_ns)
    ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}

declare -A ST GL
for n in "${SIZES[@]}"; do
  repo=$WORK/r$n
  git init -q -b main "$repo"
  mkdir -p "$repo/specs/bench"
  awk -v n="$n" 'BEGIN {
    printf "{\"feature_id\": \"bench\", \"issues\": [";
    for (i = 1; i <= n; i++) {
      deps = "";
      if (i > 1) deps = sprintf("%d", i - 1);
      if (i > 10) deps = deps sprintf(", %d", int(i / 2));
      printf "%s{\"order\": %d, \"title\": \"issue %d\", \"dependencies\": [%s]}", (i > 1 ? "," : ""), i, i, deps;
    }
    printf "]}\n";
  }' >"$repo/specs/bench/issues.json"
  (cd "$repo" && git -c user.name=B -c user.email=b@e commit -q --allow-empty -m "chore: start")
  for i in $(seq 1 $((n / 10))); do echo "feat(bench): Implement issue #$i"; done |
    awk '{ printf "commit refs/heads/main\ncommitter B <b@e> %d +0000\ndata %d\n%s\nfrom refs/heads/main^0\n\n", 1700000000 + NR, length($0), $0 }' |
    git -C "$repo" fast-import --quiet --force 2>/dev/null || true
  (cd "$repo" && git checkout -q -f main && "$BIN" -q greenlight bench >/dev/null)
  GL[$n]=$(cd "$repo" && best_of_3 "$BIN" -q greenlight bench)
  ST[$n]=$(cd "$repo" && best_of_3 "$BIN" -q status bench --json)
  echo "tasks=$n greenlight_ms=${GL[$n]} status_ms=${ST[$n]}" >&2
done
first=${SIZES[0]}
last=${SIZES[${#SIZES[@]}-1]}
if [ -n "${ST[$((first * 10))]:-}" ]; then
  awk -v a="${ST[$((first * 10))]}" -v b="${ST[$first]}" -v c="${GL[$((first * 10))]}" -v d="${GL[$first]}" \
    'BEGIN { printf "status x10=%.1f greenlight x10=%.1f (goal <= 12)\n", a / (b > 0 ? b : 1), c / (d > 0 ? d : 1) }'
fi
echo "status_ms_at_$last=${ST[$last]} greenlight_ms_at_$last=${GL[$last]} (goal <= 400)"
