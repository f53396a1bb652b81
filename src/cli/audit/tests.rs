//! The streamed audit (borrowed records, timelines and finished attempts in the temporary
//! store) prints exactly what the in-memory audit of parsed `Map`s prints.

use super::*;
use crate::core::event_filter::Head;
use crate::core::record::NotARecord;
use serde_json::{Map, Value};

/// The audit as it was: every line the reader accepts, parsed into a `Map`, all kept in
/// memory. Returns the table and the JSON document.
fn in_memory(lines: &[Vec<u8>]) -> (String, String) {
    let report = in_memory_report(lines);
    let mut table = Vec::new();
    render(
        &crate::io::ui::Ui::captured(Default::default()),
        &mut table,
        &report,
    )
    .unwrap();
    (
        String::from_utf8(table).unwrap(),
        serde_json::to_string_pretty(&report).unwrap(),
    )
}

/// The report of the previous implementation (everything in memory).
fn in_memory_report(lines: &[Vec<u8>]) -> AuditReport {
    let recs: Vec<Map<String, Value>> = lines
        .iter()
        .filter(|l| Head::parse(l).is_ok())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    crate::core::audit::audit("f", &recs)
}

/// The audit as `audit` runs it now: each line parsed once into a borrowed record, the
/// timelines and finished attempts spilled to the store (attempts written for `mode`).
fn spilled(lines: &[Vec<u8>], mode: Mode) -> (AuditReport, AuditStore) {
    let mut auditor = Auditor::spilling("f");
    let mut store = AuditStore::new(mode, &crate::io::ui::Ui::captured(Default::default()));
    for l in lines {
        match Record::parse(l) {
            Ok(rec) => auditor.push(&rec),
            Err(NotARecord::Unreadable | NotARecord::Bad(_)) => continue,
        }
        for (issue, a) in auditor.take_attempts() {
            store.push_attempt(issue, &a).unwrap();
        }
        for (issue, e) in auditor.take_entries() {
            store.push(*issue, EntryRef::from(e)).unwrap();
        }
    }
    (auditor.finish(), store)
}

fn streamed(lines: &[Vec<u8>]) -> (String, String) {
    let (report, mut store) = spilled(lines, Mode::Table);
    let mut table = Vec::new();
    table::write(
        &crate::io::ui::Ui::captured(Default::default()),
        &mut table,
        &report,
        Some(&mut store),
    )
    .unwrap();
    let (report, mut store) = spilled(lines, Mode::Json);
    let mut doc = Vec::new();
    json::write(&mut doc, &report, Some(&mut store)).unwrap();
    (
        String::from_utf8(table).unwrap(),
        String::from_utf8(doc).unwrap(),
    )
}

/// The JSON writer on a report that holds everything (nothing stored) prints what
/// `serde_json` prints.
fn json_of_whole(report: &AuditReport) -> String {
    let mut doc = Vec::new();
    json::write(&mut doc, report, None).unwrap();
    String::from_utf8(doc).unwrap()
}

fn compact(v: Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

fn records() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..3000u64 {
        let issue = i % 13 + 1;
        let line = match i % 6 {
            0 => {
                serde_json::json!({"ts": format!("2026-01-01T00:{:02}:00Z", i % 60), "event": "issue_started", "seq": i, "session": format!("s{}", i % 4), "issue": issue, "attempt": i / 13 + 1})
            }
            1 => {
                serde_json::json!({"ts": "2026-01-01T01:00:00Z", "event": "agent_started", "seq": i, "issue": issue, "agent": "claude", "role": "coder"})
            }
            2 => {
                serde_json::json!({"ts": "2026-01-01T01:00:05Z", "event": "agent_finished", "seq": i, "issue": issue, "agent": "claude", "exit_code": 0, "duration_ms": 5000, "timed_out": false, "cost_usd": 0.25})
            }
            3 => {
                serde_json::json!({"ts": "2026-01-01T01:00:09Z", "event": "verification_failed", "issue": issue, "tests_failed": 2, "failures": "a\nb"})
            }
            4 => {
                serde_json::json!({"event": "git_sync", "synced_issues": [issue], "reverted_issues": [], "commits_scanned": 3, "head": "abcdef1234567890"})
            }
            _ => {
                serde_json::json!({"ts": "2026-01-01T02:00:00Z", "event": "issue_done", "seq": i, "issue": issue, "commit": "0123456789abcdef", "cost_usd": 1.5, "summary": "did it"})
            }
        };
        out.push(compact(line));
    }
    out
}

#[test]
fn streamed_json_and_table_equal_the_in_memory_report() {
    let lines = records();
    let (report, _) = spilled(&lines, Mode::Table);
    assert!(
        report.issues.iter().all(|i| i.attempts.len() <= 1),
        "only the last attempt of an issue stays in memory"
    );
    assert!(report.issues.iter().all(|i| i.timeline.is_empty()));
    assert!(report.issues.iter().all(|i| i.attempt_count > 10));
    assert_eq!(streamed(&lines), in_memory(&lines));
}

/// A small deterministic generator (no dependency on a random crate).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A log of every kind of record the audit reads, in the writer's layout and in odd shapes
/// (the original tool's lines, escapes, repeated keys, numbers written as floats, nulls,
/// lists of failures, lines the reader refuses or cannot read).
fn generated_log(n: u64) -> Vec<Vec<u8>> {
    let mut g = Lcg(7);
    let mut out = Vec::new();
    for i in 1..=n {
        let k = g.next(17) + 1;
        let ts = format!(
            "2026-01-01T{:02}:{:02}:{:02}.{:03}Z",
            i / 3600 % 24,
            i / 60 % 60,
            i % 60,
            i % 1000
        );
        let head = serde_json::json!({"ts": ts, "event": "", "feature": "f", "session": format!("s{}", i / 700), "seq": i});
        let mut rec = head.as_object().unwrap().clone();
        let mut set = |e: &str, body: Value| {
            rec.insert("event".into(), e.into());
            for (key, v) in body.as_object().unwrap() {
                rec.insert(key.clone(), v.clone());
            }
        };
        match g.next(30) {
            0 | 1 => set(
                "issue_started",
                serde_json::json!({"issue": k, "attempt": g.next(3) + 1}),
            ),
            2 => set("issue_started", serde_json::json!({"issue": k})),
            3 => set(
                "retry_started",
                serde_json::json!({"issue": k, "attempt": g.next(4) + 1}),
            ),
            4 => set(
                "agents_selected",
                serde_json::json!({"issue": k, "mode": "PARALLEL", "winner": "claude", "runner_up": "codex", "reason": "both > 0.50 and overlap 0.21 < 0.50", "proposals": [{"agent": "claude", "confidence": 0.82}]}),
            ),
            5 => set(
                "agents_selected",
                serde_json::json!({"issue": k, "mode": "SOLO", "winner": "codex", "runner_up": null, "fallback": {"to": "solo", "reason": "the runner-up \"codex\" failed"}}),
            ),
            6 => set(
                "context_injected",
                serde_json::json!({"issue": k, "has_claude_md": g.next(2) == 0, "summaries_count": g.next(20), "prompt_bytes": 4000 + g.next(60000), "truncated": if g.next(2) == 0 { serde_json::json!([]) } else { serde_json::json!(["registry", "summaries"]) }}),
            ),
            7 | 8 => set(
                "agent_started",
                serde_json::json!({"issue": k, "agent": if g.next(3) == 0 { "codex" } else { "claude" }, "role": if g.next(4) == 0 { Value::Null } else { "primary".into() }}),
            ),
            9 | 10 => set(
                "agent_finished",
                serde_json::json!({"issue": k, "agent": "claude", "exit_code": if g.next(9) == 0 { -1 } else { 0 }, "duration_ms": g.next(600_000), "timed_out": g.next(20) == 0, "cost_usd": g.next(10_000) as f64 / 7919.0, "tokens_in": g.next(9999), "tokens_out": 12, "tokens_cached": g.next(5)}),
            ),
            11 => set(
                "agent_finished",
                serde_json::json!({"issue": k, "agent": "codex", "exit_code": 1, "duration_ms": 2.5, "error_kind": "rate_limit", "permission_denials": 2, "output": ".swarm/out/x.log"}),
            ),
            12 => set(
                "tests_written",
                serde_json::json!({"issue": k, "count": g.next(12) + 1, "path": format!("tests/feature_{k}.rs")}),
            ),
            13 => set(
                "implementation_complete",
                serde_json::json!({"issue": k, "files_created": [format!("src/f{k}.rs")], "files_modified": ["src/lib.rs"]}),
            ),
            14 => set(
                "implementation_complete",
                serde_json::json!({"issue": k, "agent": "codex", "files_created": [], "files_modified": ["Cargo.toml", 3]}),
            ),
            15 => set(
                "verification_failed",
                serde_json::json!({"issue": k, "tests_failed": g.next(4) + 1, "failures": format!("thread test_{k} panicked at \"tests/é.rs\":{}:5\n\tsecond line", g.next(300))}),
            ),
            16 => set(
                "verification_failed",
                serde_json::json!({"issue": k, "agent": "claude", "tests_failed": 1.0, "failures": ["one", "two", 3]}),
            ),
            17 => set(
                "verification_passed",
                serde_json::json!({"issue": k, "tests_passed": g.next(40) + 1}),
            ),
            18 => set(
                "verification_passed",
                serde_json::json!({"issue": k, "agent": "codex"}),
            ),
            19 => set(
                "issue_done",
                serde_json::json!({"issue": k, "commit": format!("{:040x}", g.next(u64::MAX)), "cost_usd": g.next(300) as f64 / 100.0, "summary": "Implemented it: new module\nand tests"}),
            ),
            20 => set(
                "issue_done",
                serde_json::json!({"issue": k, "commit": "", "cost_usd": 2, "convergence": {"mode": "PARALLEL", "join": "merge", "candidates": [{"agent": "claude", "result": "passed", "added_files": ["a.rs"]}], "winner": "claude", "score": 0.5}}),
            ),
            21 => set(
                "issue_blocked",
                serde_json::json!({"issue": k, "retries": 3, "reason": "tests keep failing ".repeat(10)}),
            ),
            22 => set(
                "issue_skipped",
                serde_json::json!({"issue": k, "blocking_issue": g.next(5) + 1}),
            ),
            23 => set("issue_unblocked", serde_json::json!({"issue": k})),
            24 => set(
                "state_reverted",
                serde_json::json!({"issue": k, "commit": "abcdef0123456789abcdef"}),
            ),
            25 => set(
                "duplicate_detected",
                serde_json::json!({"issue": k, "git": "found abc", "tests": false, "files": {"a": [1, 2.5]}}),
            ),
            26 => set(
                "github_sync",
                serde_json::json!({"issue": k, "github_issue": 1000 + k, "action": "label", "success": g.next(2) == 0}),
            ),
            27 => set(
                "git_sync",
                serde_json::json!({"synced_issues": [k, k + 1], "reverted_issues": [g.next(17) + 1], "commits_scanned": g.next(99), "head": format!("{:040x}", i)}),
            ),
            28 => set(
                "custom_thing",
                serde_json::json!({"issue": k, "nested": {"x": [1, null, true]}, "big": 1.5e3, "neg": -4, "s": "q\"uote"}),
            ),
            _ => set(
                "greenlight",
                serde_json::json!({"added": [k], "kept": [], "ready": [k + 20], "preview": g.next(2) == 0}),
            ),
        }
        out.push(compact(Value::Object(rec)));
        // odd shapes, now and then
        match i % 97 {
            3 => out.push(format!(r#"{{"ts":"2026-01-01T05:00:0{}","event":"issue_started","issue":{k}}}"#, i % 10).into_bytes()),
            11 => out.push(format!(r#"{{"ts": "2026-01-01T05:00:01Z", "event": "agent_started", "issue": {k}, "agent": "x", "agent": "y", "\u0072ole": "dup"}}"#).into_bytes()),
            19 => out.push(format!(r#"{{"event":"verification_passed","issue":{k},"tests_passed":-0,"preview":false}}"#).into_bytes()),
            23 => out.push(format!(r#"{{"event":"action_received","issue":{k},"action":"labeled"}}"#).into_bytes()),
            31 => out.push(format!(r#"{{"ts":5,"event":"issue_done","issue":{k}}}"#).into_bytes()),
            37 => out.push(b"not json at all".to_vec()),
            41 => out.push(format!(r#"{{"event":"issue_done","issue":{k},"cost_usd":1e400}}"#).into_bytes()),
            43 => {
                let mut l = format!(r#"{{"event":"issue_blocked","issue":{k},"reason":""#).into_bytes();
                l.extend_from_slice(b"\xff\xfe");
                l.extend_from_slice(b"\"}");
                out.push(l);
            }
            47 => out.push(format!(r#"{{"event":"issue_done","issue":{k}.0,"summary":null,"commit":null}}"#).into_bytes()),
            53 => out.push(format!(r#"{{"event":"agent_finished","issue":{k},"agent":"claude","exit_code":18446744073709551615,"duration_ms":18446744073709551616,"cost_usd":3}}"#).into_bytes()),
            _ => {}
        }
    }
    out
}

#[test]
fn the_streamed_audit_of_a_generated_log_is_the_previous_implementations() {
    let lines = generated_log(20_000);
    let (report, store) = spilled(&lines, Mode::Json);
    assert!(report.issues.iter().all(|i| i.attempts.len() <= 1));
    assert!(store.went_to_file(), "the store's file is used");
    let (table, json) = streamed(&lines);
    let (want_table, want_json) = in_memory(&lines);
    assert!(want_table.lines().count() > 20_000, "the log is audited");
    assert!(want_table.contains("fallback solo: the runner-up"));
    assert!(want_table.contains("candidates: PARALLEL (join merge)"));
    assert_eq!(table, want_table);
    assert_eq!(json, want_json);
}

#[test]
fn the_json_writer_prints_what_serde_prints_for_a_whole_report() {
    let report = in_memory_report(&generated_log(3_000));
    assert!(
        report
            .issues
            .iter()
            .any(|i| i.timeline.iter().any(|e| e.ts.is_none()))
    );
    assert!(
        report
            .issues
            .iter()
            .any(|i| i.timeline.iter().any(|e| e.seq.is_none()))
    );
    assert_eq!(
        json_of_whole(&report),
        serde_json::to_string_pretty(&report).unwrap()
    );
    let empty = crate::core::audit::audit("f", &[]);
    assert_eq!(
        json_of_whole(&empty),
        serde_json::to_string_pretty(&empty).unwrap()
    );
    // an issue with neither attempts nor timeline
    let greenlight: Map<String, Value> =
        serde_json::from_str(r#"{"event":"greenlight","added":[4],"kept":[],"ready":[]}"#).unwrap();
    let named = crate::core::audit::audit("f", [&greenlight]);
    assert_eq!(named.issues.len(), 1);
    assert_eq!(
        json_of_whole(&named),
        serde_json::to_string_pretty(&named).unwrap()
    );
}
