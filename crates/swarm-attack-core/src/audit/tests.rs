//! Unit tests of the audit: attempts, outcomes, durations, cost and the texts.

use super::*;
use serde_json::json;

fn recs(values: Vec<Value>) -> Vec<Map<String, Value>> {
    values
        .into_iter()
        .map(|v| match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        })
        .collect()
}

fn ev(ts: &str, event: &str, body: Value) -> Value {
    let mut m = json!({"ts": ts, "event": event, "feature": "auth", "session": "s1"});
    for (k, v) in body.as_object().unwrap() {
        m[k] = v.clone();
    }
    m
}

#[test]
fn a_retried_issue_has_two_attempts_a_duration_and_the_agents_cost() {
    let r = recs(vec![
        ev(
            "2026-01-01T10:00:00Z",
            "agents_selected",
            json!({"issue": 1, "mode": "SOLO", "winner": "claude", "runner_up": null, "reason": "one agent", "proposals": []}),
        ),
        ev(
            "2026-01-01T10:00:01Z",
            "issue_started",
            json!({"issue": 1, "attempt": 1}),
        ),
        ev(
            "2026-01-01T10:00:02Z",
            "agent_started",
            json!({"issue": 1, "agent": "claude", "role": "solo"}),
        ),
        ev(
            "2026-01-01T10:01:02Z",
            "agent_finished",
            json!({"issue": 1, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.25}),
        ),
        ev(
            "2026-01-01T10:01:10Z",
            "verification_failed",
            json!({"issue": 1, "tests_failed": 2, "failures": "assert 1 == 2\nmore"}),
        ),
        ev(
            "2026-01-01T10:01:11Z",
            "retry_started",
            json!({"issue": 1, "attempt": 2}),
        ),
        ev(
            "2026-01-01T10:01:11Z",
            "issue_started",
            json!({"issue": 1, "attempt": 2}),
        ),
        ev(
            "2026-01-01T10:01:12Z",
            "agent_started",
            json!({"issue": 1, "agent": "claude", "role": "solo"}),
        ),
        ev(
            "2026-01-01T10:02:12Z",
            "agent_finished",
            json!({"issue": 1, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.5}),
        ),
        ev(
            "2026-01-01T10:02:20Z",
            "verification_passed",
            json!({"issue": 1, "tests_passed": 5}),
        ),
        ev(
            "2026-01-01T10:02:21Z",
            "issue_done",
            json!({"issue": 1, "commit": "0123456789abcdef0123", "cost_usd": 0.75, "summary": "ok"}),
        ),
    ]);
    let rep = audit("auth", &r);
    assert_eq!(rep.issues.len(), 1);
    let i = &rep.issues[0];
    assert_eq!(i.outcome, "done");
    assert_eq!(
        i.attempt_count, 2,
        "retry_started + issue_started for attempt 2 count once"
    );
    assert_eq!(i.retries, 1);
    assert_eq!(i.attempts[0].outcome, "failed");
    assert_eq!(i.attempts[0].duration_ms, Some(69_000));
    assert_eq!(i.attempts[0].failures.as_deref(), Some("assert 1 == 2…"));
    assert_eq!(i.attempts[1].outcome, "done");
    assert_eq!(i.attempts[1].mode.as_deref(), Some("SOLO"));
    assert_eq!(i.attempts[1].tests_passed, Some(5));
    assert_eq!(i.duration_ms, Some(140_000));
    assert_eq!(i.agent_time_ms, 120_000);
    assert_eq!(i.cost_usd, Some(0.75));
    assert_eq!(i.commit.as_deref(), Some("0123456789abcdef0123"));
    assert_eq!(i.timeline.len(), 11);
    assert_eq!(rep.totals.attempts, 2);
    assert_eq!(rep.totals.agent_runs, 2);
    assert_eq!(rep.duration_ms, Some(141_000));
    assert_eq!(rep.sessions, 1);
}

#[test]
fn blocked_skipped_unblocked_and_git_evidence_outcomes() {
    let r = recs(vec![
        ev(
            "2026-01-01T10:00:00Z",
            "greenlight",
            json!({"added": [1, 2, 3, 4], "kept": [], "ready": [1, 3]}),
        ),
        ev(
            "2026-01-01T10:00:01Z",
            "issue_started",
            json!({"issue": 1, "attempt": 1}),
        ),
        ev(
            "2026-01-01T10:00:05Z",
            "verification_failed",
            json!({"issue": 1, "tests_failed": 1, "failures": ["a", "b"]}),
        ),
        ev(
            "2026-01-01T10:00:06Z",
            "issue_blocked",
            json!({"issue": 1, "reason": "tests keep failing", "retries": 0}),
        ),
        ev(
            "2026-01-01T10:00:06Z",
            "issue_skipped",
            json!({"issue": 2, "blocking_issue": 1}),
        ),
        ev(
            "2026-01-01T10:00:07Z",
            "git_sync",
            json!({"synced_issues": [3], "reverted_issues": [], "commits_scanned": 4, "head": "abc"}),
        ),
        ev(
            "2026-01-01T10:00:08Z",
            "issue_unblocked",
            json!({"issue": 1}),
        ),
    ]);
    let rep = audit("auth", &r);
    let by = |n: u64| rep.issues.iter().find(|i| i.issue == n).unwrap();
    assert_eq!(by(1).outcome, "ready");
    assert_eq!(by(1).reason, None);
    assert_eq!(by(1).attempts[0].outcome, "failed");
    assert_eq!(by(1).attempts[0].failures.as_deref(), Some("a; b"));
    assert_eq!(by(1).duration_ms, Some(5000));
    assert_eq!(by(2).outcome, "skipped");
    assert_eq!(
        by(2).reason.as_deref(),
        Some("depends on #1, which is blocked")
    );
    assert_eq!(by(3).outcome, "done");
    assert_eq!(by(3).evidence.as_deref(), Some("git history (head abc)"));
    assert_eq!(by(4).outcome, "not_started");
    assert_eq!(
        (
            rep.totals.done,
            rep.totals.skipped,
            rep.totals.ready,
            rep.totals.not_started
        ),
        (1, 1, 1, 1)
    );
}

#[test]
fn original_format_lines_are_audited() {
    // The original tool: no seq/feature, issue_started without attempt, failures a list.
    let r = recs(vec![
        json!({"ts": "2025-05-01T09:00:00.000001Z", "event": "issue_started", "issue": 2, "session": "sess-a"}),
        json!({"ts": "2025-05-01T09:03:00.000001Z", "event": "verification_failed", "issue": 2, "tests_failed": 1, "failures": ["x"]}),
        json!({"ts": "2025-05-01T09:03:01Z", "event": "retry_started", "issue": 2, "attempt": 2}),
        json!({"ts": "2025-05-01T09:05:00Z", "event": "issue_done", "issue": 2, "commit": "", "cost_usd": 1.5}),
    ]);
    let rep = audit("legacy", &r);
    let i = &rep.issues[0];
    assert_eq!(i.attempt_count, 2);
    assert_eq!(i.attempts[0].attempt, 1);
    assert_eq!(i.outcome, "done");
    assert_eq!(i.commit, None);
    assert_eq!(i.cost_usd, Some(1.5));
    assert_eq!(
        i.duration_ms,
        Some(299_999),
        "microseconds are kept, milliseconds whole"
    );
}

#[test]
fn an_attempt_left_open_by_a_new_one_is_interrupted() {
    let r = recs(vec![
        ev(
            "2026-01-01T10:00:00Z",
            "issue_started",
            json!({"issue": 5, "attempt": 1}),
        ),
        ev(
            "2026-01-01T10:00:10Z",
            "agent_started",
            json!({"issue": 5, "agent": "a", "role": "primary"}),
        ),
        ev(
            "2026-01-01T11:00:00Z",
            "issue_started",
            json!({"issue": 5, "attempt": 2}),
        ),
    ]);
    let rep = audit("f", &r);
    let i = &rep.issues[0];
    assert_eq!(i.attempts[0].outcome, "interrupted");
    assert_eq!(i.attempts[1].outcome, "in_progress");
    assert_eq!(i.outcome, "in_progress");
    assert_eq!(i.duration_ms, None, "no ending event yet");
}

#[test]
fn a_two_agent_attempt_keeps_each_candidates_verification_files_and_fallbacks() {
    let r = recs(vec![
        ev(
            "2026-01-01T10:00:00Z",
            "issue_started",
            json!({"issue": 1, "attempt": 1}),
        ),
        ev(
            "2026-01-01T10:00:01Z",
            "agents_selected",
            json!({"issue": 1, "mode": "SYNTHESIS", "winner": "a", "runner_up": "b", "reason": "r", "proposals": []}),
        ),
        ev(
            "2026-01-01T10:00:02Z",
            "agent_started",
            json!({"issue": 1, "agent": "a", "role": "primary"}),
        ),
        ev(
            "2026-01-01T10:00:03Z",
            "agent_finished",
            json!({"issue": 1, "agent": "a", "exit_code": 0, "duration_ms": 1000, "timed_out": false, "cost_usd": null}),
        ),
        ev(
            "2026-01-01T10:00:04Z",
            "implementation_complete",
            json!({"issue": 1, "files_created": ["x.rs"], "files_modified": [], "agent": "a"}),
        ),
        ev(
            "2026-01-01T10:00:05Z",
            "verification_passed",
            json!({"issue": 1, "tests_passed": 3, "agent": "a"}),
        ),
        ev(
            "2026-01-01T10:00:06Z",
            "agent_started",
            json!({"issue": 1, "agent": "b", "role": "runner-up"}),
        ),
        ev(
            "2026-01-01T10:00:07Z",
            "agent_finished",
            json!({"issue": 1, "agent": "b", "exit_code": 0, "duration_ms": 1000, "timed_out": false, "cost_usd": null}),
        ),
        ev(
            "2026-01-01T10:00:08Z",
            "verification_failed",
            json!({"issue": 1, "tests_failed": 1, "failures": "boom", "agent": "b"}),
        ),
        ev(
            "2026-01-01T10:00:09Z",
            "agents_selected",
            json!({"issue": 1, "mode": "SYNTHESIS", "winner": "a", "runner_up": "b", "reason": "r", "proposals": [], "fallback": {"to": "solo", "reason": "b broke the tests"}}),
        ),
        ev(
            "2026-01-01T10:00:10Z",
            "issue_done",
            json!({"issue": 1, "commit": "abc", "cost_usd": null, "summary": null, "convergence": {"mode": "SYNTHESIS", "winner": "a", "candidates": [{"agent": "a", "result": "passed", "files": ["x.rs"]}, {"agent": "b", "result": "failed"}]}}),
        ),
    ]);
    let rep = audit("auth", r.iter());
    let i = &rep.issues[0];
    assert_eq!(i.attempts.len(), 1, "one attempt for both candidates");
    let a = &i.attempts[0];
    assert_eq!(a.outcome, "done");
    assert_eq!(a.verification.as_deref(), Some("passed"));
    assert_eq!(a.agents[0].verification.as_deref(), Some("passed"));
    assert_eq!(a.agents[0].files, vec!["x.rs".to_string()]);
    assert_eq!(a.agents[1].verification.as_deref(), Some("failed"));
    assert_eq!(a.fallback.as_deref(), Some("solo: b broke the tests"));
    assert_eq!(i.fallbacks, vec!["solo: b broke the tests".to_string()]);
    let c = convergence_text(i.convergence.as_ref().unwrap());
    assert_eq!(c, "SYNTHESIS; a passed [x.rs]; b failed; landed: a");
}

#[test]
fn a_two_agent_attempt_where_both_failed_ends_failed_at_the_retry() {
    let r = recs(vec![
        ev(
            "2026-01-01T10:00:00Z",
            "issue_started",
            json!({"issue": 1, "attempt": 1}),
        ),
        ev(
            "2026-01-01T10:00:01Z",
            "agent_started",
            json!({"issue": 1, "agent": "a", "role": "primary"}),
        ),
        ev(
            "2026-01-01T10:00:01Z",
            "agent_started",
            json!({"issue": 1, "agent": "b", "role": "runner-up"}),
        ),
        ev(
            "2026-01-01T10:00:02Z",
            "verification_failed",
            json!({"issue": 1, "tests_failed": 1, "failures": "x", "agent": "a"}),
        ),
        ev(
            "2026-01-01T10:00:03Z",
            "verification_failed",
            json!({"issue": 1, "tests_failed": 2, "failures": "y", "agent": "b"}),
        ),
        ev(
            "2026-01-01T10:00:04Z",
            "retry_started",
            json!({"issue": 1, "attempt": 2}),
        ),
    ]);
    let rep = audit("auth", r.iter());
    let i = &rep.issues[0];
    assert_eq!(i.attempts.len(), 2);
    assert_eq!(i.attempts[0].outcome, "failed");
    assert_eq!(i.attempts[0].failures.as_deref(), Some("a: x | b: y"));
}
