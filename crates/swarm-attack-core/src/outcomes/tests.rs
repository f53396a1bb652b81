use super::*;
use crate::config::Thresholds;
use crate::coordination::{Proposal, decide, rank};
use proptest::prelude::*;

fn rec(
    issue: u32,
    class: &str,
    agents: &[&str],
    landed: Option<&str>,
    r: OutcomeResult,
) -> OutcomeRecord {
    rec_cost(issue, class, agents, landed, r, None)
}

fn rec_cost(
    issue: u32,
    class: &str,
    agents: &[&str],
    landed: Option<&str>,
    r: OutcomeResult,
    cost: Option<f64>,
) -> OutcomeRecord {
    OutcomeRecord {
        ts: "2026-01-01T00:00:00Z".into(),
        feature: "f".into(),
        issue,
        class: class.into(),
        mode: Some("SOLO".into()),
        agents: agents.iter().map(|a| a.to_string()).collect(),
        landed_by: landed.map(str::to_string),
        result: r,
        attempts: 1,
        cost_usd: cost,
        minutes: None,
    }
}

fn np(agent: &str, c: f64) -> NamedProposal {
    NamedProposal {
        agent: agent.into(),
        source: "heuristic".into(),
        proposal: Proposal {
            angle: format!("angle of {agent}"),
            confidence: c,
            covers: vec![agent.to_string()],
            solo_sufficient: false,
            builds_on_other: false,
        },
        learned: None,
    }
}

#[test]
fn the_class_is_the_first_label_then_the_size_then_default() {
    let mut t = Task::new(1, "t");
    assert_eq!(class_of(&t, &[]), "default");
    t.estimated_size = Some("small".into());
    assert_eq!(class_of(&t, &[]), "small");
    t.labels = vec![
        "swarm:ready".into(),
        "swarm".into(),
        "backend".into(),
        "api".into(),
    ];
    assert_eq!(class_of(&t, &["swarm"]), "backend");
    assert_eq!(class_of(&t, &[]), "swarm");
}

#[test]
fn counts_follow_the_rules_done_landed_blocked_attempted_reverted_cancels() {
    use OutcomeResult::*;
    let records = vec![
        rec(1, "api", &["a", "b"], Some("a"), Done),
        rec(2, "api", &["a", "b"], None, Blocked),
        rec(3, "api", &["b"], None, Skipped),
        rec(4, "api", &["a"], Some("a"), Done),
        rec(4, "api", &["a"], Some("a"), Reverted),
        rec(5, "ui", &["b"], Some("b"), Done),
    ];
    let st = Stats::fold(&records);
    let a = st.get("a", "api").unwrap();
    assert_eq!((a.n, a.s, a.reverted), (3, 1, 1), "{a:?}");
    let b = st.get("b", "api").unwrap();
    // b attempted #1 but did not land it: not counted; blocked #2 and skipped #3 are
    assert_eq!((b.n, b.s), (2, 0));
    assert_eq!(st.get("b", "ui").unwrap().s, 1);
    assert!(st.get("a", "ui").is_none());
}

#[test]
fn a_done_after_the_revert_counts_again() {
    use OutcomeResult::*;
    let records = vec![
        rec(4, "api", &["a"], Some("a"), Done),
        rec(4, "api", &["a"], Some("a"), Reverted),
        rec(4, "api", &["a"], Some("a"), Done),
    ];
    let a = *Stats::fold(&records).get("a", "api").unwrap();
    assert_eq!((a.n, a.s, a.reverted), (2, 1, 1));
}

#[test]
fn the_blend_is_the_formula_rounded_half_away_from_zero() {
    // n = 0: unchanged
    assert_eq!(blended_hundredths(0.55, 0, 0, 5), 55);
    // n 5, s 5, prior 5: p = 6/7, w = 0.5 → 0.5·0.5 + 0.5·0.857142 = 0.678571 → 68
    assert_eq!(blended_hundredths(0.5, 5, 5, 5), 68);
    // n 5, s 0: p = 1/7 → 0.25 + 0.071428 = 0.321428 → 32
    assert_eq!(blended_hundredths(0.5, 5, 0, 5), 32);
    // exact half: c 0.3, n 2, s 1, prior 2: w 0.5, p 0.5 → 0.4 exactly
    assert_eq!(blended_hundredths(0.3, 2, 1, 2), 40);
    // c 0.21, n 2, s 2, prior 2: p 0.75, w .5 → 0.48
    assert_eq!(blended_hundredths(0.21, 2, 2, 2), 48);
    // 0.125 + 0.5 ... half case: c 0.25, n 1, s 0, prior 1 → w .5, p 1/3 → .291666 → 29
    assert_eq!(blended_hundredths(0.25, 1, 0, 1), 29);
    // a true half: c 0.005 with prior 1 and n 1 s 0 (p 1/3): .0025+.16667 = .169166 → 17
    assert_eq!(blended_hundredths(0.005, 1, 0, 1), 17);
    // prior 0: w = 1 → p
    assert_eq!(blended_hundredths(0.9, 8, 2, 0), 30);
    // compare with floating point on many values
    for c in 0..=100 {
        for n in 0..12u32 {
            for s in 0..=n {
                let c = f64::from(c) / 100.0;
                let w = f64::from(n) / (f64::from(n) + 5.0);
                let p = (f64::from(s) + 1.0) / (f64::from(n) + 2.0);
                let exact = (1.0 - w) * c + w * p;
                let h = blended_hundredths(c, n, s, 5);
                assert!(
                    (h as f64 / 100.0 - exact).abs() <= 0.005 + 1e-9,
                    "{c} {n} {s}"
                );
            }
        }
    }
}

#[test]
fn no_outcome_means_no_change() {
    let mut ps = vec![np("a", 0.7), np("b", 0.4)];
    let before = ps.clone();
    apply(&mut ps, "api", &Stats::default(), 5);
    assert_eq!(ps, before);
    // outcomes of another class: no change either
    let st = Stats::fold(&[rec(1, "ui", &["a"], Some("a"), OutcomeResult::Done)]);
    apply(&mut ps, "api", &st, 5);
    assert_eq!(ps, before);
}

#[test]
fn learning_moves_the_winner_to_the_agent_that_succeeds_in_the_class() {
    use OutcomeResult::*;
    let mut records = Vec::new();
    for i in 0..10 {
        records.push(rec(i, "api", &["a"], None, Blocked));
        records.push(rec(100 + i, "api", &["b"], Some("b"), Done));
    }
    let st = Stats::fold(&records);
    let mut ps = vec![np("a", 0.8), np("b", 0.5)];
    let before = decide(&ps, &Thresholds::default(), "a");
    assert_eq!(before.winner, "a");
    apply(&mut ps, "api", &st, 5);
    let la = ps[0].learned.clone().unwrap();
    assert_eq!((la.n, la.s, la.confidence_before), (10, 0, 0.8));
    assert!((la.w - 10.0 / 15.0).abs() < 1e-12);
    assert!((la.p - 1.0 / 12.0).abs() < 1e-12);
    let after = decide(&ps, &Thresholds::default(), "a");
    assert_eq!(after.winner, "b", "{}", after.reason);
}

#[test]
fn the_lower_cost_per_success_ranks_first_within_five_hundredths_only() {
    use OutcomeResult::*;
    let mut records = Vec::new();
    for i in 0..4 {
        records.push(rec_cost(i, "k", &["a"], Some("a"), Done, Some(2.0)));
        records.push(rec_cost(10 + i, "k", &["b"], Some("b"), Done, Some(0.5)));
    }
    let st = Stats::fold(&records);
    // a 0.62, b 0.58 before; both learn the same p → a stays a little higher
    let mut ps = vec![np("a", 0.62), np("b", 0.58)];
    apply(&mut ps, "k", &st, 5);
    let d = decide(&ps, &Thresholds::default(), "a");
    assert_eq!(d.proposals[0].agent, "b", "{}", d.reason);
    assert!(d.reason.contains("cost tie-break"), "{}", d.reason);
    // far apart: confidence decides
    let mut ps = vec![np("a", 0.95), np("b", 0.30)];
    apply(&mut ps, "k", &st, 5);
    assert_eq!(rank(&ps)[0].agent, "a");
    // without learning (no mean cost): confidence and name decide
    let ps = vec![np("a", 0.62), np("b", 0.60)];
    assert_eq!(rank(&ps)[0].agent, "a");
}

#[test]
fn the_cost_per_success_counts_the_failures_too() {
    use OutcomeResult::*;
    // a: one success and three failures at $0.10 each → $0.40 per success (its successes
    // alone cost $0.10); b: two successes at $0.25 → $0.25 per success
    let records = vec![
        rec_cost(1, "k", &["a"], Some("a"), Done, Some(0.1)),
        rec_cost(2, "k", &["a"], None, Blocked, Some(0.1)),
        rec_cost(3, "k", &["a"], None, Blocked, Some(0.1)),
        rec_cost(4, "k", &["a"], None, Blocked, Some(0.1)),
        rec_cost(5, "k", &["b"], Some("b"), Done, Some(0.25)),
        rec_cost(6, "k", &["b"], Some("b"), Done, Some(0.25)),
    ];
    let st = Stats::fold(&records);
    let a = st.get("a", "k").unwrap();
    assert!((a.cost_per_success().unwrap() - 0.4).abs() < 1e-12);
    assert!((st.get("b", "k").unwrap().cost_per_success().unwrap() - 0.25).abs() < 1e-12);
    // a 0.9 → 0.65, b 0.6 → 0.64: within 0.05, and b is cheaper per success
    let mut ps = vec![np("a", 0.9), np("b", 0.6)];
    apply(&mut ps, "k", &st, 5);
    assert_eq!(
        (ps[0].proposal.confidence, ps[1].proposal.confidence),
        (0.65, 0.64)
    );
    assert_eq!(rank(&ps)[0].agent, "b");
    // some costs unknown: the mean known cost times outcomes per success
    let st = Stats::fold(&[
        rec_cost(1, "k", &["a"], Some("a"), Done, Some(0.2)),
        rec_cost(2, "k", &["a"], None, Blocked, None),
    ]);
    assert!((st.get("a", "k").unwrap().cost_per_success().unwrap() - 0.4).abs() < 1e-12);
}

#[test]
fn a_cost_tie_needs_a_success_of_both() {
    use OutcomeResult::*;
    let records = vec![
        rec_cost(1, "k", &["a"], Some("a"), Done, Some(2.0)),
        rec_cost(2, "k", &["b"], None, Blocked, Some(0.1)),
    ];
    let st = Stats::fold(&records);
    let mut ps = vec![np("a", 0.5), np("b", 0.5)];
    apply(&mut ps, "k", &st, 5);
    assert!(ps[1].learned.as_ref().unwrap().mean_cost.is_none());
    // a 0.5·5/6+… vs b: a ranks by confidence, no tie-break possible
    let r = rank(&ps);
    assert!(r[0].proposal.confidence >= r[1].proposal.confidence);
}

fn arb_records() -> impl Strategy<Value = Vec<OutcomeRecord>> {
    let agents = prop::sample::select(vec!["a", "b", "c"]);
    let classes = prop::sample::select(vec!["k", "m"]);
    let result = prop::sample::select(vec![
        OutcomeResult::Done,
        OutcomeResult::Blocked,
        OutcomeResult::Skipped,
        OutcomeResult::Reverted,
    ]);
    prop::collection::vec(
        (
            0u32..6,
            classes,
            agents,
            result,
            prop::option::of(0u32..400),
        ),
        0..40,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(i, k, a, r, c)| {
                rec_cost(i, k, &[a], Some(a), r, c.map(|c| f64::from(c) / 100.0))
            })
            .collect()
    })
}

proptest! {
    /// The same outcomes and proposals give the same decision, whatever the order the
    /// proposals come in (plan and run agree).
    #[test]
    fn learned_decisions_are_deterministic_and_order_independent(
        records in arb_records(),
        ca in 0u32..=100, cb in 0u32..=100, cc in 0u32..=100,
        prior in 0u32..8,
    ) {
        let st = Stats::fold(&records);
        let base = vec![
            np("a", f64::from(ca) / 100.0),
            np("b", f64::from(cb) / 100.0),
            np("c", f64::from(cc) / 100.0),
        ];
        let mut x = base.clone();
        apply(&mut x, "k", &st, prior);
        let mut y: Vec<NamedProposal> = base.into_iter().rev().collect();
        apply(&mut y, "k", &st, prior);
        let dx = decide(&x, &Thresholds::default(), "a");
        let dy = decide(&y, &Thresholds::default(), "a");
        prop_assert_eq!(&dx, &dy);
        // a second fold of the same records gives the same statistics
        prop_assert_eq!(Stats::fold(&records), st);
        // every learned confidence is in [0, 1] and in whole hundredths
        for p in &dx.proposals {
            let c = p.proposal.confidence;
            prop_assert!((0.0..=1.0).contains(&c));
            prop_assert!(((c * 100.0).round() - c * 100.0).abs() < 1e-9);
        }
    }
}

#[test]
fn records_round_trip_and_bad_lines_are_skipped() {
    let r = rec_cost(3, "api", &["a"], Some("a"), OutcomeResult::Done, Some(0.25));
    let line = serde_json::to_string(&r).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    for k in [
        "ts",
        "feature",
        "issue",
        "class",
        "mode",
        "agents",
        "landed_by",
        "result",
        "attempts",
        "cost_usd",
        "minutes",
    ] {
        assert!(v.get(k).is_some(), "{k} in {line}");
    }
    assert_eq!(v["result"], "done");
    let text = format!("{line}\n{{torn\n\n{line}\n{{\"result\":\"nope\"}}\n");
    assert_eq!(parse_records(&text), vec![r.clone(), r]);
}
