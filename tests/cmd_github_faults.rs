//! GitHub failures: injected faults, the outbox, publish after a 502, refused tokens, 404
//! and 422, rate limits, an unreachable API — against the fake GitHub server.

use crate::common::Run;
use crate::common::fake_github::Fault;
use crate::common::github::{
    REPO, TOKEN, assert_issue, colour_of, no_auto_coloured_swarm_label, setup,
};
use serde_json::json;
use std::time::Instant;

/// One run of the fault scenario; returns how many outbox entries were replayed.
fn fault_scenario(seed: u64) -> u64 {
    let gh = setup(false);
    let numbers: Vec<u64> = (1..=4)
        .map(|i| gh.fake.add_issue(&format!("t{i}"), &["human"]))
        .collect();
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"t1","github_issue":numbers[0]},
               {"order":2,"title":"t2","github_issue":numbers[1],"dependencies":[1]},
               {"order":3,"title":"t3","github_issue":numbers[2]},
               {"order":4,"title":"t4","github_issue":numbers[3],"dependencies":[3]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.fake.random_faults(0.3, seed);
    let transitions: Vec<Vec<(u64, &str)>> = vec![
        vec![],
        vec![(1, "IN_PROGRESS"), (3, "IN_PROGRESS")],
        vec![(1, "BLOCKED"), (3, "DONE")],
        vec![(1, "READY"), (4, "IN_PROGRESS")],
        vec![(1, "DONE"), (4, "BLOCKED")],
    ];
    let mut outbox_seen = false;
    let mut replayed = 0;
    for (i, step) in transitions.iter().enumerate() {
        for (n, stage) in step {
            gh.set(*n, stage, json!({}));
        }
        if i == 2 {
            // on top of the random faults, an outage longer than the retries of one request
            gh.fake
                .fail_next("PATCH", "/issues/", Fault::Status(503), 5);
        }
        let mut converged = false;
        for _ in 0..3 {
            let r = gh.env.run(&["github", "sync", "auth", "--json"]);
            assert!(r.code == 0 || r.code == 1, "{r:?}");
            let doc = r.json();
            replayed += doc["replayed"].as_u64().unwrap();
            // never more than one swarm label, never an auto-coloured one, even mid-failure
            for g in &numbers {
                assert!(gh.fake.swarm_labels(*g).len() <= 1);
                assert!(
                    gh.fake.status_comments(*g).len() <= 1,
                    "{:?}",
                    gh.fake.comments(*g)
                );
            }
            assert!(
                no_auto_coloured_swarm_label(&gh.fake),
                "{:?}",
                gh.fake.labels()
            );
            if r.code == 0 {
                converged = true;
                break;
            }
            outbox_seen = true;
            assert!(gh.env.path(".swarm/outbox/auth.jsonl").exists());
        }
        assert!(
            converged,
            "seed {seed}: did not converge within 3 syncs at step {step:?}"
        );
        assert!(!gh.env.path(".swarm/outbox/auth.jsonl").exists());
        let state = gh.env.state("auth");
        for t in state["tasks"].as_array().unwrap() {
            let g = t["github_issue"].as_u64().unwrap();
            let label = match t["stage"].as_str().unwrap() {
                "IN_PROGRESS" => "swarm:in-progress",
                "BLOCKED" => "swarm:blocked",
                "DONE" => "swarm:done",
                _ => "swarm:ready",
            };
            assert_issue(&gh.fake, g, label);
            assert!(gh.fake.issue_labels(g).contains(&"human".to_string()));
            assert_eq!(gh.fake.is_open(g), label != "swarm:done");
            let body = &gh.fake.status_comments(g)[0].1;
            assert!(
                body.contains(&format!("`{label}`")),
                "stale comment on #{g}: {body}"
            );
        }
    }
    assert!(
        outbox_seen,
        "seed {seed}: the faults never left anything in the outbox"
    );
    replayed
}

#[test]
fn thirty_percent_faults_of_every_kind_converge_within_three_syncs_nothing_lost() {
    for seed in [0x5eed, 12, 2026] {
        assert!(
            fault_scenario(seed) > 0,
            "seed {seed}: the outbox was never replayed"
        );
    }
}

#[test]
fn the_outbox_is_replayed_first_by_the_next_sync() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    let b = gh.fake.add_issue("b", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},{"order":2,"title":"b","github_issue":b}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    gh.set(1, "IN_PROGRESS", json!({}));
    gh.fake
        .fail_next("PATCH", "/issues/comments/", Fault::Status(502), 20);
    let r = gh.sync();
    r.code(1);
    assert!(
        r.stderr.contains("wait in .swarm/outbox/auth.jsonl"),
        "{}",
        r.stderr
    );
    let outbox = gh.env.read(".swarm/outbox/auth.jsonl");
    assert!(
        outbox.contains(&format!("\"github_issue\":{a}")),
        "{outbox}"
    );
    let events = gh.env.events("auth");
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "github_error" && e["status"] == 502)
    );
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "github_sync" && e["success"] == false)
    );

    gh.fake.no_faults();
    gh.set(2, "BLOCKED", json!({"blocked_reason": "flaky"}));
    gh.fake.clear_log();
    let r = gh.env.run(&["github", "sync", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["replayed"], 1);
    let first_write = gh.fake.log().into_iter().find(|l| l.is_write()).unwrap();
    let comment_a = gh.fake.status_comments(a)[0].0;
    assert_eq!(
        first_write.path,
        format!("/repos/{REPO}/issues/comments/{comment_a}")
    );
    assert!(!gh.env.path(".swarm/outbox/auth.jsonl").exists());
    assert_issue(&gh.fake, a, "swarm:in-progress");
    assert_issue(&gh.fake, b, "swarm:blocked");
    assert!(gh.fake.status_comments(a)[0].1.contains("**In progress**"));
}

#[test]
fn applied_then_502_on_the_comment_create_leaves_one_comment() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.fake
        .fail_next("POST", "/comments", Fault::AppliedThen502, 1);
    gh.sync().ok();
    assert_eq!(gh.fake.comments_created(), 1);
    assert_issue(&gh.fake, a, "swarm:ready");
}

#[test]
fn publish_twice_with_applied_then_502_creates_each_issue_exactly_once() {
    let gh = setup(true);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"Login","body":"Add login."},
               {"order":2,"title":"Logout","dependencies":[1]},
               {"order":3,"title":"Reset password"}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.fake
        .fail_next("POST", "/repos/octo/repo/issues", Fault::AppliedThen502, 1);
    let r = gh.env.run(&["github", "publish", "auth", "--json"]);
    r.ok();
    assert_eq!(gh.fake.issues_created(), 3, "{:?}", gh.fake.issues());
    let state = gh.env.state("auth");
    let linked: Vec<u64> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["github_issue"].as_u64().expect("linked"))
        .collect();
    let mut sorted = linked.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 3);
    for (i, g) in linked.iter().enumerate() {
        let (_, _, body) = gh
            .fake
            .issues()
            .into_iter()
            .find(|(n, _, _)| n == g)
            .unwrap();
        assert!(
            body.contains(&format!("<!-- swarm-attack:task auth#{} -->", i + 1)),
            "{body}"
        );
        // published issues are synced at once: label and status comment
        assert_issue(&gh.fake, *g, "swarm:ready");
    }
    gh.fake.clear_log();
    gh.env.run(&["github", "publish", "auth"]).ok();
    assert_eq!(gh.fake.issues_created(), 3);
    assert_eq!(gh.fake.count("POST", "/issues"), 0);
    // a state that lost its links finds them again by the marker instead of creating
    let mut state = gh.env.state("auth");
    for t in state["tasks"].as_array_mut().unwrap() {
        t.as_object_mut().unwrap().remove("github_issue");
    }
    gh.env.write(
        ".swarm/state/auth.json",
        &serde_json::to_string_pretty(&state).unwrap(),
    );
    let r = gh.env.run(&["github", "publish", "auth"]);
    r.ok();
    assert!(
        r.stdout.contains("found, already published"),
        "{}",
        r.stdout
    );
    assert_eq!(gh.fake.issues_created(), 3);
    let events = gh.env.events("auth");
    assert_eq!(
        events.iter().filter(|e| e["action"] == "published").count(),
        3
    );
}

#[test]
fn a_refused_token_exits_1_with_one_sentence_and_the_token_is_nowhere() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    let mut env_bad = gh.env.command();
    let secret = "ghp_wrongSECRETvalue42";
    env_bad.env("GITHUB_TOKEN", secret);
    let r: Run = env_bad
        .args(["github", "sync", "auth"])
        .output()
        .unwrap()
        .into();
    r.code(1);
    assert_eq!(
        r.stderr.trim(),
        format!(
            "error: GitHub refused the token in GITHUB_TOKEN for {REPO} (401 Bad credentials): check that it is valid and not expired"
        )
    );
    assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret));
    assert!(!gh.all_written().contains(secret));
    assert!(!gh.all_written().contains(TOKEN));
    let events = gh.env.events("auth");
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "github_error" && e["status"] == 401)
    );
    // verbose logging shows no token either
    let mut cmd = gh.env.command();
    cmd.env("GITHUB_TOKEN", secret);
    let r: Run = cmd
        .args(["-vv", "github", "sync", "auth"])
        .output()
        .unwrap()
        .into();
    assert!(!r.stderr.contains(secret) && !r.stdout.contains(secret));
}

#[test]
fn a_missing_issue_404_is_named_and_the_other_issues_still_sync() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},{"order":2,"title":"b","github_issue":999}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    let r = gh.sync();
    r.code(1);
    assert!(
        r.stderr.contains("error: GitHub issue #999 (issue 2 of `auth`) was not found in octo/repo (404 Not Found): check the `github_issue` of issue 2 in specs/auth/issues.json"),
        "{}",
        r.stderr
    );
    assert_issue(&gh.fake, a, "swarm:ready");
    assert!(
        !gh.env.path(".swarm/outbox/auth.jsonl").exists(),
        "a 404 is not retried"
    );
    let events = gh.env.events("auth");
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "github_error" && e["status"] == 404 && e["issue"] == 2)
    );
}

#[test]
fn label_422_is_reported_and_an_existing_label_behind_a_failure_is_accepted() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    // a label GitHub rejects
    gh.fake
        .fail_next("POST", "/labels", Fault::Reply(422, "Validation Failed"), 1);
    let r = gh.sync();
    r.code(1);
    assert!(
        r.stderr.contains("error: GitHub rejected the change to label `swarm:ready` in octo/repo (422 Validation Failed, code invalid)"),
        "{}",
        r.stderr
    );
    // no swarm label was put on the issue before all four exist with their colours
    assert!(gh.fake.swarm_labels(a).is_empty());
    assert!(no_auto_coloured_swarm_label(&gh.fake));
    // a label created behind a 502: the repeated create answers 422 already_exists
    gh.fake
        .fail_next("POST", "/labels", Fault::AppliedThen502, 1);
    gh.sync().ok();
    assert_eq!(gh.fake.count("POST", "/labels"), 6, "{:?}", gh.fake.log());
    for (name, colour) in [
        ("swarm:ready", "0E8A16"),
        ("swarm:in-progress", "FBCA04"),
        ("swarm:done", "1D76DB"),
    ] {
        assert_eq!(colour_of(&gh.fake, name).as_deref(), Some(colour));
    }
    assert_issue(&gh.fake, a, "swarm:ready");
}

#[test]
fn retry_after_and_ratelimit_reset_are_honoured_within_a_bounded_wait() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.fake
        .fail_next("GET", &format!("/issues/{a}"), Fault::TooMany(1), 1);
    let t = Instant::now();
    gh.sync().ok();
    assert!(
        t.elapsed().as_millis() >= 1000,
        "retry-after: 1 was not honoured"
    );
    gh.set(1, "IN_PROGRESS", json!({}));
    gh.fake.fail_next(
        "PATCH",
        &format!("/issues/{a}"),
        Fault::PrimaryExhausted(2),
        1,
    );
    let t = Instant::now();
    gh.sync().ok();
    assert!(
        t.elapsed().as_millis() >= 1000,
        "x-ratelimit-reset was not honoured"
    );
    assert_issue(&gh.fake, a, "swarm:in-progress");
    // a success that exhausts the window makes the next request wait for the reset
    gh.set(1, "READY", json!({}));
    gh.fake
        .fail_next("GET", &format!("/issues/{a}"), Fault::LastInWindow(2), 1);
    let t = Instant::now();
    gh.sync().ok();
    assert!(
        t.elapsed().as_millis() >= 1000,
        "x-ratelimit-remaining: 0 was not honoured"
    );
    assert_issue(&gh.fake, a, "swarm:ready");
    // a wait beyond the budget is not waited: the operation goes to the outbox
    gh.set(1, "BLOCKED", json!({}));
    gh.fake
        .fail_next("PATCH", "/issues/", Fault::Secondary(3600), 1);
    let t = Instant::now();
    gh.sync().code(1);
    assert!(t.elapsed().as_secs() < 30);
    assert!(gh.env.path(".swarm/outbox/auth.jsonl").exists());
    gh.sync().ok();
    assert_issue(&gh.fake, a, "swarm:blocked");
}

#[test]
fn an_unreachable_github_never_fails_greenlight_and_nothing_is_lost() {
    let mut gh = setup(true);
    let a = gh.fake.add_issue("a", &[]);
    let b = gh.fake.add_issue("b", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},{"order":2,"title":"b","github_issue":b}]),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    drop(listener);
    let good = std::mem::replace(&mut gh.env.extra_env[0].1, closed);
    let r = gh.env.run(&["greenlight", "auth"]);
    r.ok();
    assert!(r.stderr.contains("could not reach GitHub"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("run `swarm-attack github sync auth` to retry"),
        "{}",
        r.stderr
    );
    let outbox = gh.env.read(".swarm/outbox/auth.jsonl");
    assert_eq!(
        outbox.lines().count(),
        3,
        "labels and both issues: {outbox}"
    );
    gh.env.extra_env[0].1 = good;
    let r = gh.env.run(&["github", "sync", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["replayed"], 3);
    assert_issue(&gh.fake, a, "swarm:ready");
    assert_issue(&gh.fake, b, "swarm:ready");
}

#[test]
fn writes_are_spaced_by_min_write_interval() {
    let gh = setup(false);
    gh.env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\ngithub:\n  repo: {REPO}\n  min_write_interval_ms: 300\n"
        ),
    );
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    let t = Instant::now();
    gh.sync().ok();
    // 4 label creates, 1 comment, 1 issue update: 5 gaps of at least 300 ms
    assert_eq!(gh.fake.writes(), 6);
    assert!(t.elapsed().as_millis() >= 1500, "{:?}", t.elapsed());
}
