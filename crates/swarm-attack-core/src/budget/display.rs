//! What `status`, the status comment and the step summary show of the ledger: spent and
//! limit, per issue and for the feature. Only numbers the ledger holds (and the configured
//! limits); a cost that is unknown is said to be unknown, never shown as $0.

use super::{Ledger, Limits, Spend};
use serde::Serialize;

/// Spent and limits, for one issue or the feature (`status --json`: `tasks[].budget`,
/// `budget`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpendView {
    /// Known USD (reported, or computed with `pricing`).
    pub spent_usd: f64,
    /// Agent runs whose cost is unknown: the real spend is `spent_usd` plus these.
    pub unknown_cost_runs: u32,
    pub agent_runs: u32,
    pub attempts: u32,
    /// Input (cached included) plus output tokens.
    pub tokens: u64,
    pub agent_minutes: f64,
    /// `budgets.issue_usd` (plus raises) or `budgets.feature_usd`.
    pub limit_usd: Option<f64>,
    pub limit_tokens: Option<u64>,
    /// `budgets.issue_minutes` (issues only).
    pub limit_minutes: Option<f64>,
}

impl SpendView {
    fn of(
        s: &Spend,
        limit_usd: Option<f64>,
        limit_tokens: Option<u64>,
        limit_minutes: Option<f64>,
    ) -> Self {
        SpendView {
            spent_usd: s.usd,
            unknown_cost_runs: s.unknown_cost_runs,
            agent_runs: s.agent_runs,
            attempts: s.attempts,
            tokens: s.tokens(),
            agent_minutes: s.agent_ms as f64 / 60_000.0,
            limit_usd,
            limit_tokens,
            limit_minutes,
        }
    }

    /// One issue's; `None` when it has no limit and nothing was spent on it.
    pub fn issue(ledger: Option<&Ledger>, limits: &Limits, issue: u32) -> Option<Self> {
        let spend = ledger.map(|l| l.issue(issue)).unwrap_or_default();
        let raised = ledger
            .and_then(|l| l.raised_usd.get(&issue).copied())
            .unwrap_or(0.0);
        let limit_usd = limits.issue_usd.map(|u| u + raised);
        let any_limit =
            limit_usd.is_some() || limits.issue_tokens.is_some() || limits.issue_minutes.is_some();
        (any_limit || spend.agent_runs > 0)
            .then(|| Self::of(&spend, limit_usd, limits.issue_tokens, limits.issue_minutes))
    }

    /// The feature's; `None` when it has no limit and nothing was spent.
    pub fn feature(ledger: Option<&Ledger>, limits: &Limits) -> Option<Self> {
        let v = Self::feature_of(ledger, limits);
        (v.limit_usd.is_some() || v.limit_tokens.is_some() || v.agent_runs > 0).then_some(v)
    }

    /// The feature's, always.
    pub fn feature_of(ledger: Option<&Ledger>, limits: &Limits) -> Self {
        let spend = ledger.map(|l| l.feature.clone()).unwrap_or_default();
        Self::of(&spend, limits.feature_usd, limits.feature_tokens, None)
    }

    /// What was spent in USD: `$1.25`, `$1.25 + 1 run of unknown cost`, `unknown (2 runs)`.
    pub fn usd_text(&self) -> String {
        let runs = |n: u32| if n == 1 { "run" } else { "runs" };
        let n = self.unknown_cost_runs;
        if n > 0 && n == self.agent_runs {
            format!("unknown ({n} {})", runs(n))
        } else if n > 0 {
            format!("${:.2} + {n} {} of unknown cost", self.spent_usd, runs(n))
        } else {
            format!("${:.2}", self.spent_usd)
        }
    }

    /// One line: `spent $1.25 of $5.00; 3.2 of 30 min; 1200 of 20000 tokens` (the parts
    /// after the USD only when a limit is set).
    pub fn line(&self) -> String {
        let mut out = format!("spent {}", self.usd_text());
        if let Some(l) = self.limit_usd {
            out.push_str(&format!(" of ${l:.2}"));
        }
        if let Some(l) = self.limit_minutes {
            out.push_str(&format!("; {:.1} of {l} min", self.agent_minutes));
        }
        if let Some(l) = self.limit_tokens {
            out.push_str(&format!("; {} of {l} tokens", self.tokens));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ledger(records: &[serde_json::Value]) -> Ledger {
        Ledger::from_records(records, &|_: &str, _: Option<&str>| None)
    }

    #[test]
    fn lines_show_spent_against_the_limit_and_unknown_as_unknown() {
        let l = ledger(&[
            json!({"event": "agent_finished", "issue": 1, "agent": "a", "cost_usd": 1.25,
                   "tokens_in": 1000, "tokens_out": 200, "duration_ms": 90_000}),
            json!({"event": "agent_finished", "issue": 2, "agent": "a", "cost_usd": null}),
            json!({"event": "budget_raised", "issue": 1, "usd": 1.0}),
        ]);
        let limits = Limits {
            issue_usd: Some(5.0),
            issue_minutes: Some(30.0),
            ..Limits::default()
        };
        let one = SpendView::issue(Some(&l), &limits, 1).unwrap();
        assert_eq!(one.line(), "spent $1.25 of $6.00; 1.5 of 30 min");
        let two = SpendView::issue(Some(&l), &limits, 2).unwrap();
        assert_eq!(two.line(), "spent unknown (1 run) of $5.00; 0.0 of 30 min");
        let f = SpendView::feature(Some(&l), &Limits::default()).unwrap();
        assert_eq!(f.line(), "spent $1.25 + 1 run of unknown cost");
        assert_eq!(f.limit_usd, None);
        // no limit, no spend: nothing to show
        assert_eq!(SpendView::issue(Some(&l), &Limits::default(), 3), None);
        assert_eq!(SpendView::feature(None, &Limits::default()), None);
    }
}
