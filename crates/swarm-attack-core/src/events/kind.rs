//! The event names: one [`EventKind`] per name the log may hold. This file is the one home
//! of the names' text; readers match on kinds, never on strings. A record whose name is
//! not here (the original tool's own events, a future version's) has no kind: readers keep
//! it as it is (`events`, `audit`'s count) and fold nothing from it.

use super::Event;
use crate::record::Fields;

/// The name of an event, typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    GitSync,
    Greenlight,
    DuplicateDetected,
    AgentsSelected,
    ContextInjected,
    IssueStarted,
    AgentStarted,
    AgentFinished,
    TestsWritten,
    IntegrityFailed,
    ReviewStarted,
    ReviewFinished,
    ReviewVerdict,
    ImplementationComplete,
    VerificationPassed,
    VerificationFailed,
    RetryStarted,
    IssueBlocked,
    LowConvergence,
    IssueDone,
    LessonsUsed,
    IssueSkipped,
    IssueUnblocked,
    StateReverted,
    SpecifyScored,
    RiskFlagged,
    GithubSync,
    GithubError,
    ActionReceived,
    PrOpened,
    PrClosed,
    BudgetExceeded,
    BudgetRaised,
    RateLimited,
    FailureAnalyzed,
    DependencyAdded,
    AgentFallback,
}

impl EventKind {
    /// Every event name of the schema (docs/events.md), in its order.
    pub const NAMES: &'static [&'static str] = &[
        EventKind::GitSync.as_str(),
        EventKind::Greenlight.as_str(),
        EventKind::DuplicateDetected.as_str(),
        EventKind::AgentsSelected.as_str(),
        EventKind::ContextInjected.as_str(),
        EventKind::IssueStarted.as_str(),
        EventKind::AgentStarted.as_str(),
        EventKind::AgentFinished.as_str(),
        EventKind::TestsWritten.as_str(),
        EventKind::IntegrityFailed.as_str(),
        EventKind::ReviewStarted.as_str(),
        EventKind::ReviewFinished.as_str(),
        EventKind::ReviewVerdict.as_str(),
        EventKind::ImplementationComplete.as_str(),
        EventKind::VerificationPassed.as_str(),
        EventKind::VerificationFailed.as_str(),
        EventKind::RetryStarted.as_str(),
        EventKind::IssueBlocked.as_str(),
        EventKind::IssueDone.as_str(),
        EventKind::LessonsUsed.as_str(),
        EventKind::IssueSkipped.as_str(),
        EventKind::IssueUnblocked.as_str(),
        EventKind::StateReverted.as_str(),
        EventKind::SpecifyScored.as_str(),
        EventKind::RiskFlagged.as_str(),
        EventKind::GithubSync.as_str(),
        EventKind::GithubError.as_str(),
        EventKind::ActionReceived.as_str(),
        EventKind::PrOpened.as_str(),
        EventKind::PrClosed.as_str(),
        EventKind::BudgetExceeded.as_str(),
        EventKind::BudgetRaised.as_str(),
        EventKind::RateLimited.as_str(),
        EventKind::FailureAnalyzed.as_str(),
        EventKind::DependencyAdded.as_str(),
        EventKind::AgentFallback.as_str(),
    ];

    /// Every kind.
    pub const ALL: &'static [EventKind] = &[
        EventKind::GitSync,
        EventKind::Greenlight,
        EventKind::DuplicateDetected,
        EventKind::AgentsSelected,
        EventKind::ContextInjected,
        EventKind::IssueStarted,
        EventKind::AgentStarted,
        EventKind::AgentFinished,
        EventKind::TestsWritten,
        EventKind::IntegrityFailed,
        EventKind::ReviewStarted,
        EventKind::ReviewFinished,
        EventKind::ReviewVerdict,
        EventKind::ImplementationComplete,
        EventKind::VerificationPassed,
        EventKind::VerificationFailed,
        EventKind::RetryStarted,
        EventKind::IssueBlocked,
        EventKind::LowConvergence,
        EventKind::IssueDone,
        EventKind::LessonsUsed,
        EventKind::IssueSkipped,
        EventKind::IssueUnblocked,
        EventKind::StateReverted,
        EventKind::SpecifyScored,
        EventKind::RiskFlagged,
        EventKind::GithubSync,
        EventKind::GithubError,
        EventKind::ActionReceived,
        EventKind::PrOpened,
        EventKind::PrClosed,
        EventKind::BudgetExceeded,
        EventKind::BudgetRaised,
        EventKind::RateLimited,
        EventKind::FailureAnalyzed,
        EventKind::DependencyAdded,
        EventKind::AgentFallback,
    ];

    /// The name as written in the log.
    pub const fn as_str(self) -> &'static str {
        match self {
            EventKind::GitSync => "git_sync",
            EventKind::Greenlight => "greenlight",
            EventKind::DuplicateDetected => "duplicate_detected",
            EventKind::AgentsSelected => "agents_selected",
            EventKind::ContextInjected => "context_injected",
            EventKind::IssueStarted => "issue_started",
            EventKind::AgentStarted => "agent_started",
            EventKind::AgentFinished => "agent_finished",
            EventKind::TestsWritten => "tests_written",
            EventKind::IntegrityFailed => "integrity_failed",
            EventKind::ReviewStarted => "review_started",
            EventKind::ReviewFinished => "review_finished",
            EventKind::ReviewVerdict => "review_verdict",
            EventKind::ImplementationComplete => "implementation_complete",
            EventKind::VerificationPassed => "verification_passed",
            EventKind::VerificationFailed => "verification_failed",
            EventKind::RetryStarted => "retry_started",
            EventKind::IssueBlocked => "issue_blocked",
            EventKind::LowConvergence => "low_convergence",
            EventKind::IssueDone => "issue_done",
            EventKind::LessonsUsed => "lessons_used",
            EventKind::IssueSkipped => "issue_skipped",
            EventKind::IssueUnblocked => "issue_unblocked",
            EventKind::StateReverted => "state_reverted",
            EventKind::SpecifyScored => "specify_scored",
            EventKind::RiskFlagged => "risk_flagged",
            EventKind::GithubSync => "github_sync",
            EventKind::GithubError => "github_error",
            EventKind::ActionReceived => "action_received",
            EventKind::PrOpened => "pr_opened",
            EventKind::PrClosed => "pr_closed",
            EventKind::BudgetExceeded => "budget_exceeded",
            EventKind::BudgetRaised => "budget_raised",
            EventKind::RateLimited => "rate_limited",
            EventKind::FailureAnalyzed => "failure_analyzed",
            EventKind::DependencyAdded => "dependency_added",
            EventKind::AgentFallback => "agent_fallback",
        }
    }

    /// The kind of a name; `None` for a name the schema does not have (a foreign record).
    pub fn parse(name: &str) -> Option<EventKind> {
        Some(match name {
            "git_sync" => EventKind::GitSync,
            "greenlight" => EventKind::Greenlight,
            "duplicate_detected" => EventKind::DuplicateDetected,
            "agents_selected" => EventKind::AgentsSelected,
            "context_injected" => EventKind::ContextInjected,
            "issue_started" => EventKind::IssueStarted,
            "agent_started" => EventKind::AgentStarted,
            "agent_finished" => EventKind::AgentFinished,
            "tests_written" => EventKind::TestsWritten,
            "integrity_failed" => EventKind::IntegrityFailed,
            "review_started" => EventKind::ReviewStarted,
            "review_finished" => EventKind::ReviewFinished,
            "review_verdict" => EventKind::ReviewVerdict,
            "implementation_complete" => EventKind::ImplementationComplete,
            "verification_passed" => EventKind::VerificationPassed,
            "verification_failed" => EventKind::VerificationFailed,
            "retry_started" => EventKind::RetryStarted,
            "issue_blocked" => EventKind::IssueBlocked,
            "low_convergence" => EventKind::LowConvergence,
            "issue_done" => EventKind::IssueDone,
            "lessons_used" => EventKind::LessonsUsed,
            "issue_skipped" => EventKind::IssueSkipped,
            "issue_unblocked" => EventKind::IssueUnblocked,
            "state_reverted" => EventKind::StateReverted,
            "specify_scored" => EventKind::SpecifyScored,
            "risk_flagged" => EventKind::RiskFlagged,
            "github_sync" => EventKind::GithubSync,
            "github_error" => EventKind::GithubError,
            "action_received" => EventKind::ActionReceived,
            "pr_opened" => EventKind::PrOpened,
            "pr_closed" => EventKind::PrClosed,
            "budget_exceeded" => EventKind::BudgetExceeded,
            "budget_raised" => EventKind::BudgetRaised,
            "rate_limited" => EventKind::RateLimited,
            "failure_analyzed" => EventKind::FailureAnalyzed,
            "dependency_added" => EventKind::DependencyAdded,
            "agent_fallback" => EventKind::AgentFallback,
            _ => return None,
        })
    }

    /// The kind of a record (its `event` field; `None` when absent, not text, or foreign).
    pub fn of<R: Fields + ?Sized>(rec: &R) -> Option<EventKind> {
        EventKind::parse(&rec.field("event")?.as_str()?)
    }
}

impl Event {
    /// The event's kind.
    pub fn kind(&self) -> EventKind {
        match self {
            Event::GitSync { .. } => EventKind::GitSync,
            Event::Greenlight { .. } => EventKind::Greenlight,
            Event::DuplicateDetected { .. } => EventKind::DuplicateDetected,
            Event::AgentsSelected { .. } => EventKind::AgentsSelected,
            Event::ContextInjected { .. } => EventKind::ContextInjected,
            Event::IssueStarted { .. } => EventKind::IssueStarted,
            Event::AgentStarted { .. } => EventKind::AgentStarted,
            Event::AgentFinished { .. } => EventKind::AgentFinished,
            Event::TestsWritten { .. } => EventKind::TestsWritten,
            Event::IntegrityFailed { .. } => EventKind::IntegrityFailed,
            Event::ReviewStarted { .. } => EventKind::ReviewStarted,
            Event::ReviewFinished { .. } => EventKind::ReviewFinished,
            Event::ReviewVerdict { .. } => EventKind::ReviewVerdict,
            Event::ImplementationComplete { .. } => EventKind::ImplementationComplete,
            Event::VerificationPassed { .. } => EventKind::VerificationPassed,
            Event::VerificationFailed { .. } => EventKind::VerificationFailed,
            Event::RetryStarted { .. } => EventKind::RetryStarted,
            Event::IssueBlocked { .. } => EventKind::IssueBlocked,
            Event::LowConvergence { .. } => EventKind::LowConvergence,
            Event::IssueDone { .. } => EventKind::IssueDone,
            Event::LessonsUsed { .. } => EventKind::LessonsUsed,
            Event::IssueSkipped { .. } => EventKind::IssueSkipped,
            Event::IssueUnblocked { .. } => EventKind::IssueUnblocked,
            Event::StateReverted { .. } => EventKind::StateReverted,
            Event::SpecifyScored { .. } => EventKind::SpecifyScored,
            Event::RiskFlagged { .. } => EventKind::RiskFlagged,
            Event::GithubSync { .. } => EventKind::GithubSync,
            Event::GithubError { .. } => EventKind::GithubError,
            Event::ActionReceived { .. } => EventKind::ActionReceived,
            Event::PrOpened { .. } => EventKind::PrOpened,
            Event::PrClosed { .. } => EventKind::PrClosed,
            Event::BudgetExceeded { .. } => EventKind::BudgetExceeded,
            Event::BudgetRaised { .. } => EventKind::BudgetRaised,
            Event::RateLimited { .. } => EventKind::RateLimited,
            Event::FailureAnalyzed { .. } => EventKind::FailureAnalyzed,
            Event::DependencyAdded { .. } => EventKind::DependencyAdded,
            Event::AgentFallback { .. } => EventKind::AgentFallback,
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::EventKind;

    #[test]
    fn every_kind_parses_back_from_its_name_and_foreign_names_have_none() {
        for k in EventKind::ALL {
            assert_eq!(EventKind::parse(k.as_str()), Some(*k));
        }
        for n in EventKind::NAMES {
            assert!(EventKind::parse(n).is_some(), "{n}");
        }
        for foreign in ["", "coder_started", "Issue_Done", "issue_done "] {
            assert_eq!(EventKind::parse(foreign), None, "{foreign}");
        }
    }
}
