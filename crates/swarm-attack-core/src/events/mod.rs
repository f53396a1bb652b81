//! The event schema (docs/events.md "Events"): one typed variant per event name. The common fields
//! (`ts`, `feature`, `session`, `seq`) are added by the event log when a record is appended.

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod kind;
pub use kind::EventKind;

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
    pub const NAMES: &'static [&'static str] = EventKind::NAMES;

    /// The event's name as written in the log.
    pub fn as_str(&self) -> &'static str {
        self.kind().as_str()
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
mod tests;
