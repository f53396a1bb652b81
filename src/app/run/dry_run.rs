//! `run --dry-run`: what would run, in which order, with which agent — computed on an
//! in-memory copy of the state after the git sync, assuming every issue succeeds. Nothing
//! is written (no state, no event, no worktree, no test run).

use crate::app::plan;
use crate::app::project::Project;
use crate::app::run::claim;
use crate::app::run::{RunOptions, RunReport};
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::{CmdResult, CommandError};
use serde::Serialize;

/// One issue the run would dispatch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedIssue {
    pub issue: u32,
    pub title: String,
    /// Issues of this plan it waits for.
    pub after: Vec<u32>,
    pub agent: String,
    pub mode: String,
    /// Resumed after an interrupted run.
    pub resumed: bool,
    /// The attempt number it would start.
    pub attempt: u32,
}

/// The plan of a dry run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    pub steps: Vec<PlannedIssue>,
    /// Tasks IN_PROGRESS now (another run, or a crashed one that the next run recovers).
    pub in_progress: Vec<u32>,
}

pub fn plan(project: &Project, feature: &str, opts: &RunOptions) -> CmdResult<RunReport> {
    let (txn, _) = crate::app::sync::open_synced(project, feature)?;
    let mut state = txn.state.clone();
    drop(txn); // nothing is committed
    readiness::recompute(&mut state);
    if let Some(n) = opts.issue
        && state.task(n).is_none()
    {
        return Err(CommandError::input(format!(
            "feature `{feature}` has no issue {n}"
        )));
    }
    let in_progress: Vec<u32> = state
        .tasks
        .iter()
        .filter(|t| t.stage == Stage::InProgress)
        .map(|t| t.issue_number)
        .collect();
    let mut steps: Vec<PlannedIssue> = Vec::new();
    let limit = opts.max_issues.map(|k| k as usize).unwrap_or(usize::MAX);
    while steps.len() < limit {
        let next = match opts.issue {
            Some(n) => state
                .task(n)
                .filter(|t| {
                    readiness::dispatchable(&state, t) && !steps.iter().any(|s| s.issue == n)
                })
                .map(|_| n),
            None => readiness::next_dispatchable(&state),
        };
        let Some(n) = next else { break };
        let Some(t) = state.task(n).cloned() else {
            break;
        };
        let decision = plan::decide_for_task(project, feature, &t);
        steps.push(PlannedIssue {
            issue: n,
            title: t.title.clone(),
            after: t
                .dependencies
                .iter()
                .copied()
                .filter(|d| steps.iter().any(|s| s.issue == *d))
                .collect(),
            agent: decision.winner.clone(),
            mode: decision.mode.as_str().to_string(),
            resumed: t.stage == Stage::Interrupted,
            attempt: t.attempts + 1,
        });
        // planned as if it were DONE, so its dependents follow (a preview, never saved)
        if let Some(tm) = state.task_mut(n) {
            *tm = tm.as_done();
        }
        readiness::recompute(&mut state);
    }
    let nothing = steps.is_empty().then(|| {
        opts.issue
            .and_then(|n| state.task(n).map(|t| format!("issue {n} is {}", t.stage)))
            .unwrap_or_else(|| claim::nothing_reason(&state))
    });
    Ok(RunReport {
        feature: feature.to_string(),
        branch: None,
        results: Vec::new(),
        nothing_to_do: nothing,
        breaker: None,
        plan: Some(Plan { steps, in_progress }),
    })
}
