//! Black-box acceptance checks of docs/github.md (labels, status comments, settings, sync and
//! reconcile), written from the contract only, against the fake GitHub (whose shapes follow
//! `@octokit/fixtures`). The Action's events and senders: `cmd_action_spec.rs`.

use crate::common::Run;
use crate::common::action::{payload, run_action};
use crate::common::fake_github::Fault;
use crate::common::github::{
    REPO, TOKEN, assert_issue, colour_of, no_auto_coloured_swarm_label, setup,
};
use serde_json::json;

fn run_with(
    gh: &crate::common::github::Gh,
    env: &[(&str, &str)],
    remove: &[&str],
    args: &[&str],
) -> Run {
    let mut cmd = gh.env.command();
    for k in remove {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(args).output().unwrap().into()
}

fn one_linked_issue(gh: &crate::common::github::Gh) -> u64 {
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    a
}

#[test]
fn the_api_base_comes_from_github_api_url_else_from_github_api_url_config() {
    let gh = setup(false);
    let a = one_linked_issue(&gh);
    // config only
    gh.env.write(
        "config.yaml",
        &format!(
            "github:\n  repo: {REPO}\n  api_url: {}\n  min_write_interval_ms: 0\n",
            gh.fake.url
        ),
    );
    run_with(&gh, &[], &["GITHUB_API_URL"], &["github", "sync", "auth"]).ok();
    assert_issue(&gh.fake, a, "swarm:ready");
    // the environment wins over the config
    gh.env.write(
        "config.yaml",
        &format!(
            "github:\n  repo: {REPO}\n  api_url: http://127.0.0.1:9\n  min_write_interval_ms: 0\n"
        ),
    );
    gh.set(1, "BLOCKED", json!({"blocked_reason": "tests failed"}));
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:blocked");
}

#[test]
fn the_repository_comes_from_github_repo_else_github_repository_else_origin() {
    let gh = setup(false);
    let a = one_linked_issue(&gh);
    let no_repo_config = "github:\n  min_write_interval_ms: 0\n";
    // github.repo wins over GITHUB_REPOSITORY
    run_with(
        &gh,
        &[("GITHUB_REPOSITORY", "someone/else")],
        &[],
        &["github", "sync", "auth"],
    )
    .ok();
    assert_issue(&gh.fake, a, "swarm:ready");
    // GITHUB_REPOSITORY when github.repo is unset
    gh.env.write("config.yaml", no_repo_config);
    gh.set(1, "IN_PROGRESS", json!({}));
    run_with(
        &gh,
        &[("GITHUB_REPOSITORY", REPO)],
        &[],
        &["github", "sync", "auth"],
    )
    .ok();
    assert_issue(&gh.fake, a, "swarm:in-progress");
    // the origin remote when neither is set (ssh and https forms)
    for (url, stage, label) in [
        ("git@github.com:octo/repo.git", "BLOCKED", "swarm:blocked"),
        ("https://github.com/octo/repo.git", "READY", "swarm:ready"),
    ] {
        if gh.env.git(&["remote"]).is_empty() {
            gh.env.git(&["remote", "add", "origin", url]);
        } else {
            gh.env.git(&["remote", "set-url", "origin", url]);
        }
        gh.set(1, stage, json!({"blocked_reason": "x"}));
        run_with(
            &gh,
            &[],
            &["GITHUB_REPOSITORY"],
            &["github", "sync", "auth"],
        )
        .ok();
        assert_issue(&gh.fake, a, label);
    }
    // every request named the repository explicitly
    assert!(
        gh.fake
            .log()
            .iter()
            .all(|l| l.path.starts_with(&format!("/repos/{REPO}/"))
                || l.path.starts_with("/repositories/")),
        "{:?}",
        gh.fake.log()
    );
    // none of the three: exit 2 naming the repository
    gh.env.git(&["remote", "remove", "origin"]);
    for args in [["github", "sync", "auth"], ["github", "publish", "auth"]] {
        let r = run_with(&gh, &[], &["GITHUB_REPOSITORY"], &args);
        r.code(2);
        assert!(r.stderr.contains("repository"), "{}", r.stderr);
        assert!(r.stderr.contains("github.repo"), "{}", r.stderr);
        assert!(!r.stderr.contains(TOKEN));
    }
}

#[test]
fn every_stage_maps_to_exactly_one_swarm_label_and_other_labels_are_untouched() {
    let gh = setup(false);
    let i1 = gh.fake.add_issue("one", &["p1"]);
    let i2 = gh
        .fake
        .add_issue("two", &["swarm:done", "swarm:blocked", "needs design"]);
    let i3 = gh.fake.add_issue("three", &["swarm:in-progress", "Bug"]);
    let i4 = gh.fake.add_issue("four", &["swarm:ready", "wontfix"]);
    let i5 = gh.fake.add_issue("five", &["swarm:blocked"]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"one","github_issue":i1},
               {"order":2,"title":"two","github_issue":i2,"dependencies":[1]},
               {"order":3,"title":"three","github_issue":i3},
               {"order":4,"title":"four","github_issue":i4},
               {"order":5,"title":"five","github_issue":i5}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.set(3, "INTERRUPTED", json!({}));
    gh.set(4, "SKIPPED", json!({"blocked_reason": "not needed"}));
    gh.set(5, "SPLIT", json!({"child_issues": []}));
    gh.sync().ok();
    assert_eq!(gh.env.stage("auth", 2), "BACKLOG");
    assert_issue(&gh.fake, i1, "swarm:ready");
    assert_issue(&gh.fake, i2, "swarm:ready"); // BACKLOG
    assert_issue(&gh.fake, i3, "swarm:ready"); // INTERRUPTED
    for n in [i4, i5] {
        assert!(gh.fake.swarm_labels(n).is_empty(), "#{n}");
        assert_eq!(
            gh.fake.status_comments(n).len(),
            1,
            "the status comment exists from the first sync"
        );
    }
    let others = |n: u64| -> Vec<String> {
        gh.fake
            .issue_labels(n)
            .into_iter()
            .filter(|l| !l.starts_with("swarm:"))
            .collect()
    };
    assert_eq!(others(i1), vec!["p1"]);
    assert_eq!(others(i2), vec!["needs design"]);
    assert_eq!(others(i3), vec!["Bug"]);
    assert_eq!(others(i4), vec!["wontfix"]);
    assert!(others(i5).is_empty());
    assert!(no_auto_coloured_swarm_label(&gh.fake));
    // BACKLOG's comment says what it waits on
    let waiting = &gh.fake.status_comments(i2)[0].1;
    assert!(waiting.contains(&format!("#{i1}")), "{waiting}");
    // and a second sync sends no write
    gh.fake.clear_log();
    gh.sync().ok();
    assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
}

#[test]
fn close_on_done_false_leaves_a_done_issue_open() {
    let gh = setup(false);
    gh.env.write(
        "config.yaml",
        &format!("github:\n  repo: {REPO}\n  close_on_done: false\n  min_write_interval_ms: 0\n"),
    );
    let a = one_linked_issue(&gh);
    gh.set(1, "DONE", json!({"commit": "abcdef1234567890"}));
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:done");
    assert!(gh.fake.is_open(a));
    gh.fake.clear_log();
    gh.sync().ok();
    assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
}

#[test]
fn a_token_without_issues_write_gives_one_sentence_and_exit_1() {
    let gh = setup(false);
    one_linked_issue(&gh);
    gh.fake.fail_next(
        "POST",
        "/labels",
        Fault::Reply(403, "Resource not accessible by integration"),
        1,
    );
    let r = gh.sync();
    r.code(1);
    let err: Vec<&str> = r.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(
        err.iter().any(|l| l.contains("issues: write")
            && l.contains(REPO)
            && l.contains("Resource not accessible by integration")),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains(TOKEN) && !r.stdout.contains(TOKEN));
    assert!(!gh.all_written().contains(TOKEN));
}

#[test]
fn publish_skips_a_pull_request_carrying_the_marker_and_creates_labels_first() {
    let gh = setup(false);
    // a pull request whose body quotes the marker is not the task's issue
    let pr = gh.fake.add_pull_request(
        "WIP login",
        &[],
        "Implements <!-- swarm-attack:task auth#1 -->",
    );
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"Login","body":"Add login."}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.env.run(&["github", "publish", "auth"]).ok();
    let g = gh.env.state("auth")["tasks"][0]["github_issue"]
        .as_u64()
        .expect("linked");
    assert_ne!(g, pr);
    assert_eq!(gh.fake.issues_created(), 1);
    let (_, title, body) = gh
        .fake
        .issues()
        .into_iter()
        .find(|(n, _, _)| *n == g)
        .unwrap();
    assert_eq!(title, "Login");
    assert!(body.contains("<!-- swarm-attack:task auth#1 -->"), "{body}");
    assert_eq!(gh.fake.swarm_labels(g), vec!["swarm:ready".to_string()]);
    assert_eq!(
        colour_of(&gh.fake, "swarm:ready").as_deref(),
        Some("0E8A16")
    );
    assert!(no_auto_coloured_swarm_label(&gh.fake));
    assert!(gh.fake.swarm_labels(pr).is_empty());
}

#[test]
fn the_token_is_in_no_event_outbox_or_output_when_github_fails() {
    let gh = setup(false);
    let a = one_linked_issue(&gh);
    gh.set(1, "BLOCKED", json!({"blocked_reason": "tests failed"}));
    gh.fake
        .fail_next("PATCH", &format!("/issues/{a}"), Fault::Status(503), 50);
    gh.fake
        .fail_next("POST", "/comments", Fault::Status(503), 50);
    let r = run_with(&gh, &[], &[], &["-v", "github", "sync", "auth"]);
    r.code(1);
    assert!(gh.env.path(".swarm/outbox/auth.jsonl").exists());
    assert!(!r.stderr.contains(TOKEN) && !r.stdout.contains(TOKEN));
    assert!(!gh.all_written().contains(TOKEN));
    // the next sync replays it and empties the outbox
    gh.fake.no_faults();
    gh.sync().ok();
    assert!(!gh.env.path(".swarm/outbox/auth.jsonl").exists());
    assert_issue(&gh.fake, a, "swarm:blocked");
}

#[test]
fn a_github_enterprise_base_with_a_path_is_used_as_is() {
    let gh = setup(false);
    let a = one_linked_issue(&gh);
    let r = run_with(
        &gh,
        &[("GITHUB_API_URL", &format!("{}/api/v3", gh.fake.url))],
        &[],
        &["github", "sync", "auth"],
    );
    // the fake has no /api/v3 prefix: every request went there (and was answered 404)
    assert!(
        gh.fake.log().iter().all(|l| l.path.starts_with("/api/v3/")),
        "{:?}",
        gh.fake.log()
    );
    assert_ne!(r.code, 0);
    assert!(gh.fake.swarm_labels(a).is_empty());
}

#[test]
fn changes_made_by_hand_on_github_are_brought_back_in_line() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &["p1"]);
    let b = gh.fake.add_issue("b", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},{"order":2,"title":"b","github_issue":b}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:ready");
    // someone deletes the status comment of #a and adds a second swarm label to #b
    let id = gh.fake.status_comments(a)[0].0;
    gh.fake.delete_comment(id);
    gh.fake
        .set_labels(b, &["swarm:ready", "swarm:blocked", "urgent"]);
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:ready");
    assert_issue(&gh.fake, b, "swarm:ready");
    assert!(gh.fake.issue_labels(b).contains(&"urgent".to_string()));
    // someone removes the swarm label of #a
    gh.fake.set_labels(a, &["p1"]);
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:ready");
    assert!(gh.fake.issue_labels(a).contains(&"p1".to_string()));
    gh.fake.clear_log();
    gh.sync().ok();
    assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
}

#[test]
fn a_reconcile_from_a_fresh_checkout_with_nothing_new_sends_no_write() {
    let gh = setup(false);
    let n = gh.fake.add_issue("Login", &["swarm"]);
    let m = gh.fake.add_issue("Logout", &["swarm"]);
    gh.fake.set_body(m, &format!("Depends on #{n}"));
    let dispatch = payload("workflow_dispatch");
    run_action(&gh.env, "workflow_dispatch", &dispatch).run.ok();
    assert_issue(&gh.fake, n, "swarm:ready");
    assert_issue(&gh.fake, m, "swarm:ready");
    // each workflow run starts without `.swarm/`; nothing changed, so nothing is written
    for _ in 0..2 {
        std::fs::remove_dir_all(gh.env.path(".swarm")).unwrap();
        gh.fake.clear_log();
        let r = run_action(&gh.env, "workflow_dispatch", &dispatch);
        r.run.ok();
        assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
    }
    // the same once the first one is done
    gh.env
        .commit(&format!("feat(github): Implement issue #{n}"));
    run_action(&gh.env, "workflow_dispatch", &dispatch).run.ok();
    assert_issue(&gh.fake, n, "swarm:done");
    std::fs::remove_dir_all(gh.env.path(".swarm")).unwrap();
    gh.fake.clear_log();
    run_action(&gh.env, "workflow_dispatch", &dispatch).run.ok();
    assert_eq!(gh.fake.writes(), 0, "{:?}", gh.fake.log());
}

#[test]
fn the_blocked_and_done_comments_carry_what_section_8_lists() {
    let gh = setup(false);
    let a = gh.fake.add_issue("login", &[]);
    let b = gh.fake.add_issue("sessions", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"login","github_issue":a,"test_file":"tests/login_test.rs"},
               {"order":2,"title":"sessions","github_issue":b,"dependencies":[1]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.set(
        1,
        "BLOCKED",
        json!({"attempts": 4, "retries": 3, "blocked_reason": "verification failed",
               "last_failure": "assertion failed: token_is_valid", "files": ["src/login.rs"]}),
    );
    gh.sync().ok();
    let blocked = gh.fake.status_comments(a)[0].1.clone();
    for part in ["verification failed", "token_is_valid", "src/login.rs"] {
        assert!(blocked.contains(part), "{part}: {blocked}");
    }
    // every command it names exists
    let named: Vec<String> = blocked
        .split("swarm-attack ")
        .skip(1)
        .filter_map(|rest| {
            rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                .next()
                .map(String::from)
        })
        .collect();
    assert!(named.iter().any(|c| c == "unblock"), "{blocked}");
    for cmd in &named {
        let r = gh.env.run(&[cmd.as_str(), "--help"]);
        assert_eq!(
            r.code, 0,
            "`swarm-attack {cmd}` named in the comment: {}",
            r.stderr
        );
    }
    gh.set(
        1,
        "DONE",
        json!({"commit": "0123456789abcdef0123456789abcdef01234567",
               "outputs": {"files_created": ["src/login.rs"], "classes_defined": {},
                           "semantic_summary": "adds the login endpoint"}}),
    );
    gh.sync().ok();
    let done = gh.fake.status_comments(a)[0].1.clone();
    for part in [
        "0123456",
        "src/login.rs",
        "tests/login_test.rs",
        "adds the login endpoint",
        &format!("#{b}"),
    ] {
        assert!(done.contains(part), "{part}: {done}");
    }
    assert!(!gh.fake.is_open(a));
}

#[test]
fn labels_are_set_through_the_labels_endpoint_when_an_issue_update_ignores_them() {
    let gh = crate::common::github::setup(false);
    gh.fake.ignore_labels_in_issue_updates();
    let n = gh.fake.add_issue("Login", &["bug"]);
    gh.env.issues(
        "auth",
        serde_json::json!([{"order": 1, "title": "Login", "github_issue": n}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    assert_eq!(gh.fake.swarm_labels(n), vec!["swarm:ready".to_string()]);
    assert!(gh.fake.issue_labels(n).contains(&"bug".to_string()));
    assert_eq!(gh.fake.count("PUT", "/labels"), 1);
    // and nothing more to do next time
    gh.fake.clear_log();
    gh.sync().ok();
    assert_eq!(gh.fake.writes(), 0);
}
