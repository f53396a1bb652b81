//! `swarm-attack demo [--dir DIR]`: builds the throw-away example repository and runs the
//! main job on it, offline — greenlight, run (2 workers), status, audit — printing what
//! happened, and ends by writing the HTML report and printing its path.

use crate::app::demo as demo_app;
use crate::app::project::{Project, ProjectOptions};
use crate::app::run::{self as run_app, Outcome, RunOptions};
use crate::app::{greenlight, status};
use crate::cli::GlobalArgs;
use crate::cli::feature_cmds::print_tasks;
use crate::core::feature_id::FeatureId;
use crate::core::stage::Stage;
use crate::error::{CmdResult, CommandError};
use crate::io::ui::Ui;
use clap::Args;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Build the demo repository here instead of a temp dir (kept afterwards).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

pub fn demo(g: &GlobalArgs, ui: &Ui, a: DemoArgs) -> CmdResult<u8> {
    let _ = g;
    let started = std::time::Instant::now();
    let root = demo_app::demo_dir(a.dir.as_deref())?;
    ui.outln(format_args!("== swarm-attack demo =="));
    ui.outln(format_args!(
        "building a throw-away repository in {}",
        root.display()
    ));
    let repo = demo_app::create_repo(ui, &root)?;
    let feature = &repo.feature;
    ui.outln(format_args!(
        "  CLAUDE.md, config.yaml, specs/{feature}/issues.json (4 issues: #2 and #3 need #1, #4 needs #2 and #3)"
    ));
    ui.outln(format_args!(
        "  tools/demo-agent.sh — a DEMONSTRATION agent (a small sh script standing in for a real coding agent)"
    ));
    ui.outln(format_args!("  tools/run-tests.sh — the test command"));
    ui.outln(format_args!(
        "  history: issue #1 is already implemented in commit {}",
        &repo.preexisting_commit[..10]
    ));
    let project = Project::open(
        &ProjectOptions {
            project_dir: Some(root.clone()),
            config_file: None,
        },
        ui,
    )?;

    ui.outln(format_args!("\n$ swarm-attack greenlight {feature}"));
    let gl = greenlight::greenlight(&project, feature, false)?;
    ui.outln(format_args!(
        "greenlight {feature}: added {}, {} ready",
        gl.merge.added.len(),
        gl.state
            .tasks
            .iter()
            .filter(|t| t.stage() == &Stage::Ready)
            .count()
    ));
    print_tasks(ui, &gl.state);

    ui.outln(format_args!("\n$ swarm-attack run {feature} --workers 2"));
    let progress = |p: &run_app::Progress| crate::cli::run::print_progress(ui, p);
    let report = run_app::run(
        &project,
        feature,
        &RunOptions {
            workers: 2,
            ..Default::default()
        },
        &progress,
    )?;
    let run_exit = crate::cli::run::finish(ui, &report, false)?;

    ui.outln(format_args!("\n$ swarm-attack status {feature}"));
    let st = status::status_one(&project, feature)?;
    ui.outln(format_args!("feature {feature} ({})", st.state.phase));
    print_tasks(ui, &st.state);

    ui.outln(format_args!("\n$ swarm-attack audit {feature}"));
    print_audit(ui, &project, feature);

    // What happened, in three lines.
    ui.outln(format_args!("\n== what happened =="));
    let one = st.state.task(1);
    let found_in_git = one.is_some_and(|t| {
        t.stage() == &Stage::Done && t.commit.as_deref() == Some(repo.preexisting_commit.as_str())
    });
    if found_in_git {
        ui.outln(format_args!(
            "issue #1: found already implemented in git (commit {}) — no agent was called for it",
            &repo.preexisting_commit[..10]
        ));
    }
    // in issue order (with 2 workers, #2 and #3 may finish in either order)
    let mut done: Vec<u32> = report
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Done { .. }))
        .map(|r| r.issue)
        .collect();
    done.sort_unstable();
    let implemented: Vec<String> = done.iter().map(|n| format!("#{n}")).collect();
    ui.outln(format_args!(
        "issues implemented by the demo agent, verified and committed: {}",
        if implemented.is_empty() {
            "none".to_string()
        } else {
            implemented.join(", ")
        }
    ));
    let all_done = st.state.tasks.iter().all(|t| t.stage() == &Stage::Done);
    ui.outln(format_args!(
        "all {} issues DONE: {}; took {:.1} s",
        st.state.tasks.len(),
        if all_done { "yes" } else { "no" },
        started.elapsed().as_secs_f64()
    ));
    ui.outln(format_args!(
        "look around: cd {} && git log --oneline && cat .swarm/events/{feature}.jsonl",
        root.display()
    ));
    // The run, as a picture: one self-contained HTML page.
    ui.outln(format_args!("\n$ swarm-attack report {feature}"));
    match crate::app::report::write(&project, feature, None) {
        Ok((path, _)) => ui.outln(format_args!("report: {}", path.display())),
        Err(e) => {
            return Err(CommandError::work(format!(
                "could not write the report: {}",
                e.message
            )));
        }
    }
    if !found_in_git || !all_done || run_exit != 0 {
        return Err(CommandError::work(
            "the demo did not finish green (see above)",
        ));
    }
    Ok(0)
}

/// The audit of the demo's feature, as `swarm-attack audit` prints it.
fn print_audit(ui: &Ui, project: &Project, feature: &FeatureId) {
    match crate::cli::audit::build(project, feature) {
        Ok(report) => {
            let mut out = ui.out_writer();
            if let Err(e) = crate::cli::audit::render(ui, &mut out, &report) {
                ui.warn(format_args!("could not print the audit: {e}"));
            }
        }
        Err(e) => ui.warn(format_args!("could not build the audit: {}", e.message)),
    }
}
