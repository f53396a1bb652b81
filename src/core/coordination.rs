//! The coordination filter (SPEC §6): proposals → SOLO / PARALLEL / SYNTHESIS.
//!
//! Every comparison is made in whole hundredths (integers), so binary floating point never
//! decides a boundary: 0.9 − 0.6 is exactly 0.30 here, never 0.30000000000000004.
//! A value is turned into hundredths by clamping it to [0, 1] (NaN → 0) and rounding its
//! shortest decimal form half away from zero (0.285 → 29, 0.2849 → 28). The overlap (a
//! Jaccard ratio `i/u`) is rounded the same way with exact integer arithmetic.
//!
//! The decision depends only on the proposals and the agents' names: the proposals are
//! ranked (confidence desc, name asc) before anything else, so any permutation of the same
//! proposals gives the same [`Decision`] (whose `proposals` are in ranked order).

use crate::core::events::Event;
use crate::io::config::Thresholds;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// How the agents work on an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mode {
    Solo,
    Parallel,
    Synthesis,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Solo => "SOLO",
            Mode::Parallel => "PARALLEL",
            Mode::Synthesis => "SYNTHESIS",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One agent's micro-proposal for an issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub angle: String,
    pub confidence: f64,
    #[serde(default)]
    pub covers: Vec<String>,
    #[serde(default)]
    pub solo_sufficient: bool,
    #[serde(default)]
    pub builds_on_other: bool,
}

/// A proposal with the agent that made it and where it came from (`heuristic`, `llm`, or
/// `heuristic (llm fallback: <why>)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedProposal {
    pub agent: String,
    pub source: String,
    #[serde(flatten)]
    pub proposal: Proposal,
}

/// The decision for one issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub mode: Mode,
    pub winner: String,
    /// The second agent that works on the issue (PARALLEL, SYNTHESIS); `None` for SOLO.
    pub runner_up: Option<String>,
    /// Human-readable: the rule and the numbers that decided.
    pub reason: String,
    /// The proposals, clamped, in ranked order (confidence desc, name asc).
    pub proposals: Vec<NamedProposal>,
    /// The SPEC §6 rule (1–6) that decided; `None` for one agent or no proposals.
    #[serde(default)]
    pub rule: Option<u8>,
    /// The overlap of the two best proposals, in hundredths (e.g. 0.25); `None` when fewer
    /// than two agents proposed.
    #[serde(default)]
    pub overlap: Option<f64>,
}

impl Decision {
    /// The `agents_selected` event for this decision on `issue`.
    pub fn event(&self, issue: u32) -> Event {
        Event::AgentsSelected {
            issue,
            mode: self.mode.as_str().to_string(),
            winner: self.winner.clone(),
            runner_up: self.runner_up.clone(),
            reason: self.reason.clone(),
            proposals: serde_json::to_value(&self.proposals).unwrap_or_default(),
            fallback: None,
            candidates: None,
        }
    }
}

/// Clamps to [0, 1]; NaN becomes 0.
pub fn clamp_unit(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// `x` (clamped to [0, 1]) in whole hundredths, rounded half away from zero on its shortest
/// decimal form, so `hundredths(0.9) - hundredths(0.6) == 30` and `hundredths(0.285) == 29`.
pub fn hundredths(x: f64) -> i64 {
    let x = clamp_unit(x);
    // Rust prints the shortest decimal that round-trips, never in exponent form.
    let s = format!("{x}");
    let (int, frac) = s.split_once('.').unwrap_or((s.as_str(), ""));
    let int: i64 = int.parse().unwrap_or(0);
    let digit = |i: usize| {
        frac.as_bytes()
            .get(i)
            .map(|b| i64::from(b.wrapping_sub(b'0')))
            .unwrap_or(0)
    };
    let mut h = int * 100 + digit(0) * 10 + digit(1);
    if digit(2) >= 5 {
        h += 1;
    }
    h
}

/// `num / den` in whole hundredths, rounded half away from zero (`den` > 0, both ≥ 0).
pub fn ratio_hundredths(num: usize, den: usize) -> i64 {
    if den == 0 {
        return 0;
    }
    let (n, d) = (num as i64, den as i64);
    (200 * n + d) / (2 * d)
}

/// Formats hundredths as `0.30`.
pub fn fmt_h(h: i64) -> String {
    format!("{}.{:02}", h / 100, h % 100)
}

/// The overlap tokens of a proposal: lowercase alphanumeric runs of 3+ characters from its
/// `angle` and `covers`.
pub fn tokens(p: &Proposal) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |text: &str| {
        for run in text
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|r| r.chars().count() >= 3)
        {
            out.insert(run.to_string());
        }
    };
    add(&p.angle);
    for c in &p.covers {
        add(c);
    }
    out
}

/// The Jaccard overlap of two proposals' token sets, in hundredths (both empty: 0).
pub fn overlap_hundredths(a: &Proposal, b: &Proposal) -> i64 {
    let (ta, tb) = (tokens(a), tokens(b));
    let inter = ta.intersection(&tb).count();
    let union = ta.union(&tb).count();
    ratio_hundredths(inter, union)
}

/// The ranking order: confidence (hundredths) desc, then name asc; the rest only makes the
/// order total when names repeat.
fn rank_cmp(x: &NamedProposal, y: &NamedProposal) -> Ordering {
    hundredths(y.proposal.confidence)
        .cmp(&hundredths(x.proposal.confidence))
        .then_with(|| x.agent.cmp(&y.agent))
        .then_with(|| y.proposal.confidence.total_cmp(&x.proposal.confidence))
        .then_with(|| x.source.cmp(&y.source))
        .then_with(|| x.proposal.angle.cmp(&y.proposal.angle))
        .then_with(|| x.proposal.covers.cmp(&y.proposal.covers))
        .then_with(|| x.proposal.solo_sufficient.cmp(&y.proposal.solo_sufficient))
        .then_with(|| x.proposal.builds_on_other.cmp(&y.proposal.builds_on_other))
}

/// The proposals clamped and ranked (confidence desc, name asc).
pub fn rank(proposals: &[NamedProposal]) -> Vec<NamedProposal> {
    let mut ranked: Vec<NamedProposal> = proposals
        .iter()
        .cloned()
        .map(|mut p| {
            p.proposal.confidence = clamp_unit(p.proposal.confidence);
            p
        })
        .collect();
    ranked.sort_by(rank_cmp);
    ranked
}

/// Decides who works on an issue from the proposals (SPEC §6). `fallback_agent` is used
/// when there are no proposals at all (fail-open: SOLO with the first configured agent).
pub fn decide(
    proposals: &[NamedProposal],
    thresholds: &Thresholds,
    fallback_agent: &str,
) -> Decision {
    let ranked = rank(proposals);
    let solo = |winner: &str, reason: String, rule: Option<u8>, overlap: Option<f64>| Decision {
        mode: Mode::Solo,
        winner: winner.to_string(),
        runner_up: None,
        reason,
        proposals: ranked.clone(),
        rule,
        overlap,
    };
    let (a, b) = match ranked.as_slice() {
        [] => {
            return solo(
                fallback_agent,
                format!(
                    "no proposals: fail-open to the first configured agent → SOLO {fallback_agent}"
                ),
                None,
                None,
            );
        }
        [only] => {
            return solo(
                &only.agent,
                format!(
                    "one eligible agent ({} {}) → SOLO {}",
                    only.agent,
                    fmt_h(hundredths(only.proposal.confidence)),
                    only.agent
                ),
                None,
                None,
            );
        }
        [a, b, ..] => (a, b),
    };
    let ha = hundredths(a.proposal.confidence);
    let hb = hundredths(b.proposal.confidence);
    let ov = overlap_hundredths(&a.proposal, &b.proposal);
    let gap = hundredths(thresholds.confidence_gap);
    let ov_t = hundredths(thresholds.angle_overlap);
    let high = hundredths(thresholds.high_confidence);
    let low = hundredths(thresholds.low_confidence);
    let syn = hundredths(thresholds.synthesis_confidence);
    let f = fmt_h;
    let both = format!("{} {}, {} {}", a.agent, f(ha), b.agent, f(hb));
    let overlap = Some(ov as f64 / 100.0);
    let pair = |mode: Mode, reason: String, rule: u8| Decision {
        mode,
        winner: a.agent.clone(),
        runner_up: Some(b.agent.clone()),
        reason,
        proposals: ranked.clone(),
        rule: Some(rule),
        overlap,
    };

    if ha - hb > gap {
        return solo(
            &a.agent,
            format!(
                "rule 1: gap {} ({both}) > {} → SOLO {}",
                f(ha - hb),
                f(gap),
                a.agent
            ),
            Some(1),
            overlap,
        );
    }
    if ha > high && hb > high && ov < ov_t {
        return pair(
            Mode::Parallel,
            format!(
                "rule 2: both > {} ({both}) and overlap {} < {} → PARALLEL {} (primary) + {} (runner-up)",
                f(high),
                f(ov),
                f(ov_t),
                a.agent,
                b.agent
            ),
            2,
        );
    }
    let builders: Vec<&str> = [a, b]
        .iter()
        .filter(|p| p.proposal.builds_on_other)
        .map(|p| p.agent.as_str())
        .collect();
    if ha > syn && hb > syn && ov >= ov_t && !builders.is_empty() {
        return pair(
            Mode::Synthesis,
            format!(
                "rule 3: both > {} ({both}), overlap {} ≥ {} and {} builds on the other → SYNTHESIS {} then {}",
                f(syn),
                f(ov),
                f(ov_t),
                builders.join(" and "),
                a.agent,
                b.agent
            ),
            3,
        );
    }
    if ha > high && hb > high && ov >= ov_t {
        return solo(
            &a.agent,
            format!(
                "rule 4: both > {} ({both}) and overlap {} ≥ {} → SOLO {}",
                f(high),
                f(ov),
                f(ov_t),
                a.agent
            ),
            Some(4),
            overlap,
        );
    }
    if ha < low && hb < low {
        return solo(
            &a.agent,
            format!("rule 5: both < {} ({both}) → SOLO {}", f(low), a.agent),
            Some(5),
            overlap,
        );
    }
    solo(
        &a.agent,
        format!(
            "rule 6: no other rule holds ({both}, gap {}, overlap {}) → SOLO {}",
            f(ha - hb),
            f(ov),
            a.agent
        ),
        Some(6),
        overlap,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(
        agent: &str,
        confidence: f64,
        angle: &str,
        covers: &[&str],
        builds: bool,
    ) -> NamedProposal {
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
}
