//! init / greenlight / status / unblock against real temp repositories: progress kept,
//! idempotence, original state files, bad inputs, locking.

use crate::common::fixtures::{chain, two_issues};
use crate::common::output::one_json_document;
use crate::common::state::{edit_state, set_stage, stages, task_mut};
use crate::common::{TestEnv, snapshot_files};
use serde_json::{Value, json};

#[test]
fn greenlight_creates_state_and_second_run_is_byte_identical() {
    let env = TestEnv::new();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 2), "BACKLOG");
    let first = env.read_bytes(".swarm/state/auth.json");
    let events_before = env.events("auth").len();
    assert!(events_before >= 1);
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(first, env.read_bytes(".swarm/state/auth.json"));
    assert_eq!(events_before, env.events("auth").len());
}

#[test]
fn greenlight_keeps_blocked_progress_and_adds_new_issues() {
    let env = TestEnv::new();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    edit_state(&env, "auth", |s| {
        let t = task_mut(s, 1);
        t["stage"] = json!("BLOCKED");
        t["blocked_reason"] = json!("tests fail: 3 failed");
        t["retries"] = json!(3);
        t["outputs"]["files_created"] = json!(["src/a.rs"]);
        t["outputs"]["semantic_summary"] = json!("did a");
        t["github_issue"] = json!(41);
    });
    env.issues("auth", json!([{"order":1,"title":"a (renamed)"},{"order":2,"title":"b","dependencies":[1]},{"order":3,"title":"c"}]));
    let r = env.run(&["greenlight", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["added"], json!([3]));
    let s = env.state("auth");
    let t1 = &s["tasks"][0];
    assert_eq!(t1["stage"], "BLOCKED");
    assert_eq!(t1["blocked_reason"], "tests fail: 3 failed");
    assert_eq!(t1["retries"], 3);
    assert_eq!(t1["outputs"]["files_created"], json!(["src/a.rs"]));
    assert_eq!(t1["outputs"]["semantic_summary"], "did a");
    assert_eq!(t1["github_issue"], 41);
    assert_eq!(t1["title"], "a (renamed)");
    assert_eq!(env.stage("auth", 2), "BACKLOG");
    assert_eq!(env.stage("auth", 3), "READY");
}

#[test]
fn task_missing_from_issues_is_kept_and_reported() {
    let env = TestEnv::new();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    let r = env.run(&["greenlight", "auth"]);
    r.ok();
    assert!(
        r.stderr.contains("issue 2") && r.stderr.contains("no longer in issues.json"),
        "{}",
        r.stderr
    );
    assert_eq!(env.state("auth")["tasks"].as_array().unwrap().len(), 2);
}

#[test]
fn dry_run_writes_nothing() {
    let env = TestEnv::new();
    two_issues(&env);
    let before = snapshot_files(&env.root);
    let r = env.run(&["greenlight", "auth", "--dry-run"]);
    r.ok();
    assert!(r.stdout.contains("would add 2"), "{}", r.stdout);
    assert_eq!(before, snapshot_files(&env.root));
}

#[test]
fn original_tool_state_file_loads_and_round_trips_unknown_keys() {
    let env = TestEnv::new();
    let original = json!({
        "feature_id": "legacy",
        "phase": "IMPLEMENTING",
        "tasks": [
            {"issue_number": 1, "stage": "DONE", "title": "one", "dependencies": [],
             "estimated_size": "small", "business_value_score": 0.8, "technical_risk_score": 0.1,
             "blocked_reason": null,
             "outputs": {"files_created": ["a.py"], "classes_defined": {"a.py": ["A"]}, "semantic_summary": "made A"},
             "completion_summary": "done", "parent_issue": null, "child_issues": [], "reviewer_notes": "keep me"},
            {"issue_number": 2, "stage": "NEEDS_REVIEW", "title": "two", "dependencies": [1],
             "estimated_size": "medium", "business_value_score": 0.5, "technical_risk_score": 0.5,
             "blocked_reason": null, "outputs": {"files_created": [], "classes_defined": {}, "semantic_summary": null},
             "completion_summary": null, "parent_issue": null, "child_issues": []}
        ],
        "current_session": "sess-1",
        "created_at": "2025-01-01T00:00:00Z",
        "updated_at": "2025-01-02T00:00:00Z",
        "cost_total_usd": 1.25,
        "cost_by_phase": {"IMPLEMENTING": 1.25},
        "_signature": "sha256:abcdef",
        "future_key": {"nested": [1, 2]}
    });
    env.write(
        ".swarm/state/legacy.json",
        &serde_json::to_string_pretty(&original).unwrap(),
    );
    env.issues("legacy", json!([{"order":1,"title":"one"},{"order":2,"title":"two","dependencies":[1]},{"order":3,"title":"three"}]));
    let r = env.run(&["status", "legacy"]);
    r.ok();
    assert!(
        r.stderr.contains("legacy.json")
            && r.stderr.contains("task 2")
            && r.stderr.contains("NEEDS_REVIEW"),
        "{}",
        r.stderr
    );
    env.run(&["greenlight", "legacy"]).ok();
    let s = env.state("legacy");
    assert_eq!(s["_signature"], "sha256:abcdef");
    assert_eq!(s["future_key"], json!({"nested": [1, 2]}));
    assert_eq!(s["tasks"][0]["reviewer_notes"], "keep me");
    assert_eq!(s["tasks"][0]["stage"], "DONE");
    assert_eq!(s["tasks"][1]["stage"], "NEEDS_REVIEW");
    assert_eq!(
        s["tasks"][0]["outputs"]["classes_defined"],
        json!({"a.py": ["A"]})
    );
    assert_eq!(s["cost_by_phase"], json!({"IMPLEMENTING": 1.25}));
    assert_eq!(s["tasks"].as_array().unwrap().len(), 3);
}

fn assert_bad_input(env: &TestEnv, args: &[&str], needles: &[&str]) {
    let before = snapshot_files(&env.root);
    let r = env.run(args);
    r.code(2);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "one error sentence expected:\n{}",
        r.stderr
    );
    for n in needles {
        assert!(errors[0].contains(n), "`{n}` missing in: {}", errors[0]);
    }
    assert_eq!(before, snapshot_files(&env.root), "files changed");
}

#[test]
fn bad_issues_json_is_rejected_with_file_issue_and_field() {
    let env = TestEnv::new();
    let f = "specs/auth/issues.json";
    env.issues("auth", json!([{"order":1},{"order":1}]));
    assert_bad_input(
        &env,
        &["greenlight", "auth"],
        &[f, "issue 1", "`order`", "duplicated"],
    );
    env.issues("auth", json!([{"order":1,"dependencies":[5]}]));
    assert_bad_input(
        &env,
        &["greenlight", "auth"],
        &[f, "issue 1", "`dependencies`", "unknown issue 5"],
    );
    env.issues(
        "auth",
        json!([{"order":1,"dependencies":[2]},{"order":2,"dependencies":[1]}]),
    );
    assert_bad_input(&env, &["greenlight", "auth"], &[f, "cycle", "1 → 2 → 1"]);
    env.issues("auth", json!([{"order":1,"labels":"backend"}]));
    assert_bad_input(
        &env,
        &["greenlight", "auth"],
        &[f, "issue 1", "`labels`", "list of strings"],
    );
    env.write(f, "{\"issues\": [\n  {\"order\": 1,}\n]}");
    assert_bad_input(
        &env,
        &["greenlight", "auth"],
        &[f, "not valid JSON", "line 2"],
    );
    // with an existing state, a bad issues.json leaves the state untouched too
    env.issues("auth", json!([{"order":1}]));
    env.run(&["greenlight", "auth"]).ok();
    env.issues("auth", json!([{"order":1,"github_issue":"12"}]));
    assert_bad_input(
        &env,
        &["greenlight", "auth"],
        &[f, "issue 1", "`github_issue`"],
    );
}

#[test]
fn invalid_state_json_names_line_and_column_and_is_never_overwritten() {
    let env = TestEnv::new();
    env.issues("auth", json!([{"order":1}]));
    env.write(
        ".swarm/state/auth.json",
        "{\n  \"feature_id\": \"auth\",\n  \"phase\": \n}\n",
    );
    for args in [
        &["greenlight", "auth"][..],
        &["status", "auth"],
        &["status"],
        &["unblock", "auth", "--issue", "1"],
    ] {
        assert_bad_input(
            &env,
            args,
            &[".swarm/state/auth.json", "line 4", "column 1"],
        );
    }
}

/// Every command's FEATURE argument is checked once, when the arguments are parsed: the
/// same error (exit 2, nothing written) whatever the command, and no path is ever built from
/// an invalid id.
#[test]
fn every_command_rejects_an_invalid_feature_id_with_the_same_error() {
    let env = TestEnv::new();
    let expected = "error: `../x` is not a valid feature id: use 2–64 characters a-z, 0-9, `.`, `_`, `-`, starting and ending with a letter or digit\n";
    for args in [
        &["init", "../x"][..],
        &["greenlight", "../x"],
        &["status", "../x"],
        &["run", "../x"],
        &["unblock", "../x", "--issue", "1"],
        &["prompt", "../x", "--issue", "1"],
        &["plan", "../x"],
        &["events", "../x"],
        &["events", "../x", "--follow"],
        &["audit", "../x"],
        &["report", "../x"],
        &["matrix", "../x"],
        &["github", "sync", "../x"],
        &["github", "publish", "../x"],
        &["-q", "status", "../x", "--json"],
    ] {
        let r = env.run(args);
        r.code(2);
        assert_eq!(r.stderr, expected, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
    }
    assert!(!env.path(".swarm").exists(), "nothing written");
}

#[test]
fn bad_feature_ids_and_missing_features() {
    let env = TestEnv::new();
    assert_bad_input(
        &env,
        &["greenlight", "Auth"],
        &["`Auth`", "not a valid feature id"],
    );
    assert_bad_input(&env, &["init", "../x"], &["not a valid feature id"]);
    assert_bad_input(&env, &["status", "nope"], &["feature `nope`", "no state"]);
    assert_bad_input(
        &env,
        &["greenlight", "nope"],
        &["specs/nope/issues.json", "does not exist"],
    );
}

#[test]
fn concurrent_read_modify_write_never_loses_an_update() {
    let env = TestEnv::new();
    let n = 12u64;
    let issues: Vec<Value> = (1..=n)
        .map(|i| json!({"order": i, "title": format!("t{i}")}))
        .collect();
    env.issues("auth", Value::Array(issues));
    env.run(&["greenlight", "auth"]).ok();
    edit_state(&env, "auth", |s| {
        for t in s["tasks"].as_array_mut().unwrap() {
            t["stage"] = json!("BLOCKED");
            t["blocked_reason"] = json!("x");
        }
    });
    let children: Vec<_> = (1..=n)
        .map(|i| {
            env.command()
                .args(["unblock", "auth", "--issue", &i.to_string()])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    for i in 1..=n {
        assert_eq!(env.stage("auth", i), "READY", "issue {i} lost its update");
    }
    let unblocked = env
        .events("auth")
        .iter()
        .filter(|e| e["event"] == "issue_unblocked")
        .count();
    assert_eq!(unblocked as u64, n);
    let seqs: Vec<u64> = env
        .events("auth")
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
}

#[test]
fn lock_wait_times_out_with_exit_3_naming_the_holder() {
    let env = TestEnv::new();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    env.write("config.yaml", "sessions:\n  lock_timeout_seconds: 1\n");
    let lock_path = env.path(".swarm/locks/auth.lock");
    let holder = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock_path)
        .unwrap();
    holder.lock().unwrap();
    std::fs::write(
        &lock_path,
        "pid 4242 `swarm-attack run auth` since 2026-01-01T00:00:00Z",
    )
    .unwrap();
    let state_before = env.read_bytes(".swarm/state/auth.json");
    let r = env.run(&["status", "auth"]);
    r.code(3);
    assert!(
        r.stderr.contains("locked") && r.stderr.contains("pid 4242"),
        "{}",
        r.stderr
    );
    assert_eq!(state_before, env.read_bytes(".swarm/state/auth.json"));
    holder.unlock().unwrap();
    env.run(&["status", "auth"]).ok();
}

#[test]
fn a_waiter_gets_the_lock_while_another_process_retakes_it_in_a_tight_loop() {
    let env = TestEnv::new();
    two_issues(&env);
    env.run(&["greenlight", "auth"]).ok();
    env.write("config.yaml", "sessions:\n  lock_timeout_seconds: 5\n");
    // takes and releases the feature lock thousands of times with no pause
    let mut hog = env
        .command()
        .args([
            "debug-append-events",
            "auth",
            "--count",
            "200000",
            "--pause-ms",
            "0",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let r = env.run(&["status", "auth"]);
    let still_running = hog.try_wait().unwrap().is_none();
    let _ = hog.kill();
    let _ = hog.wait();
    r.ok();
    assert!(
        still_running,
        "the hog finished before the waiter ran; the test proves nothing"
    );
}

#[test]
fn without_github_configured_the_automatic_sync_is_skipped_with_one_notice() {
    let env = TestEnv::new();
    two_issues(&env);
    let r = env.run(&["greenlight", "auth"]);
    r.ok();
    assert_eq!(
        r.stderr.matches("GitHub sync skipped").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("token"), "{}", r.stderr);
    // turned off: not a word
    env.write(
        "config.yaml",
        "coordination:\n  github_sync_enabled: false\n",
    );
    let r = env.run(&["greenlight", "auth"]);
    assert!(!r.stderr.contains("GitHub"), "{}", r.stderr);
}

#[test]
fn greenlight_new_issues_enter_ready_or_backlog_by_their_dependencies() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 1, "DONE");
    set_stage(&env, "auth", 2, "BLOCKED");
    env.issues(
        "auth",
        json!([
            {"order":1,"title":"a"},
            {"order":2,"title":"b","dependencies":[1]},
            {"order":3,"title":"c","dependencies":[2]},
            {"order":4,"title":"d","dependencies":[1]},
            {"order":5,"title":"e","dependencies":[2]},
            {"order":6,"title":"f","dependencies":[4]}
        ]),
    );
    let r = env.run(&["greenlight", "auth", "--json"]);
    r.ok();
    assert_eq!(one_json_document(&r)["added"], json!([4, 5, 6]));
    let got = stages(&env, "auth");
    let want = ["DONE", "BLOCKED", "BACKLOG", "READY", "BACKLOG", "BACKLOG"];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(got[i].1, *w, "issue {}: {got:?}", i + 1);
    }
    let r = env.run(&["status", "auth", "--json"]);
    assert_eq!(r.json()["tasks"][4]["waiting_on"], json!([2]));
}

#[test]
fn issues_json_with_every_documented_field_and_unknown_keys_loads() {
    let env = TestEnv::new();
    env.write(
        "specs/auth/issues.json",
        &serde_json::to_string_pretty(&json!({
            "feature_id": "auth",
            "generated_at": "2026-01-01T00:00:00Z",
            "generator": {"name": "ccpm", "version": 3},
            "issues": [
                {"order": 1, "title": "Login", "body": "Add login.", "labels": ["backend"],
                 "estimated_size": "small", "dependencies": [], "automation_type": "automated",
                 "parent_issue": null, "github_issue": 42, "files": ["src/auth.rs"],
                 "test_file": "tests/auth.rs", "acceptance": ["works"], "priority": 1},
                {"order": 2, "title": "Logout", "body": "", "labels": [],
                 "estimated_size": "large", "dependencies": [1], "automation_type": "manual",
                 "parent_issue": 1}
            ]
        }))
        .unwrap(),
    );
    let r = env.run(&["greenlight", "auth", "--json"]);
    r.ok();
    assert!(!r.stderr.contains("error"), "{}", r.stderr);
    assert_eq!(one_json_document(&r)["added"], json!([1, 2]));
    let s = env.state("auth");
    assert_eq!(s["tasks"][0]["title"], "Login");
    assert_eq!(s["tasks"][0]["github_issue"], 42);
    assert_eq!(s["tasks"][0]["estimated_size"], "small");
    assert_eq!(s["tasks"][1]["dependencies"], json!([1]));
    assert_eq!(s["tasks"][1]["parent_issue"], 1);
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 2), "BACKLOG");
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_greenlight_dry_run_then_greenlight_then_a_missing_feature() {
    let env = TestEnv::new().fixed_clock();
    two_issues(&env);
    let r = env.run(&["greenlight", "auth", "--dry-run"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
greenlight auth: would add 2, kept 0, 1 ready
  #1    READY        a
  #2    BACKLOG      b  [waiting on #1 (READY)]
plan:
  #1    SOLO      claude  a
        one eligible agent (claude 0.35) → SOLO claude
        claude  0.35  heuristic
----- stderr -----
"#);
    let r = env.run(&["greenlight", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
greenlight auth: added 2, kept 0, 1 ready
  #1    READY        a
  #2    BACKLOG      b  [waiting on #1 (READY)]
plan:
  #1    SOLO      claude  a
        one eligible agent (claude 0.35) → SOLO claude
        claude  0.35  heuristic
----- stderr -----
GitHub sync skipped: missing a token (set GITHUB_TOKEN or GH_TOKEN) and the repository (set github.repo: owner/name in config.yaml, GITHUB_REPOSITORY, or an `origin` remote) (turn it off with coordination.github_sync_enabled: false)
"#);
    let r = env.run(&["greenlight", "nope"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 2
----- stdout -----
----- stderr -----
error: specs/nope/issues.json does not exist
hint: run `swarm-attack init <feature>` or write the file
"#);
}
