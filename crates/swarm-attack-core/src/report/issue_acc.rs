//! One issue's part of the report's accumulator: its attempts and runs, bounded (see the
//! module doc of [`super`] for the bounds), beside the shared per-issue fold
//! (`fold::IssueTally`).

use super::{
    Aggregate, Attempt, BudgetHit, IssueReport, MAX_ATTEMPTS, MAX_BUDGET_HITS, MAX_RUNS, Run,
};
use crate::audit::fields::{self, f, s, u};
use crate::audit::{describe, short};
use crate::events::EventKind;
use crate::fold::{AgentFinishedRead, AttemptOutcome, IssueOutcome, IssueTally};
use serde_json::{Map, Value};
use std::borrow::Cow;
/// Failure texts are cut to this many characters.
const FAILURE_CHARS: usize = 300;

/// A failure text (a string or the original's list of strings), cut short.
fn text(rec: &Map<String, Value>, k: &str) -> Option<String> {
    fields::text(rec, k)
        .filter(|t| !t.trim().is_empty())
        .map(|t| short(&t, FAILURE_CHARS))
}
pub(super) fn add(sum: &mut Option<u64>, v: Option<u64>) {
    if let Some(v) = v {
        *sum = Some(sum.unwrap_or(0) + v);
    }
}
pub(super) fn add_f(sum: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v {
        *sum = Some(sum.unwrap_or(0.0) + v);
    }
}

#[derive(Debug)]
pub(super) struct IssueAcc {
    pub(super) r: IssueReport,
    pending_mode: Option<String>,
    /// The last `implementation_complete` of the open attempt.
    impl_ms: Option<u64>,
    /// The last passing verification of the open attempt (a landing starts there).
    passed_ms: Option<u64>,
    /// The shared per-issue fold (`fold::IssueTally`): counts, time, tokens, cost.
    pub(super) tally: IssueTally,
    pub(super) test_runs: u64,
    pub(super) landings: u64,
    /// The attempt (by `attempt_count`) last counted in `cost_unknown_attempts`.
    unknown_counted: Option<u64>,
    /// The counted findings of the reviews since the last `review_verdict`.
    review_pending: Vec<String>,
}

pub(super) fn run(kind: &str, agent: Option<String>, start_ms: u64) -> Run {
    Run {
        kind: kind.into(),
        agent,
        role: None,
        start_ms,
        end_ms: None,
        outcome: "running".into(),
        exit_code: None,
        cost_usd: None,
        tokens_in: None,
        tokens_out: None,
        tokens_cached: None,
        turns: None,
        error_kind: None,
        detail: None,
    }
}

impl IssueAcc {
    pub(super) fn new(issue: u64) -> Self {
        IssueAcc {
            r: IssueReport {
                issue,
                title: None,
                stage: None,
                dependencies: Vec::new(),
                outcome: IssueOutcome::NotStarted,
                github_issue: None,
                github_url: None,
                pr: None,
                pr_url: None,
                mode: None,
                agents: Vec::new(),
                attempt_count: 0,
                retries: 0,
                start_ms: None,
                end_ms: None,
                agent_time_ms: 0,
                cost_usd: None,
                runs_without_cost: 0,
                cost_unknown_attempts: 0,
                tokens_in: None,
                tokens_out: None,
                tokens_cached: None,
                turns: None,
                llm_calls: 0,
                llm_cost_usd: None,
                commit: None,
                evidence: None,
                reason: None,
                budget: Vec::new(),
                specify: None,
                risk: Vec::new(),
                attempts: Vec::new(),
                aggregated: None,
                candidates: None,
                low_convergence: None,
                review: None,
                review_findings: Vec::new(),
            },
            pending_mode: None,
            impl_ms: None,
            passed_ms: None,
            tally: IssueTally::default(),
            test_runs: 0,
            landings: 0,
            unknown_counted: None,
            review_pending: Vec::new(),
        }
    }

    /// The attempt still running (or verified and waiting to land).
    pub(super) fn open(&mut self) -> Option<&mut Attempt> {
        self.r.attempts.last_mut().filter(|a| {
            a.outcome == AttemptOutcome::InProgress || a.outcome == AttemptOutcome::Passed
        })
    }

    fn start_attempt(&mut self, n: Option<u64>, now: u64) {
        if let Some(open) = self.open() {
            if n.is_none_or(|n| n == open.attempt) {
                return;
            }
            let failed = open.verification.as_deref() == Some("failed");
            close(
                open,
                if failed {
                    AttemptOutcome::Failed
                } else {
                    AttemptOutcome::Interrupted
                },
                now,
            );
        }
        let number = n.unwrap_or_else(|| self.r.attempts.last().map_or(1, |a| a.attempt + 1));
        self.r.attempt_count += 1;
        if self.r.start_ms.is_none() {
            self.r.start_ms = Some(now);
        }
        self.impl_ms = None;
        self.passed_ms = None;
        let mode = self.pending_mode.clone().or_else(|| self.r.mode.clone());
        self.r.attempts.push(Attempt {
            attempt: number,
            mode,
            outcome: AttemptOutcome::InProgress,
            start_ms: now,
            end_ms: None,
            verification: None,
            tests_passed: None,
            tests_failed: None,
            failure: None,
            runs: Vec::new(),
            more_runs: 0,
        });
        self.r.outcome = IssueOutcome::InProgress;
        self.fold_excess();
    }

    /// Keeps the first and the latest attempts; folds the middle ones.
    fn fold_excess(&mut self) {
        while self.r.attempts.len() > MAX_ATTEMPTS {
            let a = self.r.attempts.remove(MAX_ATTEMPTS / 2);
            let agg = self.r.aggregated.get_or_insert_with(|| Aggregate {
                start_ms: a.start_ms,
                end_ms: a.start_ms,
                ..Default::default()
            });
            agg.attempts += 1;
            agg.start_ms = agg.start_ms.min(a.start_ms);
            agg.end_ms = agg.end_ms.max(a.end_ms.unwrap_or(a.start_ms));
            for r in &a.runs {
                match r.kind.as_str() {
                    "agent" => {
                        agg.agent_runs += 1;
                        agg.agent_time_ms += r.end_ms.unwrap_or(r.start_ms) - r.start_ms;
                    }
                    "test" => agg.test_runs += 1,
                    _ => {}
                }
            }
            agg.agent_runs += a.more_runs;
            match a.outcome {
                AttemptOutcome::Done | AttemptOutcome::Passed => agg.passed += 1,
                AttemptOutcome::Failed | AttemptOutcome::Blocked => agg.failed += 1,
                AttemptOutcome::InProgress | AttemptOutcome::Interrupted => agg.other += 1,
            }
        }
    }

    fn current(&mut self, now: u64) -> &mut Attempt {
        if self.open().is_none() {
            self.start_attempt(None, now);
        }
        let last = self.r.attempts.len() - 1;
        &mut self.r.attempts[last]
    }

    fn note_agent(&mut self, agent: &str) {
        if !self.r.agents.iter().any(|a| a == agent) && self.r.agents.len() < MAX_RUNS {
            self.r.agents.push(agent.to_string());
        }
    }

    pub(super) fn apply(&mut self, kind: EventKind, rec: &Map<String, Value>, now: u64) {
        // the shared per-issue fold first (counts, time, tokens, cost); the detail below
        let finished = self.tally.apply(kind, rec);
        match kind {
            EventKind::IssueStarted => self.start_attempt(u(rec, "attempt"), now),
            EventKind::RetryStarted => {
                self.r.retries = self.tally.retries;
                self.start_attempt(u(rec, "attempt"), now);
            }
            EventKind::AgentsSelected => {
                let mode = s(rec, "mode");
                self.r.mode = mode.clone();
                self.pending_mode = mode.clone();
                if let Some(a) = self.open() {
                    a.mode = mode;
                }
            }
            EventKind::AgentStarted => {
                let agent = s(rec, "agent").unwrap_or_default();
                self.note_agent(&agent);
                let a = self.current(now);
                if a.runs.len() >= MAX_RUNS {
                    a.more_runs += 1;
                    return;
                }
                let mut r = run("agent", Some(agent), now);
                r.role = s(rec, "role");
                a.runs.push(r);
            }
            EventKind::AgentFinished => {
                if let Some(fin) = finished {
                    self.agent_finished(fin, now);
                }
            }
            // an LLM helper call (analysis, specify gate, lesson): the tally counted its
            // cost and tokens; no run of an attempt
            EventKind::LlmCalled => {
                self.r.llm_calls += 1;
                add_f(&mut self.r.llm_cost_usd, f(rec, "cost_usd"));
                self.r.runs_without_cost = self.tally.runs_without_cost;
                self.r.tokens_in = self.tally.tokens_in;
                self.r.tokens_out = self.tally.tokens_out;
            }
            EventKind::SpecifyScored => {
                let score =
                    u(rec, "score").map_or_else(|| "unscored".to_string(), |n| format!("{n}/10"));
                let mut line = format!("{score} ({})", s(rec, "source").unwrap_or_default());
                if let Some(w) = s(rec, "warning") {
                    line.push_str(&format!(", passed: {w}"));
                } else if rec.get("passed").and_then(Value::as_bool) == Some(false)
                    && let Some(q) = s(rec, "question")
                {
                    line.push_str(&format!(": {q}"));
                }
                self.r.specify = Some(line);
            }
            EventKind::RiskFlagged => {
                self.r.risk = rec
                    .get("signals")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
            }
            // a reviewer's fallback (`reviewer <kind>`) leaves the attempt's mode as it is
            EventKind::AgentFallback
                if !s(rec, "reason").is_some_and(|r| r.starts_with("reviewer ")) =>
            {
                // the attempt the fallback agent runs
                // (docs/run.md "After a failure: classes, analysis, fallback"): its mode says who
                // and why
                let mode = format!(
                    "{} (fallback from {}: {})",
                    s(rec, "to").unwrap_or_default(),
                    s(rec, "from").unwrap_or_default(),
                    short(&s(rec, "reason").unwrap_or_default(), 80)
                );
                self.current(now).mode = Some(mode);
            }
            EventKind::ImplementationComplete => self.impl_ms = Some(now),
            EventKind::VerificationPassed | EventKind::VerificationFailed => {
                self.verification(kind, rec, now)
            }
            EventKind::LowConvergence => self.r.low_convergence = f(rec, "score"),
            EventKind::ReviewFinished => {
                let list = rec.get("findings").and_then(Value::as_array);
                for x in list.into_iter().flatten().filter_map(Value::as_object) {
                    if x.get("counted").and_then(Value::as_bool) != Some(true) {
                        continue;
                    }
                    let line = format!(
                        "[{}] {}:{} — {} ({})",
                        s(x, "severity").unwrap_or_default(),
                        s(x, "file").unwrap_or_default(),
                        u(x, "line").unwrap_or_default(),
                        short(&s(x, "title").unwrap_or_default(), 120),
                        s(x, "reviewer").unwrap_or_default()
                    );
                    if !self.review_pending.contains(&line) {
                        self.review_pending.push(line);
                    }
                }
            }
            EventKind::ReviewVerdict => {
                self.r.review = Some(format!(
                    "{} ({}), {} counted",
                    s(rec, "verdict").unwrap_or_default(),
                    s(rec, "strategy").unwrap_or_default(),
                    u(rec, "counted").unwrap_or_default()
                ));
                self.r.review_findings = std::mem::take(&mut self.review_pending);
            }
            EventKind::IssueDone => {
                if let Some(c) = rec.get("convergence").filter(|c| c.is_object()) {
                    self.r.candidates = Some(c.clone());
                }
                let start = self.passed_ms.unwrap_or(now);
                let commit = s(rec, "commit").filter(|c| !c.is_empty());
                let landed = match self.open() {
                    Some(a) => {
                        if a.runs.len() < MAX_RUNS {
                            let mut l = run("landing", None, start.min(now));
                            l.end_ms = Some(now);
                            l.outcome = "done".into();
                            l.detail = commit.clone();
                            a.runs.push(l);
                        }
                        close(a, AttemptOutcome::Done, now);
                        true
                    }
                    None => false,
                };
                if landed {
                    self.landings += 1;
                }
                if commit.is_some() {
                    self.r.commit = commit;
                }
                self.r.reason = None;
                self.finish(IssueOutcome::Done, now);
            }
            EventKind::IssueBlocked => {
                let reason = s(rec, "reason");
                if let Some(a) = self.open() {
                    if a.failure.is_none() {
                        a.failure = reason.as_deref().map(|r| short(r, FAILURE_CHARS));
                    }
                    close(a, AttemptOutcome::Blocked, now);
                }
                self.r.reason = reason;
                self.finish(IssueOutcome::Blocked, now);
            }
            EventKind::IssueSkipped => {
                if let Some(a) = self.open() {
                    close(a, AttemptOutcome::Interrupted, now);
                }
                self.r.reason =
                    u(rec, "blocking_issue").map(|n| format!("depends on #{n}, which is blocked"));
                self.finish(IssueOutcome::Skipped, now);
            }
            EventKind::IssueUnblocked => {
                self.r.outcome = IssueOutcome::Ready;
                self.r.reason = None;
            }
            EventKind::StateReverted => {
                self.r.outcome = IssueOutcome::Ready;
                self.r.evidence = Some(describe(Some(kind), rec));
            }
            EventKind::DuplicateDetected => {
                self.r.evidence = Some(describe(Some(kind), rec));
                if u(rec, "pr").is_none() {
                    self.finish(IssueOutcome::Done, now);
                }
            }
            EventKind::PrOpened => {
                self.r.pr = u(rec, "pr");
                if let Some(a) = self.open() {
                    close(a, AttemptOutcome::Done, now);
                }
                self.finish(IssueOutcome::InReview, now);
            }
            EventKind::PrClosed => {
                if rec.get("merged").and_then(Value::as_bool) == Some(true) {
                    self.finish(IssueOutcome::Done, now);
                } else {
                    self.r.outcome = IssueOutcome::Ready;
                }
            }
            EventKind::GithubSync => {
                if let Some(g) = u(rec, "github_issue").filter(|g| *g > 0) {
                    self.r.github_issue = Some(g);
                }
            }
            EventKind::BudgetExceeded if self.r.budget.len() < MAX_BUDGET_HITS => {
                self.r.budget.push(budget_hit(rec));
            }
            _ => {}
        }
    }

    fn agent_finished(&mut self, fin: AgentFinishedRead<'_>, now: u64) {
        let agent = fin.agent.map(Cow::into_owned).unwrap_or_default();
        self.note_agent(&agent);
        let ms = fin.duration_ms;
        let cost = fin.cost_usd;
        self.r.agent_time_ms = self.tally.spend.agent_ms;
        self.r.runs_without_cost = self.tally.runs_without_cost;
        match cost {
            Some(_) => {}
            None => {
                // the attempt this run belongs to (opened here when the log has no start)
                self.current(now);
                let at = self.r.attempt_count;
                if self.unknown_counted != Some(at) {
                    self.unknown_counted = Some(at);
                    self.r.cost_unknown_attempts += 1;
                }
            }
        }
        let (ti, to, tc, turns) = (fin.tokens_in, fin.tokens_out, fin.tokens_cached, fin.turns);
        self.r.tokens_in = self.tally.tokens_in;
        self.r.tokens_out = self.tally.tokens_out;
        self.r.tokens_cached = self.tally.tokens_cached;
        self.r.turns = self.tally.turns;
        let error_kind = fin.error_kind.map(Cow::into_owned);
        let timed_out = fin.timed_out;
        let exit_code = fin.exit_code;
        let a = self.current(now);
        let i = a.runs.iter().rposition(|r| {
            r.kind == "agent" && r.end_ms.is_none() && r.agent.as_ref() == Some(&agent)
        });
        let r = match i {
            Some(i) => &mut a.runs[i],
            None if a.runs.len() < MAX_RUNS => {
                let start = now.saturating_sub(ms.unwrap_or(0)).max(a.start_ms);
                a.runs.push(run("agent", Some(agent.clone()), start));
                let last = a.runs.len() - 1;
                &mut a.runs[last]
            }
            None => {
                a.more_runs += 1;
                return;
            }
        };
        r.end_ms = Some(now.max(r.start_ms));
        r.exit_code = exit_code;
        r.cost_usd = cost;
        r.tokens_in = ti;
        r.tokens_out = to;
        r.tokens_cached = tc;
        r.turns = turns;
        r.outcome = if timed_out {
            "timed_out"
        } else if error_kind.as_deref() == Some("rate_limit") {
            "rate_limited"
        } else {
            match exit_code {
                Some(0) => "ok",
                Some(_) => "failed",
                None => "stopped",
            }
        }
        .into();
        if let Some(k) = &error_kind
            && a.failure.is_none()
            && k != "rate_limit"
        {
            a.failure = Some(format!("{agent}: {k}"));
        }
        r.error_kind = error_kind;
    }

    fn verification(&mut self, kind: EventKind, rec: &Map<String, Value>, now: u64) {
        let passed = kind == EventKind::VerificationPassed;
        let agent = s(rec, "agent");
        let impl_ms = self.impl_ms;
        let a = self.current(now);
        // the test run starts where the agent (this candidate, or any) ended
        let agent_end = a
            .runs
            .iter()
            .filter(|r| {
                r.kind == "agent" && (agent.is_none() || r.agent.as_ref() == agent.as_ref())
            })
            .filter_map(|r| r.end_ms)
            .max();
        let start = agent_end
            .into_iter()
            .chain(impl_ms.filter(|_| agent.is_none()))
            .max()
            .unwrap_or(now)
            .min(now);
        let failures = if passed { None } else { text(rec, "failures") };
        if a.runs.len() < MAX_RUNS {
            let mut t = run("test", agent.clone(), start);
            t.end_ms = Some(now);
            t.outcome = if passed { "passed" } else { "failed" }.into();
            t.detail = failures.clone();
            a.runs.push(t);
        } else {
            a.more_runs += 1;
        }
        if passed {
            a.verification = Some("passed".into());
            a.tests_passed = u(rec, "tests_passed");
        } else if a.verification.as_deref() != Some("passed") {
            a.verification = Some("failed".into());
            a.tests_failed = u(rec, "tests_failed");
            let f = match (&agent, failures) {
                (Some(ag), Some(f)) => Some(format!("{ag}: {f}")),
                (_, f) => f,
            };
            a.failure = match (a.failure.take(), f) {
                (Some(x), Some(y)) => Some(short(&format!("{x} | {y}"), FAILURE_CHARS * 2)),
                (x, y) => x.or(y),
            };
        }
        // a two-agent attempt stays open until done, blocked or the next start
        if agent.is_none() {
            if passed {
                a.outcome = AttemptOutcome::Passed;
            } else {
                close(a, AttemptOutcome::Failed, now);
            }
        }
        self.test_runs += 1;
        if passed {
            self.passed_ms = Some(now);
        }
    }

    pub(super) fn finish(&mut self, outcome: IssueOutcome, now: u64) {
        self.r.outcome = outcome;
        self.r.end_ms = Some(now);
    }
}

fn close(a: &mut Attempt, outcome: AttemptOutcome, now: u64) {
    a.outcome = outcome;
    if a.end_ms.is_none() {
        a.end_ms = Some(now.max(a.start_ms));
    }
}

pub(super) fn budget_hit(rec: &Map<String, Value>) -> BudgetHit {
    BudgetHit {
        kind: s(rec, "kind").unwrap_or_else(|| "budget".into()),
        spent: f(rec, "spent"),
        limit: f(rec, "limit"),
    }
}
