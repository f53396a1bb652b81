//! `doctor` and `run`'s automatic preflight (docs/cli.md "doctor"): a setup problem is exit 2
//! before any attempt and never consumes a retry; known CLIs are asked `--version` and their
//! credentials are found (which source, never the value).

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

fn with_agent_command(s: &Setup, command: &str) {
    let cfg = s.env.read("config.yaml");
    let start = cfg.find("command: [").unwrap();
    let end = start + cfg[start..].find(']').unwrap() + 1;
    let cfg = format!("{}command: [{command}]{}", &cfg[..start], &cfg[end..]);
    s.env.write("config.yaml", &cfg);
}

#[test]
fn all_checks_pass_on_a_working_setup() {
    let s = Setup::new("ok", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let r = s.env.run(&["doctor", "ok"]);
    r.ok();
    assert!(
        r.stdout.contains("all ") && r.stdout.contains("checks passed"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("work lands on branch main"),
        "{}",
        r.stdout
    );
    let j = s.env.run(&["doctor", "--json"]).json();
    assert_eq!(j["ok"], true);
    assert_eq!(j["problems"], 0);
}

#[test]
fn a_missing_agent_program_is_exit_2_before_any_attempt_and_uses_no_retry() {
    let s = Setup::new("miss", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    with_agent_command(&s, "\"no-such-agent-xyz\", \"-p\"");
    let r = s.env.run(&["doctor"]);
    r.code(2);
    assert!(
        r.stdout.contains("FAIL")
            && r.stdout
                .contains("`no-such-agent-xyz` was not found on PATH"),
        "{}",
        r.stdout
    );
    let j = s.env.run(&["doctor", "--json"]);
    j.code(2);
    assert_eq!(j.json()["problems"], 1);
    let before = s.task("miss", 1);
    let r = s.env.run(&["run", "miss"]);
    r.code(2);
    assert!(r.stderr.contains("no-such-agent-xyz"), "{}", r.stderr);
    let after = s.task("miss", 1);
    assert_eq!(after["retries"], before["retries"]);
    assert_eq!(after["stage"], "READY");
    assert!(s.events_named("miss", "agent_started").is_empty());
}

#[test]
fn a_known_cli_is_asked_its_version_and_its_credentials_are_found_without_their_value() {
    let s = Setup::new("cli", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let bin = s.env.tmp.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    std::fs::write(
        &claude,
        "#!/bin/sh\n[ \"$1\" = --version ] && echo '9.9.9 (Claude Code)'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    with_agent_command(&s, &format!("\"{}\", \"-p\"", claude.display()));
    // no credentials: a problem naming where they may come from
    let r = s.env.run(&["doctor"]);
    r.code(2);
    assert!(r.stdout.contains("9.9.9 (Claude Code)"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("has no credentials: set ANTHROPIC_API_KEY"),
        "{}",
        r.stdout
    );
    // a login file counts, and is named
    let creds = s.env.home.join(".claude/.credentials.json");
    std::fs::create_dir_all(creds.parent().unwrap()).unwrap();
    std::fs::write(&creds, "{\"secret\": \"sk-do-not-print\"}").unwrap();
    let r = s.env.run(&["doctor"]);
    r.ok();
    assert!(
        r.stdout.contains(".claude/.credentials.json"),
        "{}",
        r.stdout
    );
    std::fs::remove_file(&creds).unwrap();
    // an environment variable counts, by name only
    let r: crate::common::env::Run = s
        .env
        .command()
        .args(["doctor", "--json"])
        .env("ANTHROPIC_API_KEY", "sk-secret-value-123")
        .output()
        .unwrap()
        .into();
    r.ok();
    assert!(r.stdout.contains("ANTHROPIC_API_KEY"), "{}", r.stdout);
    assert!(!r.stdout.contains("sk-secret-value-123"));
}

#[test]
fn a_preset_whose_command_is_overridden_still_has_its_credentials_checked() {
    // docs/cli.md "doctor": `preset: codex` run through a wrapper script (an absolute path, not
    // named `codex`): the credentials Codex needs are checked all the same
    let s = Setup::new("wrap", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let cfg = s.env.read("config.yaml");
    let cfg = cfg.replacen("  - name: fake\n", "  - name: fake\n    preset: codex\n", 1);
    s.env.write("config.yaml", &cfg);
    let r = s.env.run(&["doctor"]);
    r.code(2);
    assert!(
        r.stdout
            .contains("agent `fake` (codex) has no credentials: set OPENAI_API_KEY"),
        "{}",
        r.stdout
    );
    // a wrapper script is never asked `--version` (it could start work)
    assert!(r.stdout.contains("a custom program"), "{}", r.stdout);
    // `run`'s preflight says the same, before any attempt
    let r = s.env.run(&["run", "wrap"]);
    r.code(2);
    assert!(r.stderr.contains("OPENAI_API_KEY"), "{}", r.stderr);
    assert!(s.events_named("wrap", "agent_started").is_empty());
    // the key present: reported by name, never its value
    let r: crate::common::env::Run = s
        .env
        .command()
        .args(["doctor"])
        .env("OPENAI_API_KEY", "sk-wrapped-secret-42")
        .output()
        .unwrap()
        .into();
    r.ok();
    assert!(
        r.stdout.contains(
            "agent `fake` (codex): credentials from the environment variable OPENAI_API_KEY"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("sk-wrapped-secret-42"));
}

/// config.yaml with `tests.command` set to `command` (YAML-quoted).
fn with_test_command(s: &Setup, command: &str) {
    let cfg = s.env.read("config.yaml");
    let start = cfg.find("tests:\n  command: ").unwrap();
    let end = start + "tests:\n".len() + cfg[start + "tests:\n".len()..].find('\n').unwrap();
    let quoted = serde_json::to_string(command).unwrap();
    let cfg = format!(
        "{}tests:\n  command: {quoted}{}",
        &cfg[..start],
        &cfg[end..]
    );
    s.env.write("config.yaml", &cfg);
}

#[test]
fn a_shell_form_test_command_has_the_first_program_of_each_simple_command_checked() {
    let s = Setup::new("shf", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    // `&&`: it used to pass doctor (only `sh` was checked), then every attempt exited 127
    with_test_command(&s, "nonexistent-prog run && true");
    let r = s.env.run(&["doctor"]);
    r.code(2);
    assert!(
        r.stdout
            .contains("the test command's program `nonexistent-prog` was not found"),
        "{}",
        r.stdout
    );
    let r = s.env.run(&["run", "shf"]);
    r.code(2);
    assert!(r.stderr.contains("nonexistent-prog"), "{}", r.stderr);
    assert!(s.events_named("shf", "agent_started").is_empty());
    assert_eq!(s.task("shf", 1)["retries"], 0);
    // `|`: it used to land every issue ("passed" by `cat`); found, and the pipeline named
    with_test_command(&s, "A=1 nonexistent-prog run | cat");
    let r = s.env.run(&["doctor", "--json"]);
    r.code(2);
    let j = r.json();
    let failing: Vec<&str> = j["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert_eq!(failing, ["nonexistent-prog"], "{j:#}");
    let warning = j["warnings"][0].as_str().unwrap_or_default();
    assert!(warning.contains("set -o pipefail"), "{j:#}");
    // programs that exist pass; the pipeline is still a warning (exit 0), on `run` too
    let runner = s.env.tmp.path().join("runner.sh");
    with_test_command(&s, &format!("cd . && sh {} 2>&1 | cat", runner.display()));
    let r = s.env.run(&["doctor"]);
    r.ok();
    assert!(r.stdout.contains("warn the test command"), "{}", r.stdout);
    assert!(
        r.stdout.contains("test command's program: "),
        "{}",
        r.stdout
    );
    let r = s.env.run(&["run", "shf"]);
    r.ok();
    assert!(r.stderr.contains("set -o pipefail"), "{}", r.stderr);
    // with pipefail: no warning
    with_test_command(&s, "set -o pipefail; sh runner.sh | cat");
    let r = s.env.run(&["doctor", "--json"]);
    assert_eq!(r.json()["warnings"], json!([]));
}

#[test]
fn a_stale_git_lock_is_reported() {
    let s = Setup::new("lock", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let lock = s.env.path(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(120);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let r = s.env.run(&["doctor"]);
    r.code(2);
    assert!(
        r.stdout.contains(".git/index.lock is a stale git lock"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_agent_program_that_vanishes_mid_run_stops_the_run_without_using_a_retry() {
    // the agent deletes itself and fails: the retry finds no program
    let s = Setup::new(
        "gone",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}]),
        "cat > /dev/null\nrm -f -- \"$0\"\nexit 1\n",
        "sessions:\n  max_implementation_retries: 3\n",
    );
    let r = s.env.run(&["run", "gone"]);
    r.code(1);
    assert!(r.stderr.contains("setup problem"), "{}", r.stderr);
    let t1 = s.task("gone", 1);
    assert_eq!(t1["stage"], "READY", "{t1}");
    assert_eq!(t1["retries"], 1, "only the real failure used a retry: {t1}");
    assert_eq!(s.task("gone", 2)["stage"], "READY");
    assert_eq!(s.events_named("gone", "agent_started").len(), 2);
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_doctor_with_a_missing_agent_program() {
    let s = Setup::new_in(
        crate::common::TestEnv::new().fixed_clock(),
        "snap",
        json!([{"order": 1, "title": "A"}]),
        GOOD_AGENT,
        "",
    );
    with_agent_command(&s, "\"no-such-agent-xyz\", \"-p\"");
    let r = s.env.run(&["doctor", "snap"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 2
----- stdout -----
FAIL agent `fake`: the program `no-such-agent-xyz` was not found on PATH; install it or fix agents[].command
ok   test command's program: /usr/bin/sh
ok   work lands on branch main
ok   feature `snap` found
----- stderr -----
doctor: 1 problem (see the FAIL lines)
"#);
}
