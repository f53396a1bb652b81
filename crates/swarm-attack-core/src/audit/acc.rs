//! The per-issue accumulator of the audit: applies one issue's events to its attempts,
//! agent runs, outcome, durations and cost.

use super::describe::{describe, fallback_text, millis_between, short, short_sha};
use super::fields::{b, f, i, s, string_list, text, u};
use super::{AgentRun, Attempt, IssueAudit};
use crate::record::Fields;

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
    pub(super) agent_costs: Option<f64>,
    pub(super) done_costs: Option<f64>,
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
                outcome: "not_started".into(),
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
            agent_costs: None,
            done_costs: None,
        }
    }

    fn open_attempt(&mut self) -> Option<&mut Attempt> {
        self.audit
            .attempts
            .last_mut()
            .filter(|a| a.outcome == "in_progress")
    }

    /// Starts attempt `n` (or the next number), unless it is the open one.
    fn start_attempt(&mut self, n: Option<u64>, ts: Option<&str>) {
        if let Some(open) = self.open_attempt() {
            if n.is_none_or(|n| n == open.attempt) {
                return;
            }
            // a two-agent attempt whose candidates failed stays open until the next start
            open.outcome = if open.verification.as_deref() == Some("failed") {
                "failed".into()
            } else {
                "interrupted".into()
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
            outcome: "in_progress".into(),
        });
        self.audit.outcome = "in_progress".into();
    }

    fn current_attempt(&mut self, ts: Option<&str>) -> &mut Attempt {
        if self.open_attempt().is_none() {
            self.start_attempt(None, ts);
        }
        let last = self.audit.attempts.len() - 1;
        &mut self.audit.attempts[last]
    }

    /// Ends the open (or just passed) attempt with `outcome`.
    fn settle_attempt(&mut self, outcome: &str, ts: Option<&str>) {
        if let Some(a) = self.audit.attempts.last_mut()
            && (a.outcome == "in_progress" || a.outcome == "passed")
        {
            a.outcome = outcome.into();
            if a.ended_at.is_none() {
                end(a, ts);
            }
        }
    }

    pub(super) fn finish(&mut self, outcome: &str, ts: Option<&str>) {
        self.audit.outcome = outcome.into();
        self.audit.ended_at = ts.map(str::to_string);
    }

    pub(super) fn apply<R: Fields + ?Sized>(&mut self, event: &str, rec: &R, ts: Option<&str>) {
        match event {
            "issue_started" => self.start_attempt(u(rec, "attempt"), ts),
            "retry_started" => {
                self.audit.retries += 1;
                self.start_attempt(u(rec, "attempt"), ts);
            }
            "agents_selected" => {
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
            "agent_started" => {
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
            // an LLM helper call (analysis, specify gate, lesson): charged to the issue,
            // outside any attempt
            "llm_called" => {
                if let Some(c) = f(rec, "cost_usd") {
                    self.agent_costs = Some(self.agent_costs.unwrap_or(0.0) + c);
                }
            }
            "agent_finished" => {
                let agent = s(rec, "agent").unwrap_or_default();
                if !self.audit.agents.contains(&agent) {
                    self.audit.agents.push(agent.clone());
                }
                let ms = u(rec, "duration_ms");
                let cost = f(rec, "cost_usd");
                self.audit.agent_time_ms += ms.unwrap_or(0);
                if let Some(c) = cost {
                    self.agent_costs = Some(self.agent_costs.unwrap_or(0.0) + c);
                }
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
                run.exit_code = i(rec, "exit_code");
                run.duration_ms = ms;
                run.timed_out = b(rec, "timed_out");
                run.cost_usd = cost;
                run.tokens_in = u(rec, "tokens_in");
                run.tokens_out = u(rec, "tokens_out");
                run.tokens_cached = u(rec, "tokens_cached");
                run.error_kind = s(rec, "error_kind");
                run.permission_denials = u(rec, "permission_denials").unwrap_or(0);
                run.output = s(rec, "output");
            }
            "verification_passed" | "verification_failed" | "implementation_complete"
                if s(rec, "agent").is_some() =>
            {
                self.candidate_event(event, rec, ts);
            }
            "verification_passed" => {
                let a = self.current_attempt(ts);
                a.verification = Some("passed".into());
                a.tests_passed = u(rec, "tests_passed");
                a.outcome = "passed".into();
                end(a, ts);
            }
            "verification_failed" => {
                let a = self.current_attempt(ts);
                a.verification = Some("failed".into());
                a.tests_failed = u(rec, "tests_failed");
                a.failures = text(rec, "failures").map(|t| short(&t, 200));
                a.outcome = "failed".into();
                end(a, ts);
            }
            "issue_blocked" => {
                self.settle_attempt("blocked", ts);
                self.audit.reason = s(rec, "reason");
                self.finish("blocked", ts);
            }
            "issue_done" => {
                self.settle_attempt("done", ts);
                if let Some(c) = rec.field("convergence").filter(|c| !c.is_null()) {
                    self.audit.convergence = c.to_value();
                }
                if let Some(c) = s(rec, "commit").filter(|c| !c.is_empty()) {
                    self.audit.commit = Some(c);
                }
                if let Some(c) = f(rec, "cost_usd") {
                    self.done_costs = Some(self.done_costs.unwrap_or(0.0) + c);
                }
                self.audit.reason = None;
                self.finish("done", ts);
            }
            "issue_skipped" => {
                self.settle_attempt("interrupted", ts);
                self.audit.reason =
                    u(rec, "blocking_issue").map(|n| format!("depends on #{n}, which is blocked"));
                self.finish("skipped", ts);
            }
            "issue_unblocked" => {
                self.audit.outcome = "ready".into();
                self.audit.reason = None;
            }
            "state_reverted" => {
                self.audit.outcome = "ready".into();
                self.audit.evidence = Some(format!(
                    "commit {} was reverted",
                    short_sha(&s(rec, "commit").unwrap_or_default())
                ));
            }
            "duplicate_detected" => {
                self.audit.evidence = Some(describe(event, rec));
                self.finish("done", ts);
            }
            _ => {}
        }
    }
}

impl Acc {
    /// An event of one candidate of a two-agent attempt (it names its `agent`): annotates
    /// that agent's run; the attempt stays open (it ends at `issue_done`, `issue_blocked` or
    /// the next attempt's start — `failed` then when no candidate passed).
    fn candidate_event<R: Fields + ?Sized>(&mut self, event: &str, rec: &R, ts: Option<&str>) {
        let agent = s(rec, "agent").unwrap_or_default();
        let attempt = match self.audit.attempts.last_mut() {
            Some(a) if a.agents.iter().any(|r| r.agent == agent) => a,
            _ => self.current_attempt(ts),
        };
        let run = attempt.agents.iter_mut().rev().find(|r| r.agent == agent);
        match event {
            "implementation_complete" => {
                if let Some(run) = run {
                    let mut files = string_list(rec, "files_created");
                    files.extend(string_list(rec, "files_modified"));
                    run.files = files;
                }
            }
            "verification_passed" => {
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
