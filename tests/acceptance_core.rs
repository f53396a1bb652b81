//! Black-box acceptance checks of SPEC §1–§4, §9 and their §11 clarifications, written
//! against the contract only: stage names and readiness, unblock targets, `--json` purity,
//! global options, exit codes, original state files, the git-history rule's edge cases,
//! feature ids, config keys.

use crate::common::{Run, TestEnv, snapshot_files};
use serde_json::{Value, json};

fn edit_state(env: &TestEnv, feature: &str, f: impl FnOnce(&mut Value)) {
    let mut s = env.state(feature);
    f(&mut s);
    env.write(
        &format!(".swarm/state/{feature}.json"),
        &serde_json::to_string_pretty(&s).unwrap(),
    );
}

fn set_stage(env: &TestEnv, feature: &str, issue: u64, stage: &str) {
    edit_state(env, feature, |s| {
        let t = s["tasks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["issue_number"] == issue)
            .unwrap();
        t["stage"] = json!(stage);
        if stage == "BLOCKED" {
            t["blocked_reason"] = json!("tests fail");
            t["retries"] = json!(3);
        }
    });
}

/// `status <feature> --json` → (issue, stage) for every task, in order.
fn stages(env: &TestEnv, feature: &str) -> Vec<(u64, String)> {
    let r = env.run(&["status", feature, "--json"]);
    r.ok();
    r.json()["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["issue"].as_u64().unwrap(),
                t["stage"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn stage_of(env: &TestEnv, feature: &str, issue: u64) -> String {
    stages(env, feature)
        .into_iter()
        .find(|(n, _)| *n == issue)
        .unwrap_or_else(|| panic!("no task {issue}"))
        .1
}

/// stdout is exactly one JSON document (no text before or after it).
#[track_caller]
fn one_json_document(r: &Run) -> Value {
    let mut it = serde_json::Deserializer::from_str(&r.stdout).into_iter::<Value>();
    let first = it
        .next()
        .unwrap_or_else(|| panic!("no JSON on stdout; stderr:\n{}", r.stderr))
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", r.stdout));
    assert!(
        it.next().is_none(),
        "more than one JSON document:\n{}",
        r.stdout
    );
    first
}

/// Exit 2, nothing on stdout, exactly one `error:` line on stderr containing every needle.
#[track_caller]
fn input_error(r: &Run, needles: &[&str]) {
    r.code(2);
    assert!(r.stdout.is_empty(), "stdout:\n{}", r.stdout);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "stderr:\n{}", r.stderr);
    for n in needles {
        assert!(errors[0].contains(n), "`{n}` missing in: {}", errors[0]);
    }
}

fn chain(env: &TestEnv) {
    env.issues(
        "auth",
        json!([
            {"order":1,"title":"a"},
            {"order":2,"title":"b","dependencies":[1]},
            {"order":3,"title":"c","dependencies":[2]}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
}

// ---------------------------------------------------------------- stages and readiness

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
    // every SPEC stage name loads and is written back as is
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

// ---------------------------------------------------------------- unblock

#[test]
fn unblock_goes_to_backlog_when_dependencies_are_not_done() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 2, "BLOCKED");
    let r = env.run(&["unblock", "auth", "--issue", "2", "--json"]);
    r.ok();
    one_json_document(&r);
    let s = env.state("auth");
    assert_eq!(s["tasks"][1]["stage"], "BACKLOG");
    assert_eq!(s["tasks"][1]["blocked_reason"], Value::Null);
    assert_eq!(s["tasks"][1]["retries"], 0);
    // released by itself when the dependency becomes DONE
    env.commit("feat(auth): Implement issue #1");
    assert_eq!(stage_of(&env, "auth", 2), "READY");
}

#[test]
fn unblock_accepts_interrupted_and_skipped_and_refuses_other_stages() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 1, "DONE");
    for stage in ["INTERRUPTED", "SKIPPED"] {
        set_stage(&env, "auth", 2, stage);
        edit_state(&env, "auth", |s| {
            s["tasks"][1]["retries"] = json!(2);
            s["tasks"][1]["blocked_reason"] = json!("dependency 1 blocked");
        });
        env.run(&["unblock", "auth", "--issue", "2"]).ok();
        let s = env.state("auth");
        assert_eq!(s["tasks"][1]["stage"], "READY", "from {stage}");
        assert_eq!(s["tasks"][1]["retries"], 0, "from {stage}");
        assert_eq!(s["tasks"][1]["blocked_reason"], Value::Null, "from {stage}");
    }
    let unblocked: Vec<Value> = env
        .events("auth")
        .into_iter()
        .filter(|e| e["event"] == "issue_unblocked")
        .collect();
    assert_eq!(unblocked.len(), 2);
    assert!(unblocked.iter().all(|e| e["issue"] == 2));
    // DONE, READY and BACKLOG cannot be unblocked; nothing is written
    for (issue, stage) in [(1, "DONE"), (2, "READY"), (3, "BACKLOG")] {
        let before = snapshot_files(&env.root);
        let r = env.run(&["unblock", "auth", "--issue", &issue.to_string()]);
        input_error(&r, &[&format!("issue {issue}"), stage]);
        assert_eq!(before, snapshot_files(&env.root), "unblock of {stage}");
    }
    // an issue that does not exist names it
    let r = env.run(&["unblock", "auth", "--issue", "42"]);
    input_error(&r, &["42"]);
}

// ---------------------------------------------------------------- --json, stdout, stderr

#[test]
fn every_read_command_json_is_one_document_even_with_warnings() {
    let env = TestEnv::new();
    chain(&env);
    // warnings on stderr: an unknown stage and a legacy config key
    edit_state(&env, "auth", |s| {
        s["tasks"][2]["stage"] = json!("VERIFYING")
    });
    env.write("config.yaml", "preflight:\n  enabled: true\n");
    set_stage(&env, "auth", 1, "BLOCKED");
    env.issues(
        "billing",
        json!([{"order":1,"title":"x"},{"order":2,"title":"y"}]),
    );
    let cases: Vec<Vec<&str>> = vec![
        vec!["init", "billing", "--json"],
        vec!["greenlight", "billing", "--dry-run", "--json"],
        vec!["greenlight", "billing", "--json"],
        vec!["greenlight", "auth", "--json"],
        vec!["status", "auth", "--json"],
        vec!["status", "--json"],
        vec!["-v", "status", "--json"],
        vec!["unblock", "auth", "--issue", "1", "--json"],
    ];
    for args in cases {
        let r = env.run(&args);
        r.ok();
        let doc = one_json_document(&r);
        assert!(doc.is_object(), "{args:?}: {doc}");
        assert!(r.stderr.contains("warning:"), "{args:?}: {}", r.stderr);
        assert!(!r.stdout.contains("warning"), "{args:?}: {}", r.stdout);
    }
}

#[test]
fn errors_with_json_leave_stdout_empty() {
    let env = TestEnv::new();
    chain(&env);
    input_error(
        &env.run(&["status", "nope", "--json"]),
        &["nope", "no state"],
    );
    input_error(
        &env.run(&["greenlight", "Bad!", "--json"]),
        &["`Bad!`", "feature id"],
    );
    input_error(
        &env.run(&["unblock", "auth", "--issue", "1", "--json"]),
        &["issue 1", "READY"],
    );
}

#[test]
fn bad_usage_exits_2() {
    let env = TestEnv::new();
    chain(&env);
    for args in [
        &["frobnicate"][..],
        &["unblock", "auth"],
        &["unblock", "auth", "--issue", "x"],
        &["status", "auth", "--bogus"],
        &["greenlight"],
        &[],
    ] {
        let r = env.run(args);
        r.code(2);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
        assert!(!r.stderr.is_empty(), "{args:?}");
    }
    env.run(&["--help"]).ok();
    env.run(&["--version"]).ok();
}

// ---------------------------------------------------------------- global options

#[test]
fn project_option_works_from_another_directory_before_or_after_the_command() {
    let env = TestEnv::new();
    chain(&env);
    env.write("cfg/custom.yaml", "specs_dir: plans\nswarm_dir: .tool\n");
    let elsewhere = env.tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let root = env.root.to_str().unwrap();
    let run_in = |args: &[&str]| -> Run {
        env.command()
            .current_dir(&elsewhere)
            .args(args)
            .output()
            .unwrap()
            .into()
    };
    run_in(&["-p", root, "status", "auth"]).ok();
    let r = run_in(&["status", "auth", "--project", root, "--json"]);
    r.ok();
    assert_eq!(one_json_document(&r)["tasks"][0]["stage"], "READY");
    // relative to the current directory
    run_in(&["-p", "../repo", "status", "auth"]).ok();
    // nothing was written in the current directory
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    // --config with -p: the file's settings apply to the project
    let cfg = env.path("cfg/custom.yaml");
    run_in(&[
        "-p",
        root,
        "--config",
        cfg.to_str().unwrap(),
        "init",
        "billing",
    ])
    .ok();
    assert!(env.path("plans/billing/issues.json").exists());
    assert!(env.path(".tool/state/billing.json").exists());
    assert!(!env.path(".swarm/state/billing.json").exists());
    // a project directory that does not exist is bad usage naming it
    let r = run_in(&["-p", "/nonexistent/dir", "status"]);
    input_error(&r, &["/nonexistent/dir"]);
}

/// Runs the binary under a pseudo-terminal (`script`), so colours would be on.
fn run_on_tty(env: &TestEnv, args: &str, no_color_env: bool) -> String {
    let mut cmd = std::process::Command::new("script");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("TERM", "xterm");
    if no_color_env {
        cmd.env("NO_COLOR", "1");
    }
    let line = format!("{} {args}", crate::common::bin().display());
    let out = cmd
        .current_dir(&env.root)
        .args(["-qec", &line, "/dev/null"])
        .output()
        .expect("`script` (util-linux) runs the binary on a pseudo-terminal");
    assert!(out.status.success(), "{line}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn no_color_and_the_no_color_flag_remove_every_ansi_code() {
    let env = TestEnv::new();
    chain(&env);
    set_stage(&env, "auth", 1, "BLOCKED");
    // on a terminal, colours are on by default: the checks below mean something
    let coloured = run_on_tty(&env, "status auth", false);
    assert!(coloured.contains('\x1b'), "{coloured:?}");
    for (args, env_var) in [
        ("status auth", true),
        ("--no-color status auth", false),
        ("status auth --no-color", false),
        ("status --no-color", false),
        ("greenlight auth --no-color", false),
        ("greenlight auth", true),
        ("status auth --json", false),
    ] {
        let out = run_on_tty(&env, args, env_var);
        assert!(out.contains("auth"), "{args}: {out:?}");
        assert!(
            !out.contains('\x1b'),
            "{args} (NO_COLOR={env_var}): {out:?}"
        );
    }
}

// ---------------------------------------------------------------- files

#[test]
fn feature_ids_follow_the_spec_pattern() {
    let env = TestEnv::new();
    let long_ok = "a".repeat(64);
    let too_long = "a".repeat(65);
    for good in ["ab", "a1", "a_b", "a..b", "v1.2-x", "0x", long_ok.as_str()] {
        env.run(&["init", good]).ok();
        assert!(
            env.path(&format!(".swarm/state/{good}.json")).exists(),
            "{good}"
        );
    }
    for bad in [
        "a",
        "Ab",
        "a-",
        "a.",
        "_ab",
        ".ab",
        "a/b",
        "a b",
        "ä1",
        too_long.as_str(),
    ] {
        let before = snapshot_files(&env.root);
        let r = env.run(&["init", bad]);
        input_error(&r, &[&format!("`{bad}`"), "feature id"]);
        assert_eq!(before, snapshot_files(&env.root), "{bad}");
        input_error(&env.run(&["status", bad]), &["feature id"]);
        input_error(&env.run(&["greenlight", bad]), &["feature id"]);
        input_error(&env.run(&["unblock", bad, "--issue", "1"]), &["feature id"]);
    }
}

#[test]
fn init_keeps_an_existing_issues_file_and_builds_the_state_from_it() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
    let issues_before = env.read_bytes("specs/auth/issues.json");
    let r = env.run(&["init", "auth", "--json"]);
    r.ok();
    assert_eq!(one_json_document(&r)["issues_file_created"], false);
    assert_eq!(issues_before, env.read_bytes("specs/auth/issues.json"));
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 2), "BACKLOG");
    // a second init changes nothing at all
    let before = snapshot_files(&env.root);
    env.run(&["init", "auth"]).ok();
    assert_eq!(before, snapshot_files(&env.root));
    // an unreadable state is never overwritten by init either
    env.write(
        ".swarm/state/auth.json",
        "{\"feature_id\": \"auth\",\n  oops\n}",
    );
    let before = snapshot_files(&env.root);
    input_error(
        &env.run(&["init", "auth"]),
        &[".swarm/state/auth.json", "line 2", "column 3"],
    );
    assert_eq!(before, snapshot_files(&env.root));
}

#[test]
fn the_tool_never_commits_and_the_lock_file_is_never_replaced() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    chain(&env);
    let head = env.git(&["rev-parse", "HEAD"]);
    let lock = env.path(".swarm/locks/auth.lock");
    let ino = std::fs::metadata(&lock).unwrap().ino();
    set_stage(&env, "auth", 1, "BLOCKED");
    env.run(&["unblock", "auth", "--issue", "1"]).ok();
    env.run(&["greenlight", "auth"]).ok();
    env.run(&["status"]).ok();
    env.run(&["init", "auth"]).ok();
    assert_eq!(head, env.git(&["rev-parse", "HEAD"]));
    // .swarm/ ignores itself (init wrote .swarm/.gitignore)
    assert_eq!(env.git(&["status", "--porcelain", "--", ".swarm"]), "");
    assert_eq!(ino, std::fs::metadata(&lock).unwrap().ino());
    // no temp files are left next to the state
    let names: Vec<String> = std::fs::read_dir(env.path(".swarm/state"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["auth.json"]);
}

#[test]
fn original_state_file_unknown_phase_and_stages_are_warned_and_kept_through_writes() {
    let env = TestEnv::new();
    let original = json!({
        "feature_id": "legacy",
        "phase": "SOME_FUTURE_PHASE",
        "tasks": [
            {"issue_number": 1, "stage": "BLOCKED", "title": "one", "dependencies": [],
             "estimated_size": "medium", "business_value_score": 0.5, "technical_risk_score": 0.5,
             "blocked_reason": "needs a human"},
            {"issue_number": 2, "stage": "MANUAL_REQUIRED", "title": "two", "dependencies": []},
            {"issue_number": 3, "stage": "BACKLOG", "title": "three", "dependencies": [2]}
        ],
        "current_session": "sess-9",
        "created_at": "2025-01-01T00:00:00Z",
        "updated_at": "2025-01-02T00:00:00Z",
        "cost_total_usd": 0.5,
        "cost_by_phase": {},
        "_signature": "hmac:123"
    });
    env.write(
        ".swarm/state/legacy.json",
        &serde_json::to_string_pretty(&original).unwrap(),
    );
    // unblock writes the state: everything unknown survives
    let r = env.run(&["unblock", "legacy", "--issue", "1"]);
    r.ok();
    for needle in ["SOME_FUTURE_PHASE", "task 2", "MANUAL_REQUIRED"] {
        assert!(
            r.stderr.lines().any(|l| l.starts_with("warning:")
                && l.contains("legacy.json")
                && l.contains(needle)),
            "{needle}: {}",
            r.stderr
        );
    }
    let s = env.state("legacy");
    assert_eq!(s["phase"], "SOME_FUTURE_PHASE");
    assert_eq!(s["_signature"], "hmac:123");
    assert_eq!(s["current_session"], "sess-9");
    assert_eq!(s["created_at"], "2025-01-01T00:00:00Z");
    assert_eq!(s["tasks"].as_array().unwrap().len(), 3);
    assert_eq!(s["tasks"][0]["stage"], "READY");
    assert_eq!(s["tasks"][1]["stage"], "MANUAL_REQUIRED");
    // an unknown stage never satisfies a dependency
    assert_eq!(s["tasks"][2]["stage"], "BACKLOG");
    assert_eq!(s["tasks"][0]["business_value_score"], 0.5);
}

// ---------------------------------------------------------------- the git-history rule

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

// ---------------------------------------------------------------- config.yaml

#[test]
fn every_documented_config_key_is_accepted_without_a_warning() {
    let env = TestEnv::new();
    chain(&env);
    env.write(
        "config.yaml",
        r#"repo_root: "."
specs_dir: "specs"
swarm_dir: ".swarm"
coordination:
  auto_sync_from_git: true
  github_sync_enabled: true
  llm_coordinator_enabled: false
  generate_summaries: true
  event_logging_enabled: true
  proposal_source: heuristic   # heuristic | llm
  thresholds: {confidence_gap: 0.30, angle_overlap: 0.50, high_confidence: 0.50,
               low_confidence: 0.30, synthesis_confidence: 0.70}
  join: first                  # first | all
  synthesis_wait_seconds: 15
agents:                        # the swarm; order matters only for fail-open
  - name: claude
    command: ["claude", "-p", "--output-format", "json"]
    angle: "implementation and tests"
    covers: ["rust", "api", "tests"]
    builds_on_other: false
    timeout_seconds: 1800
    env_passthrough: []
llm:
  command: null                # e.g. ["claude", "-p", "--model", "haiku"]; summaries, proposals
context: {max_prompt_tokens: 15000}
tests: {command: "cargo test", timeout_seconds: 600, issue_command: "cargo test {test_file}"}
sessions: {max_implementation_retries: 3, stale_timeout_minutes: 30, lock_timeout_seconds: 30}
git: {base_branch: main, sync_refs: ["HEAD"], done_patterns: [], worktrees_root: ".swarm/worktrees"}
github: {repo: null, api_url: null, close_on_done: true, trigger_label: swarm,
         default_feature: github, run_agents: false, bot_login: "github-actions[bot]",
         allowed_bots: [], min_write_interval_ms: 1000}
"#,
    );
    for args in [
        &["status", "auth"][..],
        &["greenlight", "auth"],
        &["status"],
    ] {
        let r = env.run(args);
        r.ok();
        assert!(
            !r.stderr.contains("warning:") && !r.stderr.contains("error:"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn original_top_level_keys_warn_naming_each_key() {
    let env = TestEnv::new();
    chain(&env);
    env.write(
        "config.yaml",
        "retry:\n  max: 3\npreflight:\n  enabled: true\nbug_bash: {x: 1}\nchief_of_staff:\n  budget: 5\nauto_fix: {enabled: true}\n",
    );
    let r = env.run(&["status", "auth"]);
    r.ok();
    for key in [
        "retry",
        "preflight",
        "bug_bash",
        "chief_of_staff",
        "auto_fix",
    ] {
        assert!(
            r.stderr
                .lines()
                .any(|l| l.starts_with("warning:") && l.contains(&format!("`{key}`"))),
            "{key}: {}",
            r.stderr
        );
    }
    assert!(!r.stderr.contains("error:"), "{}", r.stderr);
}

#[test]
fn unknown_keys_in_every_section_name_the_key_and_the_nearest_valid_one() {
    let env = TestEnv::new();
    chain(&env);
    for (yaml, key, near) in [
        ("swarm_dri: x\n", "swarm_dri", "swarm_dir"),
        ("githb:\n  repo: a/b\n", "githb", "github"),
        (
            "coordination:\n  auto_sync_from_gti: true\n",
            "coordination.auto_sync_from_gti",
            "auto_sync_from_git",
        ),
        ("git:\n  sync_ref: [HEAD]\n", "git.sync_ref", "sync_refs"),
        (
            "sessions:\n  lock_timeout_second: 3\n",
            "sessions.lock_timeout_second",
            "lock_timeout_seconds",
        ),
        (
            "github:\n  min_write_interval: 0\n",
            "github.min_write_interval",
            "min_write_interval_ms",
        ),
        (
            "context:\n  max_prompt_token: 10\n",
            "context.max_prompt_token",
            "max_prompt_tokens",
        ),
        ("tests:\n  comand: make\n", "tests.comand", "command"),
    ] {
        env.write("config.yaml", yaml);
        let before = snapshot_files(&env.root);
        let r = env.run(&["greenlight", "auth"]);
        input_error(
            &r,
            &["config.yaml", &format!("`{key}`"), &format!("`{near}`")],
        );
        assert_eq!(before, snapshot_files(&env.root), "{yaml}");
    }
}

// ---------------------------------------------------------------- fixes found by these checks

#[test]
fn state_file_with_a_wrong_type_names_task_and_field_and_is_untouched() {
    let env = TestEnv::new();
    chain(&env);
    let cases = [
        (
            json!({"feature_id":"auth","phase":"NO_PRD","tasks":[{"issue_number":2,"stage":"READY","dependencies":"1"}]}),
            vec!["task 2", "`dependencies`"],
        ),
        (
            json!({"feature_id":"auth","phase":"NO_PRD","tasks":[{"issue_number":1,"stage":7}]}),
            vec!["task 1", "`stage`"],
        ),
        (
            json!({"feature_id":"auth","phase":"NO_PRD","tasks":"none"}),
            vec!["`tasks`"],
        ),
        (
            json!({"feature_id":"auth","phase":"NO_PRD","cost_total_usd":"x","tasks":[]}),
            vec!["`cost_total_usd`"],
        ),
        (json!([1, 2]), vec!["JSON object"]),
    ];
    for (doc, needles) in cases {
        env.write(
            ".swarm/state/auth.json",
            &serde_json::to_string_pretty(&doc).unwrap(),
        );
        for args in [&["status", "auth"][..], &["greenlight", "auth"]] {
            let before = snapshot_files(&env.root);
            let r = env.run(args);
            let mut all = vec![".swarm/state/auth.json", "line "];
            all.extend(needles.iter().copied());
            input_error(&r, &all);
            assert_eq!(before, snapshot_files(&env.root), "{args:?} {doc}");
        }
    }
}

#[test]
fn repo_root_must_be_a_directory_and_is_used_as_the_project_root() {
    let env = TestEnv::new();
    env.write("config.yaml", "repo_root: nowhere\n");
    let before = snapshot_files(&env.root);
    let r = env.run(&["init", "auth"]);
    input_error(
        &r,
        &["config.yaml", "`repo_root`", "nowhere", "not a directory"],
    );
    assert_eq!(before, snapshot_files(&env.root));
    std::fs::create_dir_all(env.path("app")).unwrap();
    env.write("config.yaml", "repo_root: app\n");
    env.run(&["init", "auth"]).ok();
    assert!(env.path("app/specs/auth/issues.json").exists());
    assert!(env.path("app/.swarm/state/auth.json").exists());
    assert!(!env.path("specs").exists());
}

#[test]
fn writing_the_state_keeps_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    chain(&env);
    let p = env.path(".swarm/state/auth.json");
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_ne!(
        mode, 0o600,
        "a fresh state file is not private to its owner"
    );
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o664)).unwrap();
    set_stage(&env, "auth", 1, "BLOCKED");
    env.run(&["unblock", "auth", "--issue", "1"]).ok();
    assert_eq!(env.stage("auth", 1), "READY");
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o664);
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
