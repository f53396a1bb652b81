//! The warm git sync's fast path (issue 19): a state file the last sync left in line with
//! the history, with the same tips or new commits that carry no evidence, is not synced
//! again (the ledger is not even read) — and everything else still is.

use crate::common::TestEnv;
use crate::common::state::set_stage;
use serde_json::{Value, json};

const LEDGER: &str = ".swarm/cache/history/auth.ledger";

fn three_issues(env: &TestEnv) {
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"},{"order":3,"title":"c"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
}

/// `status auth --json`: (commits scanned, stage of each task).
fn status(env: &TestEnv) -> (u64, Vec<String>) {
    let r = env.run(&["status", "auth", "--json"]);
    r.ok();
    let doc = r.json();
    let stages = doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["stage"].as_str().unwrap().to_string())
        .collect();
    (doc["sync"]["commits_scanned"].as_u64().unwrap(), stages)
}

fn total_commits(env: &TestEnv) -> u64 {
    env.git(&["rev-list", "--count", "HEAD"]).parse().unwrap()
}

#[test]
fn a_state_in_line_with_the_history_is_not_synced_again_and_the_ledger_not_read() {
    let env = TestEnv::new();
    three_issues(&env);
    for i in 0..4 {
        env.commit(&format!("chore: {i}"));
    }
    env.commit("feat(auth): Implement issue #1");
    assert_eq!(status(&env).1, ["DONE", "READY", "READY"]);
    // the ledger is unreadable now: a sync that needs it reads the whole history again
    env.write(LEDGER, "garbage");
    assert_eq!(
        status(&env),
        (0, vec!["DONE".into(), "READY".into(), "READY".into()])
    );
    // a new commit without evidence: only it is read, the ledger is still not needed
    env.commit("chore: one more, mentioning #2");
    assert_eq!(
        status(&env),
        (1, vec!["DONE".into(), "READY".into(), "READY".into()])
    );
    assert_eq!(env.read(LEDGER), "garbage");
    // new evidence needs the ledger: the broken one costs a full rescan, nothing is lost
    env.commit("feat(auth): Implement issue #2");
    let (scanned, stages) = status(&env);
    assert_eq!(scanned, total_commits(&env));
    assert_eq!(stages, ["DONE", "DONE", "READY"]);
    let ledger: Value = serde_json::from_str(&env.read(LEDGER)).unwrap();
    assert_eq!(ledger["ledger"]["evidence"].as_object().unwrap().len(), 2);
}

#[test]
fn a_hand_edited_state_is_synced_again_even_with_the_same_size_and_time() {
    let env = TestEnv::new();
    three_issues(&env);
    env.commit("feat(auth): Implement issue #1");
    assert_eq!(status(&env).1[0], "DONE");
    let path = env.path(".swarm/state/auth.json");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let text = env.read(".swarm/state/auth.json");
    // DONE -> READY, one indentation space less: the same length
    let edited = text
        .replacen("\"stage\": \"DONE\"", "\"stage\": \"READY\"", 1)
        .replacen("\n  ", "\n ", 1);
    assert_eq!(edited.len(), text.len());
    assert_ne!(edited, text);
    env.write(".swarm/state/auth.json", &edited);
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(mtime).unwrap();
    drop(file);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    // the evidence is still active: the sync makes it DONE again
    assert_eq!(
        status(&env),
        (0, vec!["DONE".into(), "READY".into(), "READY".into()])
    );
}

#[test]
fn greenlight_adds_an_issue_whose_commit_an_earlier_sync_already_read() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    env.commit("feat(auth): Implement issue #3");
    assert_eq!(status(&env).1, ["READY", "READY"]);
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"},{"order":3,"title":"c"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 3), "DONE");
    assert_eq!(
        status(&env),
        (0, vec!["READY".into(), "READY".into(), "DONE".into()])
    );
}

#[test]
fn a_new_revert_cancels_old_evidence_and_a_rewritten_history_is_read_again() {
    let env = TestEnv::new();
    three_issues(&env);
    let base = env.git(&["rev-parse", "HEAD"]);
    let first = env.commit("feat(auth): Implement issue #1");
    env.commit("feat(auth): Implement issue #2");
    assert_eq!(status(&env).1, ["DONE", "DONE", "READY"]);
    assert_eq!(status(&env).0, 0);
    // a revert of an old commit, on top of a state in line: read, and it cancels
    env.commit(&format!("Revert \"x\"\n\nThis reverts commit {first}."));
    assert_eq!(
        status(&env),
        (1, vec!["READY".into(), "DONE".into(), "READY".into()])
    );
    assert_eq!(status(&env).0, 0);
    // a rewritten history (the old tip is gone): everything is read again
    env.git(&["reset", "-q", "--hard", &base]);
    env.commit("feat(auth): Implement issue #3");
    let (scanned, stages) = status(&env);
    assert_eq!(scanned, total_commits(&env));
    // a task never leaves DONE because its commit disappeared (docs/git-sync.md "The four rules")
    assert_eq!(stages, ["READY", "DONE", "DONE"]);
}

#[test]
fn turning_git_stack_on_makes_the_dependent_of_an_in_review_task_ready_without_new_commits() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    set_stage(&env, "auth", 1, "IN_REVIEW");
    assert_eq!(status(&env).1, ["IN_REVIEW", "BACKLOG"]);
    assert_eq!(status(&env).1, ["IN_REVIEW", "BACKLOG"]);
    // the state file and the history are as the last sync left them; the config is not
    env.write("config.yaml", "git:\n  stack: true\n");
    assert_eq!(status(&env), (0, vec!["IN_REVIEW".into(), "READY".into()]));
}
