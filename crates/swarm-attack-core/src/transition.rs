//! The task state machine (docs/state.md "Stages and phases"): every stage change a command makes
//! is one of the methods here. Each checks that the task's stage allows it, changes the stage and
//! the fields that go with it, and returns the event to record — or nothing for the two changes the
//! docs give no event (a claim whose run is gone, a run stopped by the circuit breaker).
//!
//! | transition  | from                             | to          | event             |
//! |-------------|----------------------------------|-------------|-------------------|
//! | `claim`     | READY, INTERRUPTED               | IN_PROGRESS | `issue_started`   |
//! | `interrupt` | IN_PROGRESS                      | INTERRUPTED | —                 |
//! | `stop`      | IN_PROGRESS                      | READY       | —                 |
//! | `block`     | IN_PROGRESS                      | BLOCKED     | `issue_blocked`   |
//! | `hold`      | READY, BACKLOG (never dispatched) | BLOCKED    | `issue_blocked`   |
//! | `done`      | IN_PROGRESS                      | DONE        | `issue_done`      |
//! | `review`    | IN_PROGRESS                      | IN_REVIEW   | `pr_opened`       |
//! | `close_review` | IN_REVIEW (closed unmerged)   | READY       | — (`pr_closed` is recorded for every closed pull request) |
//! | `skip`      | any but DONE, SKIPPED            | SKIPPED     | `issue_skipped`   |
//! | `unblock`   | BLOCKED, SKIPPED, INTERRUPTED    | BACKLOG     | `issue_unblocked` |
//! | `reopen`    | SKIPPED                          | BACKLOG     | `issue_unblocked` |
//! | `revert`    | DONE                             | READY       | `state_reverted`  |
//!
//! BACKLOG ↔ READY is readiness ([`crate::readiness::recompute`], run after each of these);
//! DONE from git evidence and its revert are [`crate::ledger::apply`].

use crate::events::Event;
use crate::stage::Stage;
use crate::state::Task;
use serde_json::Value;
use std::fmt;

/// The transitions of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    Claim,
    Interrupt,
    Stop,
    Block,
    Hold,
    Done,
    Review,
    CloseReview,
    Skip,
    Unblock,
    Reopen,
    Revert,
}

impl Transition {
    /// Every transition.
    pub const ALL: [Transition; 12] = [
        Transition::Claim,
        Transition::Interrupt,
        Transition::Stop,
        Transition::Block,
        Transition::Hold,
        Transition::Done,
        Transition::Review,
        Transition::CloseReview,
        Transition::Skip,
        Transition::Unblock,
        Transition::Reopen,
        Transition::Revert,
    ];

    /// Its name, as in the table of the module docs.
    pub fn name(self) -> &'static str {
        match self {
            Transition::Claim => "claim",
            Transition::Interrupt => "interrupt",
            Transition::Stop => "stop",
            Transition::Block => "block",
            Transition::Hold => "hold",
            Transition::Done => "done",
            Transition::Review => "review",
            Transition::CloseReview => "close_review",
            Transition::Skip => "skip",
            Transition::Unblock => "unblock",
            Transition::Reopen => "reopen",
            Transition::Revert => "revert",
        }
    }

    /// Whether a task at `stage` may take this transition.
    pub fn allowed_from(self, stage: &Stage) -> bool {
        use Stage::*;
        match self {
            Transition::Claim => matches!(stage, Ready | Interrupted),
            Transition::Interrupt
            | Transition::Stop
            | Transition::Block
            | Transition::Done
            | Transition::Review => *stage == InProgress,
            Transition::CloseReview => *stage == InReview,
            Transition::Hold => matches!(stage, Ready | Backlog),
            Transition::Skip => !matches!(stage, Done | Skipped),
            // READY / BACKLOG too: their retries and last failure are reset (e.g. after a
            // setup problem was fixed)
            Transition::Unblock => {
                matches!(stage, Blocked | Skipped | Interrupted | Ready | Backlog)
            }
            Transition::Reopen => *stage == Skipped,
            Transition::Revert => *stage == Done,
        }
    }

    /// The stage a task has after this transition.
    pub fn to(self) -> Stage {
        match self {
            Transition::Claim => Stage::InProgress,
            Transition::Interrupt => Stage::Interrupted,
            Transition::Stop | Transition::Revert | Transition::CloseReview => Stage::Ready,
            Transition::Review => Stage::InReview,
            Transition::Block | Transition::Hold => Stage::Blocked,
            Transition::Done => Stage::Done,
            Transition::Skip => Stage::Skipped,
            Transition::Unblock | Transition::Reopen => Stage::Backlog,
        }
    }
}

/// A transition the task's stage does not allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAllowed {
    pub issue: u32,
    pub from: Stage,
    pub transition: Transition,
}

impl fmt::Display for NotAllowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "issue {} is {}: `{}` does not apply to it",
            self.issue,
            self.from,
            self.transition.name()
        )
    }
}

impl std::error::Error for NotAllowed {}

impl Task {
    fn enter(&mut self, t: Transition) -> Result<(), NotAllowed> {
        if !t.allowed_from(&self.stage) {
            return Err(NotAllowed {
                issue: self.issue_number,
                from: self.stage.clone(),
                transition: t,
            });
        }
        self.stage = t.to();
        Ok(())
    }

    /// A task created BLOCKED (imported as such, e.g. labelled `swarm:blocked` on GitHub):
    /// no transition, so no event.
    pub fn new_blocked(issue_number: u32, title: impl Into<String>, reason: String) -> Task {
        let mut t = Task::new(issue_number, title);
        t.stage = Stage::Blocked;
        t.blocked_reason = Some(reason);
        t
    }

    /// The task as it will be once DONE: a preview its summary is built from before the
    /// transition is recorded. Not a transition.
    pub fn as_done(&self) -> Task {
        let mut t = self.clone();
        t.stage = Stage::Done;
        t
    }

    /// READY or INTERRUPTED → IN_PROGRESS under `owner`: a new attempt (`issue_started`).
    pub fn claim(&mut self, owner: String) -> Result<Event, NotAllowed> {
        self.enter(Transition::Claim)?;
        self.owner = Some(owner);
        self.blocked_reason = None;
        self.attempts += 1;
        Ok(Event::IssueStarted {
            issue: self.issue_number,
            attempt: self.attempts,
        })
    }

    /// IN_PROGRESS → INTERRUPTED: its run is gone or failed unexpectedly; the next run
    /// resumes it. No event.
    pub fn interrupt(&mut self) -> Result<(), NotAllowed> {
        self.enter(Transition::Interrupt)?;
        self.owner = None;
        Ok(())
    }

    /// IN_PROGRESS → READY: the circuit breaker stopped the run (retries kept). No event.
    pub fn stop(&mut self) -> Result<(), NotAllowed> {
        self.enter(Transition::Stop)?;
        self.owner = None;
        Ok(())
    }

    /// IN_PROGRESS → BLOCKED with `reason` (`issue_blocked`).
    pub fn block(&mut self, reason: String) -> Result<Event, NotAllowed> {
        self.enter(Transition::Block)?;
        self.owner = None;
        self.blocked_reason = Some(reason.clone());
        Ok(Event::IssueBlocked {
            issue: self.issue_number,
            reason,
            retries: self.retries,
        })
    }

    /// READY or BACKLOG → BLOCKED with `reason` before any dispatch (`issue_blocked`): a
    /// gate before dispatch (docs/gates.md) held it.
    pub fn hold(&mut self, reason: String) -> Result<Event, NotAllowed> {
        self.enter(Transition::Hold)?;
        self.blocked_reason = Some(reason.clone());
        Ok(Event::IssueBlocked {
            issue: self.issue_number,
            reason,
            retries: self.retries,
        })
    }

    /// IN_PROGRESS → DONE (`issue_done` with the commit, the cost and the summary as the task
    /// holds them now): `commit` is recorded when given; owner, reason and last failure are
    /// cleared.
    pub fn done(
        &mut self,
        commit: Option<String>,
        cost_usd: Option<f64>,
        convergence: Option<Value>,
    ) -> Result<Event, NotAllowed> {
        self.enter(Transition::Done)?;
        self.owner = None;
        self.blocked_reason = None;
        self.last_failure = None;
        if commit.is_some() {
            self.commit = commit;
        }
        Ok(Event::IssueDone {
            issue: self.issue_number,
            commit: self.commit.clone(),
            cost_usd,
            summary: self.summary().map(str::to_string),
            convergence,
        })
    }

    /// IN_PROGRESS → IN_REVIEW: the verified work waits in pull request `pr` on `branch`
    /// (`pr_opened`); owner, reason and last failure are cleared.
    pub fn review(&mut self, pr: u64, branch: String) -> Result<Event, NotAllowed> {
        self.enter(Transition::Review)?;
        self.owner = None;
        self.blocked_reason = None;
        self.last_failure = None;
        self.pull_request = Some(pr);
        self.pull_request_state = None;
        Ok(Event::PrOpened {
            issue: self.issue_number,
            pr,
            branch,
        })
    }

    /// IN_REVIEW → READY: its pull request was closed without merging; `reason` (with the
    /// reviewer's comment) is fed back to the next attempt. No event of its own: `pr_closed`
    /// is recorded for every closed pull request.
    pub fn close_review(&mut self, reason: String) -> Result<(), NotAllowed> {
        self.enter(Transition::CloseReview)?;
        self.last_failure = Some(reason);
        Ok(())
    }

    /// Any stage but DONE or SKIPPED → SKIPPED with `reason` (`issue_skipped`).
    pub fn skip(&mut self, reason: String) -> Result<Event, NotAllowed> {
        self.enter(Transition::Skip)?;
        self.owner = None;
        self.blocked_reason = Some(reason.clone());
        Ok(Event::IssueSkipped {
            issue: self.issue_number,
            blocking_issue: None,
            reason: Some(reason),
        })
    }

    /// BLOCKED, SKIPPED, INTERRUPTED, READY or BACKLOG → BACKLOG, retries, reason, last
    /// failure and failure analyses cleared (`issue_unblocked`); readiness then makes it READY
    /// when its dependencies are DONE. A task the specify gate held keeps its score, marked
    /// waived: a person decided it is dispatched anyway (docs/gates.md).
    pub fn unblock(&mut self) -> Result<Event, NotAllowed> {
        let needed_info = crate::gates::specify::is_needs_info(self);
        self.enter(Transition::Unblock)?;
        if needed_info && let Some(r) = self.specify.as_mut() {
            // a person let it through: dispatched anyway, until its text changes
            r.waived = true;
        }
        self.retries = 0;
        self.failure_analyses.clear();
        self.blocked_reason = None;
        self.last_failure = None;
        self.owner = None;
        Ok(Event::IssueUnblocked {
            issue: self.issue_number,
        })
    }

    /// SKIPPED → BACKLOG when its GitHub issue is reopened (`issue_unblocked`); retries kept.
    pub fn reopen(&mut self) -> Result<Event, NotAllowed> {
        self.enter(Transition::Reopen)?;
        self.blocked_reason = None;
        Ok(Event::IssueUnblocked {
            issue: self.issue_number,
        })
    }

    /// DONE → READY: every commit that implemented it was reverted by `commit`
    /// (`state_reverted`); its commit and git evidence are dropped.
    pub fn revert(&mut self, commit: String) -> Result<Event, NotAllowed> {
        self.enter(Transition::Revert)?;
        self.commit = None;
        self.evidence
            .retain(|e| !crate::ledger::is_git_source(&e.source));
        Ok(Event::StateReverted {
            issue: self.issue_number,
            commit,
        })
    }
}

#[cfg(test)]
mod tests;
