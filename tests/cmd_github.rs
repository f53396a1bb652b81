//! `github sync`, `github publish` and the automatic sync, against the fake GitHub server.

use crate::common::Run;
use crate::common::files::{assert_same_files, files_without_locks};
use crate::common::github::{
    MARKER, TOKEN, assert_issue, colour_of, no_auto_coloured_swarm_label, setup,
};
use serde_json::{Value, json};

#[test]
fn sync_creates_the_four_labels_with_exact_colours_in_a_repo_that_has_none() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    let b = gh.fake.add_issue("b", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},
               {"order":2,"title":"b","github_issue":b,"dependencies":[1]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    assert!(gh.fake.labels().is_empty());
    gh.sync().ok();
    for (name, colour) in [
        ("swarm:ready", "0E8A16"),
        ("swarm:in-progress", "FBCA04"),
        ("swarm:blocked", "D93F0B"),
        ("swarm:done", "1D76DB"),
    ] {
        assert_eq!(colour_of(&gh.fake, name).as_deref(), Some(colour), "{name}");
    }
    assert!(no_auto_coloured_swarm_label(&gh.fake));
    // the labels were created before the first issue used them
    let log = gh.fake.log();
    let last_label_create = log
        .iter()
        .rposition(|l| l.method == "POST" && l.path.ends_with("/labels"));
    let first_issue_write = log
        .iter()
        .position(|l| l.method == "PATCH" && l.path.contains("/issues/"));
    assert!(last_label_create < first_issue_write);
    assert_issue(&gh.fake, a, "swarm:ready");
    assert_issue(&gh.fake, b, "swarm:ready");
    let waiting = &gh.fake.status_comments(b)[0].1;
    assert!(
        waiting.contains(&format!(
            "**Waiting** on #{a}; queued as soon as it is done"
        )),
        "{waiting}"
    );
}

#[test]
fn one_status_comment_edited_in_place_across_the_whole_life_and_done_closes() {
    let gh = setup(false);
    let g = gh.fake.add_issue("login", &["bug"]);
    let dep = gh.fake.add_issue("sessions", &[]);
    gh.fake.add_comment(g, "a human comment", "alice");
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"login","github_issue":g,"test_file":"tests/login.rs"},
               {"order":2,"title":"sessions","github_issue":dep,"dependencies":[1]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    assert_issue(&gh.fake, g, "swarm:ready");
    let comment_id = gh.fake.status_comments(g)[0].0;
    assert!(gh.fake.status_comments(g)[0].1.contains("**Ready**"));

    let steps: Vec<(&str, Value, &str, &str)> = vec![
        (
            "IN_PROGRESS",
            json!({"attempts": 1, "last_mode": "SOLO (claude)"}),
            "swarm:in-progress",
            "**In progress** — attempt 1",
        ),
        (
            "BLOCKED",
            json!({"attempts": 3, "retries": 2, "blocked_reason": "tests failed",
                           "last_failure": "assertion failed: left == right", "files": ["src/login.rs"]}),
            "swarm:blocked",
            "swarm-attack unblock auth --issue 1",
        ),
        (
            "READY",
            json!({"attempts": 0, "retries": 0, "blocked_reason": null}),
            "swarm:ready",
            "**Ready**",
        ),
        (
            "IN_PROGRESS",
            json!({"attempts": 1}),
            "swarm:in-progress",
            "**In progress**",
        ),
        (
            "DONE",
            json!({"commit": "abcdef1234567890", "outputs": {"files_created": ["src/login.rs"],
                         "classes_defined": {}, "semantic_summary": "adds the login endpoint"}}),
            "swarm:done",
            "**Unblocks:** #2",
        ),
    ];
    let mut per_transition = Vec::new();
    for (stage, fields, label, text) in steps {
        gh.set(1, stage, fields);
        gh.fake.clear_log();
        gh.sync().ok();
        let on_issue = |p: &str| {
            p.ends_with(&format!("/issues/{g}"))
                || p.contains(&format!("/issues/{g}/"))
                || p.ends_with(&format!("/issues/comments/{comment_id}"))
        };
        let n = gh.fake.log().iter().filter(|l| on_issue(&l.path)).count();
        per_transition.push((stage, n));
        assert_issue(&gh.fake, g, label);
        assert!(
            gh.fake.issue_labels(g).contains(&"bug".to_string()),
            "human label kept"
        );
        let comments = gh.fake.status_comments(g);
        assert_eq!(
            comments[0].0, comment_id,
            "the same comment, edited in place"
        );
        assert!(comments[0].1.contains(text), "{stage}: {}", comments[0].1);
        assert_eq!(
            gh.fake.comments(g).len(),
            2,
            "the human comment and the status comment"
        );
        assert_eq!(gh.fake.is_open(g), stage != "DONE");
    }
    assert_eq!(gh.fake.comment_edits(comment_id), 5);
    for (stage, n) in &per_transition {
        eprintln!("requests for the transition to {stage}: {n}");
        assert!(
            *n <= 3,
            "transition to {stage} cost {n} requests: {per_transition:?}"
        );
    }
    let events = gh.env.events("auth");
    assert!(events.iter().any(|e| e["event"] == "github_sync"
        && e["action"] == "closed"
        && e["github_issue"] == g
        && e["success"] == true));
}

#[test]
fn a_second_sync_with_nothing_changed_sends_zero_writes() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &["p1"]);
    let b = gh.fake.add_issue("b", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},{"order":2,"title":"b","github_issue":b}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.set(2, "BLOCKED", json!({"blocked_reason": "x"}));
    gh.sync().ok();
    let events_before = gh.env.events("auth").len();
    let files_before = files_without_locks(&gh.env);
    gh.fake.clear_log();
    let r = gh.sync();
    r.ok();
    assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
    // one conditional read per linked issue, answered 304
    let log = gh.fake.log();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log.iter().all(|l| l.status == 304), "{log:?}");
    assert_eq!(gh.env.events("auth").len(), events_before);
    assert_same_files(&files_without_locks(&gh.env), &files_before);
    assert!(
        r.stdout.contains("0 issue(s) updated, 2 unchanged"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_auto_coloured_swarm_label_is_recoloured() {
    let gh = setup(false);
    gh.fake.add_label("swarm:ready", "ededed");
    let a = gh.fake.add_issue("a", &["swarm:ready"]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    assert_eq!(
        colour_of(&gh.fake, "swarm:ready").as_deref(),
        Some("0E8A16")
    );
}

#[test]
fn pagination_finds_the_status_comment_among_more_than_100_comments() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    for i in 0..110 {
        gh.fake.add_comment(a, &format!("comment {i}"), "bob");
    }
    let existing = gh
        .fake
        .add_comment(a, &format!("{MARKER}\nold status"), "swarm-bot");
    for i in 0..40 {
        gh.fake.add_comment(a, &format!("later {i}"), "bob");
    }
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    assert_eq!(
        gh.fake.comments_created(),
        0,
        "found on page 2, not created again"
    );
    assert_eq!(gh.fake.status_comments(a).len(), 1);
    assert_eq!(gh.fake.status_comments(a)[0].0, existing);
    assert!(gh.fake.status_comments(a)[0].1.contains("**Ready**"));
    let pages: Vec<_> = gh
        .fake
        .log()
        .into_iter()
        .filter(|l| l.method == "GET" && l.path.ends_with(&format!("/issues/{a}/comments")))
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(
        pages[1].path.starts_with("/repositories/"),
        "followed the Link header"
    );
}

#[test]
fn without_token_sync_and_publish_exit_2_and_auto_sync_gives_one_notice() {
    let gh = setup(true);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":1}]));
    let mut cmd = gh.env.command();
    cmd.env_remove("GITHUB_TOKEN");
    let r: Run = cmd.args(["greenlight", "auth"]).output().unwrap().into();
    r.ok();
    assert_eq!(
        r.stderr.matches("GitHub sync skipped").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("GITHUB_TOKEN or GH_TOKEN"));
    for args in [["github", "sync", "auth"], ["github", "publish", "auth"]] {
        let mut cmd = gh.env.command();
        cmd.env_remove("GITHUB_TOKEN");
        let r: Run = cmd.args(args).output().unwrap().into();
        r.code(2);
        assert!(
            r.stderr
                .contains("missing a token (set GITHUB_TOKEN or GH_TOKEN)"),
            "{}",
            r.stderr
        );
    }
    assert!(gh.fake.log().is_empty());
    // GH_TOKEN works too
    let mut cmd = gh.env.command();
    cmd.env_remove("GITHUB_TOKEN").env("GH_TOKEN", TOKEN);
    gh.fake.add_issue("a", &[]);
    let r: Run = cmd
        .args(["github", "sync", "auth"])
        .output()
        .unwrap()
        .into();
    r.ok();
}

#[test]
fn auto_sync_follows_greenlight_and_unblock() {
    let gh = setup(true);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth", "--json"]).ok().json();
    assert_issue(&gh.fake, a, "swarm:ready");
    gh.set(
        1,
        "BLOCKED",
        json!({"blocked_reason": "tests failed", "retries": 3}),
    );
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:blocked");
    let r = gh.env.run(&["unblock", "auth", "--issue", "1", "--json"]);
    r.ok().json();
    assert_issue(&gh.fake, a, "swarm:ready");
    // a failing GitHub never fails the command
    gh.fake.random_faults(1.0, 7);
    gh.set(1, "BLOCKED", json!({"blocked_reason": "again"}));
    let r = gh.env.run(&["unblock", "auth", "--issue", "1"]);
    r.ok();
    assert!(
        r.stderr
            .contains("run `swarm-attack github sync auth` to retry"),
        "{}",
        r.stderr
    );
}

#[test]
fn dry_run_prints_the_planned_requests_and_sends_no_write() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    let before = files_without_locks(&gh.env);
    let r = gh.env.run(&["github", "sync", "auth", "--dry-run"]);
    r.ok();
    assert_eq!(gh.fake.writes(), 0);
    assert!(
        r.stdout.contains("POST /repos/octo/repo/labels"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("POST /repos/octo/repo/issues/{a}/comments")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("PATCH /repos/octo/repo/issues/{a}")),
        "{}",
        r.stdout
    );
    assert_same_files(&files_without_locks(&gh.env), &before);
    let doc = gh
        .env
        .run(&["github", "sync", "auth", "--dry-run", "--json"])
        .ok()
        .json();
    assert_eq!(doc["planned"].as_array().unwrap().len(), 6, "{doc}");
}

#[test]
fn the_action_mirrors_to_github_and_asks_github_for_permissions() {
    use crate::common::action::{comment_payload, issue_payload, run_action};
    let gh = setup(false);
    let n = gh.fake.add_issue("Issue 1", &["swarm"]);
    let r = run_action(
        &gh.env,
        "issues",
        &issue_payload("labeled", n, &["swarm"], "Make it work.", ("alice", "User")),
    );
    r.run.ok();
    assert_issue(&gh.fake, n, "swarm:ready");
    assert!(
        gh.fake.issue_labels(n).contains(&"swarm".to_string()),
        "trigger label kept"
    );
    // a contributor without write access is refused after asking GitHub
    let r = run_action(
        &gh.env,
        "issue_comment",
        &comment_payload(n, &["swarm"], "/swarm skip", "mallory", "CONTRIBUTOR"),
    );
    r.run.ok();
    assert!(r.outputs.contains("handled=false"), "{}", r.outputs);
    assert_eq!(gh.fake.count("GET", "/collaborators/mallory/permission"), 1);
    // one with write access (a private org member shown as CONTRIBUTOR) is honoured
    gh.fake.set_permission("carol", "write");
    let r = run_action(
        &gh.env,
        "issue_comment",
        &comment_payload(n, &["swarm"], "/swarm skip", "carol", "CONTRIBUTOR"),
    );
    r.run.ok();
    assert!(gh.fake.swarm_labels(n).is_empty());
    assert!(gh.fake.status_comments(n)[0].1.contains("**Skipped**"));
    // a dispatch finds the open issues carrying the trigger label
    let m = gh.fake.add_issue("Issue 2", &["swarm"]);
    let r = run_action(
        &gh.env,
        "workflow_dispatch",
        &crate::common::action::payload("workflow_dispatch"),
    );
    r.run.ok();
    assert_issue(&gh.fake, m, "swarm:ready");
    assert_eq!(gh.fake.status_comments(n).len(), 1);
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_github_sync_dry_run_then_sync_then_publish() {
    let gh = setup(false).fixed_clock();
    let a = gh.fake.add_issue("a", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},
               {"order":2,"title":"b","dependencies":[1]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    let r = gh.env.run(&["github", "sync", "auth", "--dry-run"]);
    insta::assert_snapshot!(r.snapshot(&gh.env), @r#"
exit: 0
----- stdout -----
github sync auth → octo/repo (dry run): 6 write(s) planned, none sent
  POST /repos/octo/repo/labels  (label)
  POST /repos/octo/repo/labels  (label)
  POST /repos/octo/repo/labels  (label)
  POST /repos/octo/repo/labels  (label)
  POST /repos/octo/repo/issues/1/comments  (issue 1 → #1: comment_created)
  PATCH /repos/octo/repo/issues/1  (issue 1 → #1: labels_set)
----- stderr -----
"#);
    let r = gh.sync();
    insta::assert_snapshot!(r.snapshot(&gh.env), @r#"
exit: 0
----- stdout -----
github sync auth → octo/repo: 1 issue(s) updated, 0 unchanged; 3 read(s), 6 write(s)
  issue 1    → #1      swarm:ready        comment_created, labels_set
----- stderr -----
"#);
    let r = gh.env.run(&["github", "publish", "auth"]);
    insta::assert_snapshot!(r.snapshot(&gh.env), @r#"
exit: 0
----- stdout -----
  issue 2 → #2 (created)
github publish auth → octo/repo: 0 issue(s) updated, 0 unchanged; 1 read(s), 1 write(s)
----- stderr -----
"#);
}
