//! Black-box acceptance checks of docs/action.md (the Action's outputs, events and senders),
//! written from the contract only, against the fake GitHub (whose shapes follow
//! `@octokit/fixtures`).

use crate::common::action::{comment_payload, issue_payload, payload, run_action};
use crate::common::github::{REPO, assert_issue, no_auto_coloured_swarm_label, setup};
use serde_json::json;

#[test]
fn the_action_writes_all_three_outputs() {
    let gh = setup(false);
    let n = gh.fake.add_issue("Login", &["swarm"]);
    let m = gh.fake.add_issue("Logout", &["swarm"]);
    for i in [n, m] {
        run_action(
            &gh.env,
            "issues",
            &issue_payload("labeled", i, &["swarm"], "x", ("alice", "User")),
        )
        .run
        .ok();
    }
    // m is blocked by a run; n gets its implementing commit
    let mut state = gh.env.state("github");
    for t in state["tasks"].as_array_mut().unwrap() {
        if t["github_issue"] == m {
            t["stage"] = json!("BLOCKED");
            t["blocked_reason"] = json!("tests failed");
        }
    }
    gh.env.write(
        ".swarm/state/github.json",
        &serde_json::to_string_pretty(&state).unwrap(),
    );
    gh.env
        .commit(&format!("feat(github): Implement issue #{n}"));
    let r = run_action(&gh.env, "workflow_dispatch", &payload("workflow_dispatch"));
    r.run.ok();
    let outputs: Vec<&str> = r.outputs.lines().collect();
    assert!(outputs.contains(&"handled=true"), "{}", r.outputs);
    assert!(
        outputs.contains(&format!("issues-done={n}").as_str()),
        "{}",
        r.outputs
    );
    assert!(
        outputs.contains(&format!("issues-blocked={m}").as_str()),
        "{}",
        r.outputs
    );
    assert_eq!(gh.fake.swarm_labels(m), vec!["swarm:blocked".to_string()]);
    assert!(!r.summary.trim().is_empty());
    // an ignored event still writes every key
    let r = run_action(
        &gh.env,
        "star",
        &json!({"action": "created", "sender": {"login": "x", "type": "User"}}),
    );
    r.run.ok();
    for key in ["handled=false", "issues-done=", "issues-blocked="] {
        assert!(
            r.outputs.lines().any(|l| l.starts_with(key)),
            "{key}: {}",
            r.outputs
        );
    }
}

#[test]
fn commands_are_trusted_by_association_or_by_the_permission_endpoint() {
    let gh = setup(false);
    let n = gh.fake.add_issue("Login", &["swarm"]);
    run_action(
        &gh.env,
        "issues",
        &issue_payload("labeled", n, &["swarm"], "x", ("alice", "User")),
    )
    .run
    .ok();
    // OWNER / MEMBER / COLLABORATOR: honoured without asking GitHub
    for (who, assoc, cmd, stage) in [
        ("mem", "MEMBER", "/swarm skip", "SKIPPED"),
        ("col", "COLLABORATOR", "/swarm unblock", "READY"),
        ("own", "OWNER", "/swarm skip", "SKIPPED"),
    ] {
        let r = run_action(
            &gh.env,
            "issue_comment",
            &comment_payload(n, &["swarm"], cmd, who, assoc),
        );
        r.run.ok();
        assert!(r.outputs.contains("handled=true"), "{who}: {}", r.outputs);
        assert_eq!(gh.env.stage("github", n), stage, "{who}");
        assert_eq!(gh.fake.count("GET", "/permission"), 0);
    }
    // CONTRIBUTOR / NONE: the permission endpoint decides (maintain shows as `write`)
    for (who, role, honoured) in [
        ("adm", "admin", true),
        ("mnt", "maintain", true),
        ("wri", "write", true),
        ("tri", "triage", false),
        ("rea", "read", false),
        ("nobody", "", false),
    ] {
        if !role.is_empty() {
            gh.fake.set_permission(who, role);
        }
        // alternate so each honoured command changes the stage
        let cmd = if gh.env.stage("github", n) == "SKIPPED" {
            "/swarm unblock"
        } else {
            "/swarm skip"
        };
        let before = gh.env.stage("github", n);
        let r = run_action(
            &gh.env,
            "issue_comment",
            &comment_payload(n, &["swarm"], cmd, who, "CONTRIBUTOR"),
        );
        r.run.ok();
        assert_eq!(
            gh.fake
                .count("GET", &format!("/collaborators/{who}/permission")),
            1
        );
        assert_eq!(
            r.outputs.contains("handled=true"),
            honoured,
            "{who} ({role}): {}",
            r.outputs
        );
        assert_eq!(gh.env.stage("github", n) != before, honoured, "{who}");
    }
}

#[test]
fn the_own_bot_login_is_configurable_and_never_obeyed() {
    let gh = setup(false);
    let config = gh.env.read("config.yaml");
    gh.env.write(
        "config.yaml",
        &format!("{config}  bot_login: swarm-machine\n  allowed_bots: [\"github-actions[bot]\"]\n"),
    );
    let n = gh.fake.add_issue("Login", &["swarm"]);
    gh.fake.clear_log();
    // a machine user (type User) configured as the tool's own bot
    let r = run_action(
        &gh.env,
        "issues",
        &issue_payload("labeled", n, &["swarm"], "x", ("swarm-machine", "User")),
    );
    r.run.ok();
    assert!(r.outputs.contains("handled=false"), "{}", r.outputs);
    assert!(gh.fake.log().is_empty(), "{:?}", gh.fake.log());
    // an allowlisted bot is listened to once it is not the tool's own
    let r = run_action(
        &gh.env,
        "issues",
        &issue_payload(
            "labeled",
            n,
            &["swarm"],
            "x",
            ("github-actions[bot]", "Bot"),
        ),
    );
    r.run.ok();
    assert!(r.outputs.contains("handled=true"), "{}", r.outputs);
    assert_issue(&gh.fake, n, "swarm:ready");
}

#[test]
fn an_issue_without_body_has_a_null_body_in_the_payload_and_is_registered() {
    let gh = setup(false);
    let n = gh.fake.add_issue("Login", &["swarm"]);
    let mut p = issue_payload("opened", n, &["swarm"], "", ("alice", "User"));
    p["issue"]["body"] = json!(null);
    let r = run_action(&gh.env, "issues", &p);
    r.run.ok();
    assert!(r.outputs.contains("handled=true"), "{}", r.outputs);
    let t = &gh.env.state("github")["tasks"][0];
    assert_eq!(t["github_issue"], n);
    assert_eq!(
        t["github_body_sha256"],
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_issue(&gh.fake, n, "swarm:ready");
    assert!(
        no_auto_coloured_swarm_label(&gh.fake),
        "{:?}",
        gh.fake.labels()
    );
}

#[test]
fn pull_requests_carrying_the_trigger_label_are_not_tasks() {
    let gh = setup(false);
    let n = gh.fake.add_issue("Login", &["swarm"]);
    let pr = gh
        .fake
        .add_pull_request("Login PR", &["swarm"], "Closes #1");
    let r = run_action(&gh.env, "workflow_dispatch", &payload("workflow_dispatch"));
    r.run.ok();
    assert_issue(&gh.fake, n, "swarm:ready");
    assert!(gh.fake.swarm_labels(pr).is_empty());
    assert!(gh.fake.comments(pr).is_empty());
    let tasks = gh.env.state("github")["tasks"].as_array().unwrap().clone();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    // a `/swarm` comment on a pull request is not a command for a task
    let mut c = comment_payload(pr, &["swarm"], "/swarm skip", "alice", "OWNER");
    c["issue"]["pull_request"] = json!({"url": format!("{}/repos/{REPO}/pulls/{pr}", gh.fake.url)});
    gh.fake.clear_log();
    let r = run_action(&gh.env, "issue_comment", &c);
    r.run.ok();
    assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
    assert!(r.outputs.contains("handled=false"), "{}", r.outputs);
    assert_eq!(gh.env.state("github")["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(gh.env.stage("github", n), "READY");
}

#[test]
fn agents_do_not_run_without_the_input_or_the_config() {
    let gh = setup(false);
    let marker = gh.env.tmp.path().join("agent-ran");
    let agent = gh.env.script(
        "agent.sh",
        &format!("#!/bin/sh\ncat > /dev/null\ntouch '{}'\n", marker.display()),
    );
    let config = gh.env.read("config.yaml");
    gh.env.write(
        "config.yaml",
        &format!(
            "{config}agents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\n",
            agent.display()
        ),
    );
    let n = gh.fake.add_issue("Login", &["swarm"]);
    let r = run_action(
        &gh.env,
        "issues",
        &issue_payload("labeled", n, &["swarm"], "Do it.", ("alice", "User")),
    );
    r.run.ok();
    assert!(!marker.exists(), "an agent ran without run-agents");
    assert_eq!(gh.env.stage("github", n), "READY");
}

#[test]
fn the_run_agents_input_from_the_runner_environment_runs_the_agent() {
    let mut gh = setup(false);
    let marker = gh.env.tmp.path().join("agent-ran");
    let agent = gh.env.script(
        "agent.sh",
        &format!("#!/bin/sh\ncat > /dev/null\ntouch '{}'\n", marker.display()),
    );
    let config = gh.env.read("config.yaml");
    gh.env.write(
        "config.yaml",
        &format!(
            "{config}agents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"false\"\nsessions:\n  max_implementation_retries: 0\n",
            agent.display()
        ),
    );
    gh.env.git(&["add", "config.yaml"]);
    gh.env.commit("chore: config");
    let n = gh.fake.add_issue("Login", &["swarm"]);
    let p = issue_payload("labeled", n, &["swarm"], "Do it.", ("alice", "User"));
    gh.env
        .extra_env
        .push(("INPUT_RUN-AGENTS".to_string(), "false".to_string()));
    run_action(&gh.env, "issues", &p).run.ok();
    assert!(!marker.exists(), "run-agents: false ran an agent");
    gh.env.extra_env.pop();
    gh.env
        .extra_env
        .push(("INPUT_RUN-AGENTS".to_string(), "true".to_string()));
    let _ = run_action(&gh.env, "issues", &p);
    assert!(marker.exists(), "run-agents: true did not run the agent");
    assert_eq!(gh.env.stage("github", n), "BLOCKED");
    assert_eq!(gh.fake.swarm_labels(n), vec!["swarm:blocked".to_string()]);
}
