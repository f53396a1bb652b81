//! The audit of a feature's event log (`swarm-attack audit`): per issue, its timeline,
//! attempts (agents and mode, verification results), retries, outcome (done with its commit
//! or evidence, blocked with its reason, skipped), durations and cost; and totals.
//!
//! Fed record by record (parsed JSON objects, in file order) so it works on any log,
//! including the original tool's lines (no `seq`, no `attempt` on `issue_started`,
//! `failures` as a list). Every field is read leniently: a missing or mistyped field is
//! treated as absent, never as an error.
//!
//! Rules:
//! - an attempt starts at `issue_started` or `retry_started` (the two for the same attempt
//!   number count once; without an `attempt` field, the next number); agent events before
//!   any start open an attempt; `verification_failed` ends it as `failed`,
//!   `verification_passed` as `passed`, `issue_done` as `done`, `issue_blocked` as
//!   `blocked`; an attempt still open when another starts ends as `interrupted`;
//! - the outcome is the last word: `issue_started`/`retry_started` → `in_progress`,
//!   `issue_done`, a `git_sync` naming the issue in `synced_issues`, or
//!   `duplicate_detected` → `done`, `issue_blocked` → `blocked`, `issue_skipped` →
//!   `skipped`, `issue_unblocked`/`state_reverted` → `ready`; an issue only named by
//!   `greenlight` is `not_started`;
//! - durations come from `ts`: the issue's runs from its first start to its last ending
//!   event; `agent_time_ms` sums `agent_finished.duration_ms`;
//! - cost: the sum of `agent_finished.cost_usd` when any agent reported one, else the sum
//!   of `issue_done.cost_usd`.

use crate::events::EventKind;
pub use crate::fold::{AttemptOutcome, IssueOutcome};
use crate::record::Fields;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

mod acc;
mod describe;
pub(crate) mod fields;
#[cfg(test)]
mod tests;

use acc::Acc;
use describe::short_sha;
pub use describe::{
    convergence_text, describe, describe_into, fallback_text, millis_between, quorum_text, short,
    short_into,
};
use fields::{b, numbers, s, s_ref, u};

/// The audit of one feature.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub feature: String,
    /// Records read.
    pub events: u64,
    /// Distinct `session` values.
    pub sessions: u64,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// From the first to the last record.
    pub duration_ms: Option<u64>,
    pub totals: Totals,
    pub issues: Vec<IssueAudit>,
}

/// Totals over the feature's issues.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub issues: u64,
    pub done: u64,
    pub blocked: u64,
    pub skipped: u64,
    pub in_progress: u64,
    pub ready: u64,
    pub not_started: u64,
    pub attempts: u64,
    pub retries: u64,
    pub agent_runs: u64,
    pub agent_time_ms: u64,
    /// The sum of the known costs; `None` (JSON `null`) when no attempt's cost is known
    /// (docs/budgets.md "Where the spend is shown": an unknown cost stays unknown, never 0).
    pub cost_usd: Option<f64>,
    /// Attempts with an agent run whose cost is unknown (the agent reported none, e.g.
    /// Codex, and no price was known); their cost is not in `cost_usd`.
    pub cost_unknown_attempts: u64,
    /// The agent runs of those attempts whose cost is unknown.
    pub cost_unknown_runs: u64,
}

/// One issue's audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IssueAudit {
    pub issue: u64,
    /// The task's title, when the caller knows it (from the state).
    pub title: Option<String>,
    /// `done`, `blocked`, `skipped`, `in_progress`, `ready` or `not_started`.
    pub outcome: IssueOutcome,
    /// The last coordination decision.
    pub mode: Option<String>,
    pub winner: Option<String>,
    pub runner_up: Option<String>,
    /// The agents that ran, in order of their first start.
    pub agents: Vec<String>,
    /// Attempts in all (when the audit spills, more than `attempts` holds).
    pub attempt_count: u64,
    /// `retry_started` events.
    pub retries: u64,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub duration_ms: Option<u64>,
    pub agent_time_ms: u64,
    pub cost_usd: Option<f64>,
    pub commit: Option<String>,
    /// Why the issue counts as done when not by its own commit (git history, duplicate),
    /// or what undid it (a revert).
    pub evidence: Option<String>,
    /// Why it is blocked or skipped.
    pub reason: Option<String>,
    /// Fallbacks of the two-agent machinery (`agents_selected.fallback`), each
    /// `"<to>: <reason>"` (e.g. `solo: the runner-up ...`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
    /// How a PARALLEL / SYNTHESIS run converged (`issue_done.convergence`: join, the
    /// candidates with what each contributed, the score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<Value>,
    pub attempts: Vec<Attempt>,
    pub timeline: Vec<Entry>,
}

/// One attempt at an issue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    pub attempt: u64,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub duration_ms: Option<u64>,
    pub mode: Option<String>,
    pub agents: Vec<AgentRun>,
    /// `passed` or `failed`.
    pub verification: Option<String>,
    pub tests_passed: Option<u64>,
    pub tests_failed: Option<u64>,
    pub failures: Option<String>,
    /// A fallback recorded during the attempt (`"<to>: <reason>"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// `in_progress`, `passed`, `failed`, `done`, `blocked` or `interrupted`.
    pub outcome: AttemptOutcome,
}

/// One agent run inside an attempt.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgentRun {
    pub agent: String,
    pub role: Option<String>,
    pub exit_code: Option<i64>,
    pub duration_ms: Option<u64>,
    pub timed_out: bool,
    /// `None` when the agent reported no cost (unknown, not zero).
    pub cost_usd: Option<f64>,
    /// The agent's report (`agent_finished`): tokens, error kind, permission denials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_cached: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub permission_denials: u64,
    /// Where the agent's output was saved (relative to the project root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Two-agent runs: this candidate's verification (`passed` / `failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<String>,
    /// Two-agent runs: the files this candidate created or changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A cost for people: "unknown" when not known (never "$0.00"), cents from $0.01 up, else
/// four decimals.
pub fn usd(cost: Option<f64>) -> String {
    match cost {
        None => "unknown".into(),
        Some(c) if c == 0.0 || c >= 0.01 => format!("${c:.2}"),
        Some(c) => format!("${c:.4}"),
    }
}

/// A total cost for people (docs/budgets.md "Where the spend is shown"): `unknown` when no
/// attempt's cost is known; else the known sum (written by `fmt`), followed by ` + unknown (n
/// attempts)` when some attempts' cost is unknown.
pub fn total_cost_text(
    cost: Option<f64>,
    unknown_attempts: u64,
    fmt: fn(Option<f64>) -> String,
) -> String {
    match (cost, unknown_attempts) {
        (None, _) => "unknown".into(),
        (Some(c), 0) => fmt(Some(c)),
        (Some(c), n) => format!(
            "{} + unknown ({n} attempt{})",
            fmt(Some(c)),
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// One line of an issue's timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub ts: Option<String>,
    pub seq: Option<u64>,
    pub event: String,
    pub detail: String,
}

/// Builds an [`AuditReport`] from records fed in file order.
#[derive(Debug, Default)]
pub struct Auditor {
    feature: String,
    events: u64,
    sessions: BTreeSet<String>,
    first_ts: Option<String>,
    last_ts: Option<String>,
    issues: BTreeMap<u64, Acc>,
    /// Timeline entries and finished attempts are handed out ([`Auditor::take_entries`],
    /// [`Auditor::take_attempts`]) instead of kept.
    spill: bool,
    /// `spilled[..spilled_len]` are the entries to hand out; the slots after them are kept
    /// for their strings' buffers (no allocation per record).
    spilled: Vec<(u64, Entry)>,
    spilled_len: usize,
    spilled_attempts: Vec<(u64, Attempt)>,
}

impl Auditor {
    pub fn new(feature: &str) -> Self {
        Auditor {
            feature: feature.to_string(),
            ..Default::default()
        }
    }

    /// An auditor that keeps no timeline and only the last attempt of each issue: each
    /// entry waits in [`Auditor::take_entries`], each attempt that is no longer the last in
    /// [`Auditor::take_attempts`], for the caller to store (memory bounded by issues, not by
    /// records). The report's `attempts` then hold only each issue's last attempt;
    /// `attempt_count` and the totals count them all.
    pub fn spilling(feature: &str) -> Self {
        Auditor {
            spill: true,
            ..Auditor::new(feature)
        }
    }

    /// The timeline entries of the records pushed since the last call (spilling only).
    pub fn take_entries(&mut self) -> &[(u64, Entry)] {
        let n = std::mem::take(&mut self.spilled_len);
        &self.spilled[..n]
    }

    /// The attempts that stopped being the last of their issue since the last call
    /// (spilling only), in order per issue.
    pub fn take_attempts(&mut self) -> std::vec::Drain<'_, (u64, Attempt)> {
        self.spilled_attempts.drain(..)
    }

    /// Adds a timeline entry to `issue` (spilling: to the entries handed out next) with
    /// the detail `detail` writes.
    fn note(
        &mut self,
        issue: u64,
        ts: Option<&str>,
        seq: Option<u64>,
        event: &str,
        detail: impl FnOnce(&mut String),
    ) {
        if !self.spill {
            let mut d = String::new();
            detail(&mut d);
            self.acc(issue).audit.timeline.push(Entry {
                ts: ts.map(str::to_string),
                seq,
                event: event.to_string(),
                detail: d,
            });
            return;
        }
        if self.spilled_len == self.spilled.len() {
            self.spilled.push((
                issue,
                Entry {
                    ts: None,
                    seq: None,
                    event: String::new(),
                    detail: String::new(),
                },
            ));
        }
        let (n, e) = &mut self.spilled[self.spilled_len];
        self.spilled_len += 1;
        *n = issue;
        e.seq = seq;
        match (ts, &mut e.ts) {
            (Some(t), Some(slot)) => {
                slot.clear();
                slot.push_str(t);
            }
            (t, slot) => *slot = t.map(str::to_string),
        }
        e.event.clear();
        e.event.push_str(event);
        e.detail.clear();
        detail(&mut e.detail);
    }

    fn acc(&mut self, issue: u64) -> &mut Acc {
        let spill = self.spill;
        self.issues
            .entry(issue)
            .or_insert_with(|| Acc::new(issue, spill))
    }

    /// Takes one record (a parsed `Map` or a borrowed [`crate::record::Record`]).
    pub fn push<R: Fields + ?Sized>(&mut self, rec: &R) {
        self.events += 1;
        let ts_text = s_ref(rec, "ts");
        let ts = ts_text.as_deref();
        if let Some(t) = ts {
            if self.first_ts.is_none() {
                self.first_ts = Some(t.to_string());
            }
            match &mut self.last_ts {
                Some(last) => {
                    last.clear();
                    last.push_str(t);
                }
                None => self.last_ts = Some(t.to_string()),
            }
        }
        if let Some(sess) = s_ref(rec, "session").filter(|x| !x.is_empty())
            && !self.sessions.contains(sess.as_ref())
        {
            self.sessions.insert(sess.into_owned());
        }
        let event = s_ref(rec, "event").unwrap_or_default();
        let kind = EventKind::parse(&event);
        let seq = u(rec, "seq");
        match kind {
            Some(EventKind::Greenlight) => {
                for k in ["added", "kept", "ready"] {
                    for n in numbers(rec, k) {
                        self.acc(n);
                    }
                }
            }
            Some(EventKind::GitSync) => {
                let head = s(rec, "head");
                for n in numbers(rec, "synced_issues") {
                    let a = self.acc(n);
                    a.audit.evidence = Some(match &head {
                        Some(h) => format!("git history (head {})", short_sha(h)),
                        None => "git history".into(),
                    });
                    a.finish(IssueOutcome::Done, ts);
                    self.note(n, ts, seq, &event, |d| {
                        d.push_str("DONE: its commit was found in git history")
                    });
                }
                for n in numbers(rec, "reverted_issues") {
                    let a = self.acc(n);
                    a.audit.outcome = IssueOutcome::Ready;
                    self.note(n, ts, seq, &event, |d| {
                        d.push_str("back to READY: git history reverted it")
                    });
                }
            }
            // `issue` there is a GitHub issue number, not a task.
            Some(EventKind::ActionReceived) => {}
            // previews (`plan`, `prompt`, `greenlight`'s plan): nothing ran
            _ if b(rec, "preview") => {}
            _ => {
                if let Some(n) = u(rec, "issue") {
                    // the detail describes the record as it is, before the issue changes
                    // (it does not depend on the issue's state)
                    let a = self.acc(n);
                    if let Some(kind) = kind {
                        a.apply(kind, rec, ts);
                    }
                    if !a.finished.is_empty() {
                        let done = std::mem::take(&mut a.finished);
                        self.spilled_attempts
                            .extend(done.into_iter().map(|t| (n, t)));
                    }
                    self.note(n, ts, seq, &event, |d| describe_into(d, kind, rec));
                }
            }
        }
    }

    /// The report.
    pub fn finish(self) -> AuditReport {
        let mut totals = Totals::default();
        let mut issues = Vec::with_capacity(self.issues.len());
        for (_, mut acc) in self.issues {
            let a = &mut acc.audit;
            let mut counts = acc.handed;
            for t in &a.attempts {
                counts.add(t);
            }
            a.attempt_count = counts.attempts;
            a.duration_ms = match (&a.started_at, &a.ended_at) {
                (Some(s), Some(e)) => millis_between(s, e),
                _ => None,
            };
            a.cost_usd = acc.tally.cost_usd();
            totals.issues += 1;
            match a.outcome {
                IssueOutcome::Done => totals.done += 1,
                IssueOutcome::Blocked => totals.blocked += 1,
                IssueOutcome::Skipped => totals.skipped += 1,
                IssueOutcome::InProgress => totals.in_progress += 1,
                IssueOutcome::Ready => totals.ready += 1,
                IssueOutcome::InReview | IssueOutcome::NotStarted => totals.not_started += 1,
            }
            totals.attempts += a.attempt_count;
            totals.retries += a.retries;
            totals.agent_runs += counts.agent_runs;
            totals.agent_time_ms += a.agent_time_ms;
            totals.cost_unknown_runs += counts.unknown_cost_runs;
            totals.cost_unknown_attempts += counts.unknown_cost_attempts;
            if let Some(c) = a.cost_usd {
                totals.cost_usd = Some(totals.cost_usd.unwrap_or(0.0) + c);
            }
            issues.push(acc.audit);
        }
        totals.cost_usd = totals.cost_usd.map(|c| (c * 1e6).round() / 1e6);
        let duration_ms = match (&self.first_ts, &self.last_ts) {
            (Some(a), Some(b)) => millis_between(a, b),
            _ => None,
        };
        AuditReport {
            feature: self.feature,
            events: self.events,
            sessions: self.sessions.len() as u64,
            first_ts: self.first_ts,
            last_ts: self.last_ts,
            duration_ms,
            totals,
            issues,
        }
    }
}

/// Audits a whole list of records (tests and small logs).
pub fn audit<'a>(
    feature: &str,
    records: impl IntoIterator<Item = &'a Map<String, Value>>,
) -> AuditReport {
    let mut a = Auditor::new(feature);
    for r in records {
        a.push(r);
    }
    a.finish()
}
