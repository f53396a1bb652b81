use super::*;
use serde_json::{Map, Value, json};

fn rec(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("records are objects"),
    }
}

fn build(lines: &[Value]) -> Report {
    let mut b = ReportBuilder::new("f");
    for l in lines {
        b.push(&rec(l.clone()));
    }
    b.finish(None, Some("https://github.com/o/r"))
}

fn ts(s: u64) -> String {
    format!("2026-01-01T00:{:02}:{:02}Z", s / 60, s % 60)
}

#[test]
fn solo_attempt_has_agent_test_and_landing_runs_in_sequence() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 2, "attempt": 1}),
        json!({"ts": ts(0), "event": "agents_selected", "issue": 2, "mode": "SOLO", "winner": "a"}),
        json!({"ts": ts(1), "event": "agent_started", "issue": 2, "agent": "a", "role": "coder"}),
        json!({"ts": ts(5), "event": "agent_finished", "issue": 2, "agent": "a", "exit_code": 0, "duration_ms": 4000, "timed_out": false, "cost_usd": null}),
        json!({"ts": ts(6), "event": "verification_failed", "issue": 2, "tests_failed": 1, "failures": "boom"}),
        json!({"ts": ts(7), "event": "retry_started", "issue": 2, "attempt": 2}),
        json!({"ts": ts(8), "event": "agent_started", "issue": 2, "agent": "a", "role": "coder"}),
        json!({"ts": ts(10), "event": "agent_finished", "issue": 2, "agent": "a", "exit_code": 0, "duration_ms": 2000, "timed_out": false, "cost_usd": 0.5, "tokens_in": 100, "tokens_out": 20}),
        json!({"ts": ts(12), "event": "verification_passed", "issue": 2, "tests_passed": 3}),
        json!({"ts": ts(13), "event": "issue_done", "issue": 2, "commit": "abc", "cost_usd": 0.5}),
    ]);
    assert_eq!(r.wall_ms, Some(13_000));
    let i = &r.issues[0];
    assert_eq!(i.outcome, "done");
    assert_eq!(i.attempts.len(), 2);
    assert_eq!(i.attempts[0].outcome, "failed");
    assert_eq!(i.attempts[0].failure.as_deref(), Some("boom"));
    let kinds: Vec<&str> = i.attempts[1].runs.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds, ["agent", "test", "landing"]);
    assert_eq!(i.attempts[1].runs[0].start_ms, 8_000);
    assert_eq!(i.attempts[1].runs[1].start_ms, 10_000);
    assert_eq!(i.attempts[1].runs[2].end_ms, Some(13_000));
    assert_eq!(r.totals.agent_runs, 2);
    assert_eq!(r.totals.retries, 1);
    assert_eq!(r.totals.cost_usd, Some(0.5));
    assert_eq!(r.totals.runs_without_cost, 1);
    assert_eq!(r.totals.tokens_in, Some(100));
    assert_eq!(r.totals.agent_time_ms, 6000);
    assert_eq!(r.lane_count, 1);
}

#[test]
fn parallel_candidates_are_side_by_side_and_unknown_cost_is_unknown() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 3, "attempt": 1}),
        json!({"ts": ts(0), "event": "agents_selected", "issue": 3, "mode": "PARALLEL"}),
        json!({"ts": ts(1), "event": "agent_started", "issue": 3, "agent": "a", "role": "primary"}),
        json!({"ts": ts(1), "event": "agent_started", "issue": 3, "agent": "b", "role": "secondary"}),
        json!({"ts": ts(4), "event": "agent_finished", "issue": 3, "agent": "b", "exit_code": 1, "duration_ms": 3000, "timed_out": false, "cost_usd": null}),
        json!({"ts": ts(5), "event": "agent_finished", "issue": 3, "agent": "a", "exit_code": 0, "duration_ms": 4000, "timed_out": false, "cost_usd": null}),
        json!({"ts": ts(6), "event": "verification_failed", "issue": 3, "agent": "b", "failures": "x"}),
        json!({"ts": ts(7), "event": "verification_passed", "issue": 3, "agent": "a"}),
        json!({"ts": ts(8), "event": "issue_done", "issue": 3, "commit": "c"}),
    ]);
    let a = &r.issues[0].attempts[0];
    assert_eq!(a.mode.as_deref(), Some("PARALLEL"));
    assert_eq!(a.outcome, "done");
    let spans: Vec<(u64, u64)> = a
        .runs
        .iter()
        .map(|r| (r.start_ms, r.end_ms.unwrap()))
        .collect();
    let (rows, n) = layout::pack(&spans);
    assert_eq!(n, 2, "the two agents overlap: two rows");
    assert_ne!(rows[0], rows[1]);
    assert_eq!(r.totals.cost_usd, None);
    let html = render_html(&r);
    assert!(html.contains("unknown"));
    assert!(!html.contains("$0.0000"));
}

#[test]
fn titles_and_failures_are_escaped_everywhere() {
    let mut b = ReportBuilder::new("f");
    b.push(&rec(
        json!({"ts": ts(0), "event": "issue_started", "issue": 1, "attempt": 1}),
    ));
    b.push(&rec(json!({"ts": ts(1), "event": "verification_failed", "issue": 1, "failures": "</script><script>alert(2)</script>"})));
    let mut st = crate::state::FeatureState::new("f", "2026-01-01T00:00:00Z");
    st.tasks
        .push(crate::state::Task::new(1, "<script>alert(1)</script> & co"));
    let r = b.finish(Some(&st), None);
    let html = render_html(&r);
    assert!(!html.contains("<script>alert"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"));
    // exactly the page's own two script elements
    assert_eq!(html.matches("<script").count(), 2);
    assert_eq!(html.matches("</script>").count(), 2);
}

#[test]
fn long_histories_are_aggregated_not_dropped() {
    let mut b = ReportBuilder::new("f");
    for n in 1..=1000u64 {
        b.push(&rec(
            json!({"ts": ts(n % 3000), "event": "retry_started", "issue": 7, "attempt": n}),
        ));
        b.push(&rec(json!({"event": "agent_finished", "issue": 7, "agent": "a", "exit_code": 0, "duration_ms": 10})));
        b.push(&rec(
            json!({"event": "verification_failed", "issue": 7, "failures": "f"}),
        ));
    }
    let r = b.finish(None, None);
    let i = &r.issues[0];
    assert_eq!(i.attempt_count, 1000);
    assert!(i.attempts.len() <= MAX_ATTEMPTS);
    let g = i.aggregated.as_ref().unwrap();
    assert_eq!(g.attempts + i.attempts.len() as u64, 1000);
    assert_eq!(i.attempts.last().unwrap().attempt, 1000);
    assert_eq!(r.totals.agent_runs, 1000);
    assert_eq!(r.totals.agent_time_ms, 10_000);
}

#[test]
fn original_tool_lines_without_seq_or_feature_are_read() {
    let r = build(&[
        json!({"ts": "2025-03-01T10:00:00.000000", "event": "issue_started", "issue": 4}),
        json!({"ts": "2025-03-01T10:00:30.000000", "event": "verification_failed", "issue": 4, "failures": ["a", "b"]}),
        json!({"ts": "2025-03-01T10:01:00.000000", "event": "issue_blocked", "issue": 4, "reason": "tests", "retries": 3}),
    ]);
    let i = &r.issues[0];
    assert_eq!(i.outcome, "blocked");
    assert_eq!(i.attempts[0].failure.as_deref(), Some("a; b"));
    assert_eq!(r.wall_ms, Some(60_000));
}

#[test]
fn rate_limits_and_budget_stops_are_totalled() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 1, "attempt": 1}),
        json!({"ts": ts(1), "event": "rate_limited", "issue": 1, "agent": "a", "retry_after_ms": 5000, "workers": 1}),
        json!({"ts": ts(9), "event": "rate_limited", "agent": "a", "retry_after_ms": 1000}),
        json!({"ts": ts(10), "event": "budget_exceeded", "issue": 1, "kind": "issue_usd", "spent": 2.0, "limit": 1.5}),
    ]);
    assert_eq!(r.totals.rate_limited, 2);
    assert_eq!(r.totals.rate_limited_ms, 6000);
    assert_eq!(r.totals.budget_exceeded, 1);
    assert_eq!(r.issues[0].budget[0].kind, "issue_usd");
    assert_eq!(r.issues[0].attempts[0].runs[0].kind, "rate_limit");
}

#[test]
fn workers_show_as_lanes() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 2, "attempt": 1}),
        json!({"ts": ts(1), "event": "issue_started", "issue": 3, "attempt": 1}),
        json!({"ts": ts(5), "event": "issue_done", "issue": 2}),
        json!({"ts": ts(6), "event": "issue_done", "issue": 3}),
        json!({"ts": ts(7), "event": "issue_started", "issue": 4, "attempt": 1}),
        json!({"ts": ts(8), "event": "issue_done", "issue": 4}),
    ]);
    assert_eq!(r.lane_count, 2);
}

#[test]
fn the_data_island_is_the_model() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 1, "attempt": 1, "x": "</script>"}),
    ]);
    let html = render_html(&r);
    let start = html.find(r#"id="report-data">"#).unwrap() + r#"id="report-data">"#.len();
    let end = start + html[start..].find("</script>").unwrap();
    let back: Report = serde_json::from_str(&html[start..end]).unwrap();
    assert_eq!(back, r);
}

#[test]
fn the_step_summary_has_the_compact_timeline_and_totals() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 1, "attempt": 1}),
        json!({"ts": ts(3), "event": "issue_done", "issue": 1}),
    ]);
    let md = summary_markdown(&r, "out/f.html");
    assert!(md.contains("<svg"));
    assert!(!compact_timeline_svg(&r).contains("<text"));
    assert!(md.contains("| cost | unknown |"));
    assert!(md.contains("| wall time | 3.0s |"));
}

#[test]
fn costs_and_tokens_are_shown_against_known_limits() {
    let mut r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 1, "attempt": 1}),
        json!({"ts": ts(2), "event": "agent_finished", "issue": 1, "agent": "a", "exit_code": 0, "duration_ms": 2000, "cost_usd": 1.25, "tokens_in": 5000}),
    ]);
    let plain = render_html(&r);
    assert!(!plain.contains("budget</td>"));
    r.limits = Some(Limits {
        issue_usd: Some(5.0),
        feature_usd: Some(20.0),
        issue_tokens: Some(100_000),
        ..Default::default()
    });
    let html = render_html(&r);
    assert!(
        html.contains("$1.2500 of $5.00"),
        "issue cost against its limit"
    );
    assert!(
        html.contains("$1.2500 of $20.00 budget"),
        "feature cost against its limit"
    );
    assert!(
        html.contains("5000 of 100.0k"),
        "issue tokens against the limit"
    );
}

#[test]
fn folded_attempts_take_no_worker_lane_and_many_lanes_share_the_last_row() {
    let mut lines = Vec::new();
    for n in 1..=40u64 {
        lines.push(json!({"ts": ts(n), "event": "issue_started", "issue": n, "attempt": 1}));
    }
    // all 40 still running at the end of the log
    lines.push(json!({"ts": ts(60), "event": "git_sync", "synced_issues": []}));
    let r = build(&lines);
    assert_eq!(r.lane_count, 40);
    let html = render_html(&r);
    assert!(html.contains("lanes 32–40 here"));
    let mut b = ReportBuilder::new("f");
    for n in 1..=100u64 {
        b.push(&rec(
            json!({"ts": ts(n), "event": "retry_started", "issue": 1, "attempt": n}),
        ));
    }
    let r = b.finish(None, None);
    assert!(r.issues[0].aggregated.is_some());
    assert_eq!(
        r.lane_count, 1,
        "one issue's attempts in sequence: one lane"
    );
    assert_eq!(r.lanes.len(), MAX_ATTEMPTS);
}

#[test]
fn a_fallback_names_who_took_over_and_why() {
    let r = build(&[
        json!({"ts": ts(0), "event": "issue_started", "issue": 1, "attempt": 1}),
        json!({"ts": ts(1), "event": "failure_analyzed", "issue": 1, "attempt": 1, "class": "infra", "kind": "timeout", "diagnosis": null, "recommendation": "retry", "source": "rule", "reason": "timed out", "evidence": []}),
        json!({"ts": ts(1), "event": "retry_started", "issue": 1, "attempt": 2}),
        json!({"ts": ts(1), "event": "agent_fallback", "issue": 1, "attempt": 2, "from": "claude", "to": "codex", "reason": "timeout"}),
    ]);
    let a = &r.issues[0].attempts;
    assert_eq!(a.len(), 2);
    assert_eq!(
        a[1].mode.as_deref(),
        Some("codex (fallback from claude: timeout)")
    );
}
