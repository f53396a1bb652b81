//! The limits (`budgets: {issue_usd, feature_usd, issue_minutes, issue_tokens,
//! feature_tokens}`, all optional) and the check made before every attempt: an attempt never
//! starts once the amount spent has reached a limit (spent ≥ limit).

use super::{Ledger, cents};
use serde::{Deserialize, Serialize};

/// `budgets` in config.yaml.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    pub issue_usd: Option<f64>,
    pub feature_usd: Option<f64>,
    pub issue_minutes: Option<f64>,
    pub issue_tokens: Option<u64>,
    pub feature_tokens: Option<u64>,
}

/// A limit that was reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exceeded {
    /// `issue_usd`, `feature_usd`, `issue_minutes`, `issue_tokens`, `feature_tokens`.
    pub kind: &'static str,
    pub spent: f64,
    pub limit: f64,
}

impl Exceeded {
    /// Whether this stops the whole run (a feature limit).
    pub fn is_feature_limit(&self) -> bool {
        self.kind.starts_with("feature_")
    }

    /// The reason written to the state and the events; always starts with `budget`.
    pub fn reason(&self) -> String {
        let (spent, limit) = match self.kind {
            "issue_usd" | "feature_usd" => {
                (format!("${:.2}", self.spent), format!("${:.2}", self.limit))
            }
            "issue_minutes" => (
                format!("{:.1} min", self.spent),
                format!("{:.1} min", self.limit),
            ),
            _ => (
                format!("{} tokens", self.spent as u64),
                format!("{} tokens", self.limit as u64),
            ),
        };
        format!(
            "budget {}: spent {spent} of {limit}; raise it in config.yaml `budgets.{}`{}",
            self.kind,
            self.kind,
            if self.kind == "issue_usd" {
                " or with `unblock --issue N --budget +USD`"
            } else {
                ""
            }
        )
    }
}

/// The feature limits (checked before every attempt, and once before a run starts).
pub fn check_feature(ledger: &Ledger, limits: &Limits) -> Option<Exceeded> {
    if let Some(limit) = limits.feature_usd
        && cents(ledger.feature.usd) >= cents(limit)
    {
        return Some(Exceeded {
            kind: "feature_usd",
            spent: ledger.feature.usd,
            limit,
        });
    }
    if let Some(limit) = limits.feature_tokens
        && ledger.feature.tokens() >= limit
    {
        return Some(Exceeded {
            kind: "feature_tokens",
            spent: ledger.feature.tokens() as f64,
            limit: limit as f64,
        });
    }
    None
}

/// Whether an attempt on `issue` may start: the first limit reached, feature limits first.
pub fn check(ledger: &Ledger, limits: &Limits, issue: u32) -> Option<Exceeded> {
    if let Some(e) = check_feature(ledger, limits) {
        return Some(e);
    }
    let spend = ledger.issue(issue);
    if let Some(base) = limits.issue_usd {
        let limit = base + ledger.raised_usd.get(&issue).copied().unwrap_or(0.0);
        if cents(spend.usd) >= cents(limit) {
            return Some(Exceeded {
                kind: "issue_usd",
                spent: spend.usd,
                limit,
            });
        }
    }
    if let Some(limit) = limits.issue_minutes {
        let minutes = spend.agent_ms as f64 / 60_000.0;
        if minutes >= limit {
            return Some(Exceeded {
                kind: "issue_minutes",
                spent: minutes,
                limit,
            });
        }
    }
    if let Some(limit) = limits.issue_tokens
        && spend.tokens() >= limit
    {
        return Some(Exceeded {
            kind: "issue_tokens",
            spent: spend.tokens() as f64,
            limit: limit as f64,
        });
    }
    None
}

/// What remains of an issue's USD budget (for agents that enforce it themselves, e.g.
/// Claude Code's `--max-budget-usd`); `None` when there is no USD limit.
pub fn remaining_usd(ledger: &Ledger, limits: &Limits, issue: u32) -> Option<f64> {
    let issue_left = limits.issue_usd.map(|base| {
        base + ledger.raised_usd.get(&issue).copied().unwrap_or(0.0) - ledger.issue(issue).usd
    });
    let feature_left = limits.feature_usd.map(|l| l - ledger.feature.usd);
    match (issue_left, feature_left) {
        (Some(a), Some(b)) => Some(a.min(b).max(0.0)),
        (Some(a), None) | (None, Some(a)) => Some(a.max(0.0)),
        (None, None) => None,
    }
}
