//! The budget gate (docs/budgets.md "Limits"): before every attempt — the first one at the claim,
//! each retry after a failure — the ledger (folded from the event log, plus the events of
//! the transaction at hand) is checked against `budgets`. An issue limit blocks the issue
//! with a reason beginning `budget` (event `budget_exceeded`); a feature limit stops the run
//! (exit 1) and leaves the issues that did not start as they were.

use crate::core::agent_limits::RunLimits;
use crate::core::budget::{self, Exceeded};
use crate::core::events::Event;
use crate::error::CmdResult;
use crate::io::config::AgentConfig;
use crate::project::FeatureTxn;
use crate::run::RunContext;

/// The limit an attempt on `issue` would start over, if any.
pub(crate) fn over_limit(
    ctx: &RunContext<'_>,
    txn: &mut FeatureTxn<'_>,
    issue: u32,
) -> Option<Exceeded> {
    let limits = &ctx.project.config.budgets;
    if *limits == budget::Limits::default() {
        return None;
    }
    budget::check(&ledger_now(ctx, txn), limits, issue)
}

/// The ledger folded from the event log, plus the events of the transaction at hand.
fn ledger_now(ctx: &RunContext<'_>, txn: &mut FeatureTxn<'_>) -> budget::Ledger {
    crate::ledger::refresh(
        &ctx.project.paths.events_file(&ctx.feature),
        &ctx.project.config,
        txn.state_mut(),
    );
    let mut ledger = txn.state().ledger.clone().unwrap_or_default();
    let price = |agent: &str, model: Option<&str>| {
        crate::ledger::price_for(&ctx.project.config, agent, model)
    };
    for e in txn.events() {
        if let Ok(v) = serde_json::to_value(e) {
            ledger.apply(&v, &price);
        }
    }
    ledger
}

/// Appends `events` (the agent's `agent_started` last) and returns the limits handed to
/// `agent` for its run on `issue`: what remains of the issue's budgets (docs/budgets.md "Limits").
/// Without `budgets` nothing is read (events only).
pub(crate) fn start_agent(
    ctx: &RunContext<'_>,
    events: Vec<Event>,
    issue: u32,
    agent: &AgentConfig,
) -> CmdResult<RunLimits> {
    let limits = &ctx.project.config.budgets;
    if *limits == budget::Limits::default() {
        crate::run::record::emit(ctx, events)?;
        return Ok(RunLimits {
            max_turns: agent.max_turns,
            ..RunLimits::default()
        });
    }
    crate::run::record::with_txn(ctx, |txn| {
        txn.events_mut().extend(events);
        let ledger = ledger_now(ctx, txn);
        Ok(RunLimits::for_issue(
            &ledger,
            limits,
            issue,
            agent.max_turns,
        ))
    })
}

/// Records a reached limit for `issue`: `budget_exceeded`, then for an issue limit the
/// issue BLOCKED (`issue_blocked`); for a feature limit the run is stopped and the issue is
/// left as it was. Returns the reason.
pub(crate) fn record(
    ctx: &RunContext<'_>,
    txn: &mut FeatureTxn<'_>,
    issue: u32,
    e: &Exceeded,
) -> String {
    let reason = e.reason();
    txn.push_event(Event::BudgetExceeded {
        issue,
        kind: e.kind.to_string(),
        spent: e.spent,
        limit: e.limit,
    });
    if e.is_feature_limit() {
        ctx.breaker.trip(format!("stopped: {reason}"));
        return reason;
    }
    txn.change_task(issue, |t| t.block(reason.clone()).ok());
    reason
}
