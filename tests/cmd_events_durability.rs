//! The event log under damage and concurrency: a torn tail and garbage lines are skipped and
//! named, seq increases across processes, readers never block writers, and a writer killed
//! with SIGKILL leaves at most a torn tail that the next append repairs.

use crate::common::TestEnv;
use crate::common::event_log::{LOG, env_with_log, scripted_log, seqs, write_log};
use serde_json::Value;
use std::process::Stdio;
use std::time::{Duration, Instant};

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
