//! The event schema's round trips and accessors.

use super::*;
use serde_json::json;

/// One example of every event, with every optional field set.
fn examples() -> Vec<Event> {
    vec![
        Event::GitSync {
            synced_issues: vec![1, 2],
            reverted_issues: vec![3],
            commits_scanned: 42,
            head: Some("abc123".into()),
        },
        Event::Greenlight {
            added: vec![4],
            kept: vec![1, 2, 3],
            ready: vec![4],
        },
        Event::DuplicateDetected {
            issue: 5,
            git: json!({"commit": "abc"}),
            tests: json!(null),
            files: json!(["src/a.rs"]),
            pr: Some(41),
        },
        Event::AgentsSelected {
            issue: 1,
            mode: "PARALLEL".into(),
            winner: "claude".into(),
            runner_up: Some("codex".into()),
            reason: "both > high, overlap < 0.50".into(),
            proposals: json!([{"agent": "claude", "confidence": 0.8}]),
            fallback: Some(json!("llm answer invalid for codex; heuristic used")),
            candidates: Some(vec!["claude".into(), "codex".into()]),
            preview: false,
        },
        Event::ContextInjected {
            issue: 1,
            has_claude_md: true,
            summaries_count: 2,
            prompt_bytes: 12345,
            truncated: vec!["module registry".into()],
            preview: true,
        },
        Event::IssueStarted {
            issue: 1,
            attempt: 1,
        },
        Event::AgentStarted {
            issue: 1,
            agent: "claude".into(),
            role: "primary".into(),
        },
        Event::AgentFinished {
            issue: 1,
            agent: "claude".into(),
            exit_code: Some(0),
            duration_ms: 1500,
            timed_out: false,
            cost_usd: Some(0.25),
            report: AgentFinishedReport {
                tokens_in: Some(1200),
                tokens_out: Some(80),
                tokens_cached: Some(1000),
                turns: Some(3),
                session_id: Some("s-1".into()),
                error_kind: None,
                permission_denials: 0,
                output: None,
                model: None,
                cost_priced: false,
            },
        },
        Event::TestsWritten {
            issue: 1,
            count: 3,
            path: "tests/a.rs".into(),
        },
        Event::IntegrityFailed {
            issue: 1,
            attempt: 1,
            agent: "claude".into(),
            kind: "deleted_test".into(),
            paths: vec!["tests/old.rs".into()],
            detail: "deleted tests/old.rs".into(),
        },
        Event::ReviewStarted {
            issue: 1,
            attempt: 1,
            round: 1,
            reviewer: "codex".into(),
        },
        Event::ReviewFinished {
            issue: 1,
            attempt: 1,
            round: 1,
            reviewer: "codex".into(),
            findings: json!([{"severity": "major", "counted": true}]),
            counted: 1,
            dropped: 0,
            cost_usd: Some(0.02),
            tokens_in: Some(900),
            tokens_out: Some(60),
            error: None,
        },
        Event::ReviewVerdict {
            issue: 1,
            attempt: 1,
            round: 1,
            verdict: "fail".into(),
            strategy: "single".into(),
            counted: 1,
        },
        Event::ImplementationComplete {
            issue: 1,
            files_created: vec!["src/a.rs".into()],
            files_modified: vec!["src/lib.rs".into()],
            agent: Some("claude".into()),
        },
        Event::VerificationPassed {
            issue: 1,
            tests_passed: Some(3),
            agent: Some("claude".into()),
        },
        Event::VerificationFailed {
            issue: 1,
            tests_failed: Some(1),
            failures: "assertion failed".into(),
            agent: None,
        },
        Event::RetryStarted {
            issue: 1,
            attempt: 2,
        },
        Event::IssueBlocked {
            issue: 1,
            reason: "tests keep failing".into(),
            retries: 2,
        },
        Event::IssueDone {
            issue: 1,
            commit: Some("def456".into()),
            cost_usd: Some(0.5),
            summary: Some("added a".into()),
            convergence: Some(json!({"join": "first", "winner": "claude"})),
        },
        Event::LessonsUsed {
            issue: 2,
            attempt: 1,
            ids: vec!["L0000abcd".into()],
        },
        Event::IssueSkipped {
            issue: 2,
            blocking_issue: Some(1),
            reason: Some("the analysis recommended skipping it".into()),
        },
        Event::IssueUnblocked { issue: 1 },
        Event::StateReverted {
            issue: 1,
            commit: "fedcba".into(),
        },
        Event::SpecifyScored {
            issue: 1,
            score: Some(4),
            scores: Some(crate::gates::specify::Scores {
                goal: 2,
                acceptance: 0,
                scope: 1,
                constraints: 0,
                context: 1,
            }),
            question: Some("How will we know it is done?".into()),
            source: "llm".into(),
            passed: false,
            min_score: 6,
            warning: Some("w".into()),
        },
        Event::RiskFlagged {
            issue: 1,
            signals: vec!["keyword `auth` in the title".into()],
        },
        Event::GithubSync {
            issue: 1,
            github_issue: 42,
            action: "label".into(),
            success: true,
        },
        Event::GithubError {
            issue: Some(1),
            op: "comment".into(),
            status: Some(403),
            message: "token lacks issues: write".into(),
        },
        Event::ActionReceived {
            event_name: "issues".into(),
            action: Some("labeled".into()),
            issue: Some(42),
            sender: Some("octocat".into()),
            association: Some("OWNER".into()),
            handled: true,
        },
        Event::PrOpened {
            issue: 5,
            pr: 41,
            branch: "swarm/auth/issue-5".into(),
        },
        Event::PrClosed {
            issue: 5,
            pr: 41,
            merged: true,
        },
        Event::BudgetExceeded {
            issue: 2,
            kind: "issue_usd".into(),
            spent: 1.25,
            limit: 1.0,
        },
        Event::BudgetRaised { issue: 2, usd: 0.5 },
        Event::RateLimited {
            issue: 3,
            agent: "claude".into(),
            retry_after_ms: 2000,
            workers: 2,
        },
        Event::FailureAnalyzed {
            issue: 3,
            attempt: 2,
            class: "tests".into(),
            kind: "tests_failed".into(),
            diagnosis: Some("implementation_bug".into()),
            recommendation: "modify".into(),
            source: "llm".into(),
            reason: "the handler ignores the token".into(),
            evidence: vec!["assertion failed".into()],
        },
        Event::DependencyAdded {
            issue: 3,
            depends_on: 1,
            reason: "needs the token store".into(),
        },
        Event::AgentFallback {
            issue: 3,
            attempt: 3,
            from: "claude".into(),
            to: "codex".into(),
            reason: "timeout".into(),
        },
    ]
}

#[test]
fn every_event_round_trips_through_serde() {
    let all = examples();
    let names: Vec<&str> = all.iter().map(Event::as_str).collect();
    assert_eq!(
        names,
        Event::NAMES,
        "one example per documented event, in order"
    );
    for e in all {
        let text = serde_json::to_string(&e).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["event"], e.as_str(), "{text}");
        assert_eq!(e.name(), e.as_str());
        let back: Event = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e, "{text}");
    }
}

#[test]
fn optional_additions_are_left_out_when_unset_and_default_when_missing() {
    let e = Event::IssueDone {
        issue: 3,
        commit: None,
        cost_usd: None,
        summary: None,
        convergence: None,
    };
    let v = serde_json::to_value(&e).unwrap();
    assert!(v.get("convergence").is_none(), "{v}");
    assert_eq!(
        v["commit"],
        Value::Null,
        "documented fields are always present: {v}"
    );
    let back: Event = serde_json::from_value(json!({
        "event": "agents_selected", "issue": 1, "mode": "SOLO", "winner": "a",
        "runner_up": null, "reason": "r", "proposals": []
    }))
    .unwrap();
    assert!(matches!(
        back,
        Event::AgentsSelected {
            fallback: None,
            candidates: None,
            ..
        }
    ));
}

#[test]
fn issue_accessor_names_the_task_and_never_the_github_number() {
    let all = examples();
    let by_name = |n: &str| all.iter().find(|e| e.as_str() == n).unwrap().issue();
    assert_eq!(by_name("issue_started"), Some(1));
    assert_eq!(by_name("github_error"), Some(1));
    assert_eq!(by_name("git_sync"), None);
    assert_eq!(by_name("action_received"), None);
}
