//! The per-issue fold every reader of the event log derives from: one issue's events, in
//! file order, folded into its counts, time and spend ([`IssueTally::apply`]). `audit` and
//! `report` keep one tally per issue and build their own detail (timeline, attempts, runs)
//! beside it; the spend ledger (`budget::Ledger`) is the tallies' [`Spend`] (the part the
//! state keeps), folded by the same [`Spend::apply`].
//!
//! Fields are read leniently (docs/events.md): a missing or mistyped field is absent, never
//! an error, so the original tool's records and any future ones fold too.

mod outcome;
pub use outcome::{AttemptOutcome, IssueOutcome};

use crate::budget::{PriceOf, Spend};
use crate::events::EventKind;
use crate::record::{Field, Fields};
use std::borrow::Cow;

/// An `agent_finished` record, read (every field optional: older and foreign logs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentFinishedRead<'r> {
    /// The agent's name as text (a non-string value as its JSON text).
    pub agent: Option<Cow<'r, str>>,
    /// `agent` was a JSON string (the price lookup only uses a string name).
    pub agent_is_str: bool,
    pub exit_code: Option<i64>,
    pub duration_ms: Option<u64>,
    pub timed_out: bool,
    /// The cost as written (`null` or absent: unknown).
    pub cost_usd: Option<f64>,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
    pub error_kind: Option<Cow<'r, str>>,
    pub permission_denials: Option<u64>,
    pub output: Option<Cow<'r, str>>,
    /// The model, when written as a string.
    pub model: Option<Cow<'r, str>>,
}

impl<'r> AgentFinishedRead<'r> {
    /// Reads the fields of an `agent_finished` record.
    pub fn read<R: Fields + ?Sized>(rec: &'r R) -> Self {
        let agent = rec.field("agent");
        let u = |k: &str| rec.field(k).and_then(Field::as_u64);
        AgentFinishedRead {
            agent: agent.and_then(Field::text),
            agent_is_str: agent.and_then(Field::as_str).is_some(),
            exit_code: rec.field("exit_code").and_then(Field::as_i64),
            duration_ms: u("duration_ms"),
            timed_out: rec.field("timed_out").and_then(Field::as_bool) == Some(true),
            cost_usd: rec.field("cost_usd").and_then(Field::as_f64),
            tokens_in: u("tokens_in"),
            tokens_out: u("tokens_out"),
            tokens_cached: u("tokens_cached"),
            turns: u("turns"),
            error_kind: rec.field("error_kind").and_then(Field::text),
            permission_denials: u("permission_denials"),
            output: rec.field("output").and_then(Field::text),
            model: rec.field("model").and_then(Field::as_str),
        }
    }

    /// The agent's name for the price lookup (`""` unless written as a string).
    pub fn agent_name(&self) -> &str {
        match &self.agent {
            Some(a) if self.agent_is_str => a,
            _ => "",
        }
    }
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

impl Spend {
    /// Folds one event of the issue (or of the feature, for the ledger's feature total):
    /// an `agent_finished` adds a run (its cost as reported when finite and not negative,
    /// else priced from its tokens with `price`, else unknown), an `issue_started` or
    /// `retry_started` an attempt. Other events change nothing.
    pub fn apply(
        &mut self,
        kind: EventKind,
        run: Option<&AgentFinishedRead<'_>>,
        price: &PriceOf<'_>,
    ) {
        match (kind, run) {
            // an LLM helper call (`llm_called`) is charged like an agent run
            (EventKind::AgentFinished | EventKind::LlmCalled, Some(run)) => {
                let tin = run.tokens_in.unwrap_or(0);
                let tout = run.tokens_out.unwrap_or(0);
                let tcached = run.tokens_cached.unwrap_or(0);
                let usd = run
                    .cost_usd
                    .filter(|c| c.is_finite() && *c >= 0.0)
                    .or_else(|| {
                        (tin + tout > 0)
                            .then(|| price(run.agent_name(), run.model.as_deref()))
                            .flatten()
                            .map(|p| p.cost(tin, tout, tcached))
                    });
                self.add_run(usd, tin, tout, tcached, run.duration_ms.unwrap_or(0));
            }
            (EventKind::IssueStarted | EventKind::RetryStarted, _) => self.attempts += 1,
            _ => {}
        }
    }
}

/// One issue's counts, time and spend, folded from its events in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IssueTally {
    /// The ledger's view: runs, wall time, tokens, attempts started, USD known (no price
    /// table here: reported costs only) and runs of unknown cost.
    pub spend: Spend,
    /// `retry_started` events.
    pub retries: u64,
    /// The sum of the costs the agents reported (`None`: none reported one).
    pub agent_usd: Option<f64>,
    /// Agent runs that reported no cost.
    pub runs_without_cost: u64,
    /// The sum of `issue_done.cost_usd` (`None`: none written).
    pub done_usd: Option<f64>,
    /// Token and turn sums over the runs that reported them (`None`: none did).
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
}

fn no_price(_: &str, _: Option<&str>) -> Option<crate::budget::Price> {
    None
}

impl IssueTally {
    /// The spend, cost and input/output tokens of an agent run or an LLM helper call.
    fn add_spend(&mut self, kind: EventKind, run: &AgentFinishedRead<'_>) {
        self.spend.apply(kind, Some(run), &no_price);
        match run.cost_usd {
            Some(c) => add_f(&mut self.agent_usd, Some(c)),
            None => self.runs_without_cost += 1,
        }
        add(&mut self.tokens_in, run.tokens_in);
        add(&mut self.tokens_out, run.tokens_out);
    }

    /// Folds one event of the issue; returns the `agent_finished` fields it read (for the
    /// caller's own detail), so a record is read once.
    pub fn apply<'r, R: Fields + ?Sized>(
        &mut self,
        kind: EventKind,
        rec: &'r R,
    ) -> Option<AgentFinishedRead<'r>> {
        match kind {
            EventKind::AgentFinished => {
                let run = AgentFinishedRead::read(rec);
                self.add_spend(kind, &run);
                add(&mut self.tokens_cached, run.tokens_cached);
                add(&mut self.turns, run.turns);
                Some(run)
            }
            // an LLM helper call (failure analysis, specify gate, lesson): its spend, cost
            // and tokens count for the issue; it is no agent run of an attempt (`None`)
            EventKind::LlmCalled => {
                self.add_spend(kind, &AgentFinishedRead::read(rec));
                None
            }
            EventKind::RetryStarted => {
                self.retries += 1;
                self.spend.apply(kind, None, &no_price);
                None
            }
            EventKind::IssueStarted => {
                self.spend.apply(kind, None, &no_price);
                None
            }
            EventKind::IssueDone => {
                add_f(
                    &mut self.done_usd,
                    rec.field("cost_usd").and_then(Field::as_f64),
                );
                None
            }
            _ => None,
        }
    }

    /// The issue's cost: what its agents reported, else what `issue_done` recorded, to the
    /// millionth of a dollar.
    pub fn cost_usd(&self) -> Option<f64> {
        self.agent_usd
            .or(self.done_usd)
            .map(|c| (c * 1e6).round() / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{Ledger, Price};
    use serde_json::{Map, Value, json};

    fn rec(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn tally(records: &[Value]) -> IssueTally {
        let mut t = IssueTally::default();
        for r in records {
            let m = rec(r.clone());
            if let Some(k) = EventKind::of(&m) {
                t.apply(k, &m);
            }
        }
        t
    }

    #[test]
    fn a_tally_counts_runs_time_tokens_and_both_costs() {
        let t = tally(&[
            json!({"event": "issue_started", "issue": 1, "attempt": 1}),
            json!({"event": "agent_finished", "issue": 1, "agent": "a", "duration_ms": 100,
                   "cost_usd": 0.5, "tokens_in": 10, "tokens_out": 2}),
            json!({"event": "retry_started", "issue": 1, "attempt": 2}),
            json!({"event": "agent_finished", "issue": 1, "agent": "b", "duration_ms": 50,
                   "cost_usd": null}),
            json!({"event": "issue_done", "issue": 1, "cost_usd": 9.0}),
            json!({"event": "coder_started", "issue": 1}),
        ]);
        assert_eq!(t.retries, 1);
        assert_eq!(t.spend.attempts, 2);
        assert_eq!(t.spend.agent_runs, 2);
        assert_eq!(t.spend.agent_ms, 150);
        assert_eq!(t.spend.unknown_cost_runs, 1);
        assert_eq!(t.runs_without_cost, 1);
        assert_eq!(t.agent_usd, Some(0.5));
        assert_eq!(t.done_usd, Some(9.0));
        assert_eq!(t.cost_usd(), Some(0.5), "the agents' costs come first");
        assert_eq!(
            (t.tokens_in, t.tokens_out, t.tokens_cached),
            (Some(10), Some(2), None)
        );
    }

    #[test]
    fn a_negative_reported_cost_is_summed_as_written_but_unknown_to_the_ledger() {
        let t = tally(&[json!({"event": "agent_finished", "issue": 1, "cost_usd": -1.0})]);
        assert_eq!(t.agent_usd, Some(-1.0));
        assert_eq!(t.spend.unknown_cost_runs, 1);
        assert_eq!(t.spend.usd, 0.0);
    }

    #[test]
    fn the_ledger_and_the_tallies_fold_the_same_spend() {
        let records = [
            json!({"event": "issue_started", "issue": 1}),
            json!({"event": "agent_finished", "issue": 1, "agent": "a", "cost_usd": 0.25,
                   "duration_ms": 7, "tokens_in": 3, "tokens_cached": 1}),
            json!({"event": "agent_finished", "issue": 2, "agent": 5, "tokens_in": 3}),
            json!({"event": "retry_started", "issue": 2}),
        ];
        let price = |_: &str, _: Option<&str>| -> Option<Price> { None };
        let ledger = Ledger::from_records(&records, &price);
        for n in [1u32, 2] {
            let mine: Vec<Value> = records
                .iter()
                .filter(|r| r["issue"] == json!(n))
                .cloned()
                .collect();
            assert_eq!(tally(&mine).spend, ledger.issue(n), "issue {n}");
        }
    }

    #[test]
    fn a_price_is_looked_up_only_by_a_string_agent_name() {
        let m = rec(json!({"event": "agent_finished", "agent": 5, "model": 7}));
        let run = AgentFinishedRead::read(&m);
        assert_eq!(run.agent.as_deref(), Some("5"));
        assert_eq!(run.agent_name(), "");
        assert_eq!(run.model, None);
        let m = rec(json!({"event": "agent_finished", "agent": "claude", "timed_out": "yes"}));
        let run = AgentFinishedRead::read(&m);
        assert_eq!(run.agent_name(), "claude");
        assert!(!run.timed_out);
    }
}

#[cfg(test)]
mod agree;
