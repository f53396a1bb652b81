//! The event schema (docs/events.md "Events"): one typed variant per event name. The common fields
//! (`ts`, `feature`, `session`, `seq`) are added by the event log when a record is appended.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The agent-report fields of `agent_finished` (docs/agents.md "Agent reports"): tokens
/// (`tokens_in` counts all input tokens, cached ones included; `tokens_cached` is the cached part),
/// turns, session id, the error kind (`max_turns`, `max_budget`, `auth`, `rate_limit`,
/// `permission_denied`, `read_only`, `not_found`, `timeout`, `crashed`) and the number of
/// permission denials.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentFinishedReport {
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
    pub session_id: Option<String>,
    pub error_kind: Option<String>,
    pub permission_denials: u64,
    /// Where the agent's stdout was saved, relative to the project root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The model the agent ran, as its CLI reported it or its command line asked for it
    /// (`--model`, `-m`); absent when unknown. Used to price tokens (`pricing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `cost_usd` was computed from the tokens with `pricing` (the agent reported none).
    #[serde(skip_serializing_if = "is_false")]
    pub cost_priced: bool,
}

/// One event body. Serialises as `{"event": "<name>", ...fields}`.
fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    GitSync {
        synced_issues: Vec<u32>,
        reverted_issues: Vec<u32>,
        commits_scanned: u64,
        head: Option<String>,
    },
    Greenlight {
        added: Vec<u32>,
        kept: Vec<u32>,
        ready: Vec<u32>,
    },
    DuplicateDetected {
        issue: u32,
        git: Value,
        tests: Value,
        files: Value,
        /// The open pull request that links the issue (supersession gate,
        /// docs/github.md "Pull requests").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pr: Option<u64>,
    },
    AgentsSelected {
        issue: u32,
        mode: String,
        winner: String,
        runner_up: Option<String>,
        reason: String,
        proposals: Value,
        /// Set when the decision fell back (e.g. an `llm` proposal was invalid or late and the
        /// heuristic was used, or PARALLEL/SYNTHESIS failed open to SOLO): why. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback: Option<Value>,
        /// The eligible agents considered, in rank order. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        candidates: Option<Vec<String>>,
        /// A preview (`plan`, `greenlight`): nothing ran. Left out of `audit`'s timeline.
        #[serde(default, skip_serializing_if = "is_false")]
        preview: bool,
    },
    ContextInjected {
        issue: u32,
        has_claude_md: bool,
        summaries_count: u32,
        prompt_bytes: u64,
        truncated: Vec<String>,
        /// A preview (`prompt`): nothing was sent. Left out of `audit`'s timeline.
        #[serde(default, skip_serializing_if = "is_false")]
        preview: bool,
    },
    IssueStarted {
        issue: u32,
        attempt: u32,
    },
    AgentStarted {
        issue: u32,
        agent: String,
        role: String,
    },
    AgentFinished {
        issue: u32,
        agent: String,
        exit_code: Option<i32>,
        duration_ms: u64,
        timed_out: bool,
        /// `null` when the agent did not say (never 0 for unknown).
        cost_usd: Option<f64>,
        /// The agent's report (docs/agents.md "Agent reports"); `null` when unknown; absent in
        /// older logs.
        #[serde(flatten)]
        report: AgentFinishedReport,
    },
    TestsWritten {
        issue: u32,
        count: u32,
        path: String,
    },
    /// A test-integrity check failed the attempt (docs/integrity.md): one per failing kind
    /// (`deleted_test`, `changed_test`, `vacuous_test`, `skip_marker`, `no_test`).
    IntegrityFailed {
        issue: u32,
        attempt: u32,
        agent: String,
        kind: String,
        paths: Vec<String>,
        detail: String,
    },
    /// A reviewer started on a candidate (docs/review.md). Rounds start at 1.
    ReviewStarted {
        issue: u32,
        attempt: u32,
        round: u32,
        reviewer: String,
    },
    /// A reviewer ended: its validated findings (each with `counted` and, when dropped,
    /// `drop_reason`), the counts, its cost and tokens, and `error` when it gave no valid
    /// answer.
    ReviewFinished {
        issue: u32,
        attempt: u32,
        round: u32,
        reviewer: String,
        findings: Value,
        counted: u32,
        dropped: u32,
        cost_usd: Option<f64>,
        tokens_in: Option<u64>,
        tokens_out: Option<u64>,
        error: Option<String>,
    },
    /// The verdict of one review round, by code.
    ReviewVerdict {
        issue: u32,
        attempt: u32,
        round: u32,
        verdict: String,
        strategy: String,
        counted: u32,
    },
    ImplementationComplete {
        issue: u32,
        files_created: Vec<String>,
        files_modified: Vec<String>,
        /// The candidate agent, in a two-agent (PARALLEL / SYNTHESIS) run. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    VerificationPassed {
        issue: u32,
        tests_passed: Option<u64>,
        /// The candidate agent, in a two-agent (PARALLEL / SYNTHESIS) run. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    VerificationFailed {
        issue: u32,
        tests_failed: Option<u64>,
        failures: String,
        /// The candidate agent, in a two-agent (PARALLEL / SYNTHESIS) run. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    RetryStarted {
        issue: u32,
        attempt: u32,
    },
    /// A failed attempt's class and what happens next
    /// (docs/run.md "After a failure: classes, analysis, fallback"): one per failed attempt.
    /// `diagnosis` is `null` unless an analyst gave one; `source` is `rule`, `llm` or `llm-text`;
    /// `evidence` holds only lines found verbatim in the failure.
    FailureAnalyzed {
        issue: u32,
        attempt: u32,
        class: String,
        kind: String,
        diagnosis: Option<String>,
        recommendation: String,
        source: String,
        reason: String,
        evidence: Vec<String>,
    },
    /// The failure analysis found a missing dependency: `depends_on` was added to the
    /// issue's dependencies and it went back to BACKLOG, its retry given back
    /// (docs/run.md "After a failure: classes, analysis, fallback").
    DependencyAdded {
        issue: u32,
        depends_on: u32,
        reason: String,
    },
    /// The issue's next attempt (`attempt`) is run by `to` instead of `from`, the next agent
    /// of `from`'s fallback chain (docs/run.md "After a failure: classes, analysis, fallback").
    AgentFallback {
        issue: u32,
        attempt: u32,
        from: String,
        to: String,
        reason: String,
    },
    IssueBlocked {
        issue: u32,
        reason: String,
        retries: u32,
    },
    /// Two or more candidates passed and their mean pairwise similarity is below
    /// `coordination.min_convergence` (docs/coordination.md "Many candidates, one result").
    LowConvergence {
        issue: u32,
        attempt: u32,
        score: f64,
    },
    IssueDone {
        issue: u32,
        commit: Option<String>,
        cost_usd: Option<f64>,
        summary: Option<String>,
        /// How a PARALLEL/SYNTHESIS run converged (e.g. which candidate won). Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        convergence: Option<Value>,
    },
    /// The lessons a prompt held (docs/learning.md "Lessons"), by id.
    LessonsUsed {
        issue: u32,
        attempt: u32,
        ids: Vec<String>,
    },
    IssueSkipped {
        issue: u32,
        blocking_issue: Option<u32>,
        /// Why (e.g. the failure analysis' `skip`,
        /// docs/run.md "After a failure: classes, analysis, fallback"). Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    IssueUnblocked {
        issue: u32,
    },
    StateReverted {
        issue: u32,
        commit: String,
    },
    /// The specify gate scored a version of the issue text (docs/gates.md "The specify gate"):
    /// `score` is the total of `scores` (each 0–2), `null` when no valid answer came (then the
    /// issue passed with `warning`); `passed` is `score >= min_score`.
    SpecifyScored {
        issue: u32,
        score: Option<u32>,
        scores: Option<crate::gates::specify::Scores>,
        question: Option<String>,
        /// `llm` or `heuristic`.
        source: String,
        passed: bool,
        min_score: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warning: Option<String>,
    },
    /// The issue was dispatched as risky (docs/gates.md "Risk routing"): why, one line per signal.
    RiskFlagged {
        issue: u32,
        signals: Vec<String>,
    },
    GithubSync {
        issue: u32,
        github_issue: u64,
        action: String,
        success: bool,
    },
    GithubError {
        issue: Option<u32>,
        op: String,
        status: Option<u16>,
        message: String,
    },
    /// `git.landing: pr`: the issue's pull request was opened (or found open and reused).
    PrOpened {
        issue: u32,
        pr: u64,
        branch: String,
    },
    /// The first sync that read GitHub after the issue's pull request was merged or closed.
    PrClosed {
        issue: u32,
        pr: u64,
        merged: bool,
    },
    /// An attempt did not start: the amount spent reached a limit (docs/budgets.md "Limits").
    BudgetExceeded {
        issue: u32,
        kind: String,
        spent: f64,
        limit: f64,
    },
    /// `unblock --issue N --budget +USD` raised one issue's USD limit.
    BudgetRaised {
        issue: u32,
        usd: f64,
    },
    /// The agent's model API rate-limited it (or was overloaded): the attempt used no
    /// retry, the issue is READY again, and every worker waits `retry_after_ms` (0 when the
    /// run stopped instead); `workers` agents run at once afterwards
    /// (docs/budgets.md "Rate limits: the governor").
    RateLimited {
        issue: u32,
        agent: String,
        retry_after_ms: u64,
        workers: u32,
    },
    ActionReceived {
        event_name: String,
        action: Option<String>,
        issue: Option<u64>,
        sender: Option<String>,
        association: Option<String>,
        handled: bool,
    },
}

impl Event {
    /// `agent_finished` for an agent whose process could not start (`error_kind`, e.g.
    /// `not_found`).
    pub fn agent_not_started(issue: u32, agent: &str, error_kind: &str) -> Event {
        Event::AgentFinished {
            issue,
            agent: agent.to_string(),
            exit_code: None,
            duration_ms: 0,
            timed_out: false,
            cost_usd: None,
            report: AgentFinishedReport {
                error_kind: Some(error_kind.to_string()),
                ..AgentFinishedReport::default()
            },
        }
    }

    /// Every event name of docs/events.md "Events", in the order of its table.
    pub const NAMES: &'static [&'static str] = &[
        "git_sync",
        "greenlight",
        "duplicate_detected",
        "agents_selected",
        "context_injected",
        "issue_started",
        "agent_started",
        "agent_finished",
        "tests_written",
        "integrity_failed",
        "review_started",
        "review_finished",
        "review_verdict",
        "implementation_complete",
        "verification_passed",
        "verification_failed",
        "retry_started",
        "issue_blocked",
        "issue_done",
        "lessons_used",
        "issue_skipped",
        "issue_unblocked",
        "state_reverted",
        "specify_scored",
        "risk_flagged",
        "github_sync",
        "github_error",
        "action_received",
        "pr_opened",
        "pr_closed",
        "budget_exceeded",
        "budget_raised",
        "rate_limited",
        "failure_analyzed",
        "dependency_added",
        "agent_fallback",
    ];

    /// The event's name as written in the log.
    pub fn as_str(&self) -> &'static str {
        match self {
            Event::GitSync { .. } => "git_sync",
            Event::Greenlight { .. } => "greenlight",
            Event::DuplicateDetected { .. } => "duplicate_detected",
            Event::AgentsSelected { .. } => "agents_selected",
            Event::ContextInjected { .. } => "context_injected",
            Event::IssueStarted { .. } => "issue_started",
            Event::AgentStarted { .. } => "agent_started",
            Event::AgentFinished { .. } => "agent_finished",
            Event::TestsWritten { .. } => "tests_written",
            Event::IntegrityFailed { .. } => "integrity_failed",
            Event::ReviewStarted { .. } => "review_started",
            Event::ReviewFinished { .. } => "review_finished",
            Event::ReviewVerdict { .. } => "review_verdict",
            Event::ImplementationComplete { .. } => "implementation_complete",
            Event::VerificationPassed { .. } => "verification_passed",
            Event::VerificationFailed { .. } => "verification_failed",
            Event::RetryStarted { .. } => "retry_started",
            Event::IssueBlocked { .. } => "issue_blocked",
            Event::LowConvergence { .. } => "low_convergence",
            Event::IssueDone { .. } => "issue_done",
            Event::LessonsUsed { .. } => "lessons_used",
            Event::IssueSkipped { .. } => "issue_skipped",
            Event::IssueUnblocked { .. } => "issue_unblocked",
            Event::StateReverted { .. } => "state_reverted",
            Event::SpecifyScored { .. } => "specify_scored",
            Event::RiskFlagged { .. } => "risk_flagged",
            Event::GithubSync { .. } => "github_sync",
            Event::GithubError { .. } => "github_error",
            Event::ActionReceived { .. } => "action_received",
            Event::PrOpened { .. } => "pr_opened",
            Event::PrClosed { .. } => "pr_closed",
            Event::BudgetExceeded { .. } => "budget_exceeded",
            Event::BudgetRaised { .. } => "budget_raised",
            Event::RateLimited { .. } => "rate_limited",
            Event::FailureAnalyzed { .. } => "failure_analyzed",
            Event::DependencyAdded { .. } => "dependency_added",
            Event::AgentFallback { .. } => "agent_fallback",
        }
    }

    /// The event's name as written in the log.
    pub fn name(&self) -> String {
        self.as_str().to_string()
    }

    /// The feature issue (task number) this event is about, if any. `action_received.issue`
    /// is a GitHub issue number, not a task number, so it is not returned here.
    pub fn issue(&self) -> Option<u32> {
        match self {
            Event::DuplicateDetected { issue, .. }
            | Event::AgentsSelected { issue, .. }
            | Event::ContextInjected { issue, .. }
            | Event::IssueStarted { issue, .. }
            | Event::AgentStarted { issue, .. }
            | Event::AgentFinished { issue, .. }
            | Event::TestsWritten { issue, .. }
            | Event::IntegrityFailed { issue, .. }
            | Event::ReviewStarted { issue, .. }
            | Event::ReviewFinished { issue, .. }
            | Event::ReviewVerdict { issue, .. }
            | Event::ImplementationComplete { issue, .. }
            | Event::VerificationPassed { issue, .. }
            | Event::VerificationFailed { issue, .. }
            | Event::RetryStarted { issue, .. }
            | Event::IssueBlocked { issue, .. }
            | Event::LowConvergence { issue, .. }
            | Event::IssueDone { issue, .. }
            | Event::LessonsUsed { issue, .. }
            | Event::IssueSkipped { issue, .. }
            | Event::IssueUnblocked { issue }
            | Event::StateReverted { issue, .. }
            | Event::SpecifyScored { issue, .. }
            | Event::RiskFlagged { issue, .. }
            | Event::GithubSync { issue, .. }
            | Event::PrOpened { issue, .. }
            | Event::PrClosed { issue, .. }
            | Event::BudgetExceeded { issue, .. }
            | Event::BudgetRaised { issue, .. }
            | Event::RateLimited { issue, .. }
            | Event::FailureAnalyzed { issue, .. }
            | Event::DependencyAdded { issue, .. }
            | Event::AgentFallback { issue, .. } => Some(*issue),
            Event::GithubError { issue, .. } => *issue,
            Event::GitSync { .. } | Event::Greenlight { .. } | Event::ActionReceived { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
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
}
