//! Acceptance review of every input the tool reads: odd issues.json values, broken state
//! files, odd config.yaml, corrupted caches and outbox, huge outputs, hanging commands
//! (SIGKILL at random moments: `inputs_sigkill.rs`). Bad input is exit 2 with one `error:`
//! sentence naming the thing, nothing is overwritten; a corrupted cache never stops a command.

use crate::common::github::setup;
use crate::common::{Run, TestEnv, snapshot_files};
use serde_json::{Value, json};
use std::time::Duration;

const ISSUES: &str = "specs/auth/issues.json";
const STATE: &str = ".swarm/state/auth.json";

/// Exit 2, exactly one `error:` line holding every needle, and no file changed.
#[track_caller]
fn rejected(env: &TestEnv, args: &[&str], needles: &[&str]) -> Run {
    let before = snapshot_files(&env.root);
    let r = env.run(args);
    r.code(2);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one error sentence:\n{}", r.stderr);
    for n in needles {
        assert!(errors[0].contains(n), "`{n}` missing in: {}", errors[0]);
    }
    assert_eq!(
        before,
        snapshot_files(&env.root),
        "files changed by {args:?}"
    );
    r
}

fn greenlit() -> TestEnv {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    env
}

fn write_bytes(env: &TestEnv, rel: &str, bytes: &[u8]) {
    let p = env.path(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn issues_json_out_of_range_orders_are_named_with_their_value() {
    let env = greenlit();
    for (raw, shown) in [
        ("-1", "-1"),
        ("0", "found 0"),
        ("1.5", "1.5"),
        ("4294967296", "4294967296"),
        ("99999999999999999999999", "found 1"),
    ] {
        env.write(
            ISSUES,
            &format!(
                "{{\"feature_id\":\"auth\",\"issues\":[{{\"order\":{raw},\"title\":\"t\"}}]}}"
            ),
        );
        rejected(
            &env,
            &["greenlight", "auth"],
            &[ISSUES, "index 0", "`order`", "≥ 1", shown],
        );
    }
}

#[test]
fn issues_json_dependency_on_itself_is_a_cycle_of_one() {
    let env = greenlit();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[2]}]),
    );
    rejected(
        &env,
        &["greenlight", "auth"],
        &[ISSUES, "issue 2", "`dependencies`", "cycle", "2 → 2"],
    );
}

#[test]
fn issues_json_with_a_byte_order_mark_loads() {
    let env = TestEnv::new();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(br#"{"feature_id":"auth","issues":[{"order":1,"title":"a"}]}"#);
    write_bytes(&env, ISSUES, &bytes);
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 1), "READY");
}

#[test]
fn issues_json_non_utf8_empty_or_a_directory_is_exit_2_naming_it() {
    let env = greenlit();
    write_bytes(
        &env,
        ISSUES,
        b"{\"feature_id\":\"auth\",\"issues\":[{\"order\":1,\"title\":\"a\xff\"}]}",
    );
    rejected(
        &env,
        &["greenlight", "auth"],
        &[ISSUES, "not valid JSON", "line 1, column"],
    );
    write_bytes(&env, ISSUES, b"");
    rejected(
        &env,
        &["greenlight", "auth"],
        &[ISSUES, "not valid JSON", "line 1"],
    );
    std::fs::remove_file(env.path(ISSUES)).unwrap();
    std::fs::create_dir(env.path(ISSUES)).unwrap();
    rejected(&env, &["greenlight", "auth"], &[ISSUES, "Is a directory"]);
}

#[test]
fn empty_or_truncated_state_file_is_exit_2_with_a_hint_and_kept() {
    let env = greenlit();
    let good = env.read_bytes(STATE);
    for bytes in [&b""[..], &good[..good.len() / 2]] {
        write_bytes(&env, STATE, bytes);
        for args in [
            &["greenlight", "auth"][..],
            &["status", "auth"],
            &["status"],
        ] {
            let r = rejected(&env, args, &[STATE, "not a valid state file", "line"]);
            assert!(r.stderr.contains("hint:"), "{}", r.stderr);
        }
        assert_eq!(env.read_bytes(STATE), bytes);
    }
}

#[test]
fn a_directory_in_place_of_the_state_file_is_exit_2_naming_it() {
    let env = greenlit();
    std::fs::remove_file(env.path(STATE)).unwrap();
    std::fs::create_dir(env.path(STATE)).unwrap();
    for args in [&["greenlight", "auth"][..], &["status", "auth"]] {
        let r = rejected(&env, args, &[STATE, "is a directory"]);
        assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    }
    assert!(env.path(STATE).is_dir());
}

#[test]
fn a_project_dir_that_is_a_file_says_so() {
    let env = TestEnv::new();
    let file = env.tmp.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let shown = file.display().to_string();
    let r = env.run(&["-p", &shown, "status"]);
    r.code(2);
    assert!(
        r.stderr.contains(&format!("{shown} is not a directory")),
        "{}",
        r.stderr
    );
    let missing = env.tmp.path().join("missing").display().to_string();
    let r = env.run(&["-p", &missing, "status"]);
    r.code(2);
    assert!(r.stderr.contains("does not exist"), "{}", r.stderr);
}

#[test]
fn odd_config_files_are_exit_2_naming_file_and_line_and_change_nothing() {
    let env = greenlit();
    for (yaml, needles) in [
        (
            &b"git:\n\tsync_refs: [HEAD]\n"[..],
            &["config.yaml:2", "tab"][..],
        ),
        (
            b"sessions:\n  lock_timeout_seconds: 5\nsessions:\n  lock_timeout_seconds: 6\n",
            &["config.yaml:3", "duplicate key `sessions`"],
        ),
        (
            b"sessions:\n  lock_timeout_seconds: 5\n  lock_timeout_seconds: 6\n",
            &["config.yaml:3", "duplicate key `lock_timeout_seconds`"],
        ),
        (
            b"sessions: &s\n  lock_timeout_seconds: 5\nextra: *s\n",
            &["config.yaml:3", "unknown key `extra`"],
        ),
        (
            b"sessions:\n  lock_timeout_seconds: 5 # \xff\n",
            &["config.yaml", "not valid UTF-8"],
        ),
        (b"- a\n- b\n", &["config.yaml:1", "mapping", "a list"]),
        (
            b"sessions:\n  lock_timeout_seconds: 99999999999999999999999\n",
            &["config.yaml:2", "sessions.lock_timeout_seconds"],
        ),
    ] {
        write_bytes(&env, "config.yaml", yaml);
        rejected(&env, &["status", "auth"], needles);
    }
    // a byte-order mark and an empty file are fine
    write_bytes(
        &env,
        "config.yaml",
        b"\xef\xbb\xbfsessions:\n  lock_timeout_seconds: 5\n",
    );
    env.run(&["status", "auth"]).ok();
    write_bytes(&env, "config.yaml", b"");
    env.run(&["status", "auth"]).ok();
}

#[test]
fn a_corrupted_history_cache_is_rebuilt_and_the_evidence_still_found() {
    let env = greenlit();
    let cache = ".swarm/cache/history/auth.json";
    assert!(env.path(cache).is_file());
    let bogus_tip = json!({"version":1,"fingerprint":"x","tips":{"HEAD":"0000000000000000000000000000000000000000"},
        "commits_total":99,"ledger":{"evidence":{},"reverts":{},"next":0}})
    .to_string();
    let cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\x00\xff garbage \x01".to_vec(),
        b"{\"version\":1,\"tips\":".to_vec(),
        b"[]".to_vec(),
        bogus_tip.into_bytes(),
    ];
    for (i, bytes) in cases.into_iter().enumerate() {
        env.commit(&format!("feat(auth): Implement issue #{}", i % 2 + 1));
        write_bytes(&env, cache, &bytes);
        let r = env.run(&["status", "auth"]);
        r.ok();
        assert!(!r.stderr.contains("error:"), "{}", r.stderr);
        assert_eq!(env.stage("auth", 1), "DONE", "case {i}");
        if i > 0 {
            assert_eq!(env.stage("auth", 2), "DONE", "case {i}");
        }
        let rebuilt: Value = serde_json::from_slice(&env.read_bytes(cache)).unwrap();
        assert!(rebuilt.is_object());
    }
    // a directory in its place: a warning, the command still works
    std::fs::remove_file(env.path(cache)).unwrap();
    std::fs::create_dir(env.path(cache)).unwrap();
    env.commit("chore: more history");
    let r = env.run(&["greenlight", "auth"]);
    r.ok();
    assert!(r.stderr.contains("warning:"), "{}", r.stderr);
    assert!(r.stderr.contains("history"), "{}", r.stderr);
}

#[test]
fn a_corrupted_github_cache_or_outbox_never_stops_github_sync_and_good_entries_survive() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    let b = gh.fake.add_issue("b", &[]);
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"a","github_issue":a},{"order":2,"title":"b","github_issue":b}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.sync().ok();
    let cache = ".swarm/cache/github/auth.json";
    assert!(gh.env.path(cache).is_file());
    // garbage cache: rebuilt from GitHub, nothing fails
    for bytes in [&b""[..], b"\xff\xfe\x00 not json", b"{\"repo\":", b"[1,2]"] {
        write_bytes(&gh.env, cache, bytes);
        let r = gh.sync();
        r.ok();
        assert!(!r.stderr.contains("error:"), "{}", r.stderr);
        assert!(gh.fake.is_open(a));
        assert_eq!(gh.fake.status_comments(a).len(), 1);
    }
    // an outbox holding a good entry between a binary line and a torn one
    gh.set(1, "BLOCKED", json!({"blocked_reason": "flaky"}));
    let entry = json!({"ts":"2026-01-01T00:00:00Z","target":"issue","issue":1,"github_issue":a,
        "op":"labels_set","request":"PUT /x","status":502,"error":"bad gateway","attempts":1});
    let mut outbox = b"\x00\xff\xfe binary \x01\n".to_vec();
    outbox.extend_from_slice(entry.to_string().as_bytes());
    outbox.extend_from_slice(b"\n{\"ts\":\"2026");
    write_bytes(&gh.env, ".swarm/outbox/auth.jsonl", &outbox);
    let r = gh.env.run(&["github", "sync", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["replayed"], 1, "{}", r.stderr);
    assert!(r.stderr.contains("line 1"), "{}", r.stderr);
    assert!(r.stderr.contains("line 3"), "{}", r.stderr);
    crate::common::github::assert_issue(&gh.fake, a, "swarm:blocked");
}

#[test]
fn a_ten_megabyte_event_line_is_read_and_appended_after() {
    let env = greenlit();
    let big = json!({"ts":"2026-01-01T00:00:00Z","event":"note","feature":"auth","seq":1000,
        "long":"x".repeat(10 * 1024 * 1024)});
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(env.path(".swarm/events/auth.jsonl"))
        .unwrap();
    use std::io::Write;
    writeln!(f, "{big}").unwrap();
    drop(f);
    let r = env.run(&["events", "auth", "--json", "-n", "1"]);
    r.ok();
    assert!(r.stdout.len() > 10 * 1024 * 1024);
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"},{"order":3,"title":"c"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    let events = env.events("auth");
    let last = events.last().unwrap();
    assert!(last["seq"].as_u64().unwrap() > 1000, "{last}");
}

#[test]
fn an_agent_printing_50_mb_of_binary_is_saved_whole_and_the_issue_lands() {
    let s = crate::common::agents::Setup::new(
        "auth",
        json!([{"order":1,"title":"a"}]),
        "head -c 52428800 /dev/urandom\necho hi > hello.txt\n",
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    assert_eq!(s.env.stage("auth", 1), "DONE");
    let saved = s
        .env
        .path(".swarm/runs/auth/issue-1/attempt-1/agent.stdout");
    assert_eq!(std::fs::metadata(saved).unwrap().len(), 52_428_800);
    // the log stays small: the output is in the attempt folder, not in the events
    let log = std::fs::metadata(s.env.path(".swarm/events/auth.jsonl")).unwrap();
    assert!(log.len() < 100_000, "{}", log.len());
}

#[test]
fn a_tests_command_that_never_exits_is_killed_at_its_timeout_and_blocks_the_issue() {
    let s = crate::common::agents::Setup::new(
        "auth",
        json!([{"order":1,"title":"a"}]),
        "echo hi > hello.txt\n",
        "sessions:\n  max_implementation_retries: 0\n",
    );
    let pidfile = s.trace.join("hang.pid");
    let hang = s.env.script(
        "hang.sh",
        &format!(
            "#!/bin/sh\nsleep 1000 &\necho $! > {}\nwait\n",
            pidfile.display()
        ),
    );
    let runner = s.env.tmp.path().join("runner.sh").display().to_string();
    let mut config = s
        .env
        .read("config.yaml")
        .replace(&runner, &hang.display().to_string());
    // the last timeout is the tests'
    let at = config.rfind("timeout_seconds: 30").unwrap();
    config.replace_range(at..at + "timeout_seconds: 30".len(), "timeout_seconds: 2");
    s.env.write("config.yaml", &config);
    let start = std::time::Instant::now();
    let r = s.env.run(&["run", "auth"]);
    assert!(start.elapsed() < Duration::from_secs(20), "{r:?}");
    r.code(1);
    assert_eq!(s.env.stage("auth", 1), "BLOCKED");
    assert!(
        r.stdout.contains("timed out") || r.stderr.contains("timed out"),
        "{r:?}"
    );
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ");
    assert!(
        !alive,
        "the test command's child {pid} survived the timeout"
    );
}

#[test]
fn a_webhook_payload_that_is_not_an_object_is_exit_2_naming_the_file() {
    let env = TestEnv::new();
    for (payload, found) in [
        (json!([1, 2]), "found a list"),
        (json!("text"), "found a string"),
        (Value::Null, "found null"),
    ] {
        let before = snapshot_files(&env.root);
        let r = crate::common::action::run_action(&env, "issues", &payload).run;
        r.code(2);
        let errors: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("error:"))
            .collect();
        assert_eq!(errors.len(), 1, "{}", r.stderr);
        for needle in [
            "event.json (GITHUB_EVENT_PATH)",
            "must be a JSON object",
            found,
        ] {
            assert!(
                errors[0].contains(needle),
                "`{needle}` missing: {}",
                errors[0]
            );
        }
        assert_eq!(before, snapshot_files(&env.root));
    }
    // an object without the field names the file and the field
    let r = crate::common::action::run_action(&env, "issues", &json!({"action": "labeled"})).run;
    r.code(2);
    assert!(
        r.stderr
            .contains("event.json (GITHUB_EVENT_PATH) cannot be used: field `issue` is missing"),
        "{}",
        r.stderr
    );
}

/// A repository with two agents and `llm.command` = a script with `body`, proposals from
/// the LLM, greenlit.
fn llm_env(body: &str) -> TestEnv {
    let env = TestEnv::new();
    let llm = env.script("llm.sh", &format!("#!/bin/sh\n{body}"));
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\n  proposal_source: llm\nagents:\n  - name: alpha\n    command: [\"true\"]\n  - name: beta\n    command: [\"true\"]\nllm:\n  command: [\"{}\"]\n  timeout_seconds: 20\n",
            llm.display()
        ),
    );
    env.issues("auth", json!([{"order":1,"title":"a","body":"b"}]));
    env.run(&["greenlight", "auth"]).ok();
    env
}

#[test]
fn a_failing_llm_with_multibyte_stderr_falls_back_without_a_panic() {
    // "x" then 1000 "é": byte 500 falls inside a character
    let env = llm_env(
        "printf 'x' >&2\ni=0\nwhile [ $i -lt 1000 ]; do printf 'é' >&2; i=$((i+1)); done\nexit 1\n",
    );
    let r = env.run(&["plan", "auth"]);
    r.ok();
    assert!(!r.stdout.contains("panicked"), "{}", r.stdout);
    assert!(
        r.stdout.contains("llm fallback: llm.command exited"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_llm_printing_megabytes_falls_back_and_nothing_grows() {
    let env = llm_env("head -c 8388608 /dev/zero | tr '\\0' 'x'\n");
    let r = env.run(&["plan", "auth", "--json"]);
    r.ok();
    assert!(r.stdout.len() < 100_000, "{}", r.stdout.len());
    let log = std::fs::metadata(env.path(".swarm/events/auth.jsonl")).unwrap();
    assert!(log.len() < 100_000, "{}", log.len());
    let state = std::fs::metadata(env.path(STATE)).unwrap();
    assert!(state.len() < 100_000, "{}", state.len());
}

#[test]
fn issues_json_linking_one_github_issue_twice_is_rejected_and_a_foreign_feature_id_is_warned() {
    let env = crate::common::TestEnv::new();
    env.issues(
        "auth",
        serde_json::json!([{"order": 1, "github_issue": 7}, {"order": 2, "github_issue": 7}]),
    );
    let r = env.run(&["greenlight", "auth"]);
    r.code(2);
    assert!(
        r.stderr.contains("issue 2: field `github_issue`") && r.stderr.contains("#7"),
        "{}",
        r.stderr
    );
    assert!(!env.path(".swarm/state/auth.json").exists());
    env.write(
        "specs/auth/issues.json",
        r#"{"feature_id": "billing", "issues": [{"order": 1, "title": "a"}]}"#,
    );
    let r = env.run(&["greenlight", "auth"]);
    r.ok();
    assert!(
        r.stderr.contains("`feature_id` is `billing`"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_event_log_that_cannot_be_written_leaves_the_state_unchanged() {
    let env = crate::common::TestEnv::new();
    env.issues("auth", serde_json::json!([{"order": 1, "title": "a"}]));
    std::fs::create_dir_all(env.path(".swarm/events/auth.jsonl")).unwrap();
    let r = env.run(&["greenlight", "auth"]);
    r.code(2);
    assert!(
        r.stderr.contains(".swarm/events/auth.jsonl") && r.stderr.contains("directory"),
        "{}",
        r.stderr
    );
    // write-ahead: no state without its events
    assert!(!env.path(".swarm/state/auth.json").exists());
}
