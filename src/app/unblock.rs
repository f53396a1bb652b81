//! `unblock <feature> --issue N`: BLOCKED/SKIPPED/INTERRUPTED → READY (or BACKLOG when a
//! dependency is not DONE), retries and reason cleared.

use crate::app::project::Project;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::{CmdResult, CommandError};

#[derive(Debug, serde::Serialize)]
pub struct UnblockReport {
    pub issue: u32,
    pub from: String,
    pub to: String,
}

pub fn unblock(project: &Project, feature: &str, issue: u32) -> CmdResult<UnblockReport> {
    let (mut txn, _) = crate::app::sync::open_synced(project, feature)?;
    let state_file = project.paths.display(&project.paths.state_file(feature));
    let Some(task) = txn.state.task_mut(issue) else {
        return Err(CommandError::input(format!(
            "feature `{feature}` has no issue {issue} ({state_file})"
        )));
    };
    let from = task.stage.clone();
    if !matches!(from, Stage::Blocked | Stage::Skipped | Stage::Interrupted) {
        return Err(CommandError::input(format!(
            "issue {issue} of `{feature}` is {from}, not BLOCKED, SKIPPED or INTERRUPTED; nothing to unblock"
        )));
    }
    let unblocked = task
        .unblock()
        .map_err(|e| CommandError::internal(e.to_string()))?;
    readiness::recompute(&mut txn.state);
    let to = txn
        .state
        .task(issue)
        .map(|t| t.stage.to_string())
        .unwrap_or_default();
    txn.events.push(unblocked);
    txn.mirror_after_commit();
    txn.commit()?;
    Ok(UnblockReport {
        issue,
        from: from.to_string(),
        to,
    })
}
