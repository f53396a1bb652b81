//! State changes and events of a run, each under a short hold of the feature lock: the
//! state is re-read under the lock, only this run's task is changed, and the change is
//! written (atomically) before the lock is released.

use crate::core::events::Event;
use crate::core::stage::Stage;
use crate::core::state::{FeatureState, Task};
use crate::error::CmdResult;
use crate::project::FeatureTxn;
use crate::run::RunContext;

/// Runs `f` on the feature under its lock, then writes what changed and appends the
/// events. Nothing is written when `f` fails.
pub(crate) fn with_txn<T>(
    ctx: &RunContext<'_>,
    f: impl FnOnce(&mut FeatureTxn<'_>) -> CmdResult<T>,
) -> CmdResult<T> {
    let mut txn = ctx.project.begin(&ctx.feature)?;
    let out = f(&mut txn)?;
    txn.commit()?;
    Ok(out)
}

/// Appends events (no state change).
pub(crate) fn emit(ctx: &RunContext<'_>, events: Vec<Event>) -> CmdResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    // events only: the lock and the append, no state read
    let lock = ctx.project.lock(&ctx.feature)?;
    Ok(ctx.project.event_log(&ctx.feature).append(
        &ctx.project.ui,
        &lock,
        &crate::io::clock::now_rfc3339(),
        &events,
    )?)
}

/// The task if it is still IN_PROGRESS under `owner` (this run's claim).
pub(crate) fn owned<'a>(
    state: &'a mut FeatureState,
    issue: u32,
    owner: &str,
) -> Option<&'a mut Task> {
    state
        .task_mut(issue)
        .filter(|t| t.stage() == &Stage::InProgress && t.owner.as_deref() == Some(owner))
}

/// Folds the log records the state's ledger has not seen yet into it, and so into the
/// legacy cost fields (`cost_total_usd`, the tasks' `cost_usd`), which follow the ledger.
pub(crate) fn fold_spend(ctx: &RunContext<'_>, state: &mut FeatureState) {
    crate::ledger::refresh(
        &ctx.project.paths.events_file(&ctx.feature),
        &ctx.project.config,
        state,
    );
}

/// Sums two optional costs.
pub(crate) fn sum_cost(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// Gives a task this run still owns back after an unexpected error: INTERRUPTED (the next
/// run retries it) with the error as the last failure. Best effort.
pub(crate) fn release_after_error(ctx: &RunContext<'_>, issue: u32, owner: &str, error: &str) {
    let _ = with_txn(ctx, |txn| {
        if let Some(t) = owned(txn.state_mut(), issue, owner)
            && t.interrupt().is_ok()
        {
            t.last_failure = Some(error.to_string());
        }
        Ok(())
    });
}

/// BLOCKED at once, without using a retry: the candidates disagree
/// (docs/coordination.md "Many candidates, one result", with the mode that ran) or the review could
/// not run and `review.on_error: block` (docs/review.md).
pub(super) fn block_now(
    ctx: &RunContext<'_>,
    issue: u32,
    owner: &str,
    reason: String,
    mode: Option<&str>,
) -> CmdResult<crate::run::Outcome> {
    with_txn(ctx, |txn| {
        // the task's cost holds the attempt's agents (the ledger reads their events)
        fold_spend(ctx, txn.state_mut());
        let Some(t) = owned(txn.state_mut(), issue, owner) else {
            return Ok(crate::run::Outcome::Lost {
                reason: "another run took the issue over".into(),
            });
        };
        if let Some(mode) = mode {
            t.last_mode = Some(mode.to_string());
        }
        let blocked = t.block(reason.clone()).ok();
        txn.events_mut().extend(blocked);
        crate::core::readiness::recompute(txn.state_mut());
        Ok(crate::run::Outcome::Blocked { reason })
    })
}
