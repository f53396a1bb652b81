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
    // a READY issue: unblock again only resets its retries (it stays READY)
    env.run(&["unblock", "auth", "--issue", "1"]).ok();
    assert_eq!(env.state("auth")["tasks"][0]["stage"], "READY");
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
    // DONE cannot be unblocked; nothing is written (READY and BACKLOG get their retries
    // reset: docs/cli.md "unblock")
    let before = snapshot_files(&env.root);
    let r = env.run(&["unblock", "auth", "--issue", "1"]);
    input_error(&r, &["issue 1", "DONE"]);
    assert_eq!(before, snapshot_files(&env.root), "unblock of DONE");
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
    // a READY issue: its retries and last failure are reset, it stays READY
    crate::common::state::edit_state(&env, "auth", |s| {
        s["tasks"][0]["retries"] = 2.into();
        s["tasks"][0]["last_failure"] = "old failure".into();
    });
    let r = env.run(&["unblock", "auth", "--issue", "1"]);
    r.ok();
    assert!(r.stdout.contains("issue 1: READY → READY"), "{}", r.stdout);
    let t = &env.state("auth")["tasks"][0];
    assert_eq!(
        (t["retries"].clone(), t["stage"].clone()),
        (0.into(), "READY".into())
    );
    assert!(t["last_failure"].is_null(), "{t}");
    set_stage(&env, "auth", 1, "DONE");
    let r = env.run(&["unblock", "auth", "--issue", "1"]);
    r.code(2);
    assert!(
        r.stderr
            .contains("is DONE, not BLOCKED, SKIPPED, INTERRUPTED, READY or BACKLOG"),
        "{}",
        r.stderr
    );
}
