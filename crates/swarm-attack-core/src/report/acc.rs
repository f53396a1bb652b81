//! The report's accumulator: takes records in file order and keeps, per issue, a bounded
//! model of its attempts and runs (see the module doc of [`super`] for the bounds).

use super::{
    Aggregate, Attempt, BudgetHit, IssueReport, MAX_ATTEMPTS, MAX_BUDGET_HITS, MAX_RATE_LIMITS,
    MAX_RUNS, RateLimit, Report, Run, Totals,
};
use crate::audit::fields::{self, f, numbers, s, u};
use crate::audit::{describe, short};
use crate::event_filter::parse_ts;
use crate::state::FeatureState;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Distinct sessions remembered (beyond, the count stops growing).
const MAX_SESSIONS: usize = 10_000;
/// Failure texts are cut to this many characters.
const FAILURE_CHARS: usize = 300;

/// A failure text (a string or the original's list of strings), cut short.
fn text(rec: &Map<String, Value>, k: &str) -> Option<String> {
    fields::text(rec, k)
        .filter(|t| !t.trim().is_empty())
        .map(|t| short(&t, FAILURE_CHARS))
}
fn add(sum: &mut Option<u64>, v: Option<u64>) {
    if let Some(v) = v {
        *sum = Some(sum.unwrap_or(0) + v);
    }
}
fn add_f(sum: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v {
        *sum = Some(sum.unwrap_or(0.0) + v);
    }
}

#[derive(Debug)]
struct IssueAcc {
    r: IssueReport,
    pending_mode: Option<String>,
    /// The last `implementation_complete` of the open attempt.
    impl_ms: Option<u64>,
    /// The last passing verification of the open attempt (a landing starts there).
    passed_ms: Option<u64>,
    agent_costs: Option<f64>,
    done_costs: Option<f64>,
    agent_runs: u64,
    test_runs: u64,
    landings: u64,
    /// The attempt (by `attempt_count`) last counted in `cost_unknown_attempts`.
    unknown_counted: Option<u64>,
}

fn run(kind: &str, agent: Option<String>, start_ms: u64) -> Run {
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
    fn new(issue: u64) -> Self {
        IssueAcc {
            r: IssueReport {
                issue,
                title: None,
                stage: None,
                dependencies: Vec::new(),
                outcome: "not_started".into(),
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
            },
            pending_mode: None,
            impl_ms: None,
            passed_ms: None,
            agent_costs: None,
            done_costs: None,
            agent_runs: 0,
            test_runs: 0,
            landings: 0,
            unknown_counted: None,
        }
    }

    /// The attempt still running (or verified and waiting to land).
    fn open(&mut self) -> Option<&mut Attempt> {
        self.r
            .attempts
            .last_mut()
            .filter(|a| a.outcome == "in_progress" || a.outcome == "passed")
    }

    fn start_attempt(&mut self, n: Option<u64>, now: u64) {
        if let Some(open) = self.open() {
            if n.is_none_or(|n| n == open.attempt) {
                return;
            }
            let failed = open.verification.as_deref() == Some("failed");
            close(open, if failed { "failed" } else { "interrupted" }, now);
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
            outcome: "in_progress".into(),
            start_ms: now,
            end_ms: None,
            verification: None,
            tests_passed: None,
            tests_failed: None,
            failure: None,
            runs: Vec::new(),
            more_runs: 0,
        });
        self.r.outcome = "in_progress".into();
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
            match a.outcome.as_str() {
                "done" | "passed" => agg.passed += 1,
                "failed" | "blocked" => agg.failed += 1,
                _ => agg.other += 1,
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

    fn apply(&mut self, event: &str, rec: &Map<String, Value>, now: u64) {
        match event {
            "issue_started" => self.start_attempt(u(rec, "attempt"), now),
            "retry_started" => {
                self.r.retries += 1;
                self.start_attempt(u(rec, "attempt"), now);
            }
            "agents_selected" => {
                let mode = s(rec, "mode");
                self.r.mode = mode.clone();
                self.pending_mode = mode.clone();
                if let Some(a) = self.open() {
                    a.mode = mode;
                }
            }
            "agent_started" => {
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
            "agent_finished" => self.agent_finished(rec, now),
            "specify_scored" => {
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
            "risk_flagged" => {
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
            "agent_fallback" => {
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
            "implementation_complete" => self.impl_ms = Some(now),
            "verification_passed" | "verification_failed" => self.verification(event, rec, now),
            "low_convergence" => self.r.low_convergence = f(rec, "score"),
            "issue_done" => {
                if let Some(c) = rec.get("convergence").filter(|c| c.is_object()) {
                    self.r.candidates = Some(c.clone());
                }
                let start = self.passed_ms.unwrap_or(now);
                let commit = s(rec, "commit").filter(|c| !c.is_empty());
                add_f(&mut self.done_costs, f(rec, "cost_usd"));
                let landed = match self.open() {
                    Some(a) => {
                        if a.runs.len() < MAX_RUNS {
                            let mut l = run("landing", None, start.min(now));
                            l.end_ms = Some(now);
                            l.outcome = "done".into();
                            l.detail = commit.clone();
                            a.runs.push(l);
                        }
                        close(a, "done", now);
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
                self.finish("done", now);
            }
            "issue_blocked" => {
                let reason = s(rec, "reason");
                if let Some(a) = self.open() {
                    if a.failure.is_none() {
                        a.failure = reason.as_deref().map(|r| short(r, FAILURE_CHARS));
                    }
                    close(a, "blocked", now);
                }
                self.r.reason = reason;
                self.finish("blocked", now);
            }
            "issue_skipped" => {
                if let Some(a) = self.open() {
                    close(a, "interrupted", now);
                }
                self.r.reason =
                    u(rec, "blocking_issue").map(|n| format!("depends on #{n}, which is blocked"));
                self.finish("skipped", now);
            }
            "issue_unblocked" => {
                self.r.outcome = "ready".into();
                self.r.reason = None;
            }
            "state_reverted" => {
                self.r.outcome = "ready".into();
                self.r.evidence = Some(describe(event, rec));
            }
            "duplicate_detected" => {
                self.r.evidence = Some(describe(event, rec));
                if u(rec, "pr").is_none() {
                    self.finish("done", now);
                }
            }
            "pr_opened" => {
                self.r.pr = u(rec, "pr");
                if let Some(a) = self.open() {
                    close(a, "done", now);
                }
                self.finish("in_review", now);
            }
            "pr_closed" => {
                if rec.get("merged").and_then(Value::as_bool) == Some(true) {
                    self.finish("done", now);
                } else {
                    self.r.outcome = "ready".into();
                }
            }
            "github_sync" => {
                if let Some(g) = u(rec, "github_issue").filter(|g| *g > 0) {
                    self.r.github_issue = Some(g);
                }
            }
            "budget_exceeded" if self.r.budget.len() < MAX_BUDGET_HITS => {
                self.r.budget.push(budget_hit(rec));
            }
            _ => {}
        }
    }

    fn agent_finished(&mut self, rec: &Map<String, Value>, now: u64) {
        let agent = s(rec, "agent").unwrap_or_default();
        self.note_agent(&agent);
        let ms = u(rec, "duration_ms");
        let cost = f(rec, "cost_usd");
        self.r.agent_time_ms += ms.unwrap_or(0);
        self.agent_runs += 1;
        match cost {
            Some(c) => self.agent_costs = Some(self.agent_costs.unwrap_or(0.0) + c),
            None => {
                self.r.runs_without_cost += 1;
                // the attempt this run belongs to (opened here when the log has no start)
                self.current(now);
                let at = self.r.attempt_count;
                if self.unknown_counted != Some(at) {
                    self.unknown_counted = Some(at);
                    self.r.cost_unknown_attempts += 1;
                }
            }
        }
        let (ti, to, tc, turns) = (
            u(rec, "tokens_in"),
            u(rec, "tokens_out"),
            u(rec, "tokens_cached"),
            u(rec, "turns"),
        );
        add(&mut self.r.tokens_in, ti);
        add(&mut self.r.tokens_out, to);
        add(&mut self.r.tokens_cached, tc);
        add(&mut self.r.turns, turns);
        let error_kind = s(rec, "error_kind");
        let timed_out = rec.get("timed_out").and_then(Value::as_bool) == Some(true);
        let exit_code = rec.get("exit_code").and_then(Value::as_i64);
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

    fn verification(&mut self, event: &str, rec: &Map<String, Value>, now: u64) {
        let passed = event == "verification_passed";
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
                a.outcome = "passed".into();
            } else {
                close(a, "failed", now);
            }
        }
        self.test_runs += 1;
        if passed {
            self.passed_ms = Some(now);
        }
    }

    fn finish(&mut self, outcome: &str, now: u64) {
        self.r.outcome = outcome.into();
        self.r.end_ms = Some(now);
    }
}

fn close(a: &mut Attempt, outcome: &str, now: u64) {
    a.outcome = outcome.into();
    if a.end_ms.is_none() {
        a.end_ms = Some(now.max(a.start_ms));
    }
}

fn budget_hit(rec: &Map<String, Value>) -> BudgetHit {
    BudgetHit {
        kind: s(rec, "kind").unwrap_or_else(|| "budget".into()),
        spent: f(rec, "spent"),
        limit: f(rec, "limit"),
    }
}

/// Builds a [`Report`] from records fed in file order, then the state.
#[derive(Debug, Default)]
pub struct ReportBuilder {
    feature: String,
    events: u64,
    sessions: BTreeSet<String>,
    first_ts: Option<String>,
    last_ts: Option<String>,
    /// The first record's time, in milliseconds since the epoch.
    base: Option<i64>,
    /// The latest record's offset from `base`.
    now: u64,
    /// The greatest offset seen.
    max: u64,
    issues: BTreeMap<u64, IssueAcc>,
    rate_limits: Vec<RateLimit>,
    rate_limited: u64,
    rate_limited_ms: u64,
    budget: Vec<BudgetHit>,
    budget_exceeded: u64,
}

impl ReportBuilder {
    pub fn new(feature: &str) -> Self {
        ReportBuilder {
            feature: feature.to_string(),
            ..Default::default()
        }
    }

    fn acc(&mut self, issue: u64) -> &mut IssueAcc {
        self.issues
            .entry(issue)
            .or_insert_with(|| IssueAcc::new(issue))
    }

    /// Takes one record (a parsed JSON object).
    pub fn push(&mut self, rec: &Map<String, Value>) {
        self.events += 1;
        if let Some(ts) = rec.get("ts").and_then(Value::as_str) {
            if let Some(t) = parse_ts(ts) {
                let ms = i64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
                let base = *self.base.get_or_insert(ms);
                // out-of-order records never move time backwards
                self.now = self.now.max(u64::try_from(ms - base).unwrap_or(0));
                self.max = self.max.max(self.now);
            }
            if self.first_ts.is_none() {
                self.first_ts = Some(ts.to_string());
            }
            match &mut self.last_ts {
                Some(l) => {
                    l.clear();
                    l.push_str(ts);
                }
                None => self.last_ts = Some(ts.to_string()),
            }
        }
        if let Some(sess) = rec.get("session").and_then(Value::as_str)
            && !sess.is_empty()
            && self.sessions.len() < MAX_SESSIONS
            && !self.sessions.contains(sess)
        {
            self.sessions.insert(sess.to_string());
        }
        let event = rec.get("event").and_then(Value::as_str).unwrap_or("");
        let now = self.now;
        match event {
            "greenlight" => {
                for k in ["added", "kept", "ready"] {
                    for n in numbers(rec, k) {
                        self.acc(n);
                    }
                }
            }
            "git_sync" => {
                for n in numbers(rec, "synced_issues") {
                    let a = self.acc(n);
                    if a.r.outcome != "done" {
                        a.r.evidence = Some("git history".into());
                        a.finish("done", now);
                    }
                }
                for n in numbers(rec, "reverted_issues") {
                    let a = self.acc(n);
                    a.r.outcome = "ready".into();
                    a.r.evidence = Some("reverted in git history".into());
                }
            }
            "rate_limited" => {
                let wait = u(rec, "retry_after_ms").unwrap_or(0);
                self.rate_limited += 1;
                self.rate_limited_ms += wait;
                let agent = s(rec, "agent");
                let issue = u(rec, "issue");
                if self.rate_limits.len() < MAX_RATE_LIMITS {
                    self.rate_limits.push(RateLimit {
                        agent: agent.clone(),
                        issue,
                        start_ms: now,
                        retry_after_ms: wait,
                    });
                }
                if let Some(n) = issue {
                    let acc = self.acc(n);
                    if let Some(a) = acc.open()
                        && a.runs.len() < MAX_RUNS
                    {
                        let mut r = run("rate_limit", agent, now);
                        r.end_ms = Some(now + wait);
                        r.outcome = "waiting".into();
                        a.runs.push(r);
                    }
                }
            }
            "budget_exceeded" => {
                self.budget_exceeded += 1;
                match u(rec, "issue") {
                    Some(n) => self.acc(n).apply(event, rec, now),
                    None if self.budget.len() < MAX_BUDGET_HITS => {
                        self.budget.push(budget_hit(rec))
                    }
                    None => {}
                }
            }
            // `issue` there is a GitHub issue number, not a task.
            "action_received" => {}
            _ => {
                if let Some(n) = u(rec, "issue") {
                    self.acc(n).apply(event, rec, now);
                }
            }
        }
    }

    /// The report: the log's model completed with the state (titles, stages, dependencies,
    /// GitHub links; issues only in the state are listed too) and `repo_url`
    /// (`https://github.com/owner/name`) for links.
    pub fn finish(self, state: Option<&FeatureState>, repo_url: Option<&str>) -> Report {
        let ReportBuilder {
            feature,
            events,
            sessions,
            first_ts,
            last_ts,
            max,
            mut issues,
            rate_limits,
            rate_limited,
            rate_limited_ms,
            budget,
            budget_exceeded,
            ..
        } = self;
        if let Some(st) = state {
            for t in &st.tasks {
                let a = issues
                    .entry(u64::from(t.issue_number))
                    .or_insert_with(|| IssueAcc::new(u64::from(t.issue_number)));
                a.r.title = Some(t.title.clone());
                a.r.stage = Some(t.stage.to_string());
                a.r.dependencies = t.dependencies.iter().map(|d| u64::from(*d)).collect();
                if t.github_issue.is_some() {
                    a.r.github_issue = t.github_issue;
                }
                if a.r.commit.is_none() {
                    a.r.commit = t.commit.clone();
                }
                if a.r.reason.is_none() {
                    a.r.reason = t.blocked_reason.clone();
                }
                if a.r.pr.is_none() {
                    a.r.pr = t.extra.get("pr").and_then(Value::as_u64);
                }
            }
        }
        let mut totals = Totals {
            rate_limited,
            rate_limited_ms,
            budget_exceeded,
            ..Default::default()
        };
        let mut out = Vec::with_capacity(issues.len());
        for (_, mut acc) in issues {
            let r = &mut acc.r;
            r.cost_usd = acc
                .agent_costs
                .or(acc.done_costs)
                .map(|c| (c * 1e6).round() / 1e6);
            if let Some(repo) = repo_url {
                r.github_url = r.github_issue.map(|g| format!("{repo}/issues/{g}"));
                r.pr_url = r.pr.map(|p| format!("{repo}/pull/{p}"));
            }
            totals.issues += 1;
            match r.outcome.as_str() {
                "done" => totals.done += 1,
                "blocked" => totals.blocked += 1,
                "skipped" => totals.skipped += 1,
                "in_progress" => totals.in_progress += 1,
                "in_review" => totals.in_review += 1,
                "ready" => totals.ready += 1,
                _ => totals.not_started += 1,
            }
            totals.attempts += r.attempt_count;
            totals.retries += r.retries;
            totals.agent_runs += acc.agent_runs;
            totals.test_runs += acc.test_runs;
            totals.landings += acc.landings;
            totals.agent_time_ms += r.agent_time_ms;
            totals.runs_without_cost += r.runs_without_cost;
            totals.cost_unknown_attempts += r.cost_unknown_attempts;
            add_f(&mut totals.cost_usd, r.cost_usd);
            add(&mut totals.tokens_in, r.tokens_in);
            add(&mut totals.tokens_out, r.tokens_out);
            add(&mut totals.tokens_cached, r.tokens_cached);
            add(&mut totals.turns, r.turns);
            out.push(acc.r);
        }
        totals.cost_usd = totals.cost_usd.map(|c| (c * 1e6).round() / 1e6);
        let (lanes, lane_count) = super::layout::worker_lanes(&out, max);
        let wall_ms = first_ts.as_ref().map(|_| max);
        Report {
            feature,
            events,
            sessions: sessions.len() as u64,
            first_ts,
            last_ts,
            wall_ms,
            repo_url: repo_url.map(str::to_string),
            totals,
            issues: out,
            lanes,
            lane_count,
            rate_limits,
            budget,
            limits: None,
            learned: Vec::new(),
            decisions: super::learning::decisions(state),
        }
    }
}
