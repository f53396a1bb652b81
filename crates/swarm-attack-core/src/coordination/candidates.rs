//! Who runs in a PARALLEL decision (docs/coordination.md "Many candidates, one result"): the
//! winner, the runner-up, then the next agents by rank whose confidence is above `high_confidence`,
//! up to `coordination.candidates` (2–5). SOLO and SYNTHESIS keep their one or two agents.

use super::{Decision, Mode, hundredths};

/// The most candidates a decision may run.
pub const MAX_CANDIDATES: usize = 5;

/// The agents that run for `decision`, in rank order (winner first). `limit` is
/// `coordination.candidates`, clamped to 2–5; `high` is `thresholds.high_confidence`.
pub fn candidates(decision: &Decision, high: f64, limit: u32) -> Vec<String> {
    let mut out = vec![decision.winner.clone()];
    let Some(runner) = decision.runner_up.clone() else {
        return out;
    };
    out.push(runner);
    if decision.mode != Mode::Parallel {
        return out;
    }
    let limit = (limit as usize).clamp(2, MAX_CANDIDATES);
    let high = hundredths(high);
    for p in &decision.proposals {
        if out.len() >= limit {
            break;
        }
        if out.contains(&p.agent) {
            continue;
        }
        if hundredths(p.proposal.confidence) > high {
            out.push(p.agent.clone());
        }
    }
    out
}

/// `decision` with its [`Decision::candidates`] filled in (PARALLEL and SYNTHESIS; SOLO
/// keeps none) and, when more than two run, the extra candidates named in its reason.
pub fn with_candidates(mut decision: Decision, high: f64, limit: u32) -> Decision {
    if decision.mode == Mode::Solo {
        decision.candidates.clear();
        return decision;
    }
    let all = candidates(&decision, high, limit);
    if all.len() > 2 {
        let more: Vec<String> = all[2..]
            .iter()
            .map(|a| {
                let c = decision
                    .proposals
                    .iter()
                    .find(|p| &p.agent == a)
                    .map(|p| super::fmt_h(hundredths(p.proposal.confidence)))
                    .unwrap_or_default();
                format!("{a} {c}")
            })
            .collect();
        decision.reason.push_str(&format!(
            " + {} (candidate{}: next by rank above {}, up to coordination.candidates {})",
            more.join(", "),
            if more.len() == 1 { "" } else { "s" },
            super::fmt_h(hundredths(high)),
            limit.clamp(2, MAX_CANDIDATES as u32)
        ));
    }
    decision.candidates = all;
    decision
}

/// The `SWARM_ROLE` of the candidate at `index` (0: `primary`, 1: `runner-up`, then
/// `candidate`).
pub fn role(index: usize) -> &'static str {
    match index {
        0 => "primary",
        1 => "runner-up",
        _ => "candidate",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Thresholds;
    use crate::coordination::{NamedProposal, Proposal, decide};
    use proptest::prelude::*;

    fn p(agent: &str, confidence: f64, angle: &str) -> NamedProposal {
        NamedProposal {
            agent: agent.into(),
            source: "heuristic".into(),
            proposal: Proposal {
                angle: angle.into(),
                confidence,
                covers: vec![],
                solo_sufficient: false,
                builds_on_other: false,
            },
            learned: None,
        }
    }

    fn six() -> Vec<NamedProposal> {
        vec![
            p("a", 0.9, "api handlers"),
            p("b", 0.8, "database schema"),
            p("c", 0.7, "frontend styling"),
            p("d", 0.5, "docs"),
            p("e", 0.6, "security review"),
            p("f", 0.65, "performance"),
        ]
    }

    #[test]
    fn parallel_adds_the_next_ranked_agents_above_high_up_to_the_limit() {
        let d = decide(&six(), &Thresholds::default(), "a");
        assert_eq!(d.mode, Mode::Parallel);
        assert_eq!(candidates(&d, 0.5, 2), vec!["a", "b"]);
        assert_eq!(candidates(&d, 0.5, 3), vec!["a", "b", "c"]);
        // d (0.50) is not above high (0.50)
        assert_eq!(candidates(&d, 0.5, 5), vec!["a", "b", "c", "f", "e"]);
        // a limit out of range is clamped to 2–5
        assert_eq!(candidates(&d, 0.5, 9).len(), 5);
        assert_eq!(candidates(&d, 0.5, 0).len(), 2);
        // a higher bar leaves fewer
        assert_eq!(candidates(&d, 0.68, 5), vec!["a", "b", "c"]);
    }

    #[test]
    fn solo_and_synthesis_keep_their_agents() {
        let solo = decide(&[p("a", 0.9, "x")], &Thresholds::default(), "a");
        assert_eq!(candidates(&solo, 0.5, 5), vec!["a"]);
        let mut syn = decide(&six(), &Thresholds::default(), "a");
        syn.mode = Mode::Synthesis;
        assert_eq!(candidates(&syn, 0.5, 5), vec!["a", "b"]);
    }

    #[test]
    fn with_candidates_fills_the_list_and_names_the_extra_ones() {
        let d = with_candidates(decide(&six(), &Thresholds::default(), "a"), 0.5, 3);
        assert_eq!(d.candidates, vec!["a", "b", "c"]);
        assert!(
            d.reason.ends_with(
                " + c 0.70 (candidate: next by rank above 0.50, up to coordination.candidates 3)"
            ),
            "{}",
            d.reason
        );
        let two = with_candidates(decide(&six(), &Thresholds::default(), "a"), 0.5, 2);
        assert_eq!(two.candidates, vec!["a", "b"]);
        assert!(two.reason.ends_with("(runner-up)"), "{}", two.reason);
        let solo = with_candidates(
            decide(&[p("a", 0.9, "x")], &Thresholds::default(), "a"),
            0.5,
            5,
        );
        assert!(solo.candidates.is_empty());
    }

    #[test]
    fn roles() {
        assert_eq!(
            (0..4).map(role).collect::<Vec<_>>(),
            vec!["primary", "runner-up", "candidate", "candidate"]
        );
    }

    proptest! {
        #[test]
        fn never_more_than_five_never_a_repeat_and_order_independent(
            confs in proptest::collection::vec(0.0f64..1.0, 2..8),
            limit in 0u32..10,
            shift in 0usize..8,
        ) {
            let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
            let angles = ["api", "db", "ui", "docs", "sec", "perf", "ops", "ml"];
            let ps: Vec<NamedProposal> = confs
                .iter()
                .enumerate()
                .map(|(i, c)| p(names[i], *c, angles[i]))
                .collect();
            let mut rotated = ps.clone();
            rotated.rotate_left(shift % ps.len());
            let d1 = decide(&ps, &Thresholds::default(), "a");
            let d2 = decide(&rotated, &Thresholds::default(), "a");
            let c1 = candidates(&d1, 0.5, limit);
            prop_assert_eq!(&c1, &candidates(&d2, 0.5, limit));
            prop_assert!(c1.len() <= MAX_CANDIDATES);
            let mut dedup = c1.clone();
            dedup.sort();
            dedup.dedup();
            prop_assert_eq!(dedup.len(), c1.len());
        }
    }
}
