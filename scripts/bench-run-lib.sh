# Shared by scripts/bench-run.sh, bench-run-ab.sh and bench-run-at.sh (sourced, not run): the agent
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
  local template=$1 issues=$2 repo=$3 bin=$4 agent=$5
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
  bench_issues_json "$issues" >"$repo/specs/runbench/issues.json"
  (cd "$repo" && "$bin" -q greenlight runbench >/dev/null)
}

# bench_issues_json ISSUES: the issues.json of ISSUES independent issues of `runbench`
bench_issues_json() {
  local n
  printf '{"feature_id": "runbench", "issues": ['
  for ((n = 1; n <= $1; n++)); do
    [ "$n" -gt 1 ] && printf ', '
    printf '{"order": %d, "title": "Issue %d"}' "$n" "$n"
  done
  printf ']}\n'
}
