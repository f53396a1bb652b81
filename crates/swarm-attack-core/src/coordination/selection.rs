//! The selection among candidates (docs/coordination.md "Many candidates, one result"): which
//! passing candidate lands, the pairwise similarities, the quorum check and the low-convergence
//! check. Pure and deterministic: the candidates are put in rank order first, so the order they are
//! given in never matters, and a failing candidate is never chosen while a passing one exists.
//!
//! Steps, each a tie-breaker for the one before; `selected_by` names the first step that
//! decided something, i.e. left out a candidate (`only_passing` when one passed; `rank`
//! when the candidates tied on everything before it). Two candidates that agree with each
//! other against a third are kept by `consensus` and then told apart by size or rank: the
//! record says `consensus`, the step that made the choice that mattered.
//! 1. `review` — with a review verdict: `pass` > `pass_with_risk` > anything else, then
//!    fewer counted findings;
//! 2. `consensus` — with three or more passing: the highest mean similarity to the other
//!    passing candidates (compared as exact sums of hundredths);
//! 3. `size` — fewer changed lines;
//! 4. `rank` — the better-ranked candidate.

use crate::convergence::score_hundredths;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A review verdict as the selection sees it (the review gate's outcome).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewVerdict {
    Pass,
    PassWithRisk,
    Fail,
    Unreviewed,
}

impl ReviewVerdict {
    fn order(self) -> u8 {
        match self {
            ReviewVerdict::Pass => 0,
            ReviewVerdict::PassWithRisk => 1,
            ReviewVerdict::Unreviewed => 2,
            ReviewVerdict::Fail => 3,
        }
    }
}

/// A candidate's review, when the review gate ran on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    pub verdict: ReviewVerdict,
    /// Counted findings.
    pub counted: u32,
}

/// What the selection knows about one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateFacts {
    pub agent: String,
    /// 0 for the winner of the decision, 1 for the runner-up, ...
    pub rank: usize,
    /// Passed verification (and the checks of docs/integrity.md).
    pub passed: bool,
    /// Changed lines of its diff (its size).
    pub changed_lines: usize,
    /// The token set of its diff ([`crate::convergence::tokens`]).
    pub tokens: BTreeSet<String>,
    /// The review gate's verdict on it, when the gate ran.
    pub review: Option<Review>,
}

/// Which step decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectedBy {
    OnlyPassing,
    Review,
    Consensus,
    Size,
    Rank,
}

impl SelectedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            SelectedBy::OnlyPassing => "only_passing",
            SelectedBy::Review => "review",
            SelectedBy::Consensus => "consensus",
            SelectedBy::Size => "size",
            SelectedBy::Rank => "rank",
        }
    }
}

/// The similarity of two passing candidates (`a` ranked before `b`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairScore {
    pub a: String,
    pub b: String,
    /// In [0, 1], two decimals.
    pub score: f64,
}

/// The selection's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The agent whose result lands; `None` when none passed.
    pub chosen: Option<String>,
    pub selected_by: Option<SelectedBy>,
    /// Every pair of passing candidates, in rank order.
    pub pairs: Vec<PairScore>,
    /// The mean pairwise score of the passing candidates (two or more passed).
    pub mean: Option<f64>,
}

fn by_rank(cands: &[CandidateFacts]) -> Vec<&CandidateFacts> {
    let mut v: Vec<&CandidateFacts> = cands.iter().collect();
    v.sort_by(|x, y| {
        x.rank
            .cmp(&y.rank)
            .then_with(|| x.agent.cmp(&y.agent))
            .then_with(|| x.changed_lines.cmp(&y.changed_lines))
            .then_with(|| x.tokens.cmp(&y.tokens))
            .then_with(|| x.passed.cmp(&y.passed))
    });
    v
}

/// Keeps the members of `set` with the smallest `key`.
fn keep_min<K: Ord + Copy>(set: &mut Vec<usize>, key: impl Fn(usize) -> K) {
    if let Some(best) = set.iter().map(|&i| key(i)).min() {
        set.retain(|&i| key(i) == best);
    }
}

/// The pairwise scores (hundredths) of `passing`, indexed like it.
fn matrix(passing: &[&CandidateFacts]) -> Vec<Vec<i64>> {
    let n = passing.len();
    let mut m = vec![vec![100; n]; n];
    for i in 0..n {
        for j in (i + 1)..n {
            let s = score_hundredths(&passing[i].tokens, &passing[j].tokens);
            m[i][j] = s;
            m[j][i] = s;
        }
    }
    m
}

/// Mean of pairwise hundredths over all pairs, rounded half away from zero.
fn mean_of_pairs(m: &[Vec<i64>]) -> Option<i64> {
    let n = m.len();
    if n < 2 {
        return None;
    }
    let mut sum = 0i64;
    let mut count = 0i64;
    for (i, row) in m.iter().enumerate() {
        for s in &row[(i + 1)..] {
            sum += s;
            count += 1;
        }
    }
    Some((2 * sum + count) / (2 * count))
}

/// Selects among `cands` (any order).
pub fn select(cands: &[CandidateFacts]) -> Selection {
    let passing: Vec<&CandidateFacts> = by_rank(cands).into_iter().filter(|c| c.passed).collect();
    let m = matrix(&passing);
    let mut pairs = Vec::new();
    for i in 0..passing.len() {
        for j in (i + 1)..passing.len() {
            pairs.push(PairScore {
                a: passing[i].agent.clone(),
                b: passing[j].agent.clone(),
                score: m[i][j] as f64 / 100.0,
            });
        }
    }
    let mean = mean_of_pairs(&m).map(|h| h as f64 / 100.0);
    let done = |i: usize, by: SelectedBy, pairs: Vec<PairScore>| Selection {
        chosen: Some(passing[i].agent.clone()),
        selected_by: Some(by),
        pairs,
        mean,
    };
    match passing.len() {
        0 => {
            return Selection {
                chosen: None,
                selected_by: None,
                pairs,
                mean,
            };
        }
        1 => return done(0, SelectedBy::OnlyPassing, pairs),
        _ => {}
    }
    let mut set: Vec<usize> = (0..passing.len()).collect();
    // the first step that left a candidate out
    let mut by: Option<SelectedBy> = None;
    let mut narrow = |set: &mut Vec<usize>, step: SelectedBy, key: &dyn Fn(usize) -> (i64, i64)| {
        let before = set.len();
        keep_min(set, key);
        if set.len() < before && by.is_none() {
            by = Some(step);
        }
    };
    // 1. review
    if passing.iter().any(|c| c.review.is_some()) {
        narrow(&mut set, SelectedBy::Review, &|i| match passing[i].review {
            Some(r) => (i64::from(r.verdict.order()), i64::from(r.counted)),
            None => (i64::from(ReviewVerdict::Unreviewed.order()), i64::MAX),
        });
    }
    // 2. consensus (three or more passing): the highest sum of similarities to the others
    if passing.len() >= 3 && set.len() > 1 {
        narrow(&mut set, SelectedBy::Consensus, &|i| {
            (-m[i].iter().sum::<i64>(), 0)
        });
    }
    // 3. size
    if set.len() > 1 {
        narrow(&mut set, SelectedBy::Size, &|i| {
            (passing[i].changed_lines as i64, 0)
        });
    }
    // 4. rank (the set is in rank order)
    done(set[0], by.unwrap_or(SelectedBy::Rank), pairs)
}

/// With join `quorum`: the first group (in rank order) of `quorum` passing candidates
/// whose every pair scores at least `agree_at`; `None` while there is none.
pub fn quorum(cands: &[CandidateFacts], quorum: usize, agree_at: f64) -> Option<Vec<String>> {
    let passing: Vec<&CandidateFacts> = by_rank(cands).into_iter().filter(|c| c.passed).collect();
    let q = quorum.max(2);
    if passing.len() < q {
        return None;
    }
    let m = matrix(&passing);
    let bar = crate::coordination::hundredths(agree_at);
    // every combination of q indices, in lexicographic (rank) order
    let n = passing.len();
    let mut idx: Vec<usize> = (0..q).collect();
    loop {
        let agree = idx
            .iter()
            .enumerate()
            .all(|(k, &i)| idx[(k + 1)..].iter().all(|&j| m[i][j] >= bar));
        if agree {
            return Some(idx.iter().map(|&i| passing[i].agent.clone()).collect());
        }
        // next combination
        let mut k = q;
        loop {
            if k == 0 {
                return None;
            }
            k -= 1;
            if idx[k] < n - q + k {
                break;
            }
        }
        idx[k] += 1;
        for j in (k + 1)..q {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// The low-convergence check: two or more passed and their mean pairwise score is below
/// `min_convergence` (0: off). Returns the mean when it is low.
pub fn low_convergence(selection: &Selection, min_convergence: f64) -> Option<f64> {
    let min = crate::coordination::hundredths(min_convergence);
    if min == 0 {
        return None;
    }
    let mean = selection.mean?;
    (crate::coordination::hundredths(mean) < min).then_some(mean)
}

#[cfg(test)]
mod tests;
