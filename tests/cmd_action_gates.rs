//! The specify gate in the Action against the fake GitHub (docs/gates.md "The specify gate"): a
//! vague issue gets `swarm:needs-info` and the question; a writer's edit with a precise body
//! is scored again, released and run; the same edit by someone without write access changes
//! nothing.

use crate::common::action::{issue_payload, run_action};
use crate::common::gates::{specify_calls, specify_llm};
use crate::common::github::{Gh, REPO, setup};
use serde_json::json;

/// The fake GitHub, an origin to push to, a script agent, the LLM and the gate, with
/// `github.run_agents: true`.
fn gated() -> (Gh, std::path::PathBuf) {
    let gh = setup(false);
    gh.env.add_origin();
    let log = gh.env.tmp.path().join("llm.log");
    let llm = specify_llm(&gh.env, &log);
    let agent = gh.env.script(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\nmkdir -p checks\necho \"exit 0\" > \"checks/t_$SWARM_ISSUE.sh\"\necho done > \"impl_$SWARM_ISSUE.txt\"\n",
    );
    let runner = gh.env.script("runner.sh", crate::common::agents::RUNNER);
    gh.env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\ngithub:\n  repo: {REPO}\n  min_write_interval_ms: 0\n  run_agents: true\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\nllm:\n  command: [\"{}\"]\ngates:\n  specify:\n    enabled: true\n",
            agent.display(),
            runner.display(),
            llm.display()
        ),
    );
    gh.env.git(&["add", "config.yaml"]);
    gh.env.commit("chore: config");
    (gh, log)
}

fn edited(n: u64, body: &str, sender: &str) -> serde_json::Value {
    let mut p = issue_payload(
        "opened",
        n,
        &["swarm", "swarm:needs-info"],
        body,
        (sender, "User"),
    );
    p["action"] = json!("edited");
    p
}

#[test]
fn a_vague_issue_needs_info_until_a_writer_makes_it_precise_then_it_runs() {
    let (gh, log) = gated();
    let n = gh.fake.add_issue("Improve auth", &["swarm"]);
    // opened with a vague body: held, labelled, asked
    let r = run_action(
        &gh.env,
        "issues",
        &issue_payload("opened", n, &["swarm"], "make it better", ("alice", "User")),
    );
    r.run.ok();
    assert_eq!(gh.env.stage("github", n), "BLOCKED");
    assert_eq!(
        gh.fake.swarm_labels(n),
        vec!["swarm:needs-info".to_string()]
    );
    assert_eq!(
        crate::common::github::colour_of(&gh.fake, "swarm:needs-info").as_deref(),
        Some("C5DEF5")
    );
    let comments = gh.fake.status_comments(n);
    assert_eq!(comments.len(), 1);
    assert!(
        comments[0].1.contains("**Needs info**"),
        "{}",
        comments[0].1
    );
    assert!(
        comments[0]
            .1
            .contains("**Question:** Which test should pass?"),
        "{}",
        comments[0].1
    );
    assert!(r.summary.contains("needs info (2/10)"), "{}", r.summary);
    assert_eq!(specify_calls(&log), 1);

    // the same edit by someone without write access: snapshot kept, nothing scored or run
    gh.fake.set_permission("mallory", "read");
    let r = run_action(
        &gh.env,
        "issues",
        &edited(n, "PRECISE: the login test passes", "mallory"),
    );
    r.run.ok();
    assert_eq!(gh.env.stage("github", n), "BLOCKED");
    assert_eq!(
        gh.fake.swarm_labels(n),
        vec!["swarm:needs-info".to_string()]
    );
    assert_eq!(specify_calls(&log), 1);
    assert!(!gh.env.path(&format!("impl_{n}.txt")).exists());

    // a writer's edit with an unchanged body asks nothing
    gh.fake.set_permission("maint", "maintain");
    run_action(&gh.env, "issues", &edited(n, "make it better", "maint"))
        .run
        .ok();
    assert_eq!(
        specify_calls(&log),
        1,
        "an unchanged body is not scored again"
    );

    // the writer's precise edit: scored again, released and run
    let r = run_action(
        &gh.env,
        "issues",
        &edited(n, "PRECISE: the login test passes", "maint"),
    );
    r.run.ok();
    assert_eq!(specify_calls(&log), 2);
    assert_eq!(gh.env.stage("github", n), "DONE", "{}", r.summary);
    assert_eq!(gh.fake.swarm_labels(n), vec!["swarm:done".to_string()]);
    let events = gh.env.events("github");
    let scored: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "specify_scored")
        .collect();
    assert_eq!(scored.len(), 2);
    assert_eq!(scored[1]["score"], 8);
}
