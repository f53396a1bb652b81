//! The event log: `events` (filters, JSONL, follow), `audit`, the reader's tolerance (torn
//! tail, garbage, original format), seq across processes, the SIGKILL crash loop, tokens.

use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::{Run, TestEnv};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

const LOG: &str = ".swarm/events/auth.jsonl";

/// One record in the writer's layout (common fields first).
fn rec(seq: u64, ts: &str, event: &str, body: Value) -> String {
    let mut m = json!({"ts": ts, "event": event, "feature": "auth", "session": "s-1", "seq": seq});
    if seq > 14 {
        m["session"] = json!("s-2");
    }
    for (k, v) in body.as_object().unwrap() {
        m[k] = v.clone();
    }
    serde_json::to_string(&m).unwrap()
}

/// A realistic scripted run: issue 1 done after one retry (PARALLEL), issue 2 blocked after
/// a timeout and a failure, issue 3 skipped, issue 4 done from git history, issue 5 a
/// duplicate, GitHub traffic, and a later session that unblocks issue 2.
fn scripted_log() -> Vec<String> {
    let t = |m: u32, s: u32| format!("2026-01-01T10:{m:02}:{s:02}.000Z");
    vec![
        rec(
            1,
            &t(0, 0),
            "git_sync",
            json!({"synced_issues": [4], "reverted_issues": [], "commits_scanned": 12, "head": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}),
        ),
        rec(
            2,
            &t(0, 1),
            "greenlight",
            json!({"added": [1, 2, 3, 4, 5], "kept": [], "ready": [1, 2, 5]}),
        ),
        rec(
            3,
            &t(0, 2),
            "agents_selected",
            json!({"issue": 1, "mode": "PARALLEL", "winner": "claude", "runner_up": "codex", "reason": "both > 0.50, overlap 0.20 < 0.50", "proposals": []}),
        ),
        rec(
            4,
            &t(0, 2),
            "context_injected",
            json!({"issue": 1, "has_claude_md": true, "summaries_count": 1, "prompt_bytes": 5120, "truncated": []}),
        ),
        rec(
            5,
            &t(0, 3),
            "issue_started",
            json!({"issue": 1, "attempt": 1}),
        ),
        rec(
            6,
            &t(0, 3),
            "agent_started",
            json!({"issue": 1, "agent": "claude", "role": "primary"}),
        ),
        rec(
            7,
            &t(0, 3),
            "agent_started",
            json!({"issue": 1, "agent": "codex", "role": "runner_up"}),
        ),
        rec(
            8,
            &t(1, 3),
            "agent_finished",
            json!({"issue": 1, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.30}),
        ),
        rec(
            9,
            &t(1, 33),
            "agent_finished",
            json!({"issue": 1, "agent": "codex", "exit_code": 1, "duration_ms": 90000, "timed_out": false, "cost_usd": 0.20}),
        ),
        rec(
            10,
            &t(1, 40),
            "verification_failed",
            json!({"issue": 1, "tests_failed": 2, "failures": "test_login: expected 200, got 500"}),
        ),
        rec(
            11,
            &t(1, 41),
            "retry_started",
            json!({"issue": 1, "attempt": 2}),
        ),
        rec(
            12,
            &t(1, 41),
            "agent_started",
            json!({"issue": 1, "agent": "claude", "role": "primary"}),
        ),
        rec(
            13,
            &t(2, 41),
            "agent_finished",
            json!({"issue": 1, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.25}),
        ),
        rec(
            14,
            &t(2, 50),
            "verification_passed",
            json!({"issue": 1, "tests_passed": 7}),
        ),
        rec(
            15,
            &t(2, 51),
            "issue_done",
            json!({"issue": 1, "commit": "0123456789abcdef0123456789abcdef01234567", "cost_usd": 0.75, "summary": "login endpoint"}),
        ),
        rec(
            16,
            &t(2, 52),
            "github_sync",
            json!({"issue": 1, "github_issue": 41, "action": "label", "success": true}),
        ),
        rec(
            17,
            &t(3, 0),
            "agents_selected",
            json!({"issue": 2, "mode": "SOLO", "winner": "claude", "runner_up": null, "reason": "a - b > 0.30", "proposals": []}),
        ),
        rec(
            18,
            &t(3, 1),
            "issue_started",
            json!({"issue": 2, "attempt": 1}),
        ),
        rec(
            19,
            &t(3, 1),
            "agent_started",
            json!({"issue": 2, "agent": "claude", "role": "solo"}),
        ),
        rec(
            20,
            &t(8, 1),
            "agent_finished",
            json!({"issue": 2, "agent": "claude", "exit_code": null, "duration_ms": 300000, "timed_out": true, "cost_usd": null}),
        ),
        rec(
            21,
            &t(8, 2),
            "verification_failed",
            json!({"issue": 2, "tests_failed": null, "failures": "agent timed out"}),
        ),
        rec(
            22,
            &t(8, 3),
            "retry_started",
            json!({"issue": 2, "attempt": 2}),
        ),
        rec(
            23,
            &t(8, 3),
            "agent_started",
            json!({"issue": 2, "agent": "claude", "role": "solo"}),
        ),
        rec(
            24,
            &t(9, 3),
            "agent_finished",
            json!({"issue": 2, "agent": "claude", "exit_code": 0, "duration_ms": 60000, "timed_out": false, "cost_usd": 0.40}),
        ),
        rec(
            25,
            &t(9, 10),
            "verification_failed",
            json!({"issue": 2, "tests_failed": 1, "failures": "test_logout: panicked"}),
        ),
        rec(
            26,
            &t(9, 11),
            "issue_blocked",
            json!({"issue": 2, "reason": "verification failed after 1 retry: test_logout: panicked", "retries": 1}),
        ),
        rec(
            27,
            &t(9, 11),
            "issue_skipped",
            json!({"issue": 3, "blocking_issue": 2}),
        ),
        rec(
            28,
            &t(9, 12),
            "github_error",
            json!({"issue": 2, "op": "comment", "status": 403, "message": "the token lacks issues: write"}),
        ),
        rec(
            29,
            &t(9, 20),
            "duplicate_detected",
            json!({"issue": 5, "git": null, "tests": {"path": "tests/five.rs", "passed": true}, "files": null}),
        ),
        rec(
            30,
            &t(9, 21),
            "action_received",
            json!({"event_name": "issue_comment", "action": "created", "issue": 42, "sender": "octocat", "association": "OWNER", "handled": true}),
        ),
        rec(31, &t(30, 0), "issue_unblocked", json!({"issue": 2})),
    ]
}

fn write_log(env: &TestEnv, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    env.write(LOG, &text);
}

fn stdout_lines(r: &Run) -> Vec<String> {
    r.stdout.lines().map(str::to_string).collect()
}

fn seqs(r: &Run) -> Vec<u64> {
    r.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"));
            v["seq"].as_u64().unwrap()
        })
        .collect()
}

fn env_with_log() -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("SWARM_ATTACK_NOW".into(), "2026-01-01T10:30:00Z".into()));
    write_log(&env, &scripted_log());
    env
}

#[test]
fn events_json_prints_every_record_exactly_as_in_the_file() {
    let env = env_with_log();
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    let file = env.read(LOG);
    let file_lines: Vec<&str> = file.lines().collect();
    assert_eq!(stdout_lines(&r), file_lines, "verbatim, in file order");
    for (out, inn) in r.stdout.lines().zip(file_lines) {
        let a: Value = serde_json::from_str(out).unwrap();
        let b: Value = serde_json::from_str(inn).unwrap();
        assert_eq!(a, b);
    }
    assert_eq!(r.stderr, "");
}

#[test]
fn events_filters_apart() {
    let env = env_with_log();
    let q = |args: &[&str]| {
        let mut all = vec!["events", "auth", "--json"];
        all.extend_from_slice(args);
        let r = env.run(&all);
        r.ok();
        seqs(&r)
    };
    assert_eq!(
        q(&["--issue", "2"]),
        [17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28, 31]
    );
    // `issue` is matched as written (action_received carries a GitHub number there).
    assert_eq!(q(&["--issue", "42"]), [30]);
    assert_eq!(q(&["--event", "issue_done"]), [15]);
    assert_eq!(
        q(&["--event", "issue_done", "--event", "issue_blocked"]),
        [15, 26]
    );
    assert_eq!(
        q(&["--since", "2026-01-01T10:09:11Z"]),
        [26, 27, 28, 29, 30, 31]
    );
    // Relative to SWARM_ATTACK_NOW (10:30:00): 21m → 10:09:00.
    assert_eq!(q(&["--since", "21m"]), [24, 25, 26, 27, 28, 29, 30, 31]);
    assert_eq!(q(&["--until", "2026-01-01T10:00:02Z"]), [1, 2, 3, 4]);
    assert_eq!(q(&["--until", "29m59s"]), [1, 2]);
    assert_eq!(q(&["-n", "3"]), [29, 30, 31]);
    assert_eq!(q(&["-n", "0"]), Vec::<u64>::new());
}

#[test]
fn events_filters_together() {
    let env = env_with_log();
    let q = |args: &[&str]| {
        let mut all = vec!["events", "auth", "--json"];
        all.extend_from_slice(args);
        let r = env.run(&all);
        r.ok();
        seqs(&r)
    };
    assert_eq!(
        q(&[
            "--issue",
            "1",
            "--event",
            "agent_finished",
            "--event",
            "agent_started"
        ]),
        [6, 7, 8, 9, 12, 13]
    );
    assert_eq!(
        q(&["--issue", "1", "--event", "agent_finished", "-n", "1"]),
        [13]
    );
    assert_eq!(
        q(&[
            "--issue",
            "2",
            "--since",
            "2026-01-01T10:08:00Z",
            "--until",
            "2026-01-01T10:09:10Z"
        ]),
        [20, 21, 22, 23, 24, 25]
    );
    assert_eq!(
        q(&[
            "--event",
            "verification_failed",
            "--since",
            "2026-01-01T10:05:00Z",
            "-n",
            "1"
        ]),
        [25]
    );
    assert_eq!(
        q(&["--issue", "3", "--event", "issue_done"]),
        Vec::<u64>::new()
    );
}

#[test]
fn events_table_is_readable_and_plain_when_not_a_tty() {
    let env = env_with_log();
    let r: Run = env
        .command()
        .env_remove("NO_COLOR")
        .args(["events", "auth", "--issue", "1", "-n", "2"])
        .output()
        .unwrap()
        .into();
    r.ok();
    assert!(
        !r.stdout.contains('\x1b'),
        "no colour without a TTY: {}",
        r.stdout
    );
    let lines = stdout_lines(&r);
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0].contains("SEQ") && lines[0].contains("EVENT") && lines[0].contains("ISSUE"));
    assert!(lines[1].contains("issue_done"), "{}", lines[1]);
    assert!(lines[1].contains("#1"), "{}", lines[1]);
    assert!(lines[1].contains("commit 0123456789ab"), "{}", lines[1]);
    assert!(lines[2].contains("github_sync"), "{}", lines[2]);
}

#[test]
fn events_rejects_a_bad_since_with_exit_2_naming_the_option_and_forms() {
    let env = env_with_log();
    let r = env.run(&["events", "auth", "--since", "yesterday"]);
    r.code(2);
    assert!(r.stderr.contains("--since yesterday"), "{}", r.stderr);
    assert!(
        r.stderr.contains("RFC 3339") && r.stderr.contains("2h"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "");
    env.run(&["events", "auth", "--until", "5x"]).code(2);
}

#[test]
fn a_feature_without_a_log_prints_nothing_and_exits_0() {
    let env = TestEnv::new();
    env.issues("auth", json!([{"order": 1, "title": "a"}]));
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    assert_eq!(r.stdout, "");
    let r = env.run(&["events", "auth"]);
    r.ok();
    assert_eq!(r.stdout, "");
    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["events"], 0);
    assert_eq!(r.json()["issues"], json!([]));
}

#[test]
fn a_torn_last_line_is_skipped_with_a_warning_naming_it_then_repaired_by_the_next_append() {
    let env = TestEnv::new();
    env.run(&["debug-append-events", "auth", "--count", "3"])
        .ok();
    let mut text = env.read(LOG);
    text.push_str(r#"{"ts":"2026-01-01T00:00:00Z","event":"issue_do"#);
    env.write(LOG, &text);

    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    assert_eq!(seqs(&r), [1, 2, 3]);
    assert!(
        r.stderr.contains("auth.jsonl:4:") && r.stderr.contains("incomplete"),
        "{}",
        r.stderr
    );
    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["events"], 3);
    assert!(r.stderr.contains("auth.jsonl:4:"), "{}", r.stderr);

    let r = env.run(&["debug-append-events", "auth", "--count", "1"]);
    r.ok();
    assert!(r.stderr.contains("line 4 was incomplete"), "{}", r.stderr);
    let events = env.events("auth");
    let s: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(s, [1, 2, 3, 4]);
    assert_eq!(
        env.read(".swarm/events/auth.jsonl.torn"),
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"issue_do\n"
    );
    let r = env.run(&["events", "auth", "--json"]);
    assert_eq!(r.stderr, "", "repaired: no warning any more");
}

#[test]
fn garbage_lines_in_the_middle_are_reported_with_their_line_number_and_the_read_goes_on() {
    let env = TestEnv::new();
    let mut lines = scripted_log();
    lines.insert(2, "this is not json".into());
    lines.insert(
        6,
        r#"{"ts":"2026-01-01T10:00:02.000Z","event":"issue_started","issue":1,"#.into(),
    );
    write_log(&env, &lines);
    for args in [
        vec!["events", "auth", "--json"],
        vec!["events", "auth", "--json", "--issue", "1"],
        vec!["events", "auth"],
        vec!["audit", "auth", "--json"],
    ] {
        let r = env.run(&args);
        r.ok();
        assert!(
            r.stderr.contains("auth.jsonl:3: not a JSON record"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("auth.jsonl:7: not a JSON record"),
            "{args:?}: {}",
            r.stderr
        );
    }
    let r = env.run(&["events", "auth", "--json"]);
    assert_eq!(
        seqs(&r).len(),
        31,
        "every good record, before and after the garbage"
    );
    let r = env.run(&["events", "auth", "--json", "--issue", "1"]);
    assert_eq!(seqs(&r), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
}

fn check_log(bytes: &[u8], from: usize) -> (usize, bool) {
    // Returns the end of the last complete line and whether a torn tail follows it.
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    for (k, line) in bytes[from.min(complete)..complete]
        .split(|b| *b == b'\n')
        .enumerate()
    {
        if line.is_empty() {
            continue;
        }
        serde_json::from_slice::<Value>(line).unwrap_or_else(|e| {
            panic!(
                "line {k} after offset {from} is not JSON ({e}): {}",
                String::from_utf8_lossy(&line[..line.len().min(200)])
            )
        });
    }
    (complete, complete < bytes.len())
}

fn assert_seq_consecutive(env: &TestEnv) -> usize {
    let text = env.read(LOG);
    assert!(text.ends_with('\n'));
    let mut last = 0;
    let mut n = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let s = v["seq"].as_u64().unwrap();
        assert_eq!(s, last + 1, "seq strictly increases without gaps");
        last = s;
        n += 1;
    }
    n
}

#[test]
fn seq_strictly_increases_across_two_processes_appending_at_once() {
    let env = TestEnv::new();
    let spawn = |issue: &str| {
        env.command()
            .args([
                "debug-append-events",
                "auth",
                "--count",
                "150",
                "--issue",
                issue,
                "--pause-ms",
                "3",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn("1");
    let b = spawn("2");
    for c in [a, b] {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(assert_seq_consecutive(&env), 300);
    let events = env.events("auth");
    let sessions: std::collections::BTreeSet<&str> = events
        .iter()
        .map(|e| e["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 2);
    // Both really ran at once: their records interleave.
    let issues: Vec<u64> = events
        .iter()
        .map(|e| e["issue"].as_u64().unwrap())
        .collect();
    let switches = issues.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        switches >= 2,
        "the two writers did not overlap: {switches} switches"
    );
}

#[test]
fn a_reader_running_while_a_writer_appends_sees_only_whole_records_and_never_blocks_it() {
    let env = TestEnv::new();
    env.run(&["debug-append-events", "auth", "--count", "5"])
        .ok();
    let mut writer = env
        .command()
        .args([
            "debug-append-events",
            "auth",
            "--count",
            "100000",
            "--payload-bytes",
            "6000",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut sizes = Vec::new();
    for _ in 0..8 {
        let r = env.run(&["events", "auth", "--json"]);
        r.ok();
        assert!(!r.stderr.contains("not a JSON record"), "{}", r.stderr);
        let s = seqs(&r);
        assert!(
            s.iter().enumerate().all(|(i, v)| *v == i as u64 + 1),
            "whole records only, in order"
        );
        sizes.push(s.len());
        let r = env.run(&["audit", "auth", "--json"]);
        r.ok();
    }
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert!(
        sizes.windows(2).any(|w| w[1] > w[0]),
        "the writer kept appending while we read: {sizes:?}"
    );
}

#[test]
fn reading_takes_no_lock_so_a_held_feature_lock_never_blocks_events_or_audit() {
    let env = env_with_log();
    let _held = swarm_attack::io::lock::FeatureLock::acquire(
        &swarm_attack::io::ui::Ui::captured(Default::default()),
        &env.path(".swarm/locks/auth.lock"),
        &"auth".parse().unwrap(),
        Duration::from_secs(1),
    )
    .unwrap();
    env.write("config.yaml", "sessions:\n  lock_timeout_seconds: 1\n");
    let start = Instant::now();
    env.run(&["events", "auth", "--json"]).ok();
    env.run(&["events", "auth", "--issue", "1"]).ok();
    env.run(&["audit", "auth", "--json"]).ok();
    assert!(
        start.elapsed() < Duration::from_millis(2500),
        "{:?}",
        start.elapsed()
    );
    // A writer does wait for the lock (exit 3 after the timeout).
    env.run(&["debug-append-events", "auth"]).code(3);
}

#[test]
fn a_writer_killed_with_sigkill_never_leaves_a_bad_line_except_a_repaired_torn_tail() {
    let env = TestEnv::new();
    let log = env.path(LOG);
    let mut checked = 0usize;
    let mut torn_seen = 0;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for trial in 0..60 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let payload = ["0", "20000", "200000"][trial % 3];
        let mut child = env
            .command()
            .args([
                "debug-append-events",
                "auth",
                "--count",
                "1000000",
                "--payload-bytes",
                payload,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 + seed % 60));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let bytes = std::fs::read(&log).unwrap_or_default();
        let (complete, torn) = check_log(&bytes, checked);
        checked = complete;
        torn_seen += usize::from(torn);
    }
    // One more append repairs whatever the last kill left.
    env.run(&["debug-append-events", "auth", "--count", "1"])
        .ok();
    let n = assert_seq_consecutive(&env);
    eprintln!("crash loop: 60 kills, {n} records, {torn_seen} torn tails left and repaired");
    assert!(n > 60, "the writers appended: {n}");
    if torn_seen > 0 {
        assert!(env.path(".swarm/events/auth.jsonl.torn").exists());
    }
}

#[test]
fn audit_of_a_scripted_log_snapshot() {
    let env = env_with_log();
    env.issues(
        "auth",
        json!([
            {"order": 1, "title": "Login endpoint"},
            {"order": 2, "title": "Logout endpoint"},
            {"order": 3, "title": "Sessions", "dependencies": [2]},
            {"order": 4, "title": "Password hashing"},
            {"order": 5, "title": "Five"}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    // greenlight appends its own events; audit the scripted log only.
    write_log(&env, &scripted_log());
    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    let doc = r.json();
    let by = |n: u64| {
        doc["issues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["issue"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by(1)["outcome"], "done");
    assert_eq!(by(1)["attempt_count"], 2);
    assert_eq!(by(1)["duration_ms"], 168_000);
    assert_eq!(by(1)["cost_usd"], 0.75);
    assert_eq!(by(1)["title"], "Login endpoint");
    assert_eq!(by(2)["outcome"], "ready");
    assert_eq!(by(2)["attempts"][0]["agents"][0]["timed_out"], true);
    assert_eq!(by(2)["attempts"][1]["outcome"], "failed");
    assert_eq!(by(3)["outcome"], "skipped");
    assert_eq!(by(4)["outcome"], "done");
    assert_eq!(by(5)["outcome"], "done");
    assert_eq!(doc["totals"]["attempts"], 4);
    assert_eq!(doc["totals"]["cost_usd"], 1.15);
    insta::assert_snapshot!("audit_json", r.stdout);
    let r = env.run(&["audit", "auth"]);
    r.ok();
    insta::assert_snapshot!("audit_text", r.stdout);
}

/// Lines as the original Python tool wrote them (`json.dumps`: `": "` and `", "`, no
/// `feature`/`seq`, microsecond timestamps, `failures` as a list).
const ORIGINAL: &str = r#"{"ts": "2025-05-01T09:00:00.123456Z", "event": "issue_started", "issue": 1, "session": "sess-abc"}
{"ts": "2025-05-01T09:00:01.000000Z", "event": "context_injected", "has_claude_md": true, "summaries_count": 0}
{"ts": "2025-05-01T09:04:00.123456Z", "event": "verification_failed", "issue": 1, "tests_failed": 2, "failures": ["test_a: boom", "test_b: bang"]}
{"ts": "2025-05-01T09:04:01.000000Z", "event": "retry_started", "issue": 1, "attempt": 2}
{"ts": "2025-05-01T09:09:00.123456Z", "event": "issue_done", "issue": 1, "commit": "abc1234", "cost_usd": 1.25}
{"ts": "2025-05-01T09:09:01.000000Z", "event": "issue_blocked", "issue": 2, "reason": "tests failed", "retries": 3}
{"ts": "2025-05-01T09:09:02.000000Z", "event": "issue_skipped", "issue": 3, "blocking_issue": 2}
"#;

#[test]
fn an_original_format_log_is_read_by_events_and_audit() {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("SWARM_ATTACK_NOW".into(), "2025-05-01T10:00:00Z".into()));
    env.write(LOG, ORIGINAL);
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    assert_eq!(r.stdout, ORIGINAL, "verbatim");
    assert_eq!(r.stderr, "");
    let r = env.run(&[
        "events",
        "auth",
        "--json",
        "--issue",
        "1",
        "--event",
        "issue_done",
    ]);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    assert!(r.stdout.contains("abc1234"));
    let r = env.run(&["events", "auth", "--json", "--since", "51m"]);
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stdout);
    let r = env.run(&["events", "auth"]);
    r.ok();
    assert_eq!(r.stdout.lines().count(), 8, "header + 7 rows: {}", r.stdout);
    assert!(
        r.stdout
            .contains("verification failed (2 failing): test_a: boom; test_b: bang")
    );

    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    let doc = r.json();
    assert_eq!(doc["events"], 7);
    let i1 = &doc["issues"][0];
    assert_eq!(i1["outcome"], "done");
    assert_eq!(i1["attempt_count"], 2);
    assert_eq!(i1["commit"], "abc1234");
    assert_eq!(i1["cost_usd"], 1.25);
    assert_eq!(i1["duration_ms"], 540_000);
    assert_eq!(doc["issues"][1]["outcome"], "blocked");
    assert_eq!(doc["issues"][2]["outcome"], "skipped");
    let r = env.run(&["audit", "auth"]);
    r.ok();
    assert!(r.stdout.contains("#1  DONE  2 attempts"), "{}", r.stdout);

    // Appending to an original log: seq starts at 1, the old lines stay as they are.
    env.run(&["debug-append-events", "auth", "--count", "2"])
        .ok();
    let text = env.read(LOG);
    assert!(text.starts_with(ORIGINAL));
    let events = env.events("auth");
    assert_eq!(events[7]["seq"], 1);
    assert_eq!(events[8]["seq"], 2);
}

#[test]
fn follow_prints_new_events_as_they_come_and_exits_0_on_ctrl_c() {
    let env = TestEnv::new();
    env.run(&[
        "debug-append-events",
        "auth",
        "--count",
        "2",
        "--issue",
        "7",
    ])
    .ok();
    let mut child = env
        .command()
        .args([
            "events", "auth", "--follow", "--json", "--issue", "7", "-n", "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The last existing record for issue 7 first; then two appends for it, one for another
    // issue.
    std::thread::sleep(Duration::from_millis(300));
    env.run(&[
        "debug-append-events",
        "auth",
        "--count",
        "2",
        "--issue",
        "7",
    ])
    .ok();
    env.run(&[
        "debug-append-events",
        "auth",
        "--count",
        "1",
        "--issue",
        "8",
    ])
    .ok();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut got = Vec::new();
    while got.len() < 3 && Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            got.push(l);
        }
    }
    assert_eq!(got.len(), 3, "follow printed {got:?}");
    let s: Vec<u64> = got
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(s, [2, 3, 4]);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(rx.try_recv().is_err(), "nothing for issue 8");
}

#[test]
fn no_output_and_no_file_under_swarm_ever_contains_the_token() {
    let mut env = TestEnv::new();
    let token = format!(
        "ghp_TESTTOKEN{}x{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    );
    let gh = format!("gho_OTHERTOKEN{}", std::process::id());
    env.extra_env.push(("GITHUB_TOKEN".into(), token.clone()));
    env.extra_env.push(("GH_TOKEN".into(), gh.clone()));
    env.issues(
        "auth",
        json!([{"order": 1, "title": "a"}, {"order": 2, "title": "b", "dependencies": [1]}]),
    );
    let mut runs = vec![
        env.run(&["init", "auth"]),
        env.run(&["greenlight", "auth"]),
        env.run(&["greenlight", "auth", "--json"]),
        env.run(&["status", "auth"]),
        env.run(&["status", "auth", "--json"]),
        env.run(&["status"]),
        env.run(&["debug-append-events", "auth", "--count", "3"]),
    ];
    env.commit("feat(auth): Implement issue #1");
    runs.push(env.run(&["status", "auth", "--json"]));
    runs.push(env.run(&["events", "auth"]));
    runs.push(env.run(&["events", "auth", "--json"]));
    runs.push(env.run(&["audit", "auth"]));
    runs.push(env.run(&["audit", "auth", "--json"]));
    for r in &runs {
        for secret in [&token, &gh] {
            assert!(
                !r.stdout.contains(secret.as_str()),
                "token in stdout: {}",
                r.stdout
            );
            assert!(
                !r.stderr.contains(secret.as_str()),
                "token in stderr: {}",
                r.stderr
            );
        }
    }
    let files = crate::common::snapshot_files(&env.path(".swarm"));
    assert!(!files.is_empty());
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        for secret in [&token, &gh] {
            assert!(
                !text.contains(secret.as_str()),
                "token in {}",
                path.display()
            );
        }
    }
    assert!(!env.events("auth").is_empty());
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_events_and_audit_after_a_run() {
    let s = Setup::new_in(
        TestEnv::new().fixed_clock(),
        "auth",
        json!([{"order":1,"title":"a"}]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    let r = s.env.run(&["events", "auth"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
   SEQ  TIME                      EVENT                    ISSUE  DETAIL
     1  2026-01-02T03:04:05.000Z  git_sync                        git sync: 1 commits scanned, head [SHA]
     2  2026-01-02T03:04:05.000Z  greenlight                      added=[1] kept=[] ready=[1]
     3  2026-01-02T03:04:05.000Z  agents_selected             #1  SOLO — winner fake (one eligible agent (fake 0.35) → SOLO fake)
     4  2026-01-02T03:04:05.000Z  issue_started               #1  attempt 1 started
     5  2026-01-02T03:04:05.000Z  agents_selected             #1  SOLO — winner fake (one eligible agent (fake 0.35) → SOLO fake)
     6  2026-01-02T03:04:05.000Z  context_injected            #1  prompt 1235 bytes, CLAUDE.md no, 0 summaries
     7  2026-01-02T03:04:05.000Z  agent_started               #1  fake started (primary)
     8  2026-01-02T03:04:05.000Z  agent_finished              #1  fake exited 0 after [DURATION], $0.25
     9  2026-01-02T03:04:05.000Z  implementation_complete     #1  created: checks/t_1.sh, src/1.txt; modified: -
    10  2026-01-02T03:04:05.000Z  verification_passed         #1  verification passed (1 tests)
    11  2026-01-02T03:04:05.000Z  issue_done                  #1  DONE, commit [SHA], $0.25: Issue #1 (a) was implemented in commit [SHA] "feat(auth): Implement issue #1".…
    12  2026-01-02T03:04:05.000Z  git_sync                        git sync: 1 commits scanned, head [SHA]
----- stderr -----
"#);
    let r = s.env.run(&["events", "auth", "--issue", "1", "--json"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
{"ts":"2026-01-02T03:04:05.000Z","event":"agents_selected","feature":"auth","session":"20260102T030405Z-[PID]","seq":3,"issue":1,"mode":"SOLO","winner":"fake","runner_up":null,"reason":"one eligible agent (fake 0.35) → SOLO fake","proposals":[{"agent":"fake","source":"heuristic","angle":"","confidence":0.35,"covers":[],"solo_sufficient":false,"builds_on_other":false}],"preview":true}
{"ts":"2026-01-02T03:04:05.000Z","event":"issue_started","feature":"auth","session":"20260102T030405Z-[PID]","seq":4,"issue":1,"attempt":1}
{"ts":"2026-01-02T03:04:05.000Z","event":"agents_selected","feature":"auth","session":"20260102T030405Z-[PID]","seq":5,"issue":1,"mode":"SOLO","winner":"fake","runner_up":null,"reason":"one eligible agent (fake 0.35) → SOLO fake","proposals":[{"agent":"fake","source":"heuristic","angle":"","confidence":0.35,"covers":[],"solo_sufficient":false,"builds_on_other":false}]}
{"ts":"2026-01-02T03:04:05.000Z","event":"context_injected","feature":"auth","session":"20260102T030405Z-[PID]","seq":6,"issue":1,"has_claude_md":false,"summaries_count":0,"prompt_bytes":1235,"truncated":[]}
{"ts":"2026-01-02T03:04:05.000Z","event":"agent_started","feature":"auth","session":"20260102T030405Z-[PID]","seq":7,"issue":1,"agent":"fake","role":"primary"}
{"ts":"2026-01-02T03:04:05.000Z","event":"agent_finished","feature":"auth","session":"20260102T030405Z-[PID]","seq":8,"issue":1,"agent":"fake","exit_code":0,"duration_ms":[DURATION],"timed_out":false,"cost_usd":0.25,"tokens_in":null,"tokens_out":null,"tokens_cached":null,"turns":null,"session_id":null,"error_kind":null,"permission_denials":0,"output":".swarm/runs/auth/issue-1/attempt-1/agent.stdout"}
{"ts":"2026-01-02T03:04:05.000Z","event":"implementation_complete","feature":"auth","session":"20260102T030405Z-[PID]","seq":9,"issue":1,"files_created":["checks/t_1.sh","src/1.txt"],"files_modified":[]}
{"ts":"2026-01-02T03:04:05.000Z","event":"verification_passed","feature":"auth","session":"20260102T030405Z-[PID]","seq":10,"issue":1,"tests_passed":1}
{"ts":"2026-01-02T03:04:05.000Z","event":"issue_done","feature":"auth","session":"20260102T030405Z-[PID]","seq":11,"issue":1,"commit":"[SHA]","cost_usd":0.25,"summary":"Issue #1 (a) was implemented in commit [SHA] \"feat(auth): Implement issue #1\". It adds `checks/t_1.sh` and `src/1.txt`."}
----- stderr -----
"#);
    let r = s.env.run(&["audit", "auth"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
audit auth: 12 events, 2 sessions, 2026-01-02T03:04:05.000Z → 2026-01-02T03:04:05.000Z ([DURATION])
issues: 1 (1 done, 0 blocked, 0 skipped, 0 in progress, 0 ready, 0 not started); attempts 1 (0 retries); agent runs 1 ([DURATION]); cost $0.25

#1 a  DONE  1 attempt, SOLO (fake), [DURATION], cost $0.25, commit [SHA]
  attempt 1 SOLO: done in [DURATION]; fake exit 0 [DURATION] cost $0.25; tests passed (1)
    output of fake: .swarm/runs/auth/issue-1/attempt-1/agent.stdout
    2026-01-02T03:04:05.000Z  issue_started            attempt 1 started
    2026-01-02T03:04:05.000Z  agents_selected          SOLO — winner fake (one eligible agent (fake 0.35) → SOLO fake)
    2026-01-02T03:04:05.000Z  context_injected         prompt 1235 bytes, CLAUDE.md no, 0 summaries
    2026-01-02T03:04:05.000Z  agent_started            fake started (primary)
    2026-01-02T03:04:05.000Z  agent_finished           fake exited 0 after [DURATION], $0.25
    2026-01-02T03:04:05.000Z  implementation_complete  created: checks/t_1.sh, src/1.txt; modified: -
    2026-01-02T03:04:05.000Z  verification_passed      verification passed (1 tests)
    2026-01-02T03:04:05.000Z  issue_done               DONE, commit [SHA], $0.25: Issue #1 (a) was implemented in commit [SHA] "feat(auth): Implement issue #1".…
----- stderr -----
"#);
}
