//! Use cases run in process with a captured `Ui`: what they print is read back from memory,
//! and it is byte for byte what the binary prints.

use crate::common::agents::{GOOD_AGENT, Setup};
use clap::Parser;
use serde_json::json;
use swarm_attack::app::project::{Project, ProjectOptions};
use swarm_attack::cli::{Cli, dispatch, output};
use swarm_attack::core::feature_id::FeatureId;
use swarm_attack::error::{CmdResult, CommandError};
use swarm_attack::io::ui::{Ui, UiOptions};

/// Runs `args` (after `swarm-attack -p <repo>`) in this process; the exit code and the Ui
/// that holds what it printed.
fn in_process(s: &Setup, args: &[&str]) -> (CmdResult<u8>, Ui) {
    let root = s.env.path("");
    let mut argv = vec!["swarm-attack", "-p", root.to_str().unwrap()];
    argv.extend_from_slice(args);
    let cli = Cli::try_parse_from(argv).unwrap();
    let ui = Ui::captured(output::ui_options(&cli.global));
    (dispatch(cli, &ui), ui)
}

fn two_issues() -> serde_json::Value {
    json!([
        {"order": 1, "title": "Login", "body": "Add login."},
        {"order": 2, "title": "Logout", "body": "Add logout.", "dependencies": [1]}
    ])
}

#[test]
fn status_in_process_prints_into_the_captured_ui_what_the_binary_prints() {
    let s = Setup::new("auth", two_issues(), GOOD_AGENT, "");
    let binary = s.env.run(&["status", "auth"]);
    binary.ok();
    let (code, ui) = in_process(&s, &["status", "auth"]);
    assert_eq!(code.unwrap(), 0);
    let out = ui.captured_out();
    assert!(out.contains("Login") && out.contains("Logout"), "{out}");
    assert_eq!(out, binary.stdout);
    assert_eq!(ui.captured_err(), binary.stderr);
    // --json too: one document on the captured stdout
    let (code, ui) = in_process(&s, &["status", "auth", "--json"]);
    assert_eq!(code.unwrap(), 0);
    let doc: serde_json::Value = serde_json::from_str(&ui.captured_out()).unwrap();
    assert_eq!(doc, s.env.run(&["status", "auth", "--json"]).json());
}

#[test]
fn run_in_process_on_a_script_agent_prints_its_progress_into_the_captured_ui() {
    let s = Setup::new("auth", two_issues(), GOOD_AGENT, "");
    let (code, ui) = in_process(&s, &["run", "auth"]);
    assert_eq!(
        code.unwrap(),
        0,
        "{}{}",
        ui.captured_out(),
        ui.captured_err()
    );
    let out = ui.captured_out();
    assert!(out.contains("#1: DONE"), "{out}");
    assert!(out.contains("#2: DONE"), "{out}");
    // the dependency's DONE line comes before its dependant's
    assert!(out.find("#1: DONE") < out.find("#2: DONE"), "{out}");
    assert_eq!(s.env.stage("auth", 1), "DONE");
    assert_eq!(s.env.stage("auth", 2), "DONE");
    // and a second run finds nothing to do, said on the captured stdout
    let (code, ui) = in_process(&s, &["run", "auth"]);
    assert_eq!(code.unwrap(), 0);
    assert!(
        ui.captured_out().contains("nothing to do"),
        "{}",
        ui.captured_out()
    );
}

#[test]
fn quiet_in_process_keeps_information_off_the_captured_stderr() {
    let s = Setup::new("auth", two_issues(), GOOD_AGENT, "");
    // a feature without events: `events` says so on stderr, unless -q
    std::fs::remove_file(s.env.path(".swarm/events/auth.jsonl")).unwrap();
    let (code, ui) = in_process(&s, &["events", "auth"]);
    assert_eq!(code.unwrap(), 0);
    let loud = ui.captured_err();
    assert!(
        loud.starts_with("no events for feature `auth` yet"),
        "{loud}"
    );
    let (code, ui) = in_process(&s, &["-q", "events", "auth"]);
    assert_eq!(code.unwrap(), 0);
    assert_eq!(ui.captured_err(), "", "{loud}");
}

fn failing_hook(_ui: &Ui, _p: &Project, feature: &FeatureId) -> CmdResult<()> {
    Err(CommandError::work(format!(
        "the mirror of `{feature}` broke"
    )))
}

#[test]
fn a_failing_finish_hook_is_a_warning_on_the_ui_never_the_commands_failure() {
    let s = Setup::new("auth", two_issues(), GOOD_AGENT, "");
    let ui = Ui::captured(UiOptions::default());
    let project = Project::open(
        &ProjectOptions {
            project_dir: Some(s.env.path("")),
            config_file: None,
        },
        &ui,
    )
    .unwrap()
    .with_finish_hook(failing_hook);
    let mut txn = project.begin(&FeatureId::parse("auth").unwrap()).unwrap();
    txn.mirror_after_commit();
    txn.commit().unwrap();
    assert_eq!(
        ui.captured_err(),
        "warning: GitHub sync failed: the mirror of `auth` broke\n"
    );
    assert_eq!(ui.captured_out(), "");
}
