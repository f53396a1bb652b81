//! `unblock <feature> --issue N`: BLOCKED/SKIPPED/INTERRUPTED → READY (or BACKLOG when a
//! dependency is not DONE), retries, reason and last failure cleared; a READY or BACKLOG
//! issue keeps its stage and gets its retries and last failure reset.

use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::{CmdResult, CommandError};
use crate::project::Project;

#[derive(Debug, serde::Serialize)]
pub struct UnblockReport {
    pub issue: u32,
    pub from: String,
    pub to: String,
    /// USD added to the issue's budget (`--budget +USD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_raised_usd: Option<f64>,
}

/// Parses `--budget`'s `+USD` (a leading `+` is optional): a finite amount > 0.
pub fn parse_raise(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let n = t.strip_prefix('+').unwrap_or(t).trim_start_matches('$');
    match n.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{t}` is not an amount to add; give USD greater than 0, e.g. +2.50"
        )),
    }
}

pub fn unblock(
    project: &Project,
    feature: &FeatureId,
    issue: u32,
    raise_usd: Option<f64>,
) -> CmdResult<UnblockReport> {
    let (mut txn, _) = crate::sync::open_synced(project, feature)?;
    let state_file = project.paths.display(&project.paths.state_file(feature));
    let (state, events) = txn.state_and_events();
    let Some(task) = state.task_mut(issue) else {
        return Err(CommandError::input(format!(
            "feature `{feature}` has no issue {issue} ({state_file})"
        )));
    };
    let from = task.stage().clone();
    if let Some(usd) = raise_usd {
        events.push(Event::BudgetRaised { issue, usd });
        if !matches!(from, Stage::Blocked | Stage::Skipped | Stage::Interrupted) {
            // only the limit changes
            txn.commit()?;
            return Ok(UnblockReport {
                issue,
                from: from.to_string(),
                to: from.to_string(),
                budget_raised_usd: Some(usd),
            });
        }
    }
    // READY / BACKLOG: the retries and the last failure are reset (e.g. after a setup
    // problem was fixed), the stage is recomputed
    if !matches!(
        from,
        Stage::Blocked | Stage::Skipped | Stage::Interrupted | Stage::Ready | Stage::Backlog
    ) {
        return Err(CommandError::input(format!(
            "issue {issue} of `{feature}` is {from}, not BLOCKED, SKIPPED, INTERRUPTED, READY or BACKLOG; nothing to unblock"
        )));
    }
    let unblocked = task.unblock()?;
    readiness::recompute(txn.state_mut());
    let to = txn
        .state()
        .task(issue)
        .map(|t| t.stage().to_string())
        .unwrap_or_default();
    txn.push_event(unblocked);
    txn.mirror_after_commit();
    txn.commit()?;
    Ok(UnblockReport {
        issue,
        from: from.to_string(),
        to,
        budget_raised_usd: raise_usd,
    })
}
