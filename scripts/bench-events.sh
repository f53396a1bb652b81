#!/usr/bin/env bash
# Benchmark: `swarm-attack events <f> --issue N --json` against `grep -F '"issue":N,'` on the
# same 1,000,000-line (~250 MB) event log, in one run. Prints the timings, the ratio
# `events/grep=<ratio>` and the maximum RSS of both (to show memory stays flat: also
# measured on a 10x smaller log).
#
# Usage: scripts/bench-events.sh [LINES] [ISSUE] [DATA_DIR]
#   LINES     lines in the generated log (default 1000000)
#   ISSUE     the issue to filter on (default 137)
#   DATA_DIR  where the generated logs live (default: a temporary directory, removed at the
#             end); a log already there with LINES lines is reused, not generated again
# Env: CARGO_TARGET_DIR (default target), RUNS (timed runs per tool, default 5; the median
#      is reported), KEEP=1 keeps the temporary directory, SKIP_BUILD=1 uses the release
#      binary as it is, PARTS (default "issue table audit": which comparisons to run;
#      "none" only generates the data).
set -euo pipefail

LINES=${1:-1000000}
ISSUE=${2:-137}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "building the release binary..."
  (cd "$ROOT" && cargo build --release --quiet)
fi
BIN=$TARGET/release/swarm-attack

WORK=$(mktemp -d)
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$WORK"' EXIT; fi
DATA=${3:-$WORK}
mkdir -p "$DATA/big/.swarm/events" "$DATA/small/.swarm/events"
LOG=$DATA/big/.swarm/events/user-authentication.jsonl
SMALL=$DATA/small/.swarm/events/user-authentication.jsonl

if [ -f "$LOG" ] && [ "$(wc -l <"$LOG")" = "$LINES" ]; then
  echo "reusing $LOG"
else
echo "generating $LINES lines..."
# Realistic records in the writer's layout (common fields first, compact JSON): the events
# of a long run over 500 issues, sessions changing every 50,000 records, a git_sync (no
# issue) every 1,000. `issue` is never the last field, as in every event that has one.
awk -v n="$LINES" 'BEGIN {
  srand(42);
  split("issue_started agents_selected context_injected agent_started agent_finished tests_written implementation_complete verification_failed retry_started verification_passed issue_done github_sync", ev, " ");
  t0 = 1767225600;  # 2026-01-01T00:00:00Z
  for (i = 1; i <= n; i++) {
    t = t0 + int(i / 4);
    ts = strftime("%Y-%m-%dT%H:%M:%S", t, 1) sprintf(".%03dZ", i % 1000);
    sess = sprintf("20260101T%06dZ-%d", int(i / 50000), 4000 + int(i / 50000));
    head = sprintf("{\"ts\":\"%s\",\"event\":\"%%s\",\"feature\":\"user-authentication\",\"session\":\"%s\",\"seq\":%d", ts, sess, i);
    if (i % 1000 == 0) {
      printf(head ",\"synced_issues\":[%d,%d],\"reverted_issues\":[],\"commits_scanned\":%d,\"head\":\"%08x%08x%08x%08x%08x\"}\n", "git_sync", i % 500 + 1, i % 499 + 1, i % 97, i, i % 65521, i % 4093, i % 251, i % 65519);
      continue;
    }
    k = int(rand() * 500) + 1;
    e = ev[int(rand() * 12) + 1];
    if (e == "issue_started" || e == "retry_started")
      body = sprintf(",\"issue\":%d,\"attempt\":%d}", k, int(rand() * 3) + 1);
    else if (e == "agents_selected")
      body = sprintf(",\"issue\":%d,\"mode\":\"PARALLEL\",\"winner\":\"claude\",\"runner_up\":\"codex\",\"reason\":\"both > 0.50 and overlap 0.21 < 0.50\",\"proposals\":[{\"agent\":\"claude\",\"source\":\"heuristic\",\"angle\":\"backend api\",\"confidence\":0.82},{\"agent\":\"codex\",\"source\":\"heuristic\",\"angle\":\"tests first\",\"confidence\":0.71}]}", k);
    else if (e == "context_injected")
      body = sprintf(",\"issue\":%d,\"has_claude_md\":true,\"summaries_count\":%d,\"prompt_bytes\":%d,\"truncated\":[]}", k, int(rand() * 20), 4000 + int(rand() * 60000));
    else if (e == "agent_started")
      body = sprintf(",\"issue\":%d,\"agent\":\"claude\",\"role\":\"primary\"}", k);
    else if (e == "agent_finished")
      body = sprintf(",\"issue\":%d,\"agent\":\"claude\",\"exit_code\":0,\"duration_ms\":%d,\"timed_out\":false,\"cost_usd\":%.4f}", k, int(rand() * 600000), rand());
    else if (e == "tests_written")
      body = sprintf(",\"issue\":%d,\"count\":%d,\"path\":\"tests/feature_%d.rs\"}", k, int(rand() * 12) + 1, k);
    else if (e == "implementation_complete")
      body = sprintf(",\"issue\":%d,\"files_created\":[\"src/feature_%d.rs\",\"src/feature_%d/mod.rs\"],\"files_modified\":[\"src/lib.rs\",\"Cargo.toml\"]}", k, k, k);
    else if (e == "verification_failed")
      body = sprintf(",\"issue\":%d,\"tests_failed\":%d,\"failures\":\"thread test_%d panicked at tests/feature_%d.rs:%d:5: assertion `left == right` failed: expected 200, got 500; test result: FAILED. 3 passed; 1 failed\"}", k, int(rand() * 4) + 1, k, k, int(rand() * 300));
    else if (e == "verification_passed")
      body = sprintf(",\"issue\":%d,\"tests_passed\":%d}", k, int(rand() * 40) + 1);
    else if (e == "issue_done")
      body = sprintf(",\"issue\":%d,\"commit\":\"%08x%08x%08x%08x%08x\",\"cost_usd\":%.4f,\"summary\":\"Implemented feature part %d: new module, public API and tests\"}", k, i, k * 13, i % 65521, i % 4093, k, rand() * 3, k);
    else
      body = sprintf(",\"issue\":%d,\"github_issue\":%d,\"action\":\"label\",\"success\":true}", k, k + 1000);
    printf(head body "\n", e);
  }
}' > "$LOG"
head -n $((LINES / 10)) "$LOG" > "$SMALL"
fi
SIZE_MB=$(( $(stat -c %s "$LOG") / 1000000 ))
echo "log: $LINES lines, $SIZE_MB MB"

cat "$LOG" > /dev/null # warm the page cache

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

once_us() { # command... → wall time in microseconds
  local s e
  s=$(now_ns)
  "$@" > "$WORK/out" # a file, not /dev/null: GNU grep stops at the first match then
  e=$(now_ns)
  echo $(((e - s) / 1000))
}

# Times the anchor A and the command B alternately, RUNS times each (so both see the same
# load), and sets T_A and T_B to their medians in microseconds.
# Usage: time_pair <A as a string of words> -- <B...>
time_pair() {
  local a=() b=() seen=0 w
  for w in "$@"; do
    if [ "$seen" = 0 ] && [ "$w" = -- ]; then seen=1; continue; fi
    if [ "$seen" = 0 ]; then a+=("$w"); else b+=("$w"); fi
  done
  local ta=() tb=()
  for _ in $(seq "$RUNS"); do
    ta+=("$(once_us "${a[@]}")")
    tb+=("$(once_us "${b[@]}")")
  done
  T_A=$(printf '%s\n' "${ta[@]}" | median)
  T_B=$(printf '%s\n' "${tb[@]}" | median)
}

max_rss_kb() { # command... → max RSS in KB
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" 2>&1 >"$WORK/out" | awk -F': ' '/Maximum resident set size/ {print $2}'
  else
    "$@" > "$WORK/out" &
    local pid=$! hwm=0 v
    while kill -0 "$pid" 2>/dev/null; do
      v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$v" ] && hwm=$v
      sleep 0.01
    done
    wait "$pid" || true
    echo "$hwm"
  fi
}

PARTS=${PARTS:-issue table audit}
has() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if has issue; then
EV=("$BIN" -p "$DATA/big" events user-authentication --issue "$ISSUE" --json)
GR=(grep -F "\"issue\":$ISSUE," "$LOG")

N_EV=$("${EV[@]}" | wc -l)
N_GR=$("${GR[@]}" | wc -l)
SAME=no
if cmp -s <("${EV[@]}") <("${GR[@]}"); then SAME=yes; fi
echo "matching lines: events $N_EV, grep $N_GR; identical output: $SAME"

time_pair "${GR[@]}" -- "${EV[@]}"
T_GR=$T_A T_EV=$T_B
RSS_GR=$(max_rss_kb "${GR[@]}")
RSS_EV=$(max_rss_kb "${EV[@]}")
RSS_EV_SMALL=$(max_rss_kb "$BIN" -p "$DATA/small" events user-authentication --issue "$ISSUE" --json)
RSS_ALL=$(max_rss_kb "$BIN" -p "$DATA/big" events user-authentication --json)

echo "grep:   $((T_GR / 1000)) ms (median of $RUNS), max RSS $((RSS_GR / 1024)) MB"
echo "events: $((T_EV / 1000)) ms (median of $RUNS), max RSS $((RSS_EV / 1024)) MB ($((RSS_EV_SMALL / 1024)) MB on $((LINES / 10)) lines; $((RSS_ALL / 1024)) MB unfiltered)"
awk -v a="$T_EV" -v b="$T_GR" 'BEGIN { printf("events/grep=%.2f\n", a / b) }'

fi

# `events --event issue_done` as a table against `grep -F '"event":"issue_done"'`
if has table; then
TB=("$BIN" -p "$DATA/big" events user-authentication --event issue_done)
GT=(grep -F '"event":"issue_done"' "$LOG")
time_pair "${GT[@]}" -- "${TB[@]}"
T_GT=$T_A T_TB=$T_B
echo "events --event issue_done (table): $((T_TB / 1000)) ms; grep -F: $((T_GT / 1000)) ms"
awk -v a="$T_TB" -v b="$T_GT" 'BEGIN { printf("table/grep=%.2f (goal <= 1.5)\n", a / b) }'

fi

# `audit` (and --json) over the whole log against `wc -l`, with its maximum RSS
if has audit; then
time_pair wc -l "$LOG" -- "$BIN" -p "$DATA/big" audit user-authentication
T_WC=$T_A T_AU=$T_B
time_pair wc -l "$LOG" -- "$BIN" -p "$DATA/big" audit user-authentication --json
T_AJ=$T_B
RSS_AU=$(max_rss_kb "$BIN" -p "$DATA/big" audit user-authentication)
RSS_AJ=$(max_rss_kb "$BIN" -p "$DATA/big" audit user-authentication --json)
RSS_AU_SMALL=$(max_rss_kb "$BIN" -p "$DATA/small" audit user-authentication)
echo "audit: $((T_AU / 1000)) ms, --json $((T_AJ / 1000)) ms (wc -l $((T_WC / 1000)) ms, audit/wc=$(awk -v a="$T_AU" -v b="$T_WC" 'BEGIN { printf("%.1f", a / b) }')); max RSS $((RSS_AU / 1024)) MB, --json $((RSS_AJ / 1024)) MB ($((RSS_AU_SMALL / 1024)) MB on $((LINES / 10)) lines)"
awk -v t="$T_AU" -v r="$RSS_AU" -v j="$RSS_AJ" 'BEGIN { printf("audit_s=%.2f (goal <= 1.5) audit_rss_mb=%d json_rss_mb=%d (goal <= 64)\n", t / 1e6, r / 1024, j / 1024) }'
fi
