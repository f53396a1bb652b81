//! What every command shares (docs/cli.md, docs/state.md, docs/config.md "General rules"), written
//! against the contract only: `--json` purity, global options, exit codes, feature ids, original
//! state files and how the state file is written.

use crate::common::fixtures::chain;
use crate::common::output::{input_error, one_json_document};
use crate::common::state::{edit_state, set_stage};
use crate::common::{Run, TestEnv, snapshot_files};
use serde_json::json;

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
        &env.run(&["unblock", "auth", "--issue", "9", "--json"]),
        &["no issue 9"],
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
