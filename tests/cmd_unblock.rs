//! `unblock`: which stages it accepts and where a task goes.

use crate::common::fixtures::{chain, two_issues};
use crate::common::output::{input_error, one_json_document};
use crate::common::state::{edit_state, set_stage, stage_of, task_mut};
use crate::common::{TestEnv, snapshot_files};
use serde_json::{Value, json};

#[test]
fn unblock_moves_blocked_to_ready_and_clears_reason() {
    let env = TestEnv::new();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    edit_state(&env, "auth", |s| {
        let t = task_mut(s, 1);
        t["stage"] = json!("BLOCKED");
        t["blocked_reason"] = json!("x");
        t["retries"] = json!(3);
    });
    env.run(&["unblock", "auth", "--issue", "1"]).ok();
    let s = env.state("auth");
    assert_eq!(s["tasks"][0]["stage"], "READY");
    assert!(s["tasks"][0]["blocked_reason"].is_null());
    assert_eq!(s["tasks"][0]["retries"], 0);
    assert!(
        env.events("auth")
            .iter()
            .any(|e| e["event"] == "issue_unblocked" && e["issue"] == 1)
    );
    // a READY issue cannot be unblocked
    let r = env.run(&["unblock", "auth", "--issue", "1"]);
    r.code(2);
    assert!(
        r.stderr.contains("issue 1") && r.stderr.contains("READY"),
        "{}",
        r.stderr
    );
    env.run(&["unblock", "auth", "--issue", "9"]).code(2);
}

#[test]
fn unblock_goes_to_backlog_when_dependencies_are_not_done() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 2, "BLOCKED");
    let r = env.run(&["unblock", "auth", "--issue", "2", "--json"]);
    r.ok();
    one_json_document(&r);
    let s = env.state("auth");
    assert_eq!(s["tasks"][1]["stage"], "BACKLOG");
    assert_eq!(s["tasks"][1]["blocked_reason"], Value::Null);
    assert_eq!(s["tasks"][1]["retries"], 0);
    // released by itself when the dependency becomes DONE
    env.commit("feat(auth): Implement issue #1");
    assert_eq!(stage_of(&env, "auth", 2), "READY");
}

#[test]
fn unblock_accepts_interrupted_and_skipped_and_refuses_other_stages() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 1, "DONE");
    for stage in ["INTERRUPTED", "SKIPPED"] {
        set_stage(&env, "auth", 2, stage);
        edit_state(&env, "auth", |s| {
            s["tasks"][1]["retries"] = json!(2);
            s["tasks"][1]["blocked_reason"] = json!("dependency 1 blocked");
        });
        env.run(&["unblock", "auth", "--issue", "2"]).ok();
        let s = env.state("auth");
        assert_eq!(s["tasks"][1]["stage"], "READY", "from {stage}");
        assert_eq!(s["tasks"][1]["retries"], 0, "from {stage}");
        assert_eq!(s["tasks"][1]["blocked_reason"], Value::Null, "from {stage}");
    }
    let unblocked: Vec<Value> = env
        .events("auth")
        .into_iter()
        .filter(|e| e["event"] == "issue_unblocked")
        .collect();
    assert_eq!(unblocked.len(), 2);
    assert!(unblocked.iter().all(|e| e["issue"] == 2));
    // DONE, READY and BACKLOG cannot be unblocked; nothing is written
    for (issue, stage) in [(1, "DONE"), (2, "READY"), (3, "BACKLOG")] {
        let before = snapshot_files(&env.root);
        let r = env.run(&["unblock", "auth", "--issue", &issue.to_string()]);
        input_error(&r, &[&format!("issue {issue}"), stage]);
        assert_eq!(before, snapshot_files(&env.root), "unblock of {stage}");
    }
    // an issue that does not exist names it
    let r = env.run(&["unblock", "auth", "--issue", "42"]);
    input_error(&r, &["42"]);
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_unblock_a_blocked_issue_then_a_ready_one() {
    let env = TestEnv::new().fixed_clock();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    set_stage(&env, "auth", 1, "BLOCKED");
    let r = env.run(&["unblock", "auth", "--issue", "1"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
issue 1: BLOCKED → READY
----- stderr -----
GitHub sync skipped: missing a token (set GITHUB_TOKEN or GH_TOKEN) and the repository (set github.repo: owner/name in config.yaml, GITHUB_REPOSITORY, or an `origin` remote) (turn it off with coordination.github_sync_enabled: false)
"#);
    let r = env.run(&["unblock", "auth", "--issue", "1"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 2
----- stdout -----
----- stderr -----
error: issue 1 of `auth` is READY, not BLOCKED, SKIPPED or INTERRUPTED; nothing to unblock
"#);
}
