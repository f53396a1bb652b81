//! `audit` and `report` (docs/budgets.md "Where the spend is shown", issue 32): an unknown cost
//! stays unknown in the totals (`cost_usd` the sum of the known costs, `null` when none is known,
//! and `cost_unknown_attempts`; "unknown" or "$x + unknown (n attempts)" in text), and a state file
//! that cannot be read is exit 2 naming it, as for `status` and `run`.

use crate::common::TestEnv;
use serde_json::{Value, json};

/// A feature `fc` with two issues whose log is `records` (appended after greenlight's).
fn with_log(records: &[Value]) -> TestEnv {
    let env = TestEnv::new();
    env.issues(
        "fc",
        json!([{"order": 1, "title": "Priced"}, {"order": 2, "title": "Tokens only"}]),
    );
    env.run(&["greenlight", "fc"]).ok();
    let path = env.path(".swarm/events/fc.jsonl");
    let mut log = std::fs::read_to_string(&path).unwrap();
    let mut seq = log.lines().count() as u64;
    for r in records {
        seq += 1;
        let mut r = r.clone();
        r["ts"] = json!(format!("2026-01-01T00:{:02}:00Z", seq % 60));
        r["feature"] = json!("fc");
        r["session"] = json!("s1");
        r["seq"] = json!(seq);
        log.push_str(&format!("{r}\n"));
    }
    std::fs::write(path, log).unwrap();
    env
}

fn started(issue: u64, attempt: u64) -> Value {
    json!({"event": if attempt == 1 { "issue_started" } else { "retry_started" }, "issue": issue, "attempt": attempt})
}

fn finished(issue: u64, cost: Option<f64>) -> Value {
    json!({"event": "agent_finished", "issue": issue, "agent": "a", "exit_code": 0,
           "duration_ms": 1000, "timed_out": false, "cost_usd": cost, "tokens_in": 1200, "tokens_out": 300})
}

#[test]
fn an_unknown_cost_stays_unknown_in_the_audit_and_report_totals() {
    let env = with_log(&[
        started(1, 1),
        finished(1, Some(0.25)),
        json!({"event": "issue_done", "issue": 1, "commit": "abc", "cost_usd": 0.25}),
        // a Codex-like agent: tokens, no cost, over two attempts
        started(2, 1),
        finished(2, None),
        json!({"event": "verification_failed", "issue": 2, "tests_failed": 1, "failures": "x"}),
        started(2, 2),
        finished(2, None),
        json!({"event": "issue_done", "issue": 2, "commit": "def", "cost_usd": null}),
    ]);
    let j = env.run(&["audit", "fc", "--json"]).json();
    assert_eq!(j["totals"]["cost_usd"], json!(0.25), "{:#}", j["totals"]);
    assert_eq!(j["totals"]["cost_unknown_attempts"], json!(2));
    let text = env.run(&["audit", "fc"]);
    text.ok();
    assert!(
        text.stdout.contains("cost $0.25 + unknown (2 attempts)"),
        "{}",
        text.stdout
    );
    let r = env.run(&["report", "fc"]);
    r.ok();
    assert!(
        r.stderr.contains("cost $0.2500 + unknown (2 attempts)"),
        "{}",
        r.stderr
    );
    let html = env.read(".swarm/reports/fc.html");
    assert!(
        html.contains("$0.2500 + unknown (2 attempts)"),
        "the totals table"
    );
}

#[test]
fn with_no_known_cost_the_total_is_null_and_unknown_never_0() {
    let env = with_log(&[
        started(2, 1),
        finished(2, None),
        json!({"event": "issue_done", "issue": 2, "commit": "def", "cost_usd": null}),
    ]);
    let j = env.run(&["audit", "fc", "--json"]).json();
    assert_eq!(j["totals"]["cost_usd"], Value::Null, "{:#}", j["totals"]);
    assert_eq!(j["totals"]["cost_unknown_attempts"], json!(1));
    let text = env.run(&["audit", "fc"]);
    assert!(text.stdout.contains("; cost unknown\n"), "{}", text.stdout);
    assert!(!text.stdout.contains("$0.00"), "{}", text.stdout);
    let r = env.run(&["report", "fc"]);
    r.ok();
    assert!(r.stderr.contains("cost unknown"), "{}", r.stderr);
}

#[test]
fn audit_and_report_on_an_unreadable_state_file_exit_2_naming_it() {
    let env = with_log(&[started(1, 1), finished(1, Some(0.25))]);
    env.write(".swarm/state/fc.json", "{broken");
    for args in [
        &["audit", "fc"][..],
        &["audit", "fc", "--json"],
        &["report", "fc"],
    ] {
        let r = env.run(args);
        r.code(2);
        assert!(
            r.stderr.contains(".swarm/state/fc.json")
                && r.stderr.contains("not a valid state file"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    }
    // as `status` says it
    env.run(&["status", "fc"]).code(2);
    // the file is never overwritten
    assert_eq!(env.read(".swarm/state/fc.json"), "{broken");
}
