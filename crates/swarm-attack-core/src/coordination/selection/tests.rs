//! Table and property tests of the selection among candidates.

use super::*;
use proptest::prelude::*;

fn toks(s: &str) -> BTreeSet<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn c(agent: &str, rank: usize, passed: bool, lines: usize, tokens: &str) -> CandidateFacts {
    CandidateFacts {
        agent: agent.into(),
        rank,
        passed,
        changed_lines: lines,
        tokens: toks(tokens),
        review: None,
    }
}

fn by(s: &Selection) -> (&str, &str) {
    (
        s.chosen.as_deref().unwrap_or("-"),
        s.selected_by.map(SelectedBy::as_str).unwrap_or("-"),
    )
}

#[test]
fn none_passing_chooses_nothing() {
    let s = select(&[c("a", 0, false, 1, "x"), c("b", 1, false, 1, "y")]);
    assert_eq!(s.chosen, None);
    assert!(s.pairs.is_empty());
    assert_eq!(s.mean, None);
}

#[test]
fn only_passing() {
    let s = select(&[
        c("a", 0, false, 1, "x"),
        c("b", 1, true, 50, "y"),
        c("c", 2, false, 1, "z"),
    ]);
    assert_eq!(by(&s), ("b", "only_passing"));
    assert!(s.pairs.is_empty());
}

#[test]
fn consensus_beats_size_with_three_passing() {
    // b and c agree; a is the odd one out (and the smallest)
    let s = select(&[
        c("a", 0, true, 1, "foo bar"),
        c("b", 1, true, 9, "login user pass check"),
        c("c", 2, true, 5, "login user pass hash"),
    ]);
    // b: 0 + 0.60, c: 0 + 0.60: consensus leaves a out, size tells b and c apart → c
    assert_eq!(by(&s), ("c", "consensus"));
    let s = select(&[
        c("a", 0, true, 1, "foo bar"),
        c("b", 1, true, 9, "login user pass check"),
        c("c", 2, true, 5, "login user pass hash"),
        c("d", 3, true, 7, "login user pass check"),
    ]);
    // b agrees with d fully and with c at 0.60 → b and d tie at the top → size → d
    assert_eq!(by(&s), ("d", "consensus"));
    let s = select(&[
        c("a", 0, true, 1, "foo bar"),
        c("b", 1, true, 9, "login user pass check"),
        c("c", 2, true, 5, "login user pass hash bcrypt"),
    ]);
    // b·c = 3/6 = 0.50; a·b = a·c = 0 → b and c tie → size → c
    assert_eq!(by(&s), ("c", "consensus"));
    // all agree equally: consensus leaves no one out, size decides
    let s = select(&[
        c("a", 0, true, 3, "x y"),
        c("b", 1, true, 1, "x y"),
        c("c", 2, true, 2, "x y"),
    ]);
    assert_eq!(by(&s), ("b", "size"));
    // all the same: rank
    let s = select(&[
        c("a", 0, true, 2, "x y"),
        c("b", 1, true, 2, "x y"),
        c("c", 2, true, 2, "x y"),
    ]);
    assert_eq!(by(&s), ("a", "rank"));
    let s = select(&[
        c("a", 0, true, 1, "foo bar"),
        c("b", 1, true, 9, "login user pass check"),
        c("c", 2, true, 5, "login user pass hash"),
        c("d", 3, true, 30, "login user pass"),
    ]);
    // d is the closest to everyone: d·b = 0.75, d·c = 0.75, b·c = 0.60
    assert_eq!(by(&s), ("d", "consensus"));
    assert_eq!(s.pairs.len(), 6);
    assert_eq!(s.pairs[0].a, "a");
    assert_eq!(s.pairs[0].b, "b");
}

/// docs/coordination.md "Many candidates, one result" (when consensus helps, and when it
/// cannot), with the shapes of scripts/bench-candidates.sh.
#[test]
fn consensus_finds_the_right_answer_among_independent_mistakes_but_not_shared_shortcuts() {
    let right = "fn solve_7 input u64 let scaled saturating_mul 7 saturating_add 1000 exit 0";
    let off_by_one = right.replace("1000", "999");
    let overflow = right.replace("saturating_mul", "wrapping_mul");
    // one right against two wrong, each wrong its own way: the right one is the closest
    // to both (0.85 + 0.85 against 0.85 + 0.71)
    let s = select(&[
        c("alpha", 0, true, 5, &off_by_one),
        c("beta", 1, true, 5, right),
        c("gamma", 2, true, 5, &overflow),
    ]);
    assert_eq!(by(&s), ("beta", "consensus"));
    // one right against two wrong of the same shortcut shape: the wrong ones agree with
    // each other (0.50) more than with the right one (0.20), and consensus lands a wrong one
    let s = select(&[
        c("alpha", 0, true, 5, right),
        c("beta", 1, true, 2, "const guess_beta_7_75 u64 757 exit 0"),
        c("gamma", 2, true, 2, "const guess_gamma_7_80 u64 807 exit 0"),
    ]);
    assert_eq!(by(&s), ("beta", "consensus"));
    // two passing: no consensus step; with the shortcut the smaller wrong diff wins on size
    let s = select(&[
        c("alpha", 0, true, 5, right),
        c("beta", 1, true, 2, "const guess_beta_7_75 u64 757 exit 0"),
    ]);
    assert_eq!(by(&s), ("beta", "size"));
}

#[test]
fn two_passing_use_size_then_rank() {
    let s = select(&[c("a", 0, true, 9, "x y"), c("b", 1, true, 3, "x z")]);
    assert_eq!(by(&s), ("b", "size"));
    assert_eq!(s.pairs[0].score, 0.33);
    assert_eq!(s.mean, Some(0.33));
    let s = select(&[c("a", 0, true, 3, "x y"), c("b", 1, true, 3, "x z")]);
    assert_eq!(by(&s), ("a", "rank"));
}

#[test]
fn review_verdict_decides_first() {
    let mut a = c("a", 0, true, 1, "x");
    let mut b = c("b", 1, true, 9, "y");
    let mut d = c("d", 2, true, 5, "x");
    a.review = Some(Review {
        verdict: ReviewVerdict::PassWithRisk,
        counted: 1,
    });
    b.review = Some(Review {
        verdict: ReviewVerdict::Pass,
        counted: 0,
    });
    d.review = Some(Review {
        verdict: ReviewVerdict::PassWithRisk,
        counted: 0,
    });
    assert_eq!(
        by(&select(&[a.clone(), b.clone(), d.clone()])),
        ("b", "review")
    );
    // equal verdicts: fewer counted findings
    b.review = Some(Review {
        verdict: ReviewVerdict::PassWithRisk,
        counted: 3,
    });
    assert_eq!(
        by(&select(&[a.clone(), b.clone(), d.clone()])),
        ("d", "review")
    );
    // review leaves b out; the tie between a and d goes on to the next steps (size → a),
    // and review is the step that decided
    a.review = d.review;
    assert_eq!(by(&select(&[a, b, d])), ("a", "review"));
}

#[test]
fn quorum_finds_the_first_agreeing_group() {
    let cands = [
        c("a", 0, true, 1, "foo bar"),
        c("b", 1, true, 1, "login user pass check"),
        c("c", 2, true, 1, "login user pass hash"),
    ];
    assert_eq!(quorum(&cands, 2, 0.60), Some(vec!["b".into(), "c".into()]));
    assert_eq!(quorum(&cands, 2, 0.61), None);
    assert_eq!(
        quorum(&cands, 3, 0.0),
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
    assert_eq!(quorum(&cands, 3, 0.1), None);
    // failing candidates never count
    let mut f = cands.clone();
    f[2].passed = false;
    assert_eq!(quorum(&f, 2, 0.60), None);
    assert_eq!(quorum(&cands[..1], 2, 0.0), None);
}

#[test]
fn low_convergence_needs_two_passing_and_a_threshold() {
    let s = select(&[c("a", 0, true, 1, "x y"), c("b", 1, true, 1, "x z")]);
    assert_eq!(low_convergence(&s, 0.0), None);
    assert_eq!(low_convergence(&s, 0.33), None);
    assert_eq!(low_convergence(&s, 0.34), Some(0.33));
    let one = select(&[c("a", 0, true, 1, "x y"), c("b", 1, false, 1, "q")]);
    assert_eq!(low_convergence(&one, 0.9), None);
}

fn cand_strategy() -> impl Strategy<Value = Vec<CandidateFacts>> {
    proptest::collection::vec(
        (
            any::<bool>(),
            0usize..6,
            proptest::collection::btree_set("[a-e]", 0..4),
            proptest::option::of((0u8..4, 0u32..3)),
        ),
        1..6,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (passed, lines, tokens, review))| CandidateFacts {
                agent: format!("agent{i}"),
                rank: i,
                passed,
                changed_lines: lines,
                tokens,
                review: review.map(|(v, counted)| Review {
                    verdict: [
                        ReviewVerdict::Pass,
                        ReviewVerdict::PassWithRisk,
                        ReviewVerdict::Fail,
                        ReviewVerdict::Unreviewed,
                    ][v as usize],
                    counted,
                }),
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn selection_is_deterministic_order_independent_and_picks_a_passing_one(
        cands in cand_strategy(),
        shift in 0usize..6,
        reverse in any::<bool>(),
    ) {
        let s1 = select(&cands);
        prop_assert_eq!(&s1, &select(&cands));
        let mut other = cands.clone();
        other.rotate_left(shift % cands.len());
        if reverse {
            other.reverse();
        }
        prop_assert_eq!(&s1, &select(&other));
        let any_passing = cands.iter().any(|c| c.passed);
        match &s1.chosen {
            Some(name) => {
                let chosen = cands.iter().find(|c| &c.agent == name).unwrap();
                prop_assert!(chosen.passed);
            }
            None => prop_assert!(!any_passing),
        }
        let n = cands.iter().filter(|c| c.passed).count();
        prop_assert_eq!(s1.pairs.len(), n * n.saturating_sub(1) / 2);
        for p in &s1.pairs {
            prop_assert!((0.0..=1.0).contains(&p.score));
        }
        // the quorum is order-independent too, and only ever names passing candidates
        let q1 = quorum(&cands, 2, 0.5);
        prop_assert_eq!(&q1, &quorum(&other, 2, 0.5));
        for name in q1.unwrap_or_default() {
            prop_assert!(cands.iter().any(|c| c.agent == name && c.passed));
        }
    }
}
