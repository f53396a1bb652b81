//! The `issues` events of the Action (docs/action.md "What each event does"): a labeled,
//! opened or reopened issue registered as a task, a closed one skipped, an edit's snapshot
//! refreshed when its author is trusted, and the specify gate (docs/gates.md "The specify gate")
//! on the task's new text.

use super::{
    ActionOutcome, GithubPort, begin_named, collect_outputs, is_trusted, log_received, received,
    report, upsert_task,
};
use crate::core::action::{self, ActionEvent, IssueSnapshot};
use crate::core::feature_id::FeatureId;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::CmdResult;
use crate::project::{FeatureTxn, Project};

#[allow(clippy::too_many_arguments)]
pub(super) fn on_issue(
    project: &Project,
    event: &ActionEvent,
    action_name: &str,
    issue: &IssueSnapshot,
    gh: &dyn GithubPort,
    run_agents: bool,
    out: &mut ActionOutcome,
) -> CmdResult<()> {
    let gcfg = &project.config.github;
    let named = action::feature_from_labels(&issue.labels, &gcfg.default_feature);
    if issue.is_pull_request {
        out.note(format!(
            "#{} is a pull request; nothing to do",
            issue.number
        ));
        return log_received(project, event, &named, false);
    }
    let triggered = action::has_trigger_label(&issue.labels, &gcfg.trigger_label);
    let (feature, prepared, mut txn) = begin_named(project, &named)?;
    let tracked = txn
        .state()
        .tasks
        .iter()
        .any(|t| t.github_issue == Some(issue.number));
    let number;
    match action_name {
        "opened" | "labeled" | "reopened" if triggered => {
            number = upsert_task(&mut txn, issue, true);
            crate::sync::sync_txn(&mut txn, &prepared)?;
            if action_name == "reopened"
                && let Some(t) = txn.state_mut().task_mut(number)
                && let Ok(reopened) = t.reopen()
            {
                txn.push_event(reopened);
            }
            readiness::recompute(txn.state_mut());
            let note = specify_gate(project, &feature, &mut txn, number)
                .unwrap_or_else(|| "registered".into());
            report(out, &feature, &txn, number, &note);
            if run_agents
                && txn
                    .state()
                    .task(number)
                    .is_some_and(|t| t.stage() == &Stage::Ready)
            {
                out.to_run.push((feature.clone(), number));
            }
        }
        "closed" if tracked || triggered => {
            number = upsert_task(&mut txn, issue, false);
            crate::sync::sync_txn(&mut txn, &prepared)?;
            let closer = event.sender.login.clone();
            if let Some(t) = txn.state_mut().task_mut(number)
                && let Ok(skipped) = t.skip(format!(
                    "closed on GitHub by @{closer} without an implementing commit"
                ))
            {
                txn.push_event(skipped);
            }
            readiness::recompute(txn.state_mut());
            report(out, &feature, &txn, number, "closed");
        }
        "edited" if tracked || (triggered && has_needs_info_label(issue)) => {
            let (trusted, why) = is_trusted(gh, &event.sender.login, "")?;
            number = upsert_task(&mut txn, issue, trusted);
            let mut note = if trusted {
                "body snapshot refreshed".to_string()
            } else {
                format!(
                    "edit by @{} not trusted ({why}); snapshot kept",
                    event.sender.login
                )
            };
            crate::sync::sync_txn(&mut txn, &prepared)?;
            readiness::recompute(txn.state_mut());
            if trusted && let Some(gated) = specify_gate(project, &feature, &mut txn, number) {
                note = format!("{note}; {gated}");
            }
            report(out, &feature, &txn, number, &note);
            if run_agents
                && trusted
                && txn
                    .state()
                    .task(number)
                    .is_some_and(|t| t.stage() == &Stage::Ready && t.attempts == 0)
            {
                out.to_run.push((feature.clone(), number));
            }
        }
        _ => {
            out.note(format!(
                "issues.{action_name} on #{}: {}",
                issue.number,
                if triggered || tracked {
                    "nothing to do"
                } else {
                    "no trigger label; not a swarm issue"
                }
            ));
            drop(txn);
            return log_received(project, event, &feature, false);
        }
    }
    out.handled = true;
    txn.push_event(received(event, true));
    collect_outputs(out, &txn);
    txn.commit()?;
    gh.sync(project, &feature, &[issue.number])
}

fn has_needs_info_label(issue: &IssueSnapshot) -> bool {
    let name = crate::core::github_status::NEEDS_INFO_LABEL.name;
    issue.labels.iter().any(|l| l == name)
}

/// The specify gate (docs/gates.md "The specify gate") for the task of a registered or edited
/// issue: a READY task never dispatched, or one held for info, whose current text has no score is
/// scored now (the issue text is the event's snapshot). Returns the note for the report, if it
/// scored.
fn specify_gate(
    project: &Project,
    feature: &FeatureId,
    txn: &mut FeatureTxn<'_>,
    number: u32,
) -> Option<String> {
    let task = txn.state().task(number)?.clone();
    if crate::gates::to_rescore(project, std::slice::from_ref(&task), true).is_empty() {
        return None;
    }
    let rec = crate::gates::score(project, feature, &task);
    let notices = crate::gates::record(txn, vec![(number, rec)]);
    let t = txn.state().task(number)?;
    let score = t
        .specify
        .as_ref()
        .map(|r| r.score_text())
        .unwrap_or_default();
    Some(
        match (
            crate::core::gates::specify::is_needs_info(t),
            notices.first(),
        ) {
            (true, _) => format!("needs info ({score})"),
            (false, Some(n)) if n.contains("no valid score") => n.clone(),
            _ => format!("specification scored {score}"),
        },
    )
}
