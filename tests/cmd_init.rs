//! `init`: the issues file and the state, created once and never overwritten.

use crate::common::output::{input_error, one_json_document};
use crate::common::{TestEnv, snapshot_files};
use serde_json::{Value, json};

#[test]
fn init_creates_issues_file_and_state_once() {
    let env = TestEnv::new();
    let r = env.run(&["init", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["issues_file_created"], true);
    let issues: Value = serde_json::from_str(&env.read("specs/auth/issues.json")).unwrap();
    assert_eq!(issues["feature_id"], "auth");
    assert!(env.path(".swarm/state/auth.json").exists());
    let r = env.run(&["init", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["state_created"], false);
}

#[test]
fn init_keeps_an_existing_issues_file_and_builds_the_state_from_it() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
    let issues_before = env.read_bytes("specs/auth/issues.json");
    let r = env.run(&["init", "auth", "--json"]);
    r.ok();
    assert_eq!(one_json_document(&r)["issues_file_created"], false);
    assert_eq!(issues_before, env.read_bytes("specs/auth/issues.json"));
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 2), "BACKLOG");
    // a second init changes nothing at all
    let before = snapshot_files(&env.root);
    env.run(&["init", "auth"]).ok();
    assert_eq!(before, snapshot_files(&env.root));
    // an unreadable state is never overwritten by init either
    env.write(
        ".swarm/state/auth.json",
        "{\"feature_id\": \"auth\",\n  oops\n}",
    );
    let before = snapshot_files(&env.root);
    input_error(
        &env.run(&["init", "auth"]),
        &[".swarm/state/auth.json", "line 2", "column 3"],
    );
    assert_eq!(before, snapshot_files(&env.root));
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_init_then_init_again() {
    let env = TestEnv::new().fixed_clock();
    let r = env.run(&["init", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
specs/auth/issues.json: created (a template with one example issue)
.swarm/state/auth.json: created (1 tasks)
config.yaml: created (no test command detected; no agent CLI found on PATH)
.swarm/.gitignore: created (.swarm/ ignores itself)
next steps:
  1. edit config.yaml: set tests.command and the agents (see the comments in it)
  2. write the feature's issues in specs/auth/issues.json
  3. commit config.yaml and specs/auth/issues.json, then: swarm-attack greenlight auth
  4. swarm-attack run auth
----- stderr -----
"#);
    let r = env.run(&["init", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
specs/auth/issues.json: exists
.swarm/state/auth.json: exists (1 tasks)
----- stderr -----
"#);
    let r = env.run(&["init", "Bad Id"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 2
----- stdout -----
----- stderr -----
error: `Bad Id` is not a valid feature id: use 2–64 characters a-z, 0-9, `.`, `_`, `-`, starting and ending with a letter or digit
"#);
}
