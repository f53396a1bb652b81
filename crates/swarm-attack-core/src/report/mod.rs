//! The report of a feature (`swarm-attack report`): a model built from the event log (fed
//! record by record, memory bounded) and the state, and its rendering as one self-contained
//! HTML page (inline CSS, JS and SVG; no network).
//!
//! What the model holds:
//! - per issue: its stage, dependencies and GitHub links (from the state and the log), its
//!   attempts with every run in them — agent runs, test runs (from the agent's end, or the
//!   implementation's completion, to the verification event) and the landing (from the
//!   passing verification to `issue_done`) — each with its start and end in milliseconds
//!   from the first record, its outcome, cost and tokens when reported;
//! - worker lanes: every attempt placed on the first lane free at its start, so runs made
//!   with `--workers W` show W lanes;
//! - totals: wall time, agent time, cost (`None` when no agent reported one: shown as
//!   "unknown", never 0), tokens, retries, time lost to rate limits, budget stops.
//!
//! Memory is bounded whatever the log size: per issue at most [`MAX_ATTEMPTS`] attempts are
//! kept in detail (the first ones and the one in progress), later closed attempts are folded
//! into one [`Aggregate`] per issue (counted, timed and drawn as one span, never dropped);
//! an attempt keeps at most [`MAX_RUNS`] runs, the rest are counted in it. Every field is read
//! leniently (the original tool's lines, with no `seq` or `feature`, are records like any
//! other).

pub use crate::budget::Limits;
pub use crate::fold::{AttemptOutcome, IssueOutcome};
use serde::{Deserialize, Serialize};

mod acc;
mod escape;
mod html;
mod issue_acc;
mod layout;
pub mod learning;
mod summary;
mod svg;
#[cfg(test)]
mod tests;

pub use acc::ReportBuilder;
pub use escape::{escape_html, json_for_script};
pub use html::render_html;
pub use summary::{compact_timeline_svg, summary_markdown};

/// Attempts kept in detail per issue; later ones are aggregated.
pub const MAX_ATTEMPTS: usize = 12;
/// Runs kept in detail per attempt; later ones are counted.
pub const MAX_RUNS: usize = 10;
/// Rate-limit spans kept in detail per feature; later ones are counted in the totals.
pub const MAX_RATE_LIMITS: usize = 200;
/// Budget stops kept per issue.
pub const MAX_BUDGET_HITS: usize = 10;

/// The report of one feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub feature: String,
    /// Records read.
    pub events: u64,
    /// Distinct `session` values.
    pub sessions: u64,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// From the first to the last record.
    pub wall_ms: Option<u64>,
    /// `https://github.com/owner/name` when known.
    pub repo_url: Option<String>,
    pub totals: Totals,
    pub issues: Vec<IssueReport>,
    /// Worker lanes: one span per attempt.
    pub lanes: Vec<LaneSpan>,
    /// How many lanes `lanes` uses.
    pub lane_count: u32,
    /// Rate-limit waits (at most [`MAX_RATE_LIMITS`]; all are counted in the totals).
    pub rate_limits: Vec<RateLimit>,
    /// Feature-wide budget stops (`budget_exceeded` without an issue).
    pub budget: Vec<BudgetHit>,
    /// The configured limits, when the caller knows them (costs and tokens are shown
    /// against them).
    pub limits: Option<Limits>,
    /// Learning from outcomes (docs/learning.md "Outcomes"): per agent and class, from
    /// `.swarm/outcomes.jsonl` (all features), when the caller read it.
    #[serde(default)]
    pub learned: Vec<learning::LearnedRow>,
    /// The DONE issues' handoffs (docs/learning.md "Handoffs"), newest issue first.
    #[serde(default)]
    pub decisions: Vec<learning::DecisionRow>,
}

/// Totals over the feature.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub issues: u64,
    pub done: u64,
    pub blocked: u64,
    pub skipped: u64,
    pub in_progress: u64,
    pub in_review: u64,
    pub ready: u64,
    pub not_started: u64,
    pub attempts: u64,
    pub retries: u64,
    pub agent_runs: u64,
    pub test_runs: u64,
    pub landings: u64,
    pub agent_time_ms: u64,
    /// Sum of the costs reported; `None` when no run reported one.
    pub cost_usd: Option<f64>,
    /// Agent runs that finished without a cost (the cost total leaves them out).
    pub runs_without_cost: u64,
    /// Attempts with such a run (docs/budgets.md "Where the spend is shown": shown as "$x + unknown
    /// (n attempts)").
    #[serde(default)]
    pub cost_unknown_attempts: u64,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
    /// `rate_limited` events and the waits they announced.
    pub rate_limited: u64,
    pub rate_limited_ms: u64,
    /// `budget_exceeded` events.
    pub budget_exceeded: u64,
}

/// One issue of the feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IssueReport {
    pub issue: u64,
    pub title: Option<String>,
    /// The stage in the state (`DONE`, `READY`, ...), when there is a state.
    pub stage: Option<String>,
    pub dependencies: Vec<u64>,
    /// `done`, `blocked`, `skipped`, `in_progress`, `in_review`, `ready` or `not_started`
    /// (from the log).
    pub outcome: IssueOutcome,
    pub github_issue: Option<u64>,
    pub github_url: Option<String>,
    pub pr: Option<u64>,
    pub pr_url: Option<String>,
    /// The last coordination mode.
    pub mode: Option<String>,
    /// Agents that ran, in order of first start.
    pub agents: Vec<String>,
    pub attempt_count: u64,
    pub retries: u64,
    pub start_ms: Option<u64>,
    pub end_ms: Option<u64>,
    pub agent_time_ms: u64,
    pub cost_usd: Option<f64>,
    pub runs_without_cost: u64,
    /// Attempts with an agent run whose cost is unknown.
    #[serde(default)]
    pub cost_unknown_attempts: u64,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
    /// LLM helper calls (`llm_called`: failure analysis, specify gate, lesson) and what
    /// the known ones cost (included in `cost_usd`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub llm_calls: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_cost_usd: Option<f64>,
    pub commit: Option<String>,
    /// Why it counts as done when not by its own commit, or what undid it.
    pub evidence: Option<String>,
    /// Why it is blocked or skipped.
    pub reason: Option<String>,
    pub budget: Vec<BudgetHit>,
    /// The last specify-gate score (docs/gates.md "The specify gate"): `4/10 (llm): <question>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specify: Option<String>,
    /// Why the issue was routed as risky (its last `risk_flagged`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risk: Vec<String>,
    pub attempts: Vec<Attempt>,
    /// Attempts beyond [`MAX_ATTEMPTS`], folded.
    pub aggregated: Option<Aggregate>,
    /// How the candidates of a PARALLEL/SYNTHESIS run compared (`issue_done.convergence`):
    /// shown side by side.
    #[serde(default)]
    pub candidates: Option<serde_json::Value>,
    /// The last `low_convergence` score of the issue (flagged).
    #[serde(default)]
    pub low_convergence: Option<f64>,
    /// The last review verdict (docs/review.md): `pass_with_risk (single), 1 counted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    /// The counted findings behind that verdict: `[minor] src/a.rs:3 — title (reviewer)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review_findings: Vec<String>,
}

/// One attempt at an issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub attempt: u64,
    pub mode: Option<String>,
    /// `in_progress`, `passed`, `failed`, `done`, `blocked` or `interrupted`.
    pub outcome: AttemptOutcome,
    pub start_ms: u64,
    pub end_ms: Option<u64>,
    /// `passed` or `failed`.
    pub verification: Option<String>,
    pub tests_passed: Option<u64>,
    pub tests_failed: Option<u64>,
    /// Why it failed (verification failures, the block reason, an agent's error kind).
    pub failure: Option<String>,
    pub runs: Vec<Run>,
    /// Runs beyond [`MAX_RUNS`], counted only.
    pub more_runs: u64,
}

/// One bar of the timeline: an agent run, a test run, a landing or a rate-limit wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// `agent`, `test`, `landing` or `rate_limit`.
    pub kind: String,
    /// The agent (agent runs, a candidate's test run, a rate-limited agent).
    pub agent: Option<String>,
    pub role: Option<String>,
    pub start_ms: u64,
    pub end_ms: Option<u64>,
    /// agent: `ok`, `failed`, `timed_out`, `running`; test: `passed`, `failed`, `running`;
    /// landing: `done`; rate_limit: `waiting`.
    pub outcome: String,
    pub exit_code: Option<i64>,
    pub cost_usd: Option<f64>,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
    pub error_kind: Option<String>,
    /// A test run's failure text (cut short); a landing's commit.
    pub detail: Option<String>,
}

/// Attempts of one issue folded together (beyond [`MAX_ATTEMPTS`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub attempts: u64,
    pub agent_runs: u64,
    pub test_runs: u64,
    pub agent_time_ms: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub passed: u64,
    pub failed: u64,
    pub other: u64,
}

impl Aggregate {
    /// `N more attempts, aggregated: ...` for people.
    pub fn describe(&self) -> String {
        format!(
            "{} more attempts, aggregated: {} agent runs ({}), {} test runs; {} passed, {} failed, {} other",
            self.attempts,
            self.agent_runs,
            duration_text(self.agent_time_ms),
            self.test_runs,
            self.passed,
            self.failed,
            self.other
        )
    }
}

/// A `budget_exceeded` event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetHit {
    pub kind: String,
    pub spent: Option<f64>,
    pub limit: Option<f64>,
}

/// One attempt on a worker lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneSpan {
    pub lane: u32,
    pub issue: u64,
    pub attempt: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub outcome: AttemptOutcome,
}

/// A `rate_limited` wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateLimit {
    pub agent: Option<String>,
    pub issue: Option<u64>,
    pub start_ms: u64,
    pub retry_after_ms: u64,
}

/// A cost for people: `$0.1234`, or `unknown` when nothing reported one.
pub fn cost_text(cost: Option<f64>) -> String {
    match cost {
        Some(c) => format!("${c:.4}"),
        None => "unknown".into(),
    }
}

/// A duration for people: `850ms`, `12.5s`, `4m05s`, `2h03m`.
pub fn duration_text(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        let s = ms / 1000;
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        let m = ms / 60_000;
        format!("{}h{:02}m", m / 60, m % 60)
    }
}

/// A token count for people, or `unknown`.
pub fn tokens_text(n: Option<u64>) -> String {
    match n {
        None => "unknown".into(),
        Some(n) if n >= 10_000_000 => format!("{:.1}M", n as f64 / 1e6),
        Some(n) if n >= 10_000 => format!("{:.1}k", n as f64 / 1e3),
        Some(n) => n.to_string(),
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
