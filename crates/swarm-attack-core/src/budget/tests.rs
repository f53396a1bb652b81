use super::*;
use proptest::prelude::*;
use serde_json::json;

fn no_price(_: &str, _: Option<&str>) -> Option<Price> {
    None
}

fn codex_price(agent: &str, _: Option<&str>) -> Option<Price> {
    (agent == "codex").then_some(Price {
        input_per_mtok: 1.25,
        output_per_mtok: 10.0,
        cached_input_per_mtok: 0.125,
    })
}

fn finished(issue: u32, agent: &str, cost: Option<f64>, tin: u64, tout: u64, cached: u64) -> Value {
    json!({"event": "agent_finished", "issue": issue, "agent": agent, "cost_usd": cost,
           "tokens_in": tin, "tokens_out": tout, "tokens_cached": cached, "duration_ms": 60_000})
}

#[test]
fn the_ledger_sums_across_attempts_and_agents_and_keeps_unknown_unknown() {
    let log = vec![
        json!({"event": "issue_started", "issue": 1, "attempt": 1}),
        finished(1, "claude", Some(0.40), 1000, 200, 0),
        json!({"event": "retry_started", "issue": 1, "attempt": 2}),
        finished(1, "claude", Some(0.35), 800, 100, 400),
        finished(1, "codex", None, 0, 0, 0),
        json!({"event": "issue_started", "issue": 2, "attempt": 1}),
        finished(2, "gemini", None, 5000, 500, 0),
    ];
    let l = Ledger::from_records(&log, &no_price);
    let one = l.issue(1);
    assert_eq!(cents(one.usd), 75);
    assert_eq!(one.unknown_cost_runs, 1);
    assert_eq!(one.attempts, 2);
    assert_eq!(one.agent_runs, 3);
    assert_eq!(one.tokens_in, 1800);
    assert_eq!(one.tokens_cached, 400);
    assert_eq!(one.agent_ms, 180_000);
    assert_eq!(l.issue(2).unknown_cost_runs, 1);
    assert_eq!(cents(l.feature.usd), 75);
    assert_eq!(l.feature.unknown_cost_runs, 2);
    assert_eq!(l.feature.attempts, 3);
}

#[test]
fn an_llm_helper_call_is_charged_like_an_agent_run() {
    let log = vec![
        json!({"event": "issue_started", "issue": 1, "attempt": 1}),
        finished(1, "claude", Some(0.40), 1000, 200, 0),
        json!({"event": "llm_called", "issue": 1, "agent": "failure-analysis",
               "purpose": "failure-analysis", "cost_usd": 0.05, "tokens_in": 300,
               "tokens_out": 20, "duration_ms": 1000}),
        json!({"event": "llm_called", "issue": 1, "agent": "codex", "purpose": "specify",
               "cost_usd": null, "tokens_in": 800_000, "tokens_out": 0, "duration_ms": 0}),
    ];
    let l = Ledger::from_records(&log, &codex_price);
    let one = l.issue(1);
    // 0.40 + 0.05 + 0.8 × 1.25
    assert_eq!(cents(one.usd), 145);
    assert_eq!(one.agent_runs, 3);
    assert_eq!(one.tokens_in, 801_300);
    assert_eq!(one.attempts, 1, "a helper call is not an attempt");
}

#[test]
fn the_price_table_turns_tokens_into_usd() {
    // 1M input of which 400k cached, 100k output: 0.6×1.25 + 0.4×0.125 + 0.1×10 = 1.80
    let l = Ledger::from_records(
        &[finished(3, "codex", None, 1_000_000, 100_000, 400_000)],
        &codex_price,
    );
    assert_eq!(cents(l.issue(3).usd), 180);
    assert_eq!(l.issue(3).unknown_cost_runs, 0);
    // a reported cost wins over the table
    let l = Ledger::from_records(
        &[finished(3, "codex", Some(0.5), 1_000_000, 0, 0)],
        &codex_price,
    );
    assert_eq!(cents(l.issue(3).usd), 50);
}

#[test]
fn the_price_follows_the_model_the_run_reports() {
    let by_model = |_: &str, model: Option<&str>| {
        (model == Some("gpt-5")).then_some(Price {
            input_per_mtok: 2.0,
            output_per_mtok: 20.0,
            cached_input_per_mtok: 0.0,
        })
    };
    let mut rec = finished(4, "codex", None, 500_000, 50_000, 100_000);
    rec["model"] = json!("gpt-5");
    // cached tokens cost the input price when no cached price is set: 0.5×2 + 0.05×20 = 2.00
    let l = Ledger::from_records(&[rec], &by_model);
    assert_eq!(cents(l.issue(4).usd), 200);
    // another model: no price, the cost stays unknown (never 0)
    let mut other = finished(4, "codex", None, 500_000, 50_000, 0);
    other["model"] = json!("o3");
    let l = Ledger::from_records(&[other], &by_model);
    assert_eq!(l.issue(4).unknown_cost_runs, 1);
    assert_eq!(l.issue(4).usd, 0.0);
}

#[test]
fn limits_hold_at_spent_equal_limit_and_raises_count() {
    let log = vec![finished(1, "claude", Some(1.00), 10, 10, 0)];
    let mut l = Ledger::from_records(&log, &no_price);
    let limits = Limits {
        issue_usd: Some(1.0),
        ..Default::default()
    };
    let e = check(&l, &limits, 1).expect("spent == limit stops");
    assert_eq!(e.kind, "issue_usd");
    assert!(e.reason().starts_with("budget"));
    assert!(
        check(&l, &limits, 2).is_none(),
        "another issue has its own budget"
    );
    l.apply(
        &json!({"event": "budget_raised", "issue": 1, "usd": 0.5}),
        &no_price,
    );
    assert!(check(&l, &limits, 1).is_none());
    assert_eq!(cents(remaining_usd(&l, &limits, 1).unwrap()), 50);
    let feature = Limits {
        feature_usd: Some(1.0),
        ..Default::default()
    };
    let e = check(&l, &feature, 2).unwrap();
    assert!(e.is_feature_limit());
    let tokens = Limits {
        issue_tokens: Some(20),
        issue_minutes: Some(2.0),
        ..Default::default()
    };
    assert_eq!(check(&l, &tokens, 1).unwrap().kind, "issue_tokens");
    assert!(check(&l, &Limits::default(), 1).is_none());
}

fn arb_record() -> impl Strategy<Value = Value> {
    let issue = 1u32..4;
    prop_oneof![
        (
            issue.clone(),
            prop::option::of(0.0f64..3.0),
            0u64..5000,
            0u64..500,
            0u64..3000,
            prop::sample::select(vec!["claude", "codex"])
        )
            .prop_map(|(i, c, a, b, k, agent)| finished(i, agent, c, a, b, k)),
        issue
            .clone()
            .prop_map(|i| json!({"event": "issue_started", "issue": i, "attempt": 1})),
        issue
            .clone()
            .prop_map(|i| json!({"event": "retry_started", "issue": i, "attempt": 2})),
        (issue, 0.1f64..5.0)
            .prop_map(|(i, u)| json!({"event": "budget_raised", "issue": i, "usd": u})),
        Just(json!({"event": "git_sync", "synced_issues": []})),
        Just(json!({"ts": "2026-01-01T00:00:00Z", "event": "agent_finished"})),
    ]
}

proptest! {
    /// The ledger saved after each record (folded one record at a time, as `run` does) equals
    /// the ledger rebuilt from that prefix of the log.
    #[test]
    fn rebuilt_from_any_prefix_equals_the_saved_ledger(log in prop::collection::vec(arb_record(), 0..40)) {
        let mut saved = Ledger::default();
        for (i, r) in log.iter().enumerate() {
            saved.apply(r, &codex_price);
            // through the state file: serialise, load
            let text = serde_json::to_string(&saved).unwrap();
            saved = serde_json::from_str(&text).unwrap();
            let rebuilt = Ledger::from_records(&log[..=i], &codex_price);
            prop_assert_eq!(cents(rebuilt.feature.usd), cents(saved.feature.usd));
            prop_assert_eq!(&rebuilt.issues.keys().collect::<Vec<_>>(), &saved.issues.keys().collect::<Vec<_>>());
            for (n, s) in &rebuilt.issues {
                let t = &saved.issues[n];
                prop_assert_eq!(cents(s.usd), cents(t.usd));
                prop_assert_eq!((s.tokens_in, s.tokens_out, s.tokens_cached, s.agent_ms, s.agent_runs, s.attempts, s.unknown_cost_runs),
                                (t.tokens_in, t.tokens_out, t.tokens_cached, t.agent_ms, t.agent_runs, t.attempts, t.unknown_cost_runs));
            }
        }
    }
}
