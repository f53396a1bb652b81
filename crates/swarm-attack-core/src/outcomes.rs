//! Learning from outcomes (docs/learning.md "Outcomes"): the records of `.swarm/outcomes.jsonl`,
//! the class of an issue, the per (agent, class) statistics folded from the records, and the
//! learned blend of a proposal's confidence.
//!
//! Rules (docs/learning.md):
//! - one record when an issue ends `done`, `blocked` or `skipped`, and one `reverted` record
//!   when the git rule sees a revert of a DONE issue;
//! - the class is the issue's first label (labels beginning `swarm:` and the Action's trigger
//!   label are not classes), else its `estimated_size`, else `default`;
//! - `n` of agent X in class K counts the `done` records X landed (`landed_by`) and the
//!   `blocked`/`skipped` records X attempted (it is in `agents`); `s` counts those `done`
//!   records not reverted later (a `reverted` record cancels the latest earlier `done` of
//!   the same feature and issue); `reverted` records are never counted in `n`;
//! - `c' = (1 − w)·c + w·p`, `p = (s + 1)/(n + 2)`, `w = n/(n + prior)`, computed exactly
//!   (integers, `c` taken to six decimals) and rounded half away from zero to hundredths;
//!   `n = 0` leaves the proposal unchanged;
//! - the cost per success of X in K is what its counted outcomes cost (failures included)
//!   per success, `Σ cost_usd / s` (the coordination ranking uses it to break near-ties, see
//!   [`crate::coordination::rank`]).

use crate::audit::IssueAudit;
use crate::coordination::{NamedProposal, clamp_unit};
use crate::state::Task;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How an issue ended, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeResult {
    Done,
    Blocked,
    Skipped,
    Reverted,
}

/// One line of `.swarm/outcomes.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRecord {
    pub ts: String,
    pub feature: String,
    pub issue: u32,
    pub class: String,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub agents: Vec<String>,
    /// The agent whose work landed (`done` and `reverted` records); `null` otherwise.
    #[serde(default)]
    pub landed_by: Option<String>,
    pub result: OutcomeResult,
    #[serde(default)]
    pub attempts: u64,
    /// `null` when no attempt's cost is known.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// From the issue's first start to its last ending event; `null` when unknown.
    #[serde(default)]
    pub minutes: Option<f64>,
}

/// The class of an issue: its first label that is a class (not `swarm:*`, not `ignored`,
/// e.g. the Action's trigger label), else its `estimated_size`, else `default`.
pub fn class_of(task: &Task, ignored: &[&str]) -> String {
    let label = task.labels.iter().map(|l| l.trim()).find(|l| {
        !l.is_empty()
            && !l.to_ascii_lowercase().starts_with("swarm:")
            && !ignored.iter().any(|i| i.eq_ignore_ascii_case(l))
    });
    if let Some(l) = label {
        return l.to_string();
    }
    match task.estimated_size.as_deref().map(str::trim) {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => "default".into(),
    }
}

/// The agent whose work landed, as the issue's audit shows it: the convergence winner of a
/// two-agent run (a SYNTHESIS `a+b` credits `a`, who ran first), else the first agent of the
/// last attempt.
fn landed_by(audit: &IssueAudit) -> Option<String> {
    if let Some(w) = audit
        .convergence
        .as_ref()
        .and_then(|c| c.get("winner"))
        .and_then(|w| w.as_str())
        .and_then(|w| w.split('+').next())
        .filter(|w| !w.is_empty())
    {
        return Some(w.to_string());
    }
    audit
        .attempts
        .iter()
        .rev()
        .find_map(|a| a.agents.first())
        .map(|r| r.agent.clone())
}

/// The record of `task` ending with `result`, from the issue's audit (the one event fold).
pub fn record_of(
    ts: &str,
    feature: &str,
    task: &Task,
    class: String,
    audit: Option<&IssueAudit>,
    result: OutcomeResult,
) -> OutcomeRecord {
    let landed = match result {
        OutcomeResult::Done | OutcomeResult::Reverted => audit.and_then(landed_by),
        _ => None,
    };
    OutcomeRecord {
        ts: ts.to_string(),
        feature: feature.to_string(),
        issue: task.issue_number,
        class,
        mode: audit.and_then(|a| a.mode.clone()),
        agents: audit.map(|a| a.agents.clone()).unwrap_or_default(),
        landed_by: landed,
        result,
        attempts: audit.map_or(0, |a| a.attempt_count),
        cost_usd: audit.and_then(|a| a.cost_usd),
        minutes: audit
            .and_then(|a| a.duration_ms)
            .map(|ms| (ms as f64 / 600.0).round() / 100.0),
    }
}

/// What agent X did in class K.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AgentClass {
    /// Outcomes counted (done landed by X, blocked/skipped attempted by X).
    pub n: u32,
    /// Of those, `done` and not reverted later.
    pub s: u32,
    /// Sum and count of the known costs of all counted outcomes.
    pub cost: f64,
    pub costed: u32,
    /// `done` records later reverted.
    pub reverted: u32,
}

impl AgentClass {
    /// The cost per success: what the counted outcomes cost (failures included) per success,
    /// `Σ cost / s`; with some costs unknown, the mean known cost times `n / s`. `None`
    /// without a success or without any known cost.
    pub fn cost_per_success(&self) -> Option<f64> {
        let mean = self.mean_cost()?;
        (self.s > 0).then(|| mean * f64::from(self.n) / f64::from(self.s))
    }
    /// The mean cost of the counted outcomes of known cost.
    pub fn mean_cost(&self) -> Option<f64> {
        (self.costed > 0).then(|| self.cost / f64::from(self.costed))
    }
    /// `s / n` (`None` when `n = 0`).
    pub fn success_rate(&self) -> Option<f64> {
        (self.n > 0).then(|| f64::from(self.s) / f64::from(self.n))
    }
}

/// The statistics per (agent, class).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub by: BTreeMap<(String, String), AgentClass>,
}

impl Stats {
    /// Folds the records, in file order.
    pub fn fold(records: &[OutcomeRecord]) -> Stats {
        // which `done` records a later `reverted` record of the same issue cancels
        let mut reverted = vec![false; records.len()];
        let mut open: BTreeMap<(&str, u32), Vec<usize>> = BTreeMap::new();
        for (i, r) in records.iter().enumerate() {
            let key = (r.feature.as_str(), r.issue);
            match r.result {
                OutcomeResult::Done => open.entry(key).or_default().push(i),
                OutcomeResult::Reverted => {
                    if let Some(j) = open.get_mut(&key).and_then(Vec::pop) {
                        reverted[j] = true;
                    }
                }
                _ => {}
            }
        }
        let mut by: BTreeMap<(String, String), AgentClass> = BTreeMap::new();
        for (i, r) in records.iter().enumerate() {
            let counted: Vec<&String> = match r.result {
                OutcomeResult::Done => r.landed_by.iter().collect(),
                OutcomeResult::Blocked | OutcomeResult::Skipped => {
                    let mut a: Vec<&String> = r.agents.iter().collect();
                    a.sort();
                    a.dedup();
                    a
                }
                OutcomeResult::Reverted => Vec::new(),
            };
            for agent in counted {
                let e = by.entry((agent.clone(), r.class.clone())).or_default();
                e.n += 1;
                if let Some(c) = r.cost_usd.filter(|c| c.is_finite() && *c >= 0.0) {
                    e.cost += c;
                    e.costed += 1;
                }
                if r.result == OutcomeResult::Done {
                    if reverted[i] {
                        e.reverted += 1;
                    } else {
                        e.s += 1;
                    }
                }
            }
        }
        Stats { by }
    }

    pub fn get(&self, agent: &str, class: &str) -> Option<&AgentClass> {
        self.by.get(&(agent.to_string(), class.to_string()))
    }
}

/// What learning did to one proposal (`plan --json`: `learned`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Learned {
    pub n: u32,
    pub s: u32,
    pub p: f64,
    pub w: f64,
    pub confidence_before: f64,
    /// The class the statistics are of.
    pub class: String,
    /// The cost per success in the class (the near-tie break: what the counted outcomes
    /// cost, failures included, per success), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_cost: Option<f64>,
}

/// `c'` in whole hundredths: `(prior·c·(n+2) + n·(s+1)) / ((n+prior)(n+2))`, exact, rounded
/// half away from zero (`c` taken to six decimals).
pub fn blended_hundredths(c: f64, n: u32, s: u32, prior: u32) -> i64 {
    let c_micro = (clamp_unit(c) * 1e6).round() as i128;
    let (n, s, prior) = (i128::from(n), i128::from(s.min(n)), i128::from(prior));
    if n + prior == 0 {
        return ((c_micro + 5_000) / 10_000) as i64;
    }
    let num = prior * c_micro * (n + 2) + 1_000_000 * n * (s + 1);
    let den = (n + prior) * (n + 2) * 10_000;
    ((2 * num + den) / (2 * den)) as i64
}

/// Applies the learned blend to each proposal of an issue of class `class`
/// (docs/learning.md "Outcomes"). An agent with no counted outcome in the class is left unchanged
/// (and gets no `learned`).
pub fn apply(proposals: &mut [NamedProposal], class: &str, stats: &Stats, prior: u32) {
    for np in proposals.iter_mut() {
        let Some(st) = stats.get(&np.agent, class).filter(|st| st.n > 0) else {
            continue;
        };
        let before = clamp_unit(np.proposal.confidence);
        let h = blended_hundredths(before, st.n, st.s, prior);
        let (n, s) = (f64::from(st.n), f64::from(st.s));
        np.learned = Some(Learned {
            n: st.n,
            s: st.s,
            p: (s + 1.0) / (n + 2.0),
            w: n / (n + f64::from(prior)),
            confidence_before: before,
            class: class.to_string(),
            mean_cost: st.cost_per_success(),
        });
        np.proposal.confidence = h as f64 / 100.0;
    }
}

/// The records of an outcomes file's text, in order; unreadable lines are skipped (a torn
/// last line left by a crash, a line from a newer version).
pub fn parse_records(text: &str) -> Vec<OutcomeRecord> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<OutcomeRecord>(l).ok())
        .collect()
}

#[cfg(test)]
mod tests;
