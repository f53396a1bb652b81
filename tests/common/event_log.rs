//! A scripted event log of feature `auth` (every kind of record a run writes) and the
//! helpers that write it and read `events` output back.

use super::{Run, TestEnv};
use serde_json::{Value, json};

pub const LOG: &str = ".swarm/events/auth.jsonl";

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
pub fn scripted_log() -> Vec<String> {
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

pub fn write_log(env: &TestEnv, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    env.write(LOG, &text);
}

pub fn stdout_lines(r: &Run) -> Vec<String> {
    r.stdout.lines().map(str::to_string).collect()
}

pub fn seqs(r: &Run) -> Vec<u64> {
    r.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"));
            v["seq"].as_u64().unwrap()
        })
        .collect()
}

pub fn env_with_log() -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("SWARM_ATTACK_NOW".into(), "2026-01-01T10:30:00Z".into()));
    write_log(&env, &scripted_log());
    env
}
