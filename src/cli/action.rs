//! `swarm-attack action`: the GitHub Action entry point. Writes the step summary, the
//! outputs (`handled`, `issues-done`, `issues-blocked`) and annotations for problems.

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

pub fn run(g: &GlobalArgs, a: ActionArgs) -> CmdResult<u8> {
    let result = (|| {
        let project = g.open()?;
        let run_agents = a.run_agents || project.config.github.run_agents;
        let event = action::read_event(&ActionEnv::from_env())?;
        let gh = github_port(&project)?;
        action::handle(&project, &event, gh.as_ref(), run_agents)
    })();
    match result {
        Ok(out) => {
            write_report(&out);
            println!("{}", out.summary_markdown());
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
