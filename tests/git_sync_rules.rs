//! Git sync's rules (docs/git-sync.md "The four rules") at their edges: the subject rule's
//! case, closing keywords of this repository only, both trailer keys, seven hex digits of a
//! revert, and a DONE task that only a revert takes back.

use crate::common::TestEnv;
use crate::common::fixtures::chain;
use crate::common::state::{set_stage, stage_of, stages};
use serde_json::{Value, json};

fn linked_issues(env: &TestEnv, n: u64) {
    let issues: Vec<Value> = (1..=n)
        .map(|i| json!({"order": i, "title": format!("t{i}"), "github_issue": 100 + i}))
        .collect();
    env.issues("auth", Value::Array(issues));
    env.run(&["greenlight", "auth"]).ok();
}

#[test]
fn subject_rule_is_case_insensitive_but_the_feature_is_exact_and_only_the_subject_counts() {
    let env = TestEnv::new();
    linked_issues(&env, 6);
    env.commit("FEAT(auth): IMPLEMENT ISSUE #1");
    env.commit("feat(AUTH): Implement issue #2");
    env.commit("chore: notes\n\nfeat(auth): Implement issue #3");
    env.commit("feat(auth): Implement issue #4: with more text");
    env.commit("feat(auth): Implement issue #5 (#200)");
    env.commit("feat(auth): Implement issue #6-b");
    let got: Vec<String> = stages(&env, "auth").into_iter().map(|(_, s)| s).collect();
    assert_eq!(got, ["DONE", "READY", "READY", "DONE", "DONE", "DONE"]);
}

#[test]
fn closing_keywords_all_forms_for_this_repository_only() {
    let env = TestEnv::new();
    // the repository comes from the origin remote here
    env.git(&["remote", "add", "origin", "git@github.com:acme/app.git"]);
    linked_issues(&env, 10);
    env.commit("x\n\nFixes #101, closes #102");
    env.commit("x\n\nCloses acme/app#103");
    env.commit("x\n\nCloses other/app#104");
    env.commit("Resolve #105 quickly");
    env.commit("x\n\nFIXED: #106");
    env.commit("x\n\nresolved: acme/app#107");
    env.commit("x\n\nprefixes #108 and unfixes #108");
    env.commit("x\n\nfixes #1099 and closes #109x");
    env.commit("x\n\nclose #110");
    let got: Vec<String> = stages(&env, "auth").into_iter().map(|(_, s)| s).collect();
    assert_eq!(
        got,
        [
            "DONE", "DONE", "DONE", "READY", "DONE", "DONE", "DONE", "READY", "READY", "DONE"
        ]
    );
}

#[test]
fn trailers_need_both_keys_in_the_last_paragraph_and_an_exact_number() {
    let env = TestEnv::new();
    linked_issues(&env, 4);
    env.commit("x\n\nSwarm-Feature: auth\nSwarm-Issue: 1\n\nmore text after the trailers");
    env.commit("x\n\nSwarm-Feature: auth\nSwarm-Issue: 2x");
    env.commit("x\n\nSwarm-Feature: auth");
    env.commit("x\n\nbody\n\nReviewed-by: someone\nSwarm-Issue: 4\nSwarm-Feature: auth");
    let got: Vec<String> = stages(&env, "auth").into_iter().map(|(_, s)| s).collect();
    assert_eq!(got, ["READY", "READY", "READY", "DONE"]);
}

#[test]
fn reverts_need_seven_hex_digits_and_other_evidence_keeps_a_task_done() {
    let env = TestEnv::new();
    linked_issues(&env, 3);
    // issue 1: two pieces of evidence, one reverted → still DONE
    let a = env.commit("feat(auth): Implement issue #1");
    let b = env.commit("x\n\nSwarm-Feature: auth\nSwarm-Issue: 1");
    env.commit(&format!("Revert\n\nThis reverts commit {a}."));
    // issue 2: a six-digit prefix is not a revert
    let c = env.commit("feat(auth): Implement issue #2");
    env.commit(&format!("Revert\n\nThis reverts commit {}.", &c[..6]));
    // issue 3: revert by prefix, revert of that revert by prefix → DONE again
    let d = env.commit("feat(auth): Implement issue #3");
    let r = env.commit(&format!("Revert\n\nThis reverts commit {}.", &d[..8]));
    env.commit(&format!("Reapply\n\nThis reverts commit {}.", &r[..7]));
    let doc = env.run(&["status", "auth", "--json"]).json();
    let t = &doc["tasks"];
    assert_eq!(t[0]["stage"], "DONE");
    assert_eq!(t[0]["commit"], b.as_str());
    assert_eq!(t[1]["stage"], "DONE");
    assert_eq!(t[2]["stage"], "DONE");
    assert_eq!(t[2]["commit"], d.as_str());
    assert!(
        !env.events("auth")
            .iter()
            .any(|e| e["event"] == "state_reverted")
    );
}

#[test]
fn a_done_task_stays_done_whatever_happens_except_a_revert() {
    let env = TestEnv::new();
    chain(&env);
    // DONE without any git evidence (e.g. the original tool marked it)
    set_stage(&env, "auth", 2, "DONE");
    let other = env.commit("feat(auth): Implement issue #1");
    env.commit(&format!("Revert\n\nThis reverts commit {other}."));
    env.commit("chore: unrelated");
    assert_eq!(stage_of(&env, "auth", 2), "DONE");
    // its dependency is not DONE, and issues.json now adds one more: still DONE
    env.issues(
        "auth",
        json!([
            {"order":1,"title":"a"},
            {"order":2,"title":"b","dependencies":[1, 4]},
            {"order":3,"title":"c","dependencies":[2]},
            {"order":4,"title":"d"}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 2), "DONE");
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 3), "READY");
    // and removing it from issues.json keeps it, still DONE
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 2), "DONE");
}
