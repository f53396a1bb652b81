//! SIGKILL at random moments of `greenlight`, `status` and `github sync`: the state, the event
//! log, the cache and the outbox stay readable, and the next command repairs what needs repair.

use crate::common::TestEnv;
use crate::common::github::setup;
use crate::common::rng::Rng;
use serde_json::{Value, json};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

const STATE: &str = ".swarm/state/auth.json";

/// After a kill: the state parses (or is absent), every complete event line parses, and
/// the next command works and repairs what needs repair.
fn assert_consistent(env: &TestEnv) {
    if let Ok(bytes) = std::fs::read(env.path(STATE)) {
        serde_json::from_slice::<Value>(&bytes)
            .unwrap_or_else(|e| panic!("state does not parse after a kill: {e}"));
    }
    let log = std::fs::read(env.path(".swarm/events/auth.jsonl")).unwrap_or_default();
    let complete = log.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    for line in log[..complete]
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
    {
        serde_json::from_slice::<Value>(line).unwrap_or_else(|e| {
            panic!(
                "bad event line after a kill ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
    }
}

#[test]
fn sigkill_of_greenlight_and_status_at_random_moments_never_corrupts_anything() {
    let env = TestEnv::new();
    env.write(
        "config.yaml",
        "coordination:\n  github_sync_enabled: false\n",
    );
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut issues = vec![json!({"order":1,"title":"t1"})];
    env.issues("auth", json!(issues));
    env.run(&["greenlight", "auth"]).ok();
    let mut killed = 0;
    for trial in 0..40u64 {
        // something to do: a new issue for greenlight, new evidence for status
        let n = issues.len() as u64 + 1;
        issues.push(json!({"order": n, "title": format!("t{n}"), "dependencies": [n - 1]}));
        env.issues("auth", json!(issues));
        env.commit(&format!("feat(auth): Implement issue #{}", n - 1));
        let cmd = if trial % 2 == 0 {
            "greenlight"
        } else {
            "status"
        };
        let mut child = env
            .command()
            .args([cmd, "auth"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.below(20_000)));
        let _ = child.kill();
        child.wait().unwrap();
        killed += usize::from(child.wait().unwrap().signal() == Some(9));
        assert_consistent(&env);
    }
    eprintln!("greenlight/status kill loop: {killed} of 40 killed while running");
    assert!(
        killed >= 5,
        "only {killed} of 40 commands were killed while running"
    );
    let r = env.run(&["greenlight", "auth"]);
    r.ok();
    assert_consistent(&env);
    // every issue but the last has its evidence commit: all DONE, the last READY
    let n = issues.len() as u64;
    for i in 1..n {
        assert_eq!(env.stage("auth", i), "DONE", "issue {i}");
    }
    assert_eq!(env.stage("auth", n), "READY");
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    assert!(!r.stderr.contains("skipped"), "{}", r.stderr);
}

#[test]
fn sigkill_of_github_sync_at_random_moments_leaves_cache_and_outbox_readable() {
    let gh = setup(false);
    let numbers: Vec<u64> = (1..=3)
        .map(|i| gh.fake.add_issue(&format!("t{i}"), &[]))
        .collect();
    gh.env.issues(
        "auth",
        json!([{"order":1,"title":"t1","github_issue":numbers[0]},
               {"order":2,"title":"t2","github_issue":numbers[1]},
               {"order":3,"title":"t3","github_issue":numbers[2]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    // spaced writes keep each sync busy long enough to be killed in the middle
    let config = gh
        .env
        .read("config.yaml")
        .replace("min_write_interval_ms: 0", "min_write_interval_ms: 10");
    gh.env.write("config.yaml", &config);
    gh.fake.random_faults(0.3, 7);
    let stages = ["IN_PROGRESS", "BLOCKED", "READY", "IN_PROGRESS"];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut killed = 0;
    for trial in 0..20usize {
        gh.set(
            (trial % 3) as u64 + 1,
            stages[trial % stages.len()],
            json!({"blocked_reason": format!("r{trial}")}),
        );
        let mut child = gh
            .env
            .command()
            .args(["github", "sync", "auth"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.below(70_000)));
        let _ = child.kill();
        killed += usize::from(child.wait().unwrap().signal() == Some(9));
        assert_consistent(&gh.env);
        for rel in [".swarm/cache/github/auth.json"] {
            if let Ok(b) = std::fs::read(gh.env.path(rel)) {
                serde_json::from_slice::<Value>(&b)
                    .unwrap_or_else(|e| panic!("{rel} does not parse after a kill: {e}"));
            }
        }
        if let Ok(b) = std::fs::read(gh.env.path(".swarm/outbox/auth.jsonl")) {
            for line in b.split(|c| *c == b'\n').filter(|l| !l.is_empty()) {
                serde_json::from_slice::<Value>(line)
                    .unwrap_or_else(|e| panic!("outbox line does not parse after a kill: {e}"));
            }
        }
    }
    eprintln!("github sync kill loop: {killed} of 20 killed while running");
    assert!(
        killed >= 5,
        "only {killed} of 20 syncs were killed while running"
    );
    gh.fake.no_faults();
    let r = gh.sync();
    r.ok();
    assert!(!gh.env.path(".swarm/outbox/auth.jsonl").exists());
    for (i, n) in numbers.iter().enumerate() {
        assert_eq!(
            gh.fake.status_comments(*n).len(),
            1,
            "issue {} has one status comment",
            i + 1
        );
    }
}
