//! Where an issue and an attempt stand, as the folds of the event log say: enums, written
//! in the log's readers' outputs as their snake_case names (`done`, `in_progress`, ...).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where an issue stands after its events (`audit`, `report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueOutcome {
    Done,
    Blocked,
    Skipped,
    InProgress,
    /// Its pull request is open (`report` only).
    InReview,
    Ready,
    NotStarted,
}

impl IssueOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            IssueOutcome::Done => "done",
            IssueOutcome::Blocked => "blocked",
            IssueOutcome::Skipped => "skipped",
            IssueOutcome::InProgress => "in_progress",
            IssueOutcome::InReview => "in_review",
            IssueOutcome::Ready => "ready",
            IssueOutcome::NotStarted => "not_started",
        }
    }
}

/// How one attempt ended (or that it is still running).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    InProgress,
    /// Verified; waiting to land (or for the other candidate).
    Passed,
    Failed,
    Done,
    Blocked,
    /// Another attempt started, or the issue was skipped, before it ended.
    Interrupted,
}

impl AttemptOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            AttemptOutcome::InProgress => "in_progress",
            AttemptOutcome::Passed => "passed",
            AttemptOutcome::Failed => "failed",
            AttemptOutcome::Done => "done",
            AttemptOutcome::Blocked => "blocked",
            AttemptOutcome::Interrupted => "interrupted",
        }
    }
}

macro_rules! text_like {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }
        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}
text_like!(IssueOutcome);
text_like!(AttemptOutcome);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_written_as_their_names() {
        for o in [
            IssueOutcome::Done,
            IssueOutcome::Blocked,
            IssueOutcome::Skipped,
            IssueOutcome::InProgress,
            IssueOutcome::InReview,
            IssueOutcome::Ready,
            IssueOutcome::NotStarted,
        ] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
            assert_eq!(o.to_string(), o.as_str());
        }
        for o in [
            AttemptOutcome::InProgress,
            AttemptOutcome::Passed,
            AttemptOutcome::Failed,
            AttemptOutcome::Done,
            AttemptOutcome::Blocked,
            AttemptOutcome::Interrupted,
        ] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
            assert_eq!(o, o.as_str());
        }
    }
}
