//! `status`: stages and readiness recomputed from the state file and git, every feature or
//! one, text and `--json`.

use crate::common::TestEnv;
use crate::common::fixtures::{chain, two_issues};
use crate::common::output::one_json_document;
use crate::common::state::{set_stage, stage_of, stages};
use serde_json::json;

#[test]
fn stage_names_are_the_spec_names() {
    let env = TestEnv::new();
    chain(&env);
    let s = env.state("auth");
    let names: Vec<&str> = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["stage"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["READY", "BACKLOG", "BACKLOG"]);
    // every documented stage name loads and is written back as is
    for stage in [
        "BACKLOG",
        "READY",
        "IN_PROGRESS",
        "INTERRUPTED",
        "BLOCKED",
        "DONE",
        "SKIPPED",
        "SPLIT",
    ] {
        set_stage(&env, "auth", 3, stage);
        let r = env.run(&["status", "auth", "--json"]);
        r.ok();
        assert!(!r.stderr.contains("unknown stage"), "{stage}: {}", r.stderr);
        let t3 = &r.json()["tasks"][2];
        // BACKLOG/READY are recomputed (dependency 2 is not DONE); the rest are kept
        let expected = if stage == "READY" { "BACKLOG" } else { stage };
        assert_eq!(t3["stage"], expected, "{stage}");
        assert_eq!(env.stage("auth", 3), expected);
    }
}

#[test]
fn skipped_dependency_keeps_dependents_in_backlog_and_status_shows_the_wait() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 1, "SKIPPED");
    // greenlight keeps SKIPPED, and SKIPPED does not satisfy dependents
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(
        stages(&env, "auth"),
        [
            (1, "SKIPPED".to_string()),
            (2, "BACKLOG".to_string()),
            (3, "BACKLOG".to_string())
        ]
    );
    let r = env.run(&["status", "auth", "--json"]);
    assert_eq!(r.json()["tasks"][1]["waiting_on"], json!([1]));
    let r = env.run(&["status", "auth"]);
    r.ok();
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("#2"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(line.contains("#1") && line.contains("SKIPPED"), "{line}");
}

#[test]
fn status_recomputes_readiness_both_ways() {
    let env = TestEnv::new();
    chain(&env);
    // a hand-edited READY whose dependency is not DONE goes back to BACKLOG
    set_stage(&env, "auth", 3, "READY");
    assert_eq!(stage_of(&env, "auth", 3), "BACKLOG");
    assert_eq!(env.stage("auth", 3), "BACKLOG");
    // a BACKLOG whose dependencies are all DONE becomes READY
    set_stage(&env, "auth", 1, "DONE");
    assert_eq!(stage_of(&env, "auth", 2), "READY");
    assert_eq!(stage_of(&env, "auth", 3), "BACKLOG");
}

#[test]
fn status_without_a_feature_syncs_every_feature_from_git() {
    let env = TestEnv::new();
    chain(&env);
    env.issues("billing", json!([{"order":1,"title":"x"}]));
    env.run(&["greenlight", "billing"]).ok();
    env.commit("feat(billing): Implement issue #1");
    env.commit("feat(auth): Implement issue #1");
    let r = env.run(&["status", "--json"]);
    r.ok();
    let doc = one_json_document(&r);
    let features = doc["features"].as_array().unwrap();
    assert_eq!(features.len(), 2);
    assert_eq!(env.stage("billing", 1), "DONE");
    assert_eq!(env.stage("auth", 1), "DONE");
    assert_eq!(env.stage("auth", 2), "READY");
}

#[test]
fn status_lists_all_features_and_json_is_one_document() {
    let env = TestEnv::new();
    two_issues(&env);
    env.issues("billing", json!([{"order":1,"title":"x"}]));
    env.run(&["greenlight", "auth"]).ok();
    env.run(&["greenlight", "billing"]).ok();
    let r = env.run(&["status", "--json"]);
    r.ok();
    let v = r.json();
    let names: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["feature"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["auth", "billing"]);
    let r = env.run(&["status", "auth", "--json"]);
    let v = r.json();
    assert_eq!(v["tasks"][1]["waiting_on"], json!([1]));
    let r = env.run(&["status", "auth"]);
    assert!(r.stdout.contains("waiting on #1 (READY)"), "{}", r.stdout);
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_status_of_every_feature_one_feature_and_json() {
    let env = TestEnv::new().fixed_clock();
    chain(&env);
    set_stage(&env, "auth", 1, "BLOCKED");
    let r = env.run(&["status"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
auth                     READY_TO_IMPLEMENT   2 backlog, 1 blocked
----- stderr -----
"#);
    let r = env.run(&["status", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
feature auth (READY_TO_IMPLEMENT)
  #1    BLOCKED      a  [reason: tests fail]
  #2    BACKLOG      b  [waiting on #1 (BLOCKED)]
  #3    BACKLOG      c  [waiting on #2 (BACKLOG)]
----- stderr -----
"#);
    let r = env.run(&["status", "auth", "--json"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
{
  "feature": "auth",
  "phase": "READY_TO_IMPLEMENT",
  "tasks": [
    {
      "issue": 1,
      "title": "a",
      "stage": "BLOCKED",
      "dependencies": [],
      "waiting_on": [],
      "github_issue": null,
      "commit": null,
      "evidence": [],
      "blocked_reason": "tests fail",
      "retries": 3,
      "summary": null,
      "missing_from_issues": false,
      "budget": null
    },
    {
      "issue": 2,
      "title": "b",
      "stage": "BACKLOG",
      "dependencies": [
        1
      ],
      "waiting_on": [
        1
      ],
      "github_issue": null,
      "commit": null,
      "evidence": [],
      "blocked_reason": null,
      "retries": 0,
      "summary": null,
      "missing_from_issues": false,
      "budget": null
    },
    {
      "issue": 3,
      "title": "c",
      "stage": "BACKLOG",
      "dependencies": [
        2
      ],
      "waiting_on": [
        2
      ],
      "github_issue": null,
      "commit": null,
      "evidence": [],
      "blocked_reason": null,
      "retries": 0,
      "summary": null,
      "missing_from_issues": false,
      "budget": null
    }
  ],
  "sync": {
    "synced_issues": [],
    "reverted_issues": [],
    "commits_scanned": 0,
    "head": "[SHA]",
    "shallow": false
  },
  "budget": null
}
----- stderr -----
"#);
}
