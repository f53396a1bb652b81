//! The per-issue accumulator of the audit: applies one issue's events to its attempts,
//! agent runs, outcome, durations and cost.

use super::describe::{describe, fallback_text, millis_between, short, short_sha};
use super::fields::{s, string_list, text, u};
use super::{AgentRun, Attempt, IssueAudit};
use crate::events::EventKind;
use crate::fold::{AttemptOutcome, IssueOutcome, IssueTally};
use crate::record::Fields;
use std::borrow::Cow;

/// Counts over attempts (for the totals).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct AttemptCounts {
    pub(super) attempts: u64,
    pub(super) agent_runs: u64,
    /// Finished agent runs that reported no cost.
    pub(super) unknown_cost_runs: u64,
    /// Attempts with at least one such run.
    pub(super) unknown_cost_attempts: u64,
}

impl AttemptCounts {
    pub(super) fn add(&mut self, a: &Attempt) {
        self.attempts += 1;
        self.agent_runs += a.agents.len() as u64;
        let unknown = a
            .agents
            .iter()
            .filter(|r| r.cost_usd.is_none() && (r.duration_ms.is_some() || r.exit_code.is_some()))
            .count() as u64;
        self.unknown_cost_runs += unknown;
        self.unknown_cost_attempts += u64::from(unknown > 0);
    }
}

#[derive(Debug)]
pub(super) struct Acc {
    pub(super) audit: IssueAudit,
    pending_mode: Option<String>,
    /// The shared per-issue fold (`fold::IssueTally`): counts, agent time, cost.
    pub(super) tally: IssueTally,
    /// Spilling: an attempt that is no longer the last one never changes again; it waits in
    /// `finished` for the caller instead of staying in `audit.attempts`.
    pub(super) spill: bool,
    pub(super) finished: Vec<Attempt>,
    /// The attempts handed out so far.
    pub(super) handed: AttemptCounts,
}

impl Acc {
    pub(super) fn new(issue: u64, spill: bool) -> Self {
        Acc {
            spill,
            finished: Vec::new(),
            handed: AttemptCounts::default(),
            audit: IssueAudit {
                issue,
                title: None,
                outcome: IssueOutcome::NotStarted,
                mode: None,
                winner: None,
                runner_up: None,
                agents: Vec::new(),
                attempt_count: 0,
                retries: 0,
                started_at: None,
                ended_at: None,
                duration_ms: None,
                agent_time_ms: 0,
                cost_usd: None,
                commit: None,
                evidence: None,
                reason: None,
                fallbacks: Vec::new(),
                convergence: None,
                attempts: Vec::new(),
                timeline: Vec::new(),
            },
            pending_mode: None,
            tally: IssueTally::default(),
        }
    }

    fn open_attempt(&mut self) -> Option<&mut Attempt> {
        self.audit
            .attempts
            .last_mut()
            .filter(|a| a.outcome == AttemptOutcome::InProgress)
    }

    /// Starts attempt `n` (or the next number), unless it is the open one.
    fn start_attempt(&mut self, n: Option<u64>, ts: Option<&str>) {
        if let Some(open) = self.open_attempt() {
            if n.is_none_or(|n| n == open.attempt) {
                return;
            }
            // a two-agent attempt whose candidates failed stays open until the next start
            open.outcome = if open.verification.as_deref() == Some("failed") {
                AttemptOutcome::Failed
            } else {
                AttemptOutcome::Interrupted
            };
            end(open, ts);
        }
        let number = n.unwrap_or_else(|| self.audit.attempts.last().map_or(1, |a| a.attempt + 1));
        if self.spill
            && let Some(done) = self.audit.attempts.pop()
        {
            self.handed.add(&done);
            self.finished.push(done);
        }
        if self.audit.started_at.is_none() {
            self.audit.started_at = ts.map(str::to_string);
        }
        let mode = self
            .pending_mode
            .clone()
            .or_else(|| self.audit.mode.clone());
        self.audit.attempts.push(Attempt {
            attempt: number,
            started_at: ts.map(str::to_string),
            ended_at: None,
            duration_ms: None,
            mode,
            agents: Vec::new(),
            verification: None,
            tests_passed: None,
            tests_failed: None,
            failures: None,
            fallback: None,
            outcome: AttemptOutcome::InProgress,
        });
        self.audit.outcome = IssueOutcome::InProgress;
    }

    fn current_attempt(&mut self, ts: Option<&str>) -> &mut Attempt {
        if self.open_attempt().is_none() {
            self.start_attempt(None, ts);
        }
        let last = self.audit.attempts.len() - 1;
        &mut self.audit.attempts[last]
    }

    /// Ends the open (or just passed) attempt with `outcome`.
    fn settle_attempt(&mut self, outcome: AttemptOutcome, ts: Option<&str>) {
        if let Some(a) = self.audit.attempts.last_mut()
            && (a.outcome == AttemptOutcome::InProgress || a.outcome == AttemptOutcome::Passed)
        {
            a.outcome = outcome;
            if a.ended_at.is_none() {
                end(a, ts);
            }
        }
    }

    pub(super) fn finish(&mut self, outcome: IssueOutcome, ts: Option<&str>) {
        self.audit.outcome = outcome;
        self.audit.ended_at = ts.map(str::to_string);
    }

    pub(super) fn apply<R: Fields + ?Sized>(&mut self, kind: EventKind, rec: &R, ts: Option<&str>) {
        // the shared per-issue fold first (counts, time, spend); the detail below
        let finished = self.tally.apply(kind, rec);
        match kind {
            EventKind::IssueStarted => self.start_attempt(u(rec, "attempt"), ts),
            EventKind::RetryStarted => {
                self.audit.retries = self.tally.retries;
                self.start_attempt(u(rec, "attempt"), ts);
            }
            EventKind::AgentsSelected => {
                let mode = s(rec, "mode");
                self.audit.mode = mode.clone();
                self.audit.winner = s(rec, "winner");
                self.audit.runner_up = s(rec, "runner_up");
                self.pending_mode = mode.clone();
                let fallback = fallback_text(rec);
                if let Some(fb) = &fallback {
                    self.audit.fallbacks.push(fb.clone());
                }
                if let Some(a) = self.open_attempt() {
                    a.mode = mode;
                    if fallback.is_some() {
                        a.fallback = fallback;
                    }
                }
            }
            EventKind::AgentStarted => {
                let agent = s(rec, "agent").unwrap_or_default();
                if !self.audit.agents.contains(&agent) {
                    self.audit.agents.push(agent.clone());
                }
                self.current_attempt(ts).agents.push(AgentRun {
                    agent,
                    role: s(rec, "role"),
                    ..AgentRun::default()
                });
            }
            EventKind::AgentFinished => {
                let Some(fin) = finished else { return };
                let agent = fin.agent.map(Cow::into_owned).unwrap_or_default();
                if !self.audit.agents.contains(&agent) {
                    self.audit.agents.push(agent.clone());
                }
                let ms = fin.duration_ms;
                let cost = fin.cost_usd;
                self.audit.agent_time_ms = self.tally.spend.agent_ms;
                let attempt = self.current_attempt(ts);
                let run = match attempt.agents.iter().rposition(|r| {
                    r.agent == agent
                        && r.duration_ms.is_none()
                        && r.exit_code.is_none()
                        && !r.timed_out
                }) {
                    Some(i) => &mut attempt.agents[i],
                    None => {
                        attempt.agents.push(AgentRun {
                            agent,
                            ..AgentRun::default()
                        });
                        let last = attempt.agents.len() - 1;
                        &mut attempt.agents[last]
                    }
                };
                run.exit_code = fin.exit_code;
                run.duration_ms = ms;
                run.timed_out = fin.timed_out;
                run.cost_usd = cost;
                run.tokens_in = fin.tokens_in;
                run.tokens_out = fin.tokens_out;
                run.tokens_cached = fin.tokens_cached;
                run.error_kind = fin.error_kind.map(Cow::into_owned);
                run.permission_denials = fin.permission_denials.unwrap_or(0);
                run.output = fin.output.map(Cow::into_owned);
            }
            EventKind::VerificationPassed
            | EventKind::VerificationFailed
            | EventKind::ImplementationComplete
                if s(rec, "agent").is_some() =>
            {
                self.candidate_event(kind, rec, ts);
            }
            EventKind::VerificationPassed => {
                let a = self.current_attempt(ts);
                a.verification = Some("passed".into());
                a.tests_passed = u(rec, "tests_passed");
                a.outcome = AttemptOutcome::Passed;
                end(a, ts);
            }
            EventKind::VerificationFailed => {
                let a = self.current_attempt(ts);
                a.verification = Some("failed".into());
                a.tests_failed = u(rec, "tests_failed");
                a.failures = text(rec, "failures").map(|t| short(&t, 200));
                a.outcome = AttemptOutcome::Failed;
                end(a, ts);
            }
            EventKind::IssueBlocked => {
                self.settle_attempt(AttemptOutcome::Blocked, ts);
                self.audit.reason = s(rec, "reason");
                self.finish(IssueOutcome::Blocked, ts);
            }
            EventKind::IssueDone => {
                self.settle_attempt(AttemptOutcome::Done, ts);
                if let Some(c) = rec.field("convergence").filter(|c| !c.is_null()) {
                    self.audit.convergence = c.to_value();
                }
                if let Some(c) = s(rec, "commit").filter(|c| !c.is_empty()) {
                    self.audit.commit = Some(c);
                }
                self.audit.reason = None;
                self.finish(IssueOutcome::Done, ts);
            }
            EventKind::IssueSkipped => {
                self.settle_attempt(AttemptOutcome::Interrupted, ts);
                self.audit.reason =
                    u(rec, "blocking_issue").map(|n| format!("depends on #{n}, which is blocked"));
                self.finish(IssueOutcome::Skipped, ts);
            }
            EventKind::IssueUnblocked => {
                self.audit.outcome = IssueOutcome::Ready;
                self.audit.reason = None;
            }
            EventKind::StateReverted => {
                self.audit.outcome = IssueOutcome::Ready;
                self.audit.evidence = Some(format!(
                    "commit {} was reverted",
                    short_sha(&s(rec, "commit").unwrap_or_default())
                ));
            }
            EventKind::DuplicateDetected => {
                self.audit.evidence = Some(describe(Some(kind), rec));
                self.finish(IssueOutcome::Done, ts);
            }
            _ => {}
        }
    }
}

impl Acc {
    /// An event of one candidate of a two-agent attempt (it names its `agent`): annotates
    /// that agent's run; the attempt stays open (it ends at `issue_done`, `issue_blocked` or
    /// the next attempt's start — `failed` then when no candidate passed).
    fn candidate_event<R: Fields + ?Sized>(&mut self, kind: EventKind, rec: &R, ts: Option<&str>) {
        let agent = s(rec, "agent").unwrap_or_default();
        let attempt = match self.audit.attempts.last_mut() {
            Some(a) if a.agents.iter().any(|r| r.agent == agent) => a,
            _ => self.current_attempt(ts),
        };
        let run = attempt.agents.iter_mut().rev().find(|r| r.agent == agent);
        match kind {
            EventKind::ImplementationComplete => {
                if let Some(run) = run {
                    let mut files = string_list(rec, "files_created");
                    files.extend(string_list(rec, "files_modified"));
                    run.files = files;
                }
            }
            EventKind::VerificationPassed => {
                if let Some(run) = run {
                    run.verification = Some("passed".into());
                }
                attempt.verification = Some("passed".into());
                attempt.tests_passed = u(rec, "tests_passed");
            }
            _ => {
                if let Some(run) = run {
                    run.verification = Some("failed".into());
                }
                if attempt.verification.as_deref() != Some("passed") {
                    attempt.verification = Some("failed".into());
                    attempt.tests_failed = u(rec, "tests_failed");
                    let f = text(rec, "failures").map(|t| format!("{agent}: {}", short(&t, 200)));
                    attempt.failures = match (attempt.failures.take(), f) {
                        (Some(a), Some(b)) => Some(format!("{a} | {b}")),
                        (a, b) => a.or(b),
                    };
                }
            }
        }
    }
}

fn end(a: &mut Attempt, ts: Option<&str>) {
    a.ended_at = ts.map(str::to_string);
    a.duration_ms = match (&a.started_at, ts) {
        (Some(s), Some(e)) => millis_between(s, e),
        _ => None,
    };
}
