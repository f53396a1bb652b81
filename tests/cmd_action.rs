//! `swarm-attack action` driven by real webhook payloads (@octokit/webhooks-examples),
//! adapted to the test repository.

use crate::common::TestEnv;
use crate::common::action::{comment_payload, issue_payload, payload, run_action};
use serde_json::json;

#[test]
fn labeled_by_owner_registers_the_task_with_its_body_snapshot() {
    let env = TestEnv::new();
    let p = issue_payload(
        "labeled",
        12,
        &["bug", "swarm"],
        "Make login work.\nDepends on #99",
        ("alice", "User"),
    );
    let r = run_action(&env, "issues", &p);
    r.run.ok();
    assert!(r.outputs.contains("handled=true"), "{}", r.outputs);
    let s = env.state("github");
    let t = &s["tasks"][0];
    assert_eq!(t["issue_number"], 12);
    assert_eq!(t["github_issue"], 12);
    assert_eq!(t["stage"], "READY");
    assert_eq!(t["github_body"], "Make login work.\nDepends on #99");
    assert_eq!(t["github_body_sha256"].as_str().unwrap().len(), 64);
    assert!(r.summary.contains("#12"), "{}", r.summary);
    assert!(
        env.events("github")
            .iter()
            .any(|e| e["event"] == "action_received" && e["handled"] == true)
    );
}

#[test]
fn feature_label_and_dependencies_are_read() {
    let env = TestEnv::new();
    run_action(
        &env,
        "issues",
        &issue_payload(
            "opened",
            3,
            &["swarm", "swarm-feature:auth"],
            "first",
            ("alice", "User"),
        ),
    )
    .run
    .ok();
    run_action(
        &env,
        "issues",
        &issue_payload(
            "opened",
            4,
            &["swarm", "swarm-feature:auth"],
            "Depends on #3",
            ("alice", "User"),
        ),
    )
    .run
    .ok();
    assert_eq!(env.stage("auth", 3), "READY");
    assert_eq!(env.stage("auth", 4), "BACKLOG");
    // an implementing commit on the base branch, then a push: #3 is DONE, #4 released
    env.commit("feat(auth): Implement issue #3");
    let mut push = payload("push");
    push["ref"] = json!("refs/heads/main");
    let r = run_action(&env, "push", &push);
    r.run.ok();
    assert_eq!(env.stage("auth", 3), "DONE");
    assert_eq!(env.stage("auth", 4), "READY");
    assert!(r.outputs.contains("issues-done=3"), "{}", r.outputs);
}

#[test]
fn bot_senders_are_ignored() {
    let env = TestEnv::new();
    for sender in [("github-actions[bot]", "Bot"), ("renovate[bot]", "Bot")] {
        let r = run_action(
            &env,
            "issues",
            &issue_payload("labeled", 5, &["swarm"], "x", sender),
        );
        r.run.ok();
        assert!(r.outputs.contains("handled=false"), "{}", r.outputs);
        assert!(!env.path(".swarm/state/github.json").exists());
    }
    env.write(
        "config.yaml",
        "github:\n  allowed_bots: [\"renovate[bot]\"]\n",
    );
    let r = run_action(
        &env,
        "issues",
        &issue_payload("labeled", 5, &["swarm"], "x", ("renovate[bot]", "Bot")),
    );
    assert!(r.outputs.contains("handled=true"), "{}", r.outputs);
}

#[test]
fn swarm_command_from_untrusted_user_is_ignored() {
    let env = TestEnv::new();
    run_action(
        &env,
        "issues",
        &issue_payload("labeled", 7, &["swarm"], "x", ("alice", "User")),
    )
    .run
    .ok();
    let before = env.read_bytes(".swarm/state/github.json");
    let r = run_action(
        &env,
        "issue_comment",
        &comment_payload(7, &["swarm"], "/swarm skip", "mallory", "NONE"),
    );
    r.run.ok();
    assert!(r.outputs.contains("handled=false"), "{}", r.outputs);
    assert!(r.summary.contains("ignored"), "{}", r.summary);
    assert_eq!(before, env.read_bytes(".swarm/state/github.json"));
    // the owner can skip
    let r = run_action(
        &env,
        "issue_comment",
        &comment_payload(7, &["swarm"], "/swarm skip", "alice", "OWNER"),
    );
    r.run.ok();
    assert_eq!(env.stage("github", 7), "SKIPPED");
}

#[test]
fn unknown_event_exits_0_and_does_nothing() {
    let env = TestEnv::new();
    let r = run_action(
        &env,
        "star",
        &json!({"action": "created", "sender": {"login": "x", "type": "User"}}),
    );
    r.run.ok();
    assert!(r.outputs.contains("handled=false"));
    assert!(!env.path(".swarm").exists());
}

#[test]
fn shallow_checkout_is_a_clear_error() {
    let origin = TestEnv::new();
    origin.commit("second");
    let env = TestEnv::empty();
    std::fs::remove_dir_all(&env.root).unwrap();
    let url = format!("file://{}", origin.root.display());
    env.git_in(
        env.tmp.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &url,
            env.root.to_str().unwrap(),
        ],
    );
    let r = run_action(
        &env,
        "issues",
        &issue_payload("labeled", 1, &["swarm"], "x", ("alice", "User")),
    );
    r.run.code(1);
    assert!(
        r.run.stderr.contains("shallow") && r.run.stderr.contains("fetch-depth: 0"),
        "{}",
        r.run.stderr
    );
    assert!(r.run.stdout.contains("::error::"), "{}", r.run.stdout);
    assert!(r.outputs.contains("handled=false"));
}

#[test]
fn closed_without_evidence_is_skipped_with_reason() {
    let env = TestEnv::new();
    run_action(
        &env,
        "issues",
        &issue_payload("labeled", 8, &["swarm"], "x", ("alice", "User")),
    )
    .run
    .ok();
    let mut p = issue_payload("opened", 8, &["swarm"], "x", ("bob", "User"));
    p["action"] = json!("closed");
    run_action(&env, "issues", &p).run.ok();
    let s = env.state("github");
    assert_eq!(s["tasks"][0]["stage"], "SKIPPED");
    assert!(
        s["tasks"][0]["blocked_reason"]
            .as_str()
            .unwrap()
            .contains("@bob")
    );
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_action_on_a_labeled_issue_and_an_unknown_event() {
    let env = TestEnv::new().fixed_clock();
    let p = issue_payload(
        "labeled",
        12,
        &["swarm"],
        "Make login work.",
        ("alice", "User"),
    );
    let r = run_action(&env, "issues", &p);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
## swarm-attack

Event: `issues.labeled #12 by @alice` — handled


| issue | feature | stage | note |
|---|---|---|---|
| #12 | github | READY | registered |

----- stderr -----
GitHub is not configured (no token or repository); labels and comments not updated
----- GITHUB_OUTPUT -----
handled=true
issues-done=
issues-blocked=
----- GITHUB_STEP_SUMMARY -----
## swarm-attack

Event: `issues.labeled #12 by @alice` — handled


| issue | feature | stage | note |
|---|---|---|---|
| #12 | github | READY | registered |
"#);
    let r = run_action(&env, "deployment", &json!({}));
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
## swarm-attack

Event: `deployment by @` — not handled

- the `deployment` event is not one swarm-attack handles; nothing to do

----- stderr -----
the `deployment` event is not one swarm-attack handles; nothing to do
----- GITHUB_OUTPUT -----
handled=false
issues-done=
issues-blocked=
----- GITHUB_STEP_SUMMARY -----
## swarm-attack

Event: `deployment by @` — not handled

- the `deployment` event is not one swarm-attack handles; nothing to do
"#);
}
