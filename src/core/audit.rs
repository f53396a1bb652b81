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

use crate::core::event_filter::parse_ts;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

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
    pub cost_usd: f64,
}

/// One issue's audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IssueAudit {
    pub issue: u64,
    /// The task's title, when the caller knows it (from the state).
    pub title: Option<String>,
    /// `done`, `blocked`, `skipped`, `in_progress`, `ready` or `not_started`.
    pub outcome: String,
    /// The last coordination decision.
    pub mode: Option<String>,
    pub winner: Option<String>,
    pub runner_up: Option<String>,
    /// The agents that ran, in order of their first start.
    pub agents: Vec<String>,
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
    pub outcome: String,
}

/// One agent run inside an attempt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentRun {
    pub agent: String,
    pub role: Option<String>,
    pub exit_code: Option<i64>,
    pub duration_ms: Option<u64>,
    pub timed_out: bool,
    pub cost_usd: Option<f64>,
    /// Two-agent runs: this candidate's verification (`passed` / `failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<String>,
    /// Two-agent runs: the files this candidate created or changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
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
}

#[derive(Debug)]
struct Acc {
    audit: IssueAudit,
    pending_mode: Option<String>,
    agent_costs: Option<f64>,
    done_costs: Option<f64>,
}

fn s(rec: &Map<String, Value>, k: &str) -> Option<String> {
    match rec.get(k)? {
        Value::String(v) => Some(v.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}
fn u(rec: &Map<String, Value>, k: &str) -> Option<u64> {
    rec.get(k).and_then(Value::as_u64)
}
fn f(rec: &Map<String, Value>, k: &str) -> Option<f64> {
    rec.get(k).and_then(Value::as_f64)
}
fn b(rec: &Map<String, Value>, k: &str) -> bool {
    rec.get(k).and_then(Value::as_bool).unwrap_or(false)
}
fn numbers(rec: &Map<String, Value>, k: &str) -> Vec<u64> {
    rec.get(k)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}
/// A text field that may be a string or a list of strings (the original's `failures`).
fn text(rec: &Map<String, Value>, k: &str) -> Option<String> {
    match rec.get(k)? {
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::String(v) if v.is_empty() => None,
        _ => s(rec, k),
    }
}
fn list(rec: &Map<String, Value>, k: &str) -> String {
    match rec.get(k) {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(", "),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.as_str().map_or_else(|| v.to_string(), str::to_string),
    }
}

/// Milliseconds from `a` to `b` (None when either is unreadable or `b` is before `a`).
pub fn millis_between(a: &str, b: &str) -> Option<u64> {
    let d = parse_ts(b)? - parse_ts(a)?;
    u64::try_from(d.whole_milliseconds()).ok()
}

/// The first line of a text, cut to `max` characters.
pub fn short(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    let mut out: String = line.chars().take(max).collect();
    if line.chars().count() > max || text.trim().lines().count() > 1 {
        out.push('…');
    }
    out
}

fn secs(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        let total = ms / 1000;
        format!("{}m{:02}s", total / 60, total % 60)
    }
}

/// A one-line description of an event for a timeline.
pub fn describe(event: &str, rec: &Map<String, Value>) -> String {
    let opt = |k: &str| s(rec, k).unwrap_or_else(|| "-".into());
    match event {
        "issue_started" => match u(rec, "attempt") {
            Some(n) => format!("attempt {n} started"),
            None => "started".into(),
        },
        "retry_started" => format!("retry: attempt {} started", opt("attempt")),
        "agents_selected" => {
            let mut d = format!("{} — winner {}", opt("mode"), opt("winner"));
            if let Some(r) = s(rec, "runner_up") {
                d.push_str(&format!(", runner-up {r}"));
            }
            if let Some(r) = s(rec, "reason") {
                d.push_str(&format!(" ({})", short(&r, 80)));
            }
            if let Some(fb) = fallback_text(rec) {
                d.push_str(&format!("; fallback {}", short(&fb, 160)));
            }
            d
        }
        "context_injected" => {
            let mut d = format!(
                "prompt {} bytes, CLAUDE.md {}, {} summaries",
                opt("prompt_bytes"),
                if b(rec, "has_claude_md") { "yes" } else { "no" },
                u(rec, "summaries_count").unwrap_or(0)
            );
            let cut = list(rec, "truncated");
            if !cut.is_empty() {
                d.push_str(&format!("; cut: {cut}"));
            }
            d
        }
        "agent_started" => match s(rec, "role") {
            Some(r) => format!("{} started ({r})", opt("agent")),
            None => format!("{} started", opt("agent")),
        },
        "agent_finished" => {
            let mut d = format!("{} ", opt("agent"));
            if b(rec, "timed_out") {
                d.push_str("timed out");
            } else {
                d.push_str(&format!("exited {}", opt("exit_code")));
            }
            if let Some(ms) = u(rec, "duration_ms") {
                d.push_str(&format!(" after {}", secs(ms)));
            }
            if let Some(c) = f(rec, "cost_usd") {
                d.push_str(&format!(", ${c:.2}"));
            }
            d
        }
        "tests_written" => format!("{} tests written to {}", opt("count"), opt("path")),
        "implementation_complete" => {
            let created = list(rec, "files_created");
            let modified = list(rec, "files_modified");
            let d = format!(
                "created: {}; modified: {}",
                if created.is_empty() { "-" } else { &created },
                if modified.is_empty() { "-" } else { &modified }
            );
            match s(rec, "agent") {
                Some(a) => format!("{a}: {d}"),
                None => d,
            }
        }
        "verification_passed" => {
            let mut d = match u(rec, "tests_passed") {
                Some(n) => format!("verification passed ({n} tests)"),
                None => "verification passed".into(),
            };
            if let Some(a) = s(rec, "agent") {
                d = format!("{a}: {d}");
            }
            d
        }
        "verification_failed" => {
            let mut d = match u(rec, "tests_failed") {
                Some(n) => format!("verification failed ({n} failing)"),
                None => "verification failed".into(),
            };
            if let Some(a) = s(rec, "agent") {
                d = format!("{a}: {d}");
            }
            if let Some(t) = text(rec, "failures") {
                d.push_str(&format!(": {}", short(&t, 100)));
            }
            d
        }
        "issue_blocked" => format!(
            "BLOCKED after {} retries: {}",
            u(rec, "retries").unwrap_or(0),
            short(&s(rec, "reason").unwrap_or_default(), 120)
        ),
        "issue_done" => {
            let mut d = "DONE".to_string();
            if let Some(c) = s(rec, "commit").filter(|c| !c.is_empty()) {
                d.push_str(&format!(", commit {}", short_sha(&c)));
            }
            if let Some(c) = f(rec, "cost_usd") {
                d.push_str(&format!(", ${c:.2}"));
            }
            if let Some(c) = rec.get("convergence").filter(|c| c.is_object()) {
                d.push_str(&format!(" [{}]", convergence_text(c)));
            }
            if let Some(sm) = s(rec, "summary") {
                d.push_str(&format!(": {}", short(&sm, 80)));
            }
            d
        }
        "issue_skipped" => match u(rec, "blocking_issue") {
            Some(n) => format!("skipped (blocked by #{n})"),
            None => "skipped".into(),
        },
        "issue_unblocked" => "unblocked (back to READY)".into(),
        "state_reverted" => format!(
            "back to READY: its commit {} was reverted",
            short_sha(&opt("commit"))
        ),
        "duplicate_detected" => {
            let parts: Vec<String> = ["git", "tests", "files"]
                .iter()
                .filter_map(|k| match rec.get(*k) {
                    None | Some(Value::Null) | Some(Value::Bool(false)) => None,
                    Some(v) => Some(format!("{k}: {}", short(&v.to_string(), 60))),
                })
                .collect();
            format!("already implemented ({})", parts.join("; "))
        }
        "github_sync" => format!(
            "GitHub #{} {}: {}",
            opt("github_issue"),
            opt("action"),
            if b(rec, "success") { "ok" } else { "failed" }
        ),
        "github_error" => format!(
            "GitHub {} failed ({}): {}",
            opt("op"),
            opt("status"),
            short(&opt("message"), 100)
        ),
        "git_sync" => format!(
            "git sync: {} commits scanned, head {}",
            opt("commits_scanned"),
            short_sha(&opt("head"))
        ),
        _ => {
            let rest: Vec<String> = rec
                .iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "ts" | "event" | "feature" | "session" | "seq" | "issue"
                    )
                })
                .map(|(k, v)| format!("{k}={}", short(&v.to_string(), 40)))
                .collect();
            rest.join(" ")
        }
    }
}

fn short_sha(c: &str) -> String {
    if c.len() > 12 && c.bytes().all(|b| b.is_ascii_hexdigit()) {
        c[..12].to_string()
    } else {
        c.to_string()
    }
}

impl Acc {
    fn new(issue: u64) -> Self {
        Acc {
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
    fn start_attempt(&mut self, n: Option<u64>, ts: &Option<String>) {
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
        if self.audit.started_at.is_none() {
            self.audit.started_at = ts.clone();
        }
        let mode = self
            .pending_mode
            .clone()
            .or_else(|| self.audit.mode.clone());
        self.audit.attempts.push(Attempt {
            attempt: number,
            started_at: ts.clone(),
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

    fn current_attempt(&mut self, ts: &Option<String>) -> &mut Attempt {
        if self.open_attempt().is_none() {
            self.start_attempt(None, ts);
        }
        let last = self.audit.attempts.len() - 1;
        &mut self.audit.attempts[last]
    }

    /// Ends the open (or just passed) attempt with `outcome`.
    fn settle_attempt(&mut self, outcome: &str, ts: &Option<String>) {
        if let Some(a) = self.audit.attempts.last_mut()
            && (a.outcome == "in_progress" || a.outcome == "passed")
        {
            a.outcome = outcome.into();
            if a.ended_at.is_none() {
                end(a, ts);
            }
        }
    }

    fn finish(&mut self, outcome: &str, ts: &Option<String>) {
        self.audit.outcome = outcome.into();
        self.audit.ended_at = ts.clone();
    }

    fn apply(&mut self, event: &str, rec: &Map<String, Value>, ts: &Option<String>) {
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
                    exit_code: None,
                    duration_ms: None,
                    timed_out: false,
                    cost_usd: None,
                    verification: None,
                    files: Vec::new(),
                });
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
                            role: None,
                            exit_code: None,
                            duration_ms: None,
                            timed_out: false,
                            cost_usd: None,
                            verification: None,
                            files: Vec::new(),
                        });
                        let last = attempt.agents.len() - 1;
                        &mut attempt.agents[last]
                    }
                };
                run.exit_code = rec.get("exit_code").and_then(Value::as_i64);
                run.duration_ms = ms;
                run.timed_out = b(rec, "timed_out");
                run.cost_usd = cost;
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
                if let Some(c) = rec.get("convergence").filter(|c| !c.is_null()) {
                    self.audit.convergence = Some(c.clone());
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
    fn candidate_event(&mut self, event: &str, rec: &Map<String, Value>, ts: &Option<String>) {
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

fn string_list(rec: &Map<String, Value>, k: &str) -> Vec<String> {
    rec.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// `agents_selected.fallback` as `"<to>: <reason>"` (an object `{to, reason}`), or the text.
pub fn fallback_text(rec: &Map<String, Value>) -> Option<String> {
    match rec.get("fallback")? {
        Value::Null => None,
        Value::Object(o) => {
            let to = o.get("to").and_then(Value::as_str).unwrap_or("?");
            let reason = o.get("reason").and_then(Value::as_str).unwrap_or("");
            Some(format!("{to}: {reason}"))
        }
        Value::String(t) => Some(t.clone()),
        other => Some(other.to_string()),
    }
}

/// One line on how a two-agent run converged (`issue_done.convergence`).
pub fn convergence_text(c: &Value) -> String {
    let mut parts = Vec::new();
    let mode = c.get("mode").and_then(Value::as_str).unwrap_or("");
    let mut head = mode.to_string();
    if let Some(j) = c.get("join").and_then(Value::as_str) {
        head.push_str(&format!(" (join {j})"));
    }
    parts.push(head);
    if let Some(cands) = c.get("candidates").and_then(Value::as_array) {
        for cand in cands {
            let name = cand.get("agent").and_then(Value::as_str).unwrap_or("?");
            let result = cand.get("result").and_then(Value::as_str).unwrap_or("?");
            let mut d = format!("{name} {result}");
            let files = cand
                .get("added_files")
                .or_else(|| cand.get("files"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            if !files.is_empty() {
                d.push_str(&format!(" [{files}]"));
            }
            parts.push(d);
        }
    }
    if let Some(w) = c.get("winner").and_then(Value::as_str) {
        parts.push(format!("landed: {w}"));
    }
    if let Some(sc) = c.get("score").and_then(Value::as_f64) {
        parts.push(format!("convergence {sc:.2}"));
    }
    if let Some(fb) = c.get("fallback").and_then(Value::as_object) {
        parts.push(format!(
            "fallback {}",
            fb.get("to").and_then(Value::as_str).unwrap_or("?")
        ));
    }
    parts.join("; ")
}

fn end(a: &mut Attempt, ts: &Option<String>) {
    a.ended_at = ts.clone();
    a.duration_ms = match (&a.started_at, ts) {
        (Some(s), Some(e)) => millis_between(s, e),
        _ => None,
    };
}

impl Auditor {
    pub fn new(feature: &str) -> Self {
        Auditor {
            feature: feature.to_string(),
            ..Default::default()
        }
    }

    fn acc(&mut self, issue: u64) -> &mut Acc {
        self.issues.entry(issue).or_insert_with(|| Acc::new(issue))
    }

    /// Takes one record (a parsed JSON object).
    pub fn push(&mut self, rec: &Map<String, Value>) {
        self.events += 1;
        let ts = s(rec, "ts");
        if let Some(t) = &ts {
            if self.first_ts.is_none() {
                self.first_ts = Some(t.clone());
            }
            self.last_ts = Some(t.clone());
        }
        if let Some(sess) = s(rec, "session").filter(|x| !x.is_empty()) {
            self.sessions.insert(sess);
        }
        let event = s(rec, "event").unwrap_or_default();
        let seq = u(rec, "seq");
        let entry = |detail: String| Entry {
            ts: ts.clone(),
            seq,
            event: event.clone(),
            detail,
        };
        match event.as_str() {
            "greenlight" => {
                for k in ["added", "kept", "ready"] {
                    for n in numbers(rec, k) {
                        self.acc(n);
                    }
                }
            }
            "git_sync" => {
                let head = s(rec, "head");
                for n in numbers(rec, "synced_issues") {
                    let a = self.acc(n);
                    a.audit.evidence = Some(match &head {
                        Some(h) => format!("git history (head {})", short_sha(h)),
                        None => "git history".into(),
                    });
                    a.finish("done", &ts);
                    a.audit
                        .timeline
                        .push(entry("DONE: its commit was found in git history".into()));
                }
                for n in numbers(rec, "reverted_issues") {
                    let a = self.acc(n);
                    a.audit.outcome = "ready".into();
                    a.audit
                        .timeline
                        .push(entry("back to READY: git history reverted it".into()));
                }
            }
            // `issue` there is a GitHub issue number, not a task.
            "action_received" => {}
            _ => {
                if let Some(n) = u(rec, "issue") {
                    let detail = describe(&event, rec);
                    let a = self.acc(n);
                    a.apply(&event, rec, &ts);
                    a.audit.timeline.push(entry(detail));
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
            a.attempt_count = a.attempts.len() as u64;
            a.duration_ms = match (&a.started_at, &a.ended_at) {
                (Some(s), Some(e)) => millis_between(s, e),
                _ => None,
            };
            a.cost_usd = acc
                .agent_costs
                .or(acc.done_costs)
                .map(|c| (c * 1e6).round() / 1e6);
            totals.issues += 1;
            match a.outcome.as_str() {
                "done" => totals.done += 1,
                "blocked" => totals.blocked += 1,
                "skipped" => totals.skipped += 1,
                "in_progress" => totals.in_progress += 1,
                "ready" => totals.ready += 1,
                _ => totals.not_started += 1,
            }
            totals.attempts += a.attempt_count;
            totals.retries += a.retries;
            totals.agent_runs += a
                .attempts
                .iter()
                .map(|t| t.agents.len() as u64)
                .sum::<u64>();
            totals.agent_time_ms += a.agent_time_ms;
            totals.cost_usd += a.cost_usd.unwrap_or(0.0);
            issues.push(acc.audit);
        }
        totals.cost_usd = (totals.cost_usd * 1e6).round() / 1e6;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn recs(values: Vec<Value>) -> Vec<Map<String, Value>> {
        values
            .into_iter()
            .map(|v| match v {
                Value::Object(m) => m,
                _ => unreachable!(),
            })
            .collect()
    }

    fn ev(ts: &str, event: &str, body: Value) -> Value {
        let mut m = json!({"ts": ts, "event": event, "feature": "auth", "session": "s1"});
        for (k, v) in body.as_object().unwrap() {
            m[k] = v.clone();
        }
        m
    }

    #[test]
    fn a_retried_issue_has_two_attempts_a_duration_and_the_agents_cost() {
        let r = recs(vec![
            ev(
                "2026-01-01T10:00:00Z",
                "agents_selected",
                json!({"issue": 1, "mode": "SOLO", "winner": "claude", "runner_up": null, "reason": "one agent", "proposals": []}),
            ),
            ev(
                "2026-01-01T10:00:01Z",
                "issue_started",
                json!({"issue": 1, "attempt": 1}),
            ),
            ev(
                "2026-01-01T10:00:02Z",
                "agent_started",
                json!({"issue": 1, "agent": "claude", "role": "solo"}),
            ),
            ev(
                "2026-01-01T10:01:02Z",
                "agent_finished",
                json!({"issue": 1, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.25}),
            ),
            ev(
                "2026-01-01T10:01:10Z",
                "verification_failed",
                json!({"issue": 1, "tests_failed": 2, "failures": "assert 1 == 2\nmore"}),
            ),
            ev(
                "2026-01-01T10:01:11Z",
                "retry_started",
                json!({"issue": 1, "attempt": 2}),
            ),
            ev(
                "2026-01-01T10:01:11Z",
                "issue_started",
                json!({"issue": 1, "attempt": 2}),
            ),
            ev(
                "2026-01-01T10:01:12Z",
                "agent_started",
                json!({"issue": 1, "agent": "claude", "role": "solo"}),
            ),
            ev(
                "2026-01-01T10:02:12Z",
                "agent_finished",
                json!({"issue": 1, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.5}),
            ),
            ev(
                "2026-01-01T10:02:20Z",
                "verification_passed",
                json!({"issue": 1, "tests_passed": 5}),
            ),
            ev(
                "2026-01-01T10:02:21Z",
                "issue_done",
                json!({"issue": 1, "commit": "0123456789abcdef0123", "cost_usd": 0.75, "summary": "ok"}),
            ),
        ]);
        let rep = audit("auth", &r);
        assert_eq!(rep.issues.len(), 1);
        let i = &rep.issues[0];
        assert_eq!(i.outcome, "done");
        assert_eq!(
            i.attempt_count, 2,
            "retry_started + issue_started for attempt 2 count once"
        );
        assert_eq!(i.retries, 1);
        assert_eq!(i.attempts[0].outcome, "failed");
        assert_eq!(i.attempts[0].duration_ms, Some(69_000));
        assert_eq!(i.attempts[0].failures.as_deref(), Some("assert 1 == 2…"));
        assert_eq!(i.attempts[1].outcome, "done");
        assert_eq!(i.attempts[1].mode.as_deref(), Some("SOLO"));
        assert_eq!(i.attempts[1].tests_passed, Some(5));
        assert_eq!(i.duration_ms, Some(140_000));
        assert_eq!(i.agent_time_ms, 120_000);
        assert_eq!(i.cost_usd, Some(0.75));
        assert_eq!(i.commit.as_deref(), Some("0123456789abcdef0123"));
        assert_eq!(i.timeline.len(), 11);
        assert_eq!(rep.totals.attempts, 2);
        assert_eq!(rep.totals.agent_runs, 2);
        assert_eq!(rep.duration_ms, Some(141_000));
        assert_eq!(rep.sessions, 1);
    }

    #[test]
    fn blocked_skipped_unblocked_and_git_evidence_outcomes() {
        let r = recs(vec![
            ev(
                "2026-01-01T10:00:00Z",
                "greenlight",
                json!({"added": [1, 2, 3, 4], "kept": [], "ready": [1, 3]}),
            ),
            ev(
                "2026-01-01T10:00:01Z",
                "issue_started",
                json!({"issue": 1, "attempt": 1}),
            ),
            ev(
                "2026-01-01T10:00:05Z",
                "verification_failed",
                json!({"issue": 1, "tests_failed": 1, "failures": ["a", "b"]}),
            ),
            ev(
                "2026-01-01T10:00:06Z",
                "issue_blocked",
                json!({"issue": 1, "reason": "tests keep failing", "retries": 0}),
            ),
            ev(
                "2026-01-01T10:00:06Z",
                "issue_skipped",
                json!({"issue": 2, "blocking_issue": 1}),
            ),
            ev(
                "2026-01-01T10:00:07Z",
                "git_sync",
                json!({"synced_issues": [3], "reverted_issues": [], "commits_scanned": 4, "head": "abc"}),
            ),
            ev(
                "2026-01-01T10:00:08Z",
                "issue_unblocked",
                json!({"issue": 1}),
            ),
        ]);
        let rep = audit("auth", &r);
        let by = |n: u64| rep.issues.iter().find(|i| i.issue == n).unwrap();
        assert_eq!(by(1).outcome, "ready");
        assert_eq!(by(1).reason, None);
        assert_eq!(by(1).attempts[0].outcome, "failed");
        assert_eq!(by(1).attempts[0].failures.as_deref(), Some("a; b"));
        assert_eq!(by(1).duration_ms, Some(5000));
        assert_eq!(by(2).outcome, "skipped");
        assert_eq!(
            by(2).reason.as_deref(),
            Some("depends on #1, which is blocked")
        );
        assert_eq!(by(3).outcome, "done");
        assert_eq!(by(3).evidence.as_deref(), Some("git history (head abc)"));
        assert_eq!(by(4).outcome, "not_started");
        assert_eq!(
            (
                rep.totals.done,
                rep.totals.skipped,
                rep.totals.ready,
                rep.totals.not_started
            ),
            (1, 1, 1, 1)
        );
    }

    #[test]
    fn original_format_lines_are_audited() {
        // The original tool: no seq/feature, issue_started without attempt, failures a list.
        let r = recs(vec![
            json!({"ts": "2025-05-01T09:00:00.000001Z", "event": "issue_started", "issue": 2, "session": "sess-a"}),
            json!({"ts": "2025-05-01T09:03:00.000001Z", "event": "verification_failed", "issue": 2, "tests_failed": 1, "failures": ["x"]}),
            json!({"ts": "2025-05-01T09:03:01Z", "event": "retry_started", "issue": 2, "attempt": 2}),
            json!({"ts": "2025-05-01T09:05:00Z", "event": "issue_done", "issue": 2, "commit": "", "cost_usd": 1.5}),
        ]);
        let rep = audit("legacy", &r);
        let i = &rep.issues[0];
        assert_eq!(i.attempt_count, 2);
        assert_eq!(i.attempts[0].attempt, 1);
        assert_eq!(i.outcome, "done");
        assert_eq!(i.commit, None);
        assert_eq!(i.cost_usd, Some(1.5));
        assert_eq!(
            i.duration_ms,
            Some(299_999),
            "microseconds are kept, milliseconds whole"
        );
    }

    #[test]
    fn an_attempt_left_open_by_a_new_one_is_interrupted() {
        let r = recs(vec![
            ev(
                "2026-01-01T10:00:00Z",
                "issue_started",
                json!({"issue": 5, "attempt": 1}),
            ),
            ev(
                "2026-01-01T10:00:10Z",
                "agent_started",
                json!({"issue": 5, "agent": "a", "role": "primary"}),
            ),
            ev(
                "2026-01-01T11:00:00Z",
                "issue_started",
                json!({"issue": 5, "attempt": 2}),
            ),
        ]);
        let rep = audit("f", &r);
        let i = &rep.issues[0];
        assert_eq!(i.attempts[0].outcome, "interrupted");
        assert_eq!(i.attempts[1].outcome, "in_progress");
        assert_eq!(i.outcome, "in_progress");
        assert_eq!(i.duration_ms, None, "no ending event yet");
    }

    #[test]
    fn a_two_agent_attempt_keeps_each_candidates_verification_files_and_fallbacks() {
        let r = recs(vec![
            ev(
                "2026-01-01T10:00:00Z",
                "issue_started",
                json!({"issue": 1, "attempt": 1}),
            ),
            ev(
                "2026-01-01T10:00:01Z",
                "agents_selected",
                json!({"issue": 1, "mode": "SYNTHESIS", "winner": "a", "runner_up": "b", "reason": "r", "proposals": []}),
            ),
            ev(
                "2026-01-01T10:00:02Z",
                "agent_started",
                json!({"issue": 1, "agent": "a", "role": "primary"}),
            ),
            ev(
                "2026-01-01T10:00:03Z",
                "agent_finished",
                json!({"issue": 1, "agent": "a", "exit_code": 0, "duration_ms": 1000, "timed_out": false, "cost_usd": null}),
            ),
            ev(
                "2026-01-01T10:00:04Z",
                "implementation_complete",
                json!({"issue": 1, "files_created": ["x.rs"], "files_modified": [], "agent": "a"}),
            ),
            ev(
                "2026-01-01T10:00:05Z",
                "verification_passed",
                json!({"issue": 1, "tests_passed": 3, "agent": "a"}),
            ),
            ev(
                "2026-01-01T10:00:06Z",
                "agent_started",
                json!({"issue": 1, "agent": "b", "role": "runner-up"}),
            ),
            ev(
                "2026-01-01T10:00:07Z",
                "agent_finished",
                json!({"issue": 1, "agent": "b", "exit_code": 0, "duration_ms": 1000, "timed_out": false, "cost_usd": null}),
            ),
            ev(
                "2026-01-01T10:00:08Z",
                "verification_failed",
                json!({"issue": 1, "tests_failed": 1, "failures": "boom", "agent": "b"}),
            ),
            ev(
                "2026-01-01T10:00:09Z",
                "agents_selected",
                json!({"issue": 1, "mode": "SYNTHESIS", "winner": "a", "runner_up": "b", "reason": "r", "proposals": [], "fallback": {"to": "solo", "reason": "b broke the tests"}}),
            ),
            ev(
                "2026-01-01T10:00:10Z",
                "issue_done",
                json!({"issue": 1, "commit": "abc", "cost_usd": null, "summary": null, "convergence": {"mode": "SYNTHESIS", "winner": "a", "candidates": [{"agent": "a", "result": "passed", "files": ["x.rs"]}, {"agent": "b", "result": "failed"}]}}),
            ),
        ]);
        let rep = audit("auth", r.iter());
        let i = &rep.issues[0];
        assert_eq!(i.attempts.len(), 1, "one attempt for both candidates");
        let a = &i.attempts[0];
        assert_eq!(a.outcome, "done");
        assert_eq!(a.verification.as_deref(), Some("passed"));
        assert_eq!(a.agents[0].verification.as_deref(), Some("passed"));
        assert_eq!(a.agents[0].files, vec!["x.rs".to_string()]);
        assert_eq!(a.agents[1].verification.as_deref(), Some("failed"));
        assert_eq!(a.fallback.as_deref(), Some("solo: b broke the tests"));
        assert_eq!(i.fallbacks, vec!["solo: b broke the tests".to_string()]);
        let c = convergence_text(i.convergence.as_ref().unwrap());
        assert_eq!(c, "SYNTHESIS; a passed [x.rs]; b failed; landed: a");
    }

    #[test]
    fn a_two_agent_attempt_where_both_failed_ends_failed_at_the_retry() {
        let r = recs(vec![
            ev(
                "2026-01-01T10:00:00Z",
                "issue_started",
                json!({"issue": 1, "attempt": 1}),
            ),
            ev(
                "2026-01-01T10:00:01Z",
                "agent_started",
                json!({"issue": 1, "agent": "a", "role": "primary"}),
            ),
            ev(
                "2026-01-01T10:00:01Z",
                "agent_started",
                json!({"issue": 1, "agent": "b", "role": "runner-up"}),
            ),
            ev(
                "2026-01-01T10:00:02Z",
                "verification_failed",
                json!({"issue": 1, "tests_failed": 1, "failures": "x", "agent": "a"}),
            ),
            ev(
                "2026-01-01T10:00:03Z",
                "verification_failed",
                json!({"issue": 1, "tests_failed": 2, "failures": "y", "agent": "b"}),
            ),
            ev(
                "2026-01-01T10:00:04Z",
                "retry_started",
                json!({"issue": 1, "attempt": 2}),
            ),
        ]);
        let rep = audit("auth", r.iter());
        let i = &rep.issues[0];
        assert_eq!(i.attempts.len(), 2);
        assert_eq!(i.attempts[0].outcome, "failed");
        assert_eq!(i.attempts[0].failures.as_deref(), Some("a: x | b: y"));
    }
}
