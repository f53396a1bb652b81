//! `run --dry-run`: what would run, in which order, with which agent — computed on an
//! in-memory copy of the state after the git sync, assuming every issue succeeds. Nothing
//! is written (no state, no event, no worktree, no test run).

use crate::core::feature_id::FeatureId;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::{CmdResult, CommandError};
use crate::plan;
use crate::project::Project;
use crate::run::claim;
use crate::run::{RunOptions, RunReport};
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
    /// With `budgets.issue_usd`/`feature_usd`: the most this issue can still cost if every
    /// attempt stops at the remaining budget (what Claude Code enforces with
    /// `--max-budget-usd`; other agents may overshoot by one attempt). Spent so far, and
    /// attempts still allowed by `max_implementation_retries`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_case_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spent_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts_left: Option<u32>,
}

/// The plan of a dry run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    pub steps: Vec<PlannedIssue>,
    /// With USD budgets: the most the whole plan can still cost (the feature's remaining
    /// budget caps the sum of the issues').
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_case_usd: Option<f64>,
    /// Tasks IN_PROGRESS now (another run, or a crashed one that the next run recovers).
    pub in_progress: Vec<u32>,
}

pub(crate) fn plan(
    project: &Project,
    feature: &FeatureId,
    opts: &RunOptions,
) -> CmdResult<RunReport> {
    let (txn, _) = crate::sync::open_synced(project, feature)?;
    let mut state = txn.state().clone();
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
        .filter(|t| t.stage() == &Stage::InProgress)
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
            resumed: t.stage() == &Stage::Interrupted,
            attempt: t.attempts + 1,
            worst_case_usd: None,
            spent_usd: None,
            attempts_left: None,
        });
        // planned as if it were DONE, so its dependents follow (a preview, never saved)
        if let Some(tm) = state.task_mut(n) {
            *tm = tm.as_done();
        }
        readiness::recompute(&mut state);
    }
    let nothing = steps.is_empty().then(|| {
        opts.issue
            .and_then(|n| state.task(n).map(|t| format!("issue {n} is {}", t.stage())))
            .unwrap_or_else(|| claim::nothing_reason(&state))
    });
    let worst_case_usd = estimate(project, feature, &mut state, &mut steps);
    Ok(RunReport {
        feature: feature.to_string(),
        branch: None,
        results: Vec::new(),
        nothing_to_do: nothing,
        breaker: None,
        plan: Some(Plan {
            steps,
            worst_case_usd,
            in_progress,
        }),
    })
}

/// The worst-case spend under the USD limits (docs/budgets.md): per issue, what remains of
/// its budget (each attempt stopping at the remaining budget); the feature's remaining
/// budget caps the total. `None` without USD limits.
fn estimate(
    project: &Project,
    feature: &FeatureId,
    state: &mut crate::core::state::FeatureState,
    steps: &mut [PlannedIssue],
) -> Option<f64> {
    use crate::core::budget;
    let limits = &project.config.budgets;
    if limits.issue_usd.is_none() && limits.feature_usd.is_none() {
        return None;
    }
    let events_file = project.paths.events_file(feature);
    crate::ledger::refresh(&events_file, &project.config, state);
    let ledger = state.ledger.clone().unwrap_or_default();
    let max = project.config.sessions.max_implementation_retries + 1;
    let mut total = 0.0;
    for s in steps.iter_mut() {
        let spend = ledger.issue(s.issue);
        let used = state.task(s.issue).map_or(0, |t| t.retries);
        s.spent_usd = Some(spend.usd);
        s.attempts_left = Some(max.saturating_sub(used));
        let issue_left = limits.issue_usd.map(|base| {
            (base + ledger.raised_usd.get(&s.issue).copied().unwrap_or(0.0) - spend.usd).max(0.0)
        });
        s.worst_case_usd = issue_left;
        total += issue_left.unwrap_or(f64::INFINITY);
    }
    let feature_left = budget::remaining_usd(
        &ledger,
        &budget::Limits {
            issue_usd: None,
            ..*limits
        },
        0,
    );
    Some(match feature_left {
        Some(f) => total.min(f),
        None => total,
    })
    .filter(|v| v.is_finite())
}
