//! Unit tests of the coordination decision (mode, winner, runner-up, overlap), with properties.

use super::*;
use proptest::prelude::*;

fn p(agent: &str, confidence: f64, angle: &str, covers: &[&str], builds: bool) -> NamedProposal {
    NamedProposal {
        agent: agent.into(),
        source: "heuristic".into(),
        proposal: Proposal {
            angle: angle.into(),
            confidence,
            covers: covers.iter().map(|s| s.to_string()).collect(),
            solo_sufficient: false,
            builds_on_other: builds,
        },
        learned: None,
    }
}

/// Two proposals with disjoint tokens (overlap 0).
fn disjoint(ca: f64, cb: f64) -> Vec<NamedProposal> {
    vec![
        p("alpha", ca, "frontend styling", &["css"], false),
        p("beta", cb, "database schema", &["sql"], false),
    ]
}

/// Two proposals with identical tokens (overlap 1).
fn same(ca: f64, cb: f64, builds: bool) -> Vec<NamedProposal> {
    vec![
        p("alpha", ca, "api handlers", &["rust"], false),
        p("beta", cb, "api handlers", &["rust"], builds),
    ]
}

fn d(ps: &[NamedProposal]) -> Decision {
    decide(ps, &Thresholds::default(), "first")
}

#[test]
fn hundredths_rounds_the_decimal_half_away_from_zero() {
    assert_eq!(hundredths(0.9) - hundredths(0.6), 30);
    assert_eq!(hundredths(0.3), 30);
    assert_eq!(hundredths(0.285), 29);
    assert_eq!(hundredths(0.2849), 28);
    assert_eq!(hundredths(0.005), 1);
    assert_eq!(hundredths(0.004999), 0);
    assert_eq!(hundredths(1.0), 100);
    assert_eq!(hundredths(0.1 + 0.2), 30);
    assert_eq!(hundredths(1.7), 100);
    assert_eq!(hundredths(-0.2), 0);
    assert_eq!(hundredths(f64::NAN), 0);
    assert_eq!(hundredths(1e-9), 0);
    assert_eq!(hundredths(0.995), 100);
}

#[test]
fn ratio_hundredths_is_exact() {
    assert_eq!(ratio_hundredths(1, 2), 50);
    assert_eq!(ratio_hundredths(1, 3), 33);
    assert_eq!(ratio_hundredths(2, 3), 67);
    assert_eq!(ratio_hundredths(1, 8), 13); // 12.5 → 13
    assert_eq!(ratio_hundredths(0, 0), 0);
}

#[test]
fn tokens_are_lowercase_alphanumeric_runs_of_three_or_more() {
    let t = tokens(&p("x", 0.5, "UI & CSS-in-JS, a11y", &["Web UX", "db"], false).proposal);
    let got: Vec<&str> = t.iter().map(String::as_str).collect();
    assert_eq!(got, vec!["a11y", "css", "web"]);
    assert_eq!(
        overlap_hundredths(
            &p("a", 0.5, "", &[], false).proposal,
            &p("b", 0.5, "", &[], false).proposal
        ),
        0
    );
}

/// (proposals, expected mode, winner, runner-up, rule)
#[test]
fn every_rule_with_boundary_values() {
    use Mode::*;
    type Case = (
        &'static str,
        Vec<NamedProposal>,
        Mode,
        &'static str,
        Option<&'static str>,
        u8,
    );
    let cases: Vec<Case> = vec![
        (
            "rule 1: gap 0.31",
            disjoint(0.81, 0.50),
            Solo,
            "alpha",
            None,
            1,
        ),
        (
            "rule 1: gap 0.90-0.59",
            disjoint(0.90, 0.59),
            Solo,
            "alpha",
            None,
            1,
        ),
        (
            "gap exactly 0.30 is not > 0.30 (0.9/0.6 floats)",
            disjoint(0.9, 0.6),
            Parallel,
            "alpha",
            Some("beta"),
            2,
        ),
        (
            "gap exactly 0.30 low side",
            disjoint(0.30, 0.0),
            Solo,
            "alpha",
            None,
            6,
        ),
        (
            "rule 2: both > 0.50, overlap 0",
            disjoint(0.80, 0.75),
            Parallel,
            "alpha",
            Some("beta"),
            2,
        ),
        (
            "rule 2 needs both > 0.50: b exactly 0.50",
            disjoint(0.70, 0.50),
            Solo,
            "alpha",
            None,
            6,
        ),
        (
            "rule 2 at 0.51",
            disjoint(0.70, 0.51),
            Parallel,
            "alpha",
            Some("beta"),
            2,
        ),
        (
            "rule 3: both > 0.70, overlap 1, b builds",
            same(0.80, 0.75, true),
            Synthesis,
            "alpha",
            Some("beta"),
            3,
        ),
        (
            "rule 3 needs both > 0.70: b exactly 0.70 → rule 4",
            same(0.80, 0.70, true),
            Solo,
            "alpha",
            None,
            4,
        ),
        (
            "rule 3 at 0.71",
            same(0.80, 0.71, true),
            Synthesis,
            "alpha",
            Some("beta"),
            3,
        ),
        (
            "rule 3 needs builds_on_other → rule 4",
            same(0.80, 0.75, false),
            Solo,
            "alpha",
            None,
            4,
        ),
        (
            "rule 4: both > 0.50, overlap ≥ 0.50",
            same(0.60, 0.55, false),
            Solo,
            "alpha",
            None,
            4,
        ),
        (
            "rule 5: both < 0.30",
            disjoint(0.29, 0.10),
            Solo,
            "alpha",
            None,
            5,
        ),
        (
            "rule 5 needs both < 0.30: a exactly 0.30 → rule 6",
            disjoint(0.30, 0.10),
            Solo,
            "alpha",
            None,
            6,
        ),
        (
            "rule 6: between",
            disjoint(0.45, 0.40),
            Solo,
            "alpha",
            None,
            6,
        ),
        (
            "ties broken by name",
            vec![
                p("zed", 0.6, "x", &["aaa"], false),
                p("amy", 0.6, "y", &["bbb"], false),
            ],
            Parallel,
            "amy",
            Some("zed"),
            2,
        ),
        (
            "ties in hundredths broken by name",
            vec![
                p("zed", 0.604, "x", &["aaa"], false),
                p("amy", 0.6, "y", &["bbb"], false),
            ],
            Parallel,
            "amy",
            Some("zed"),
            2,
        ),
        (
            "ranking by confidence, not by input order",
            disjoint(0.2, 0.9),
            Solo,
            "beta",
            None,
            1,
        ),
        (
            "clamped above 1",
            disjoint(1.7, 0.75),
            Parallel,
            "alpha",
            Some("beta"),
            2,
        ),
        (
            "clamped below 0",
            disjoint(0.25, -3.0),
            Solo,
            "alpha",
            None,
            5,
        ),
    ];
    for (name, ps, mode, winner, runner_up, rule) in cases {
        let got = d(&ps);
        assert_eq!(got.mode, mode, "{name}: {}", got.reason);
        assert_eq!(got.winner, winner, "{name}: {}", got.reason);
        assert_eq!(
            got.runner_up.as_deref(),
            runner_up,
            "{name}: {}",
            got.reason
        );
        assert_eq!(got.rule, Some(rule), "{name}: {}", got.reason);
        assert!(
            got.reason.starts_with(&format!("rule {rule}: ")),
            "{name}: {}",
            got.reason
        );
    }
}

/// Overlap exactly 0.50: rule 2 needs < 0.50, rules 3/4 take ≥ 0.50.
#[test]
fn overlap_exactly_half() {
    // tokens a = {api, handlers}, b = {api, handlers, rust, tests}: 2/4 = 0.50.
    let mk = |ca, cb, builds| {
        vec![
            p("alpha", ca, "api handlers", &[], false),
            p("beta", cb, "api handlers", &["rust", "tests"], builds),
        ]
    };
    let got = d(&mk(0.80, 0.75, false));
    assert_eq!(got.overlap, Some(0.5));
    assert_eq!(
        (got.mode, got.rule),
        (Mode::Solo, Some(4)),
        "{}",
        got.reason
    );
    let got = d(&mk(0.80, 0.75, true));
    assert_eq!(
        (got.mode, got.rule),
        (Mode::Synthesis, Some(3)),
        "{}",
        got.reason
    );
    // 1/3 = 0.33 < 0.50 → PARALLEL
    let got = d(&[
        p("alpha", 0.80, "api handlers", &[], false),
        p("beta", 0.75, "api", &["rust"], true),
    ]);
    assert_eq!(got.overlap, Some(0.33));
    assert_eq!(got.mode, Mode::Parallel, "{}", got.reason);
    // A threshold written as 0.5 compares equal to a 1/2 ratio.
    let t = Thresholds {
        angle_overlap: 0.5,
        ..Thresholds::default()
    };
    let got = decide(&mk(0.80, 0.75, false), &t, "first");
    assert_eq!(got.rule, Some(4));
}

#[test]
fn reason_names_the_rule_and_the_numbers() {
    let got = d(&disjoint(0.80, 0.75));
    assert_eq!(
        got.reason,
        "rule 2: both > 0.50 (alpha 0.80, beta 0.75) and overlap 0.00 < 0.50 → PARALLEL alpha (primary) + beta (runner-up)"
    );
    let got = d(&disjoint(0.9, 0.5));
    assert_eq!(
        got.reason,
        "rule 1: gap 0.40 (alpha 0.90, beta 0.50) > 0.30 → SOLO alpha"
    );
    let got = d(&same(0.8, 0.75, true));
    assert_eq!(
        got.reason,
        "rule 3: both > 0.70 (alpha 0.80, beta 0.75), overlap 1.00 ≥ 0.50 and beta builds on the other → SYNTHESIS alpha then beta"
    );
}

#[test]
fn one_agent_and_no_agent_are_solo() {
    let got = d(&[p("only", 0.1, "x", &[], false)]);
    assert_eq!(
        (got.mode, got.winner.as_str(), got.rule),
        (Mode::Solo, "only", None)
    );
    assert!(got.reason.contains("one eligible agent"), "{}", got.reason);
    let got = d(&[]);
    assert_eq!((got.mode, got.winner.as_str()), (Mode::Solo, "first"));
    assert!(got.reason.contains("no proposals"), "{}", got.reason);
    assert!(got.proposals.is_empty());
}

#[test]
fn only_the_two_best_count() {
    let got = d(&[
        p("c", 0.1, "database", &["sql"], true),
        p("a", 0.8, "frontend", &["css"], false),
        p("b", 0.75, "backend", &["rust"], false),
    ]);
    assert_eq!(
        (got.mode, got.winner.as_str(), got.runner_up.as_deref()),
        (Mode::Parallel, "a", Some("b"))
    );
    let names: Vec<&str> = got.proposals.iter().map(|p| p.agent.as_str()).collect();
    assert_eq!(names, vec!["a", "b", "c"]);
}

#[test]
fn event_carries_the_decision() {
    let got = d(&disjoint(0.80, 0.75));
    match got.event(7) {
        Event::AgentsSelected {
            issue,
            mode,
            winner,
            runner_up,
            proposals,
            ..
        } => {
            assert_eq!(
                (issue, mode.as_str(), winner.as_str()),
                (7, "PARALLEL", "alpha")
            );
            assert_eq!(runner_up.as_deref(), Some("beta"));
            assert_eq!(proposals[0]["agent"], "alpha");
            assert_eq!(proposals[0]["confidence"], 0.8);
        }
        other => panic!("unexpected {other:?}"),
    }
}

fn arb_proposal() -> impl Strategy<Value = NamedProposal> {
    let words = prop::sample::select(vec![
        "api", "css", "sql", "rust", "tests", "frontend", "backend", "schema", "ui", "docs",
    ]);
    (
        "[a-e]{1,2}",
        prop_oneof![
            (0u32..=100).prop_map(|h| f64::from(h) / 100.0),
            -0.5f64..1.5,
            prop::sample::select(vec![0.3, 0.5, 0.7, 0.9, 0.6, 0.1 + 0.2, 0.8, 0.51, 0.71])
        ],
        prop::collection::vec(words.clone(), 0..3),
        prop::collection::vec(words, 0..3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(agent, confidence, angle, covers, solo, builds)| NamedProposal {
                agent,
                source: "heuristic".into(),
                proposal: Proposal {
                    angle: angle.join(" "),
                    confidence,
                    covers: covers.into_iter().map(String::from).collect(),
                    solo_sufficient: solo,
                    builds_on_other: builds,
                },
                learned: None,
            },
        )
}

fn arb_proposals() -> impl Strategy<Value = Vec<NamedProposal>> {
    // Distinct names, as config validation guarantees.
    prop::collection::vec(arb_proposal(), 0..6).prop_map(|v| {
        let mut seen = BTreeSet::new();
        v.into_iter()
            .filter(|p| seen.insert(p.agent.clone()))
            .collect()
    })
}

proptest! {
    #[test]
    fn permuting_agents_never_changes_the_decision(
        ps in arb_proposals(),
        perm in any::<prop::sample::Index>(),
        rot in 0usize..6,
    ) {
        let base = d(&ps);
        let mut shuffled = ps.clone();
        shuffled.reverse();
        if !shuffled.is_empty() {
            let k = perm.index(shuffled.len());
            shuffled.swap(0, k);
            let r = rot % shuffled.len();
            shuffled.rotate_left(r);
        }
        prop_assert_eq!(base, d(&shuffled));
    }

    #[test]
    fn winner_has_the_highest_confidence(ps in arb_proposals()) {
        let got = d(&ps);
        if let Some(best) = ps.iter().map(|p| hundredths(p.proposal.confidence)).max() {
            let w = ps.iter().find(|p| p.agent == got.winner).expect("winner proposed");
            prop_assert_eq!(hundredths(w.proposal.confidence), best);
        } else {
            prop_assert_eq!(got.winner.as_str(), "first");
        }
    }

    #[test]
    fn pair_modes_have_a_distinct_runner_up(ps in arb_proposals()) {
        let got = d(&ps);
        match got.mode {
            Mode::Parallel | Mode::Synthesis => {
                let r = got.runner_up.clone().expect("runner-up");
                prop_assert_ne!(&r, &got.winner);
                prop_assert!(ps.iter().any(|p| p.agent == r));
            }
            Mode::Solo => prop_assert!(got.runner_up.is_none()),
        }
        prop_assert!(got.reason.contains(got.mode.as_str()));
    }

    #[test]
    fn confidences_are_clamped(ps in arb_proposals()) {
        for p in d(&ps).proposals {
            prop_assert!((0.0..=1.0).contains(&p.proposal.confidence));
        }
    }
}
