# Shared by scripts/bench-run.sh and scripts/bench-run-ab.sh (sourced, not run): the agent
# of the `run` benchmarks and a repository prepared for one run.

# bench_agent PATH: an agent script that writes one file per issue
bench_agent() {
  cat >"$1" <<'AGENT'
#!/bin/sh
cat > /dev/null
echo "issue $SWARM_ISSUE" > "work-$SWARM_ISSUE.txt"
AGENT
  chmod +x "$1"
}

# bench_prepare TEMPLATE ISSUES REPO BIN AGENT: a fresh `git clone --shared` of TEMPLATE at
# REPO with config (AGENT, tests `true`), ISSUES independent issues of feature `runbench`,
# greenlit with BIN
bench_prepare() {
  local template=$1 issues=$2 repo=$3 bin=$4 agent=$5 n
  rm -rf "$repo"
  git clone -q --shared -b main "$template" "$repo"
  git -C "$repo" config user.name bench
  git -C "$repo" config user.email bench@example.com
  cat >"$repo/config.yaml" <<CONFIG
coordination:
  github_sync_enabled: false
agents:
  - name: writer
    command: ["$agent"]
    timeout_seconds: 120
tests:
  command: "true"
CONFIG
  mkdir -p "$repo/specs/runbench"
  {
    printf '{"feature_id": "runbench", "issues": ['
    for ((n = 1; n <= issues; n++)); do
      [ "$n" -gt 1 ] && printf ', '
      printf '{"order": %d, "title": "Issue %d"}' "$n" "$n"
    done
    printf ']}\n'
  } >"$repo/specs/runbench/issues.json"
  (cd "$repo" && "$bin" -q greenlight runbench >/dev/null)
}
