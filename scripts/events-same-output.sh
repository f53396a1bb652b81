#!/usr/bin/env bash
# Checks that two builds of swarm-attack print byte-for-byte the same `events` output
# (stdout, stderr and exit code): on the benchmark's log and on a log with odd lines mixed in
# (garbage, blank and padded lines, event names inside texts or other keys, spaced and
# repeated keys, escapes, a half surrogate, bytes that are not UTF-8, a torn last line), for
# the table, --json, --issue, --event (one and two), -n, --since/--until, unfiltered, with and
# without NO_COLOR, and on a terminal (colours, through `script`).
#
# Usage: scripts/events-same-output.sh OLD_BINARY NEW_BINARY [DATA_DIR]
#   DATA_DIR  where scripts/bench-events.sh keeps its logs (default /work/bench-data/events;
#             `big/` holds the 1M-line log, `small/` the 100k-line one); the odd log is
#             written to DATA_DIR/odd.
# Prints "N comparisons, all identical" and exits 0, or names each difference and exits 1.
set -u
A=$1 B=$2
DATA=${3:-/work/bench-data/events}
BIG=$DATA/big ODD=$DATA/odd
mkdir -p "$ODD/.swarm/events"
python3 - "$DATA/small/.swarm/events/user-authentication.jsonl" "$ODD/.swarm/events/user-authentication.jsonl" <<'EOF'
import random, sys
random.seed(7)
src = open(sys.argv[1]).read().splitlines()
odd = [
 'not json at all',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"issue_started","issue":5,"note":"\\"event\\":\\"issue_done\\""}',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"agent_started","issue":5,"msg":"issue_done"}',
 '{"ts":"2026-01-01T00:00:01.000Z","event" : "issue_done","issue":5,"summary":"spaced key"}',
 '{"ts":"2026-01-01T00:00:01.000Z", "event":\t"issue_done", "issue": 137, "summary":"line1\\nline2", "commit":"abc"}',
 '   ',
 '',
 '{"event":"issue_done","ts":"2026-01-01T00:00:01.000Z","issue":137,"event":"issue_started"}',
 '{"event":"issue_done","ts":"2026-01-01T00:00:01.000Z","issue":"137"}',
 '{"event":"issue_done","ts":"2026-01-01T00:00:01.000Z","issue":137.0,"cost_usd":1e3}',
 '{"event":"issue_done","ts":"2026-01-01T00:00:01.000Z","issue":137,"summary":"\\ud800 half"}',
 '{"event":"issue_done","ts":"2026-01-01T00:00:01.000Z","issue":137,"summary":"unterminated"',
 '{"event":"issue_done" garbage}',
 '["event","issue_done"]',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"issue_done","issue":1370,"summary":"  é€😀 long ' + 'x'*200 + '"}',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"issue_done","issue":137,"commit":"","summary":"two\\r\\nlines"}',
 '  {"ts":"2026-01-01T00:00:01.000Z","event":"issue_done","issue":137}  ',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"\\u0069ssue_done","issue":137}',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"issue_done\\u0000","issue":137}',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"issue_done","issue":137}}',
 '{{"ts":"2026-01-01T00:00:01.000Z","event":"issue_done","issue":137}',
 '{"ts":1,"event":"issue_done","issue":137}',
 '{"ts":null,"event":"issue_done","issue":137,"seq":-1}',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"verification_failed","issue":137,"failures":["a\\nb","c"]}',
 '{"ts":"2026-01-01T00:00:01.000Z","event":"action_received","issue":137,"action":"x"}',
]
out = []
for l in src:
    out.append(l)
    if random.random() < 0.003:
        out.append(random.choice(odd))
out.extend(odd)
data = ('\n'.join(out) + '\n').encode()
data += b'{"ts":"2026-01-01T00:00:01.000Z","event":"issue_done","issue":137,"s":"\xff\xfe"}\n'
data += b'\r\n{"event":"issue_done"}\r\n'
open(sys.argv[2], 'wb').write(data + b'{"event":"issue_done","issue":137}')
EOF
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0 n=0
CASES=(
  "--event issue_done"
  "--event issue_done --json"
  "--issue 137"
  "--issue 137 --json"
  "--issue 137 --event issue_done"
  "--event issue_done --event issue_started"
  "--event issue_done -n 100"
  "--event issue_done -n 100 --json"
  "-n 50"
  "-n 50 --json"
  "--event issue_done --since 2026-01-01T10:00:00Z --until 2026-01-02T00:00:00Z"
  "--since 2026-01-02T00:00:00Z --until 2026-01-02T01:00:00Z"
  "--event issue_done --since 2026-01-02"
  "--event no_such_event"
  "--event verification_failed"
  "--event agents_selected"
  ""
  "--json"
)
for dir in "$BIG" "$ODD"; do
  for c in "${CASES[@]}"; do
    for nc in "" 1; do
      n=$((n + 1))
      # shellcheck disable=SC2086
      NO_COLOR=$nc "$A" -p "$dir" events user-authentication $c >"$T/a.out" 2>"$T/a.err"; ea=$?
      NO_COLOR=$nc "$B" -p "$dir" events user-authentication $c >"$T/b.out" 2>"$T/b.err"; eb=$?
      if ! cmp -s "$T/a.out" "$T/b.out" || ! cmp -s "$T/a.err" "$T/b.err" || [ $ea != $eb ]; then
        echo "DIFFERENT: $dir NO_COLOR=$nc events $c (exit $ea/$eb)"; fail=1
      fi
    done
  done
done
# on a terminal (colours): through `script`
for c in "--event issue_done" "--issue 137" "" "-n 30"; do
  n=$((n + 1))
  printf -v ca '%q ' "$A" -p "$ODD" events user-authentication
  printf -v cb '%q ' "$B" -p "$ODD" events user-authentication
  script -qec "$ca$c" /dev/null >"$T/a.out" 2>&1
  script -qec "$cb$c" /dev/null >"$T/b.out" 2>&1
  grep -q $'\x1b\[' "$T/a.out" || { echo "no colour in tty output for: $c"; fail=1; }
  cmp -s "$T/a.out" "$T/b.out" || { echo "DIFFERENT on a tty: events $c"; fail=1; }
done
echo "$n comparisons, $([ $fail = 0 ] && echo all identical || echo SOME DIFFER)"
exit $fail
