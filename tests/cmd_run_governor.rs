//! The rate-limit governor (docs/budgets.md "Rate limits: the governor"): a rate-limited agent run
//! (Claude's 429 result, Codex's failed turn) uses no retry; the issue is READY again and
//! dispatched after a back-off shared by all workers that honours the CLI's retry-after; repeated
//! limits halve the concurrency (`rate_limited{issue, agent, retry_after_ms, workers}`); a
//! persistent limit stops the run with exit 1, the issues READY and their retries untouched.
//!
//! `SWARM_ATTACK_TEST_BACKOFF_DIVISOR=10` makes every wait last a tenth of what the governor
//! decides (and records): "retry after 2 s" waits 200 ms here.

use crate::common::agents::Setup;
use serde_json::{Value, json};

/// Rate-limited for its first `$LIMITS` calls per issue (Claude's 429 result, or Codex's
/// failed turn for issue 4: "rate limited, retry after 2 s"), then it does the work. Logs
/// `issue call start_ms end_ms limited|ok` per call.
const LIMITED_TWICE: &str = r#"cat > /dev/null
start=$(date +%s%3N)
n=$(cat "$TRACE/count-$SWARM_ISSUE" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$TRACE/count-$SWARM_ISSUE"
if [ "$n" -le $LIMITS ]; then
  if [ "$SWARM_ISSUE" = 4 ]; then
    printf '%s\n' '{"type":"thread.started","thread_id":"0199a6f3"}' '{"type":"turn.started"}' \
      '{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests; rate limited, retry after 2 s"}' \
      '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests; rate limited, retry after 2 s"}}'
  else
    printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"rate limited, retry after 2 s\"}}","session_id":"5b0f","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"api_error_status":429}'
  fi
  echo "$SWARM_ISSUE $n $start $(date +%s%3N) limited" >> "$TRACE/calls.log"
  exit 1
fi
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
echo "$SWARM_ISSUE $n $start $(date +%s%3N) ok" >> "$TRACE/calls.log"
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.1}'
"#;

fn setup(issues: Value, limits: &str, config: &str) -> Setup {
    let mut s = Setup::new(
        "auth",
        issues,
        &LIMITED_TWICE.replace("$LIMITS", limits),
        config,
    );
    s.env
        .extra_env
        .push(("SWARM_ATTACK_TEST_BACKOFF_DIVISOR".into(), "10".into()));
    s
}

/// The calls logged by the agent: (issue, call, start ms, end ms, limited).
fn calls(s: &Setup) -> Vec<(u64, u64, u64, u64, bool)> {
    s.calls()
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let n = |i: usize| f[i].parse::<u64>().unwrap();
            (n(0), n(1), n(2), n(3), f[4] == "limited")
        })
        .collect()
}

fn four_issues() -> Value {
    json!([
        {"order": 1, "title": "One"},
        {"order": 2, "title": "Two"},
        {"order": 3, "title": "Three"},
        {"order": 4, "title": "Four"}
    ])
}

#[test]
fn rate_limits_use_no_retry_pause_all_workers_and_halve_them() {
    let s = setup(
        four_issues(),
        "2",
        "sessions:\n  max_implementation_retries: 1\n",
    );
    let r = s.env.run(&["run", "auth", "--workers", "4"]);
    r.ok();
    for n in 1..=4 {
        assert_eq!(s.env.stage("auth", n), "DONE", "issue {n}\n{}", r.stdout);
        let t = s.task("auth", n);
        assert_eq!(t["retries"], 0, "no retry used by issue {n}");
    }
    assert!(s.events_named("auth", "retry_started").is_empty());
    assert!(s.events_named("auth", "issue_blocked").is_empty());

    let limited = s.events_named("auth", "rate_limited");
    assert_eq!(limited.len(), 8, "two per issue: {limited:?}");
    for n in 1..=4u64 {
        assert_eq!(limited.iter().filter(|e| e["issue"] == n).count(), 2);
    }
    assert!(limited.iter().all(|e| e["agent"] == "fake"));
    // the first wave waits the CLI's "retry after 2 s"; the next one twice as long
    let waits: Vec<u64> = limited
        .iter()
        .map(|e| e["retry_after_ms"].as_u64().unwrap())
        .collect();
    assert!(waits.contains(&2000), "{waits:?}");
    assert!(waits.contains(&4000), "{waits:?}");
    // 4 workers at first; halved after the repeated limit
    let workers: Vec<u64> = limited
        .iter()
        .map(|e| e["workers"].as_u64().unwrap())
        .collect();
    // (the order of the log may differ from the order of the decisions by a few records)
    assert_eq!(workers.iter().max(), Some(&4), "{workers:?}");
    assert!(workers.contains(&2), "{workers:?}");

    // every limited call was followed by a pause of at least its retry-after (2 s, scaled
    // by the test divisor to 200 ms) before the issue's next call
    let calls = calls(&s);
    assert_eq!(calls.len(), 12, "{calls:?}");
    for &(issue, call, _, end, was_limited) in &calls {
        if !was_limited {
            continue;
        }
        let next = calls
            .iter()
            .find(|c| c.0 == issue && c.1 == call + 1)
            .unwrap_or_else(|| panic!("issue {issue} was not called again: {calls:?}"));
        assert!(
            next.2 >= end + 190,
            "issue {issue} call {} started {} ms after the limit",
            call + 1,
            next.2 as i64 - end as i64
        );
    }
    assert!(
        r.stdout.contains("rate-limited; no retry used"),
        "{}",
        r.stdout
    );
}

#[test]
fn rate_limited_single_issue_is_claimed_again_after_the_back_off() {
    let s = setup(
        json!([{"order": 1, "title": "One"}]),
        "1",
        "sessions:\n  max_implementation_retries: 0\n",
    );
    // no retries at all: the limited attempt still does not block the issue
    s.env.run(&["run", "auth", "--issue", "1"]).ok();
    assert_eq!(s.env.stage("auth", 1), "DONE");
    assert_eq!(s.task("auth", 1)["retries"], 0);
    let limited = s.events_named("auth", "rate_limited");
    assert_eq!(limited.len(), 1);
    assert_eq!(limited[0]["retry_after_ms"], 2000);
    assert_eq!(limited[0]["workers"], 1);
}

#[test]
fn a_persistent_limit_stops_the_run_with_the_issues_ready() {
    let s = setup(
        json!([{"order": 1, "title": "One"}, {"order": 2, "title": "Two"}]),
        "1000",
        "governor:\n  max_backoff_minutes: 0.05\n",
    );
    let before: Vec<Value> = (1..=2)
        .map(|n| s.task("auth", n)["retries"].clone())
        .collect();
    let r = s.env.run(&["run", "auth", "--workers", "2"]);
    r.code(1);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.starts_with("note:") && !l.trim().is_empty())
        .collect();
    assert_eq!(errors.len(), 1, "one sentence:\n{}", r.stderr);
    assert!(
        errors[0].contains("rate-limited") && errors[0].contains("governor.max_backoff_minutes"),
        "{}",
        errors[0]
    );
    for n in 1..=2 {
        assert_eq!(s.env.stage("auth", n), "READY", "issue {n}");
        let t = s.task("auth", n);
        assert_eq!(t["retries"], before[n as usize - 1], "retries untouched");
        assert!(t["owner"].is_null());
    }
    assert!(s.events_named("auth", "issue_blocked").is_empty());
    // 2 s (the first wave) fits in 3 s; the next wave (4 s more) does not
    let limited = s.events_named("auth", "rate_limited");
    assert!(
        limited.iter().any(|e| e["retry_after_ms"] == 2000),
        "{limited:?}"
    );
    assert!(
        limited.iter().any(|e| e["retry_after_ms"] == 0),
        "{limited:?}"
    );
    let waited: u64 = limited
        .iter()
        .map(|e| e["retry_after_ms"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(waited <= 3000, "{limited:?}");

    // the limit is configurable: an unknown key under governor is named with a suggestion
    let config = s.env.read("config.yaml");
    s.env.write(
        "config.yaml",
        &config.replace("max_backoff_minutes", "max_backof_minutes"),
    );
    let r = s.env.run(&["run", "auth"]);
    r.code(2);
    assert!(r.stderr.contains("max_backoff_minutes"), "{}", r.stderr);
}
