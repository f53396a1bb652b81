//! The spend ledger and its limits (docs/budgets.md "Limits"): per issue and per feature,
//! cumulative across runs, attempts, agents and modes — USD (as the agent reported it, or computed
//! from tokens with the `pricing` table; unknown stays unknown and is counted), tokens, agent wall
//! time, attempts.
//!
//! The ledger is a fold over the event log ([`Ledger::apply`]): the state keeps the folded
//! value and the log can always rebuild it (`audit` and the ledger agree to the cent on the
//! same log). [`check`] decides, before an attempt starts, whether a limit is reached.

mod display;
mod legacy;
mod limits;
mod pricing;

pub use display::SpendView;
pub use legacy::follow_ledger;

pub use limits::{Exceeded, Limits, check, check_feature, remaining_usd};
pub use pricing::{Price, PriceTable};

use crate::events::EventKind;
use crate::fold::AgentFinishedRead;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The price of an agent run's tokens, given the agent's name and the model it ran.
pub type PriceOf<'a> = dyn Fn(&str, Option<&str>) -> Option<Price> + 'a;

/// What was spent, for one issue or the whole feature.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Spend {
    /// Known cost in USD (reported, or computed from tokens with a price).
    pub usd: f64,
    /// Agent runs whose cost is unknown (no report, no price for their tokens).
    pub unknown_cost_runs: u32,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub tokens_cached: u64,
    /// Agent wall time.
    pub agent_ms: u64,
    /// Agent runs recorded.
    pub agent_runs: u32,
    /// Attempts started.
    pub attempts: u32,
}

impl Spend {
    /// All tokens (input, cached ones included, plus output).
    pub fn tokens(&self) -> u64 {
        self.tokens_in + self.tokens_out
    }

    pub(crate) fn add_run(&mut self, usd: Option<f64>, tin: u64, tout: u64, tcached: u64, ms: u64) {
        match usd {
            Some(c) => self.usd += c,
            None => self.unknown_cost_runs += 1,
        }
        self.tokens_in += tin;
        self.tokens_out += tout;
        self.tokens_cached += tcached;
        self.agent_ms += ms;
        self.agent_runs += 1;
    }
}

/// The ledger of one feature.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ledger {
    /// Byte offset in the event log up to which records were folded (the state keeps the
    /// ledger; the log can always rebuild it).
    pub log_offset: u64,
    pub feature: Spend,
    pub issues: BTreeMap<u32, Spend>,
    /// Extra USD granted per issue by `unblock --issue N --budget +USD`.
    pub raised_usd: BTreeMap<u32, f64>,
}

impl Ledger {
    /// Folds one event record (a JSON object as in the log) into the ledger. `price` gives
    /// the price for an agent name and the model it ran (`agent_finished.model`, if known),
    /// from `pricing`; used when the agent reported tokens but no cost. Other events are
    /// ignored, so any prefix of any log folds.
    pub fn apply(&mut self, record: &Value, price: &PriceOf<'_>) {
        let Some(rec) = record.as_object() else {
            return;
        };
        let kind = EventKind::of(rec);
        let issue = rec
            .get("issue")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok());
        let (Some(kind), Some(n)) = (kind, issue) else {
            return;
        };
        match kind {
            EventKind::AgentFinished | EventKind::IssueStarted | EventKind::RetryStarted => {
                // the same fold as each issue's tally (`fold::IssueTally`)
                let run = (kind == EventKind::AgentFinished).then(|| AgentFinishedRead::read(rec));
                self.feature.apply(kind, run.as_ref(), price);
                self.issues
                    .entry(n)
                    .or_default()
                    .apply(kind, run.as_ref(), price);
            }
            EventKind::BudgetRaised => {
                if let Some(usd) = rec
                    .get("usd")
                    .and_then(Value::as_f64)
                    .filter(|u| u.is_finite() && *u > 0.0)
                {
                    *self.raised_usd.entry(n).or_default() += usd;
                }
            }
            _ => {}
        }
    }

    /// Whether a record changes the ledger.
    pub fn relevant(record: &Value) -> bool {
        matches!(
            record
                .get("event")
                .and_then(Value::as_str)
                .and_then(EventKind::parse),
            Some(
                EventKind::AgentFinished
                    | EventKind::IssueStarted
                    | EventKind::RetryStarted
                    | EventKind::BudgetRaised
            )
        )
    }

    /// The ledger of a whole log.
    pub fn from_records<'a>(
        records: impl IntoIterator<Item = &'a Value>,
        price: &PriceOf<'_>,
    ) -> Ledger {
        let mut l = Ledger::default();
        for r in records {
            l.apply(r, price);
        }
        l
    }

    /// One issue's spend (zero when nothing was recorded).
    pub fn issue(&self, n: u32) -> Spend {
        self.issues.get(&n).cloned().unwrap_or_default()
    }
}

/// USD rounded to the cent, half away from zero (for display and comparisons "to the cent").
pub fn cents(usd: f64) -> i64 {
    (usd * 100.0).round() as i64
}

#[cfg(test)]
mod tests;
