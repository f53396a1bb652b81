//! The state's legacy cost fields (`cost_total_usd`, `cost_by_phase.IMPLEMENTING`, a task's
//! `cost_usd`; the original tool's names) kept in step with the ledger: they move by exactly
//! what the ledger's USD moves when new records are folded. So an agent run whose result
//! was never recorded (the tool was killed after `agent_finished`) is in them as it is in
//! the ledger, and nothing is counted twice.
//!
//! When there was no ledger before (a state written by the original tool, or before the
//! ledger existed) or it was rebuilt from the whole log, a field is raised to the ledger's
//! value when it is lower and otherwise kept: the fields may hold costs the log never saw.

use super::Ledger;
use crate::state::FeatureState;
use serde_json::Value;

/// Moves the legacy cost fields of `state` by the USD the ledger gained from `before` to
/// `after`; `before` is `None` when `after` was folded from the start (see the module).
pub fn follow_ledger(state: &mut FeatureState, before: Option<&Ledger>, after: &Ledger) {
    let Some(before) = before else {
        raise_to(state, after);
        return;
    };
    let feature = after.feature.usd - before.feature.usd;
    if feature > 0.0 {
        state.cost_total_usd += feature;
        add_implementing(state, feature);
    }
    for (n, spend) in &after.issues {
        let delta = spend.usd - before.issues.get(n).map_or(0.0, |s| s.usd);
        if delta > 0.0
            && let Some(t) = state.task_mut(*n)
        {
            t.cost_usd = Some(t.cost_usd.unwrap_or(0.0) + delta);
        }
    }
}

fn raise_to(state: &mut FeatureState, ledger: &Ledger) {
    let gap = ledger.feature.usd - state.cost_total_usd;
    if gap > 0.0 {
        state.cost_total_usd = ledger.feature.usd;
        add_implementing(state, gap);
    }
    for (n, spend) in &ledger.issues {
        if let Some(t) = state.task_mut(*n)
            && spend.usd > t.cost_usd.unwrap_or(0.0)
        {
            t.cost_usd = Some(spend.usd);
        }
    }
}

fn add_implementing(state: &mut FeatureState, usd: f64) {
    if !state.cost_by_phase.is_object() {
        state.cost_by_phase = Value::Object(Default::default());
    }
    if let Some(m) = state.cost_by_phase.as_object_mut() {
        let prev = m.get("IMPLEMENTING").and_then(Value::as_f64).unwrap_or(0.0);
        m.insert("IMPLEMENTING".into(), Value::from(prev + usd));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Task;
    use serde_json::json;

    fn state(total: f64, task_cost: Option<f64>) -> FeatureState {
        let mut s = FeatureState::new("f", "now");
        let mut t = Task::new(1, "A");
        t.cost_usd = task_cost;
        s.tasks.push(t);
        s.tasks.push(Task::new(2, "B"));
        s.cost_total_usd = total;
        s
    }

    fn ledger(runs: &[(u32, f64)]) -> Ledger {
        let records: Vec<Value> = runs
            .iter()
            .map(|(n, c)| json!({"event": "agent_finished", "issue": n, "agent": "a", "cost_usd": c}))
            .collect();
        Ledger::from_records(&records, &|_, _| None)
    }

    #[test]
    fn new_spend_moves_the_fields_by_the_same_amount() {
        // attempt 1 was recorded ($0.50); attempt 2's run is in the log only (a kill)
        let mut s = state(0.5, Some(0.5));
        s.cost_by_phase = json!({"IMPLEMENTING": 0.5});
        let before = ledger(&[(1, 0.5)]);
        let after = ledger(&[(1, 0.5), (1, 0.25), (2, 1.0)]);
        follow_ledger(&mut s, Some(&before), &after);
        assert_eq!(s.cost_total_usd, 1.75);
        assert_eq!(s.task(1).unwrap().cost_usd, Some(0.75));
        assert_eq!(s.task(2).unwrap().cost_usd, Some(1.0));
        assert_eq!(s.cost_by_phase, json!({"IMPLEMENTING": 1.75}));
        // folding nothing new changes nothing (idempotent)
        let again = s.clone();
        follow_ledger(&mut s, Some(&after), &after);
        assert_eq!(s, again);
    }

    #[test]
    fn a_first_fold_raises_but_never_lowers_or_doubles() {
        // the original tool's $1.50, with no log of it: kept
        let mut s = state(1.5, Some(1.5));
        follow_ledger(&mut s, None, &ledger(&[(1, 0.25)]));
        assert_eq!(s.cost_total_usd, 1.5);
        assert_eq!(s.task(1).unwrap().cost_usd, Some(1.5));
        // fields that already counted the logged runs are not counted twice
        let mut s = state(0.75, Some(0.75));
        follow_ledger(&mut s, None, &ledger(&[(1, 0.5), (1, 0.25)]));
        assert_eq!(s.cost_total_usd, 0.75);
        assert_eq!(s.task(1).unwrap().cost_usd, Some(0.75));
        // fields short of the log are raised to it
        let mut s = state(0.5, Some(0.5));
        follow_ledger(&mut s, None, &ledger(&[(1, 0.5), (1, 0.25), (2, 2.0)]));
        assert_eq!(s.cost_total_usd, 2.75);
        assert_eq!(s.task(1).unwrap().cost_usd, Some(0.75));
        assert_eq!(s.task(2).unwrap().cost_usd, Some(2.0));
    }

    #[test]
    fn unknown_costs_leave_the_fields_alone() {
        let mut s = state(0.0, None);
        let records =
            [json!({"event": "agent_finished", "issue": 1, "agent": "a", "tokens_in": 5})];
        let after = Ledger::from_records(&records, &|_, _| None);
        follow_ledger(&mut s, Some(&Ledger::default()), &after);
        assert_eq!(s.cost_total_usd, 0.0);
        assert_eq!(s.task(1).unwrap().cost_usd, None);
    }
}
