//! `run` never dispatches work that is already done: a DONE issue, a duplicate found by its
//! passing test file or its files list, a commit already on the branch.

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

#[test]
fn done_issues_are_never_dispatched_again() {
    let s = Setup::new(
        "dd",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B", "dependencies": [1]}]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "dd"]).ok();
    assert_eq!(s.calls(), vec!["1 1", "2 1"]);
    let r = s.env.run(&["run", "dd"]);
    r.ok();
    assert!(r.stdout.contains("nothing to do"), "{}", r.stdout);
    let r = s.env.run(&["run", "dd", "--issue", "1"]);
    r.ok();
    assert!(r.stdout.contains("already DONE"), "{}", r.stdout);
    assert_eq!(s.calls().len(), 2, "a DONE issue was dispatched again");
    assert_eq!(s.implementing_commits("dd", 1), 1);
    assert_eq!(s.implementing_commits("dd", 2), 1);
    // the dependent was implemented on top of its dependency, in order
    let subjects = s.env.git(&["log", "--reverse", "--format=%s"]);
    assert_eq!(
        subjects.lines().collect::<Vec<_>>(),
        [
            "chore: initial commit",
            "feat(dd): Implement issue #1",
            "feat(dd): Implement issue #2"
        ]
    );
}

#[test]
fn duplicate_detected_by_passing_test_file_without_an_agent() {
    let s = Setup::new(
        "dup",
        json!([{"order": 1, "title": "Has tests", "test_file": "checks/t_one.sh"},
               {"order": 2, "title": "Failing test file", "test_file": "checks/t_2.sh"}]),
        GOOD_AGENT,
        "",
    );
    s.env.write("checks/t_one.sh", "exit 0\n");
    s.env.write("checks/t_2.sh", "exit 1\n");
    s.env.git(&["add", "checks"]);
    s.env.commit("test: existing checks");
    let r = s.env.run(&["run", "dup"]);
    r.ok();
    assert!(r.stdout.contains("#1: already implemented"), "{}", r.stdout);
    // only issue 2 (its test file fails) reached the agent
    assert_eq!(s.calls(), vec!["2 1"]);
    let t = s.task("dup", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["evidence"][0]["source"], "tests");
    let dups = s.events_named("dup", "duplicate_detected");
    assert_eq!(dups.len(), 1);
    assert_eq!(dups[0]["issue"], 1);
    assert_eq!(dups[0]["tests"]["fired"], true);
    assert_eq!(dups[0]["git"]["fired"], false);
    assert!(dups[0]["files"].is_null());
    assert!(
        s.env
            .path(".swarm/runs/dup/issue-2/attempt-1/duplicate-check.json")
            .exists()
    );
    assert!(
        s.env
            .read(".swarm/runs/dup/issue-2/attempt-1/duplicate-check.json")
            .contains("does not pass")
    );
}

#[test]
fn duplicate_detected_by_files_list_without_an_agent() {
    let s = Setup::new(
        "files",
        json!([{"order": 1, "title": "Exists", "files": ["lib/a.txt", "lib/b.txt"]},
               {"order": 2, "title": "Half there", "files": ["lib/a.txt", "lib/missing.txt"]}]),
        GOOD_AGENT,
        "",
    );
    s.env.write("lib/a.txt", "a");
    s.env.write("lib/b.txt", "b");
    s.env.git(&["add", "lib"]);
    s.env.commit("chore: files");
    let r = s.env.run(&["run", "files"]);
    r.ok();
    assert_eq!(s.calls(), vec!["2 1"]);
    let t = s.task("files", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["evidence"][0]["source"], "files");
    let dups = s.events_named("files", "duplicate_detected");
    assert_eq!(dups.len(), 1);
    assert_eq!(dups[0]["files"]["fired"], true);
    assert_eq!(s.implementing_commits("files", 1), 0);
    assert_eq!(s.task("files", 2)["stage"], "DONE");
}

#[test]
fn commit_already_on_the_branch_is_found_in_git_before_dispatch() {
    let s = Setup::new(
        "gitdup",
        json!([{"order": 1, "title": "Done by hand"}]),
        GOOD_AGENT,
        "",
    );
    s.env.write("x.txt", "x");
    s.env.git(&["add", "x.txt"]);
    s.env.commit("feat(gitdup): Implement issue #1\n\nby hand");
    s.env.run(&["run", "gitdup"]).ok();
    assert!(s.calls().is_empty());
    let t = s.task("gitdup", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["commit"], s.env.git(&["rev-parse", "HEAD"]));
}
