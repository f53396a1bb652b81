//! The Action with `run-agents`: runs the issues the event asked for, pushes what landed,
//! and mirrors the result to GitHub through the Action's port.

use crate::action::{ActionOutcome, GithubPort};
use crate::error::CmdResult;
use crate::io::gh_actions;
use crate::project::Project;
use crate::run::{self as run_app, Outcome, Progress, RunOptions};

/// Runs the issues the event asked for (with `run-agents`), pushes what landed, and mirrors
/// the result to GitHub.
pub fn run_triggered(
    project: &Project,
    gh: &dyn GithubPort,
    out: &mut ActionOutcome,
    progress: &(dyn Fn(&Progress) + Sync),
) -> CmdResult<()> {
    let mut landed = false;
    let mut failed = false;
    for (feature, issue) in std::mem::take(&mut out.to_run) {
        let opts = RunOptions {
            issue: Some(issue),
            workers: 1,
            ..Default::default()
        };
        let report = run_app::run(project, &feature, &opts, progress)?;
        for r in &report.results {
            let what = match &r.outcome {
                Outcome::Done { commit, .. } => {
                    landed = true;
                    format!("implemented in {}", &commit[..commit.len().min(10)])
                }
                Outcome::Blocked { reason } => {
                    failed = true;
                    format!("BLOCKED: {reason}")
                }
                other => format!("{:?}", other).chars().take(120).collect(),
            };
            out.notes.push(format!("run #{}: {what}", r.issue));
        }
        if report.breaker.is_some() {
            failed = true;
        }
        if landed {
            let token = crate::io::secrets::get("GITHUB_TOKEN")
                .or_else(|| crate::io::secrets::get("GH_TOKEN"));
            let server = crate::io::env::var("GITHUB_SERVER_URL")
                .unwrap_or_else(|_| "https://github.com".into());
            let branch = report
                .branch
                .clone()
                .unwrap_or_else(|| project.config.git.base_branch.clone());
            if let Err(e) = crate::io::git::push::push_head(
                &project.root,
                &branch,
                token.as_deref(),
                &server,
                crate::io::git::Hooks::from_config(project.config.git.run_hooks),
            ) {
                gh_actions::error(
                    &project.ui,
                    &format!(
                        "could not push the implemented issues to `{branch}`: {}",
                        e.message()
                    ),
                );
                failed = true;
            } else {
                out.notes
                    .push(format!("pushed the implementing commits to `{branch}`"));
            }
        }
        gh.sync(project, &feature, &[])?;
        if let Ok(Some(state)) = crate::io::state_store::load(&project.paths.state_file(&feature)) {
            for t in &state.tasks {
                let Some(g) = t.github_issue else { continue };
                match t.stage() {
                    crate::core::stage::Stage::Done => out.issues_done.push(g),
                    crate::core::stage::Stage::Blocked => out.issues_blocked.push(g),
                    _ => {}
                }
            }
        }
    }
    for v in [&mut out.issues_done, &mut out.issues_blocked] {
        v.sort_unstable();
        v.dedup();
    }
    if failed {
        gh_actions::warning(
            &project.ui,
            "an issue run by the Action did not finish DONE; see the step summary",
        );
    }
    Ok(())
}
