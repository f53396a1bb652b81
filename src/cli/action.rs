//! `swarm-attack action`: the GitHub Action entry point. Writes the step summary, the
//! outputs (`handled`, `issues-done`, `issues-blocked`, and `report` — the HTML report's
//! path — when agents ran) and annotations for problems.

use crate::app::action::{self, ActionEnv, ActionOutcome, GithubPort};
use crate::app::project::Project;
use crate::cli::GlobalArgs;
use crate::cli::stubs::ActionArgs;
use crate::core::action::IssueSnapshot;
use crate::error::CmdResult;
use crate::io::gh_actions;

/// Stand-in used when no GitHub client is available: reads nothing, trusts nobody by
/// permission, writes nothing.
struct OfflineGithub;

impl GithubPort for OfflineGithub {
    fn permission(&self, _user: &str) -> CmdResult<String> {
        Ok("none".into())
    }
    fn labeled_issues(&self, _label: &str) -> CmdResult<Vec<IssueSnapshot>> {
        Ok(Vec::new())
    }
    fn sync(&self, _project: &Project, _feature: &str, _only: &[u64]) -> CmdResult<()> {
        crate::io::notice::info(
            "GitHub is not configured (no token or repository); labels and comments not updated",
        );
        Ok(())
    }
}

fn github_port(project: &Project) -> CmdResult<Box<dyn GithubPort>> {
    Ok(
        match crate::app::github_live::LiveGithub::connect(project)? {
            Some(live) => Box::new(live),
            None => Box::new(OfflineGithub),
        },
    )
}

/// Runs the issues the event asked for (with `run-agents`), pushes what landed, and mirrors
/// the result to GitHub.
fn run_triggered(project: &Project, gh: &dyn GithubPort, out: &mut ActionOutcome) -> CmdResult<()> {
    use crate::app::run::{self as run_app, Outcome, RunOptions};
    let mut landed = false;
    let mut failed = false;
    for (feature, issue) in std::mem::take(&mut out.to_run) {
        let opts = RunOptions {
            issue: Some(issue),
            workers: 1,
            ..Default::default()
        };
        let report = run_app::run(project, &feature, &opts, &|p: &run_app::Progress| {
            crate::cli::run::print_progress(p)
        })?;
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
            let server =
                std::env::var("GITHUB_SERVER_URL").unwrap_or_else(|_| "https://github.com".into());
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
                gh_actions::error(&format!(
                    "could not push the implemented issues to `{branch}`: {}",
                    e.message()
                ));
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
                match t.stage {
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
        gh_actions::warning("an issue run by the Action did not finish DONE; see the step summary");
    }
    Ok(())
}

fn join(ns: &[u64]) -> String {
    ns.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

fn write_report(out: &ActionOutcome) {
    let outputs = [
        ("handled", out.handled.to_string()),
        ("issues-done", join(&out.issues_done)),
        ("issues-blocked", join(&out.issues_blocked)),
    ];
    if let Err(e) = gh_actions::write_outputs(&outputs) {
        gh_actions::warning(&format!("could not write GITHUB_OUTPUT: {e}"));
    }
    if let Err(e) = gh_actions::append_summary(&out.summary_markdown()) {
        gh_actions::warning(&format!("could not write GITHUB_STEP_SUMMARY: {e}"));
    }
}

/// Writes the HTML report of each feature the Action ran (a workflow artifact: output
/// `report`, the path of the last one) and returns the step-summary Markdown of each
/// (compact timeline and totals). A report that cannot be written is a warning, never a
/// failed run.
fn write_run_reports(project: &Project, features: &[String]) -> Vec<String> {
    let mut summaries = Vec::new();
    for feature in features {
        match crate::app::report::for_step_summary(project, feature) {
            Ok((path, md)) => {
                let outputs = [("report", path.display().to_string())];
                if let Err(e) = gh_actions::write_outputs(&outputs) {
                    gh_actions::warning(&format!("could not write GITHUB_OUTPUT: {e}"));
                }
                summaries.push(md);
            }
            Err(e) => gh_actions::warning(&format!(
                "could not write the report of `{feature}`: {}",
                e.message
            )),
        }
    }
    summaries
}

/// An Action input set to `true` in the environment, as the runner passes inputs to
/// JavaScript and container actions (`INPUT_RUN-AGENTS`; `INPUT_RUN_AGENTS` also accepted).
fn input_true(name: &str) -> bool {
    [
        format!("INPUT_{name}"),
        format!("INPUT_{}", name.replace('-', "_")),
    ]
    .iter()
    .any(|var| std::env::var(var).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true")))
}

pub fn run(g: &GlobalArgs, a: ActionArgs) -> CmdResult<u8> {
    let result = (|| -> CmdResult<(ActionOutcome, Vec<String>)> {
        let project = g.open()?;
        let run_agents =
            a.run_agents || input_true("RUN-AGENTS") || project.config.github.run_agents;
        let event = action::read_event(&ActionEnv::from_env())?;
        let gh = github_port(&project)?;
        let mut out = action::handle(&project, &event, gh.as_ref(), run_agents)?;
        let mut reports = Vec::new();
        if run_agents && !out.to_run.is_empty() {
            let mut features: Vec<String> = out.to_run.iter().map(|(f, _)| f.clone()).collect();
            features.dedup();
            run_triggered(&project, gh.as_ref(), &mut out)?;
            reports = write_run_reports(&project, &features);
        }
        Ok((out, reports))
    })();
    match result {
        Ok((out, reports)) => {
            write_report(&out);
            for md in reports {
                if let Err(e) = gh_actions::append_summary(&md) {
                    gh_actions::warning(&format!("could not write GITHUB_STEP_SUMMARY: {e}"));
                }
            }
            crate::outln!("{}", out.summary_markdown());
            Ok(0)
        }
        Err(e) => {
            gh_actions::error(&e.message);
            let out = ActionOutcome {
                event: std::env::var("GITHUB_EVENT_NAME").unwrap_or_default(),
                notes: vec![format!("error: {}", e.message)],
                ..Default::default()
            };
            write_report(&out);
            Err(e)
        }
    }
}
