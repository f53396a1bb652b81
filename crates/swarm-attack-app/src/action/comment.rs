//! The `/swarm <command>` comments of the Action (docs/action.md "What each event does"): parsing,
//! the author's write access, and `status`, `plan`, `retry`, `unblock`, `skip` applied to the task.

use super::{
    ActionOutcome, GithubPort, begin_named, collect_outputs, is_trusted, log_received, received,
    report, upsert_task,
};
use crate::core::action::{self, ActionEvent, IssueSnapshot, SwarmCommand};
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::CmdResult;
use crate::project::Project;

#[allow(clippy::too_many_arguments)]
pub(super) fn on_comment(
    project: &Project,
    event: &ActionEvent,
    action_name: &str,
    issue: &IssueSnapshot,
    body: &str,
    author: &str,
    association: &str,
    gh: &dyn GithubPort,
    run_agents: bool,
    out: &mut ActionOutcome,
) -> CmdResult<()> {
    let named = action::feature_from_labels(&issue.labels, &project.config.github.default_feature);
    let command = match (action_name, action::parse_command(body)) {
        ("created", Some(Ok(c))) => c,
        ("created", Some(Err(word))) => {
            out.note(format!("unknown command `/swarm {word}` from @{author}; known: status, plan, retry, unblock, skip"));
            return log_received(project, event, &named, false);
        }
        _ => {
            out.note("the comment holds no `/swarm` command; nothing to do");
            return Ok(());
        }
    };
    if issue.is_pull_request {
        // `issue_comment` fires for pull requests too; they are never tasks
        out.note(format!(
            "#{} is a pull request; `/swarm {}` applies to issues only",
            issue.number,
            command.as_str()
        ));
        return log_received(project, event, &named, false);
    }
    let (trusted, why) = is_trusted(gh, author, association)?;
    if !trusted {
        out.note(format!(
            "ignored `/swarm {}` from @{author}: no write access ({why})",
            command.as_str()
        ));
        return log_received(project, event, &named, false);
    }
    let (feature, prepared, mut txn) = begin_named(project, &named)?;
    let tracked = txn
        .state()
        .tasks
        .iter()
        .any(|t| t.github_issue == Some(issue.number));
    if !tracked && !action::has_trigger_label(&issue.labels, &project.config.github.trigger_label) {
        out.note(format!(
            "#{} is not a swarm issue (no `{}` label)",
            issue.number, project.config.github.trigger_label
        ));
        drop(txn);
        return log_received(project, event, &named, false);
    }
    let number = upsert_task(&mut txn, issue, !tracked);
    crate::sync::sync_txn(&mut txn, &prepared)?;
    let stage = txn
        .state()
        .task(number)
        .map(|t| t.stage().clone())
        .unwrap_or(Stage::Backlog);
    let note = match command {
        SwarmCommand::Status => format!("status: {stage}"),
        SwarmCommand::Plan => {
            let task = txn.state().task(number).cloned();
            match task {
                Some(t) => {
                    let d = crate::plan::decide_for_task(project, &feature, &t);
                    let note = format!(
                        "plan: {} with {}{} — {}",
                        d.mode.as_str(),
                        d.winner,
                        d.runner_up
                            .as_deref()
                            .map(|r| format!(" and {r}"))
                            .unwrap_or_default(),
                        d.reason
                    );
                    txn.push_event(d.event(number));
                    note
                }
                None => "plan: no task".into(),
            }
        }
        SwarmCommand::Retry | SwarmCommand::Unblock => {
            if matches!(stage, Stage::Blocked | Stage::Skipped | Stage::Interrupted) {
                txn.change_task(number, |t| t.unblock().ok());
                readiness::recompute(txn.state_mut());
                if command == SwarmCommand::Retry && run_agents {
                    out.to_run.push((feature.clone(), number));
                }
                format!(
                    "{}: {stage} → {}",
                    command.as_str(),
                    txn.state()
                        .task(number)
                        .map(|t| t.stage().to_string())
                        .unwrap_or_default()
                )
            } else {
                format!("{}: the issue is {stage}; nothing to do", command.as_str())
            }
        }
        SwarmCommand::Skip => {
            if matches!(stage, Stage::Done | Stage::Skipped) {
                format!("skip: the issue is {stage}; nothing to do")
            } else {
                txn.change_task(number, |t| {
                    t.skip(format!("skipped by @{author} with /swarm skip"))
                        .ok()
                });
                readiness::recompute(txn.state_mut());
                format!("skip: {stage} → SKIPPED")
            }
        }
    };
    report(out, &feature, &txn, number, &note);
    out.handled = true;
    txn.push_event(received(event, true));
    collect_outputs(out, &txn);
    txn.commit()?;
    gh.sync(project, &feature, &[issue.number])
}
