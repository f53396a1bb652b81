//! `swarm-attack action`: the GitHub Action entry point. Writes the step summary, the
//! outputs (`handled`, `issues-done`, `issues-blocked`) and annotations for problems.

use crate::app::action::{self, ActionEnv, ActionOutcome};
use crate::cli::GlobalArgs;
use crate::error::CmdResult;
use crate::io::gh_actions;
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

pub fn run(g: &GlobalArgs, a: ActionArgs) -> CmdResult<u8> {
    let result = (|| -> CmdResult<ActionOutcome> {
        let project = g.open()?;
        let run_agents =
            a.run_agents || input_true("RUN-AGENTS") || project.config.github.run_agents;
        let event = action::read_event(&ActionEnv::from_env())?;
        let gh = crate::app::github::live::port(&project)?;
        let mut out = action::handle(&project, &event, gh.as_ref(), run_agents)?;
        if run_agents && !out.to_run.is_empty() {
            crate::app::action::triggered::run_triggered(
                &project,
                gh.as_ref(),
                &mut out,
                &|p: &crate::app::run::Progress| crate::cli::run::print_progress(p),
            )?;
        }
        Ok(out)
    })();
    match result {
        Ok(out) => {
            write_report(&out);
            crate::outln!("{}", out.summary_markdown());
            Ok(0)
        }
        Err(e) => {
            gh_actions::error(&e.message);
            let out = ActionOutcome {
                event: crate::io::env::var("GITHUB_EVENT_NAME").unwrap_or_default(),
                notes: vec![format!("error: {}", e.message)],
                ..Default::default()
            };
            write_report(&out);
            Err(e)
        }
    }
}
