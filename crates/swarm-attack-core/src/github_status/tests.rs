//! The status comment and labels: rendering, limits, markers.

use super::*;
use crate::state::EvidenceRecord;

const NO_LIMITS: Limits = Limits {
    issue_usd: None,
    feature_usd: None,
    issue_minutes: None,
    issue_tokens: None,
    feature_tokens: None,
};

fn state() -> FeatureState {
    let mut s = FeatureState::new("auth", "t");
    let mut t1 = Task::new(1, "one");
    t1.github_issue = Some(41);
    let mut t2 = Task::new(2, "two");
    t2.dependencies = vec![1];
    t2.github_issue = Some(42);
    let mut t3 = Task::new(3, "three");
    t3.dependencies = vec![1];
    s.tasks = vec![t1, t2, t3];
    s
}

#[test]
fn done_comment_shows_the_review_line() {
    let mut s = state();
    s.tasks[0].stage = Stage::Done;
    s.tasks[0].review = Some("pass_with_risk (single): [minor] calc.sh:1 — no bound check".into());
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(
        body.contains("**Review:** pass_with_risk (single): [minor] calc.sh:1 — no bound check"),
        "{body}"
    );
    s.tasks[0].review = None;
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(!body.contains("**Review:**"), "{body}");
}

#[test]
fn done_and_blocked_comments_show_the_mode_and_both_agents() {
    let mut s = state();
    s.tasks[0].stage = Stage::Done;
    s.tasks[0].last_mode = Some("PARALLEL alpha + beta (join first): beta's result landed".into());
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(
        body.contains("**Mode:** PARALLEL alpha + beta (join first): beta's result landed"),
        "{body}"
    );
    s.tasks[0].stage = Stage::Blocked;
    s.tasks[0].last_mode = Some("SYNTHESIS alpha then beta: neither passed".into());
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(
        body.contains("**Mode:** SYNTHESIS alpha then beta: neither passed"),
        "{body}"
    );
    s.tasks[0].last_mode = None;
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(!body.contains("**Mode:**"), "{body}");
}

#[test]
fn the_comment_shows_the_ledger_spend_against_the_issue_limit() {
    let mut s = state();
    s.tasks[0].stage = Stage::Blocked;
    s.tasks[0].blocked_reason = Some("budget issue_usd: spent $1.20 of $1.00".into());
    s.ledger = Some(crate::budget::Ledger::from_records(
        &[
            serde_json::json!({"event": "agent_finished", "issue": 1, "agent": "a",
                             "cost_usd": 1.2}),
        ],
        &|_: &str, _: Option<&str>| None,
    ));
    let limits = Limits {
        issue_usd: Some(1.0),
        ..NO_LIMITS
    };
    let body = render_comment(&s, &s.tasks[0].clone(), &limits);
    assert!(
        body.ends_with("\n**Budget:** spent $1.20 of $1.00\n"),
        "{body}"
    );
    // no limit: no budget line; an issue the ledger has nothing for shows $0.00 of its limit
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(!body.contains("**Budget:**"), "{body}");
    s.tasks[1].stage = Stage::Ready;
    let body = render_comment(&s, &s.tasks[1].clone(), &limits);
    assert!(body.contains("**Budget:** spent $0.00 of $1.00"), "{body}");
}

#[test]
fn labels_have_spec_colours() {
    let pairs: Vec<(&str, &str)> = LABELS.iter().map(|l| (l.name, l.color)).collect();
    assert_eq!(
        pairs,
        vec![
            ("swarm:ready", "0E8A16"),
            ("swarm:in-progress", "FBCA04"),
            ("swarm:blocked", "D93F0B"),
            ("swarm:done", "1D76DB")
        ]
    );
    assert!(is_swarm_label("swarm:x") && is_swarm_label("Swarm:Ready"));
    assert!(!is_swarm_label("swarm") && !is_swarm_label("bug"));
}

#[test]
fn backlog_names_what_it_waits_on_linked_or_not() {
    let mut s = state();
    s.tasks[0].stage = Stage::Blocked;
    s.tasks[2].dependencies = vec![1, 2];
    let body = render_comment(&s, &s.tasks[2].clone(), &NO_LIMITS);
    assert!(body.starts_with(STATUS_MARKER));
    assert!(body.contains("#41 (BLOCKED)"), "{body}");
    assert!(body.contains("#41 (BLOCKED), #42;"), "{body}");
    s.tasks[1].github_issue = None;
    let body = render_comment(&s, &s.tasks[2].clone(), &NO_LIMITS);
    assert!(body.contains("issue 2 of `auth`;"), "{body}");
}

#[test]
fn blocked_comment_has_reason_attempts_excerpt_files_and_existing_commands() {
    let mut s = state();
    let t = &mut s.tasks[0];
    t.stage = Stage::Blocked;
    t.retries = 2;
    t.blocked_reason = Some("tests failed @alice".into());
    t.last_failure = Some("line\n```\nassertion failed: x == 1".into());
    t.files = vec!["src/auth.rs".into()];
    let body = render_comment(&s, &s.tasks[0].clone(), &NO_LIMITS);
    assert!(body.contains("after 3 attempts"));
    assert!(body.contains("tests failed @\u{200b}alice"));
    assert!(body.contains("````text\nline\n```\nassertion failed: x == 1\n````"));
    assert!(body.contains("`src/auth.rs`"));
    assert!(body.contains("`swarm-attack unblock auth --issue 1`"));
    assert!(body.contains("`swarm-attack prompt auth --issue 1`"));
}

#[test]
fn a_needs_info_task_carries_the_needs_info_label_and_its_comment_asks_the_question() {
    use crate::gates::specify::{Answer, Scores, apply, record, text_sha256};
    let mut s = state();
    s.tasks[0].stage = Stage::Ready;
    let t = &mut s.tasks[0];
    let r = record(
        text_sha256(t),
        Answer {
            scores: Scores {
                goal: 1,
                ..Scores::default()
            },
            question: "Which endpoint, @bob?".into(),
        },
        6,
        "llm",
    );
    let cfg = crate::gates::SpecifyConfig {
        enabled: true,
        min_score: 6,
    };
    apply(t, r, &cfg);
    let d = desired_for(&s, &s.tasks[0], true, &NO_LIMITS).unwrap();
    assert_eq!(d.label, Some("swarm:needs-info"));
    assert!(d.body.contains("**Needs info**"), "{}", d.body);
    assert!(d.body.contains("scored 1/10"), "{}", d.body);
    assert!(
        d.body
            .contains("**Question:** Which endpoint, @\u{200b}bob?"),
        "{}",
        d.body
    );
    assert!(
        d.body.contains("`swarm-attack unblock auth --issue 1`"),
        "{}",
        d.body
    );
    assert_eq!(label_spec("swarm:needs-info").unwrap().color, "C5DEF5");
    // another blocked task keeps swarm:blocked
    s.tasks[1].stage = Stage::Blocked;
    s.tasks[1].blocked_reason = Some("tests failed".into());
    assert_eq!(task_label(&s.tasks[1]), Some("swarm:blocked"));
}

#[test]
fn done_lists_commit_files_tests_summary_and_unblocked_issues() {
    let mut s = state();
    let t = &mut s.tasks[0];
    t.stage = Stage::Done;
    t.commit = Some("0123456789abcdef".into());
    t.evidence = vec![EvidenceRecord {
        source: "subject".into(),
        commit: Some("0123456789abcdef".into()),
        detail: None,
    }];
    t.test_file = Some("tests/auth.rs".into());
    t.outputs.semantic_summary = Some("adds login".into());
    let d = desired_for(&s, &s.tasks[0], true, &NO_LIMITS).unwrap();
    assert_eq!(d.label, Some("swarm:done"));
    assert!(d.close);
    assert!(d.body.contains("implemented in 0123456789abcdef"));
    assert!(d.body.contains("`tests/auth.rs`"));
    assert!(d.body.contains("adds login"));
    assert!(
        d.body.contains("**Unblocks:** #42, issue 3 of `auth`"),
        "{}",
        d.body
    );
    assert!(
        !desired_for(&s, &s.tasks[0], false, &NO_LIMITS)
            .unwrap()
            .close
    );
}

#[test]
fn rendering_is_deterministic_and_unlinked_or_unknown_is_skipped() {
    let mut s = state();
    assert_eq!(
        desired_all(&s, true, &NO_LIMITS),
        desired_all(&s, true, &NO_LIMITS)
    );
    assert_eq!(desired_all(&s, true, &NO_LIMITS).len(), 2);
    s.tasks[0].stage = Stage::Unknown("REVIEWING".into());
    assert_eq!(desired_all(&s, true, &NO_LIMITS).len(), 1);
}

#[test]
fn a_quoted_marker_is_not_a_status_comment() {
    assert!(is_status_comment(&format!("{STATUS_MARKER}\nx")));
    assert!(!is_status_comment(&format!("> {STATUS_MARKER}\nx")));
    assert_eq!(task_marker("auth", 3), "<!-- swarm-attack:task auth#3 -->");
}
