//! The original Python swarm-attack's own files (tests/fixtures/original, see NOTICE there)
//! load as they are: `null`s, unknown stage/phase names, issues.json variants, event logs.

use crate::common::TestEnv;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/original")
}

fn names(dir: &str, suffix: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(fixtures().join(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(suffix).map(str::to_string))
        .collect();
    out.sort();
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A repository holding the original's files, with a test command that works anywhere.
fn original_repo() -> TestEnv {
    let env = TestEnv::new();
    copy_tree(&fixtures(), &env.root);
    env.write(
        "config.yaml",
        "tests: {command: \"true\"}\ncoordination: {github_sync_enabled: false}\n",
    );
    env
}

#[test]
fn every_original_state_file_loads_and_status_succeeds() {
    let env = original_repo();
    let states = names(".swarm/state", ".json");
    assert!(states.len() >= 5, "{states:?}");
    for f in &states {
        env.run(&["status", f]).ok();
        env.run(&["status", f, "--json"]).ok();
    }
    let all = env.run(&["status"]);
    all.ok();
    for f in &states {
        assert!(
            all.stdout.contains(f.as_str()),
            "{f} missing:\n{}",
            all.stdout
        );
    }
}

#[test]
fn every_original_issues_file_greenlights() {
    let env = original_repo();
    let features = names("specs", "");
    assert!(features.len() >= 5, "{features:?}");
    for f in &features {
        env.run(&["greenlight", f]).ok();
        env.run(&["greenlight", f]).ok();
        env.run(&["status", f]).ok();
    }
}

#[test]
fn original_event_logs_are_read_by_events_and_audit() {
    let env = original_repo();
    for f in names(".swarm/events", ".jsonl") {
        env.run(&["events", &f]).ok();
        env.run(&["events", &f, "--json"]).ok();
        env.run(&["audit", &f]).ok();
    }
}

#[test]
fn an_unknown_stage_and_phase_warn_once_naming_file_task_and_name() {
    let env = original_repo();
    let r = env.run(&["status", "coordination-layer"]);
    r.ok();
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("NOT_APPLICABLE"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    let w = lines[0];
    for part in [
        ".swarm/state/coordination-layer.json",
        "task 1 has unknown stage \"NOT_APPLICABLE\"",
        "task 2 has unknown stage \"NOT_APPLICABLE\"",
        "unknown phase \"DONE\"",
    ] {
        assert!(w.contains(part), "{part} not in {w}");
    }
    // the names are kept as written
    let state = env.state("coordination-layer");
    assert_eq!(state["phase"], "DONE");
    assert_eq!(state["tasks"][0]["stage"], "NOT_APPLICABLE");
}

#[test]
fn nulls_of_the_original_are_written_back_as_null_when_untouched() {
    let env = original_repo();
    let before: Value = serde_json::from_str(&env.read(".swarm/state/auto-fix.json")).unwrap();
    let nulls = |s: &Value| -> Vec<u64> {
        s["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["outputs"].is_null())
            .map(|t| t["issue_number"].as_u64().unwrap())
            .collect()
    };
    assert!(!nulls(&before).is_empty());
    // greenlight merges issues.json into the state (it writes the file)
    env.run(&["greenlight", "auto-fix"]).ok();
    let after = env.state("auto-fix");
    assert_ne!(
        before, after,
        "greenlight wrote nothing: the test proves nothing"
    );
    assert_eq!(nulls(&before), nulls(&after));
    for (b, a) in before["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .zip(after["tasks"].as_array().unwrap())
    {
        for key in ["blocked_reason", "completion_summary", "parent_issue"] {
            if b[key].is_null() {
                assert!(a[key].is_null(), "{key} of {}", b["issue_number"]);
            }
        }
    }
}
