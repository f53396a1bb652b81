//! The report's accumulator: takes records in file order and keeps, per issue, a bounded
//! model of its attempts and runs (see the module doc of [`super`] for the bounds); one
//! issue's part is [`super::issue_acc`].

use super::issue_acc::{IssueAcc, add, add_f, budget_hit, run};
use super::{BudgetHit, MAX_BUDGET_HITS, MAX_RATE_LIMITS, MAX_RUNS, RateLimit, Report, Totals};
use crate::audit::fields::{numbers, s, u};
use crate::event_filter::parse_ts;
use crate::events::EventKind;
use crate::fold::IssueOutcome;
use crate::state::FeatureState;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Distinct sessions remembered (beyond, the count stops growing).
const MAX_SESSIONS: usize = 10_000;

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
        let kind = EventKind::of(rec);
        let now = self.now;
        match kind {
            Some(EventKind::Greenlight) => {
                for k in ["added", "kept", "ready"] {
                    for n in numbers(rec, k) {
                        self.acc(n);
                    }
                }
            }
            Some(EventKind::GitSync) => {
                for n in numbers(rec, "synced_issues") {
                    let a = self.acc(n);
                    if a.r.outcome != IssueOutcome::Done {
                        a.r.evidence = Some("git history".into());
                        a.finish(IssueOutcome::Done, now);
                    }
                }
                for n in numbers(rec, "reverted_issues") {
                    let a = self.acc(n);
                    a.r.outcome = IssueOutcome::Ready;
                    a.r.evidence = Some("reverted in git history".into());
                }
            }
            Some(EventKind::RateLimited) => {
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
            Some(EventKind::BudgetExceeded) => {
                self.budget_exceeded += 1;
                match u(rec, "issue") {
                    Some(n) => self.acc(n).apply(EventKind::BudgetExceeded, rec, now),
                    None if self.budget.len() < MAX_BUDGET_HITS => {
                        self.budget.push(budget_hit(rec))
                    }
                    None => {}
                }
            }
            // `issue` there is a GitHub issue number, not a task.
            Some(EventKind::ActionReceived) => {}
            _ => {
                if let (Some(n), Some(kind)) = (u(rec, "issue"), kind) {
                    self.acc(n).apply(kind, rec, now);
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
            r.cost_usd = acc.tally.cost_usd();
            if let Some(repo) = repo_url {
                r.github_url = r.github_issue.map(|g| format!("{repo}/issues/{g}"));
                r.pr_url = r.pr.map(|p| format!("{repo}/pull/{p}"));
            }
            totals.issues += 1;
            match r.outcome {
                IssueOutcome::Done => totals.done += 1,
                IssueOutcome::Blocked => totals.blocked += 1,
                IssueOutcome::Skipped => totals.skipped += 1,
                IssueOutcome::InProgress => totals.in_progress += 1,
                IssueOutcome::InReview => totals.in_review += 1,
                IssueOutcome::Ready => totals.ready += 1,
                IssueOutcome::NotStarted => totals.not_started += 1,
            }
            totals.attempts += r.attempt_count;
            totals.retries += r.retries;
            totals.agent_runs += u64::from(acc.tally.spend.agent_runs);
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
