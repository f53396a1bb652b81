//! `audit`, `report` and the spend ledger derive an issue's counts, time and cost from the
//! one fold: on any log they agree.

use crate::audit::Auditor;
use crate::budget::{Ledger, Price, cents};
use crate::report::ReportBuilder;
use serde_json::{Map, Value, json};

/// A log of `n` records over 4 issues: starts, retries, agent runs (cost reported, `null`
/// or absent, tokens sometimes), verifications, ends, and foreign records.
fn log(n: usize, seed: u64) -> Vec<Value> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let r = next();
            let issue = r % 4 + 1;
            let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
            let mut v = match (r >> 8) % 9 {
                0 => json!({"event": "issue_started", "issue": issue, "attempt": (r >> 16) % 3 + 1}),
                1 => json!({"event": "retry_started", "issue": issue}),
                2 | 3 => json!({"event": "agent_finished", "issue": issue, "agent": "a",
                    "exit_code": 0, "duration_ms": (r >> 20) % 5000,
                    "cost_usd": if r % 3 == 0 { Value::Null } else { json!(((r >> 12) % 100) as f64 / 100.0) },
                    "tokens_in": (r >> 24) % 50}),
                4 => json!({"event": "agent_started", "issue": issue, "agent": "a", "role": "primary"}),
                5 => json!({"event": "verification_failed", "issue": issue, "failures": "x"}),
                6 => json!({"event": "issue_done", "issue": issue, "commit": "abc", "cost_usd": 1.5}),
                7 => json!({"event": "coder_started", "issue": issue}),
                _ => json!({"event": "agent_finished", "issue": issue, "agent": "b"}),
            };
            v["ts"] = json!(ts);
            v
        })
        .collect()
}

#[test]
fn audit_report_and_the_ledger_agree_on_counts_time_and_cost() {
    let price = |_: &str, _: Option<&str>| -> Option<Price> { None };
    for seed in 1..30 {
        let records = log(300, seed);
        let maps: Vec<Map<String, Value>> = records
            .iter()
            .map(|v| v.as_object().unwrap().clone())
            .collect();
        let mut auditor = Auditor::new("f");
        let mut builder = ReportBuilder::new("f");
        for m in &maps {
            auditor.push(m);
            builder.push(m);
        }
        let audit = auditor.finish();
        let report = builder.finish(None, None);
        let ledger = Ledger::from_records(&records, &price);
        assert_eq!(audit.issues.len(), report.issues.len(), "seed {seed}");
        for (a, r) in audit.issues.iter().zip(&report.issues) {
            let spend = ledger.issue(a.issue as u32);
            assert_eq!(a.issue, r.issue);
            assert_eq!(a.retries, r.retries, "seed {seed} #{}", a.issue);
            assert_eq!(a.agent_time_ms, r.agent_time_ms, "seed {seed} #{}", a.issue);
            assert_eq!(a.agent_time_ms, spend.agent_ms, "seed {seed} #{}", a.issue);
            assert_eq!(a.cost_usd, r.cost_usd, "seed {seed} #{}", a.issue);
            assert_eq!(r.runs_without_cost, u64::from(spend.unknown_cost_runs));
            // the agents reported their costs: the ledger holds the same sum, to the cent
            if let Some(c) = a.cost_usd
                && spend.usd > 0.0
            {
                assert_eq!(cents(c), cents(spend.usd), "seed {seed} #{}", a.issue);
            }
        }
    }
}
