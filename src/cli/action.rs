//! `swarm-attack action`: the GitHub Action entry point. Writes the step summary, the
//! outputs (`handled`, `issues-done`, `issues-blocked`, and `report` — the HTML report's
//! path — when agents ran) and annotations for problems.

use crate::app::action::{self, ActionEnv, ActionOutcome};
use crate::app::project::Project;
use crate::cli::GlobalArgs;
use crate::core::feature_id::FeatureId;
use crate::error::CmdResult;
use crate::io::gh_actions;
use crate::io::ui::Ui;
use clap::Args;

#[derive(Debug, Args)]
pub struct ActionArgs {
    /// Run agents for triggered issues (also: input `run-agents`, `github.run_agents`).
    #[arg(long)]
    pub run_agents: bool,
}

fn join(ns: &[u64]) -> String {
    ns.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

fn write_report(ui: &Ui, out: &ActionOutcome) {
    let outputs = [
        ("handled", out.handled.to_string()),
        ("issues-done", join(&out.issues_done)),
        ("issues-blocked", join(&out.issues_blocked)),
    ];
    if let Err(e) = gh_actions::write_outputs(&outputs) {
        gh_actions::warning(ui, &format!("could not write GITHUB_OUTPUT: {e}"));
    }
    if let Err(e) = gh_actions::append_summary(&out.summary_markdown()) {
        gh_actions::warning(ui, &format!("could not write GITHUB_STEP_SUMMARY: {e}"));
    }
}

/// Writes the HTML report of each feature the Action ran (a workflow artifact: output
/// `report`, the path of the last one) and returns the step-summary Markdown of each
/// (compact timeline and totals). A report that cannot be written is a warning, never a
/// failed run.
fn write_run_reports(project: &Project, features: &[FeatureId]) -> Vec<String> {
    let ui = &project.ui;
    let mut summaries = Vec::new();
    for feature in features {
        match crate::app::report::for_step_summary(project, feature) {
            Ok((path, md)) => {
                let outputs = [("report", path.display().to_string())];
                if let Err(e) = gh_actions::write_outputs(&outputs) {
                    gh_actions::warning(ui, &format!("could not write GITHUB_OUTPUT: {e}"));
                }
                summaries.push(md);
            }
            Err(e) => gh_actions::warning(
                ui,
                &format!("could not write the report of `{feature}`: {}", e.message),
            ),
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
    .any(|var| crate::io::env::var(var).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true")))
}

pub fn run(g: &GlobalArgs, ui: &Ui, a: ActionArgs) -> CmdResult<u8> {
    let result = (|| -> CmdResult<(ActionOutcome, Vec<String>)> {
        let project = g.open(ui)?;
        let run_agents =
            a.run_agents || input_true("RUN-AGENTS") || project.config.github.run_agents;
        let event = action::read_event(&ActionEnv::from_env())?;
        let gh = crate::app::github::live::port(&project)?;
        let mut out = action::handle(&project, &event, gh.as_ref(), run_agents)?;
        let mut reports = Vec::new();
        if run_agents && !out.to_run.is_empty() {
            let mut features: Vec<FeatureId> = out.to_run.iter().map(|(f, _)| f.clone()).collect();
            features.dedup();
            crate::app::action::triggered::run_triggered(
                &project,
                gh.as_ref(),
                &mut out,
                &|p: &crate::app::run::Progress| crate::cli::run::print_progress(ui, p),
            )?;
            reports = write_run_reports(&project, &features);
        }
        Ok((out, reports))
    })();
    match result {
        Ok((out, reports)) => {
            write_report(ui, &out);
            for md in reports {
                if let Err(e) = gh_actions::append_summary(&md) {
                    gh_actions::warning(ui, &format!("could not write GITHUB_STEP_SUMMARY: {e}"));
                }
            }
            ui.outln(format_args!("{}", out.summary_markdown()));
            Ok(0)
        }
        Err(e) => {
            gh_actions::error(ui, &e.message);
            let out = ActionOutcome {
                ui: ui.clone(),
                event: crate::io::env::var("GITHUB_EVENT_NAME").unwrap_or_default(),
                notes: vec![format!("error: {}", e.message)],
                ..Default::default()
            };
            write_report(ui, &out);
            Err(e)
        }
    }
}
