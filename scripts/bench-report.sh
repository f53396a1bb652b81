#!/usr/bin/env bash
# Benchmark: `swarm-attack report <f>` on a 1,000,000-line event log (500 issues, long retry
# histories, PARALLEL pairs, tokens, rate limits, budget stops). Prints the wall time, the
# report's size and the peak RSS (`/usr/bin/time -v`, else VmHWM polled from /proc), also on
# a 10x smaller log to show memory stays flat. The bound: peak RSS < 100 MB.
#
# Usage: scripts/bench-report.sh [LINES]
# Env: CARGO_TARGET_DIR (default target), KEEP=1 keeps the generated files,
#      PROFILE=release (default) or debug, BIN=<path> uses that binary (no build).
set -euo pipefail

LINES=${1:-1000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=${PROFILE:-release}

if [ -z "${BIN:-}" ]; then
  echo "building the $PROFILE binary..."
  if [ "$PROFILE" = release ]; then
    (cd "$ROOT" && cargo build --release --quiet)
  else
    (cd "$ROOT" && cargo build --quiet)
  fi
  BIN=$TARGET/$PROFILE/swarm-attack
fi

WORK=$(mktemp -d)
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/big/.swarm/events" "$WORK/small/.swarm/events"
LOG=$WORK/big/.swarm/events/checkout.jsonl

echo "generating $LINES lines..."
# A long run over 500 issues in the writer's layout: per issue, cycles of attempt start,
# decision, two agents (PARALLEL) or one, their reports (tokens, cost or null), candidate
# verifications, sometimes a rate-limit wait, then done, a failed attempt or a budget stop.
awk -v n="$LINES" 'BEGIN {
  srand(7);
  t0 = 1767225600;
  i = 0;
  while (i < n) {
    k = int(rand() * 500) + 1;
    att[k]++;
    a = att[k];
    par = (k % 3 == 0);
    nev = 0;
    ev[++nev] = sprintf("\"event\":\"%s\",\"issue\":%d,\"attempt\":%d", (a == 1 ? "issue_started" : "retry_started"), k, a);
    ev[++nev] = sprintf("\"event\":\"agents_selected\",\"issue\":%d,\"mode\":\"%s\",\"winner\":\"claude\",\"runner_up\":\"codex\",\"reason\":\"both > 0.50\",\"proposals\":[]", k, (par ? "PARALLEL" : "SOLO"));
    ev[++nev] = sprintf("\"event\":\"agent_started\",\"issue\":%d,\"agent\":\"claude\",\"role\":\"primary\"", k);
    if (par) ev[++nev] = sprintf("\"event\":\"agent_started\",\"issue\":%d,\"agent\":\"codex\",\"role\":\"runner-up\"", k);
    if (rand() < 0.05) ev[++nev] = sprintf("\"event\":\"rate_limited\",\"issue\":%d,\"agent\":\"claude\",\"retry_after_ms\":%d,\"workers\":4", k, int(rand() * 60000));
    ev[++nev] = sprintf("\"event\":\"agent_finished\",\"issue\":%d,\"agent\":\"claude\",\"exit_code\":0,\"duration_ms\":%d,\"timed_out\":false,\"cost_usd\":%s,\"tokens_in\":%d,\"tokens_out\":%d,\"tokens_cached\":%d,\"turns\":%d,\"error_kind\":null", k, int(rand() * 600000), (rand() < 0.2 ? "null" : sprintf("%.4f", rand())), int(rand() * 200000), int(rand() * 20000), int(rand() * 100000), int(rand() * 40));
    if (par) ev[++nev] = sprintf("\"event\":\"agent_finished\",\"issue\":%d,\"agent\":\"codex\",\"exit_code\":1,\"duration_ms\":%d,\"timed_out\":false,\"cost_usd\":null,\"error_kind\":\"crashed\"", k, int(rand() * 600000));
    ev[++nev] = sprintf("\"event\":\"implementation_complete\",\"issue\":%d,\"files_created\":[\"src/f_%d.rs\"],\"files_modified\":[\"src/lib.rs\"]", k, k);
    r = rand();
    if (r < 0.6) {
      ev[++nev] = sprintf("\"event\":\"verification_failed\",\"issue\":%d,\"tests_failed\":%d,\"failures\":\"thread test_%d panicked at tests/f_%d.rs:%d:5: assertion failed\"", k, int(rand() * 4) + 1, k, k, int(rand() * 300));
    } else if (r < 0.95) {
      ev[++nev] = sprintf("\"event\":\"verification_passed\",\"issue\":%d,\"tests_passed\":%d", k, int(rand() * 40) + 1);
      ev[++nev] = sprintf("\"event\":\"issue_done\",\"issue\":%d,\"commit\":\"%08x%08x%08x%08x%08x\",\"cost_usd\":null,\"summary\":\"done\"", k, i, k, i % 65521, i % 4093, k);
    } else {
      ev[++nev] = sprintf("\"event\":\"budget_exceeded\",\"issue\":%d,\"kind\":\"issue_usd\",\"spent\":%.2f,\"limit\":5.0", k, 5 + rand());
      ev[++nev] = sprintf("\"event\":\"issue_blocked\",\"issue\":%d,\"reason\":\"budget: issue_usd reached\",\"retries\":%d", k, a);
    }
    for (j = 1; j <= nev && i < n; j++) {
      i++;
      t = t0 + int(i / 3);
      ts = strftime("%Y-%m-%dT%H:%M:%S", t, 1) sprintf(".%03dZ", i % 1000);
      printf("{\"ts\":\"%s\",\"feature\":\"checkout\",\"session\":\"s%d\",\"seq\":%d,%s}\n", ts, int(i / 50000), i, ev[j]);
    }
  }
}' > "$LOG"
head -n $((LINES / 10)) "$LOG" > "$WORK/small/.swarm/events/checkout.jsonl"
echo "log: $LINES lines, $(( $(stat -c %s "$LOG") / 1000000 )) MB"
cat "$LOG" > /dev/null # warm the page cache

peak_rss_kb() { # command... → peak RSS in KB
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'
  else
    "$@" > /dev/null 2>&1 &
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

OUT=$WORK/report.html
s=$(date +%s%N)
"$BIN" -q -p "$WORK/big" report checkout --out "$OUT" > /dev/null
e=$(date +%s%N)
RSS=$(peak_rss_kb "$BIN" -q -p "$WORK/big" report checkout --out "$OUT")
RSS_SMALL=$(peak_rss_kb "$BIN" -q -p "$WORK/small" report checkout --out "$WORK/small.html")
echo "report: $(((e - s) / 1000000)) ms, $(( $(stat -c %s "$OUT") / 1000 )) kB HTML"
echo "peak RSS: $((RSS / 1024)) MB on $LINES lines ($((RSS_SMALL / 1024)) MB on $((LINES / 10)) lines); bound 100 MB"
if [ "$RSS" -ge $((100 * 1024)) ]; then
  echo "FAIL: peak RSS $((RSS / 1024)) MB is not under 100 MB" >&2
  exit 1
fi
