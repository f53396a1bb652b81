//! The coordination filter (docs/coordination.md "The filter"): proposals → SOLO / PARALLEL /
//! SYNTHESIS.
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

pub mod candidates;
pub mod selection;

use crate::config::Thresholds;
use crate::events::Event;
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
    /// Set when learning from outcomes changed the confidence (docs/learning.md "Outcomes",
    /// `coordination.learn: on`): the statistics and the confidence before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned: Option<crate::outcomes::Learned>,
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
    /// The filter's rule (1–6, docs/coordination.md "The filter") that decided; `None` for one
    /// agent or no proposals.
    #[serde(default)]
    pub rule: Option<u8>,
    /// The overlap of the two best proposals, in hundredths (e.g. 0.25); `None` when fewer
    /// than two agents proposed.
    #[serde(default)]
    pub overlap: Option<f64>,
    /// The agents that run, in rank order (winner, runner-up, then the next candidates of a
    /// PARALLEL run, docs/coordination.md "Many candidates, one result"); empty for SOLO and until
    /// [`candidates::with_candidates`] filled it in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
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
            preview: false,
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

/// The most two learned confidences may differ, in hundredths, for the lower cost per
/// success to rank first (docs/learning.md "Outcomes").
pub const COST_TIE_HUNDREDTHS: i64 = 5;

/// The proposals clamped and ranked (confidence desc, name asc). With learning (proposals
/// carrying [`crate::outcomes::Learned`] with a cost per success), two neighbours whose
/// confidences are within 0.05 are swapped when the second has the lower cost per
/// success, until no such pair is left (each swap removes one cost inversion, so this
/// ends; the result depends only on the proposals, never on their input order).
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
    let cost = |p: &NamedProposal| p.learned.as_ref().and_then(|l| l.mean_cost);
    loop {
        let mut swapped = false;
        for i in 1..ranked.len() {
            let (x, y) = (&ranked[i - 1], &ranked[i]);
            if let (Some(cx), Some(cy)) = (cost(x), cost(y))
                && (hundredths(x.proposal.confidence) - hundredths(y.proposal.confidence)).abs()
                    <= COST_TIE_HUNDREDTHS
                && cy < cx
            {
                ranked.swap(i - 1, i);
                swapped = true;
            }
        }
        if !swapped {
            return ranked;
        }
    }
}

/// Says why the first two ranked proposals are not in confidence order: the cost tie-break.
fn cost_tie_note(ranked: &[NamedProposal]) -> Option<String> {
    let [a, b, ..] = ranked else {
        return None;
    };
    if rank_cmp(a, b) != Ordering::Greater {
        return None;
    }
    let (ca, cb) = (
        a.learned.as_ref()?.mean_cost?,
        b.learned.as_ref()?.mean_cost?,
    );
    Some(format!(
        "; cost tie-break: {} (${ca:.4} per success) ranks before {} (${cb:.4} per success), confidences within 0.05",
        a.agent, b.agent
    ))
}

/// Decides who works on an issue from the proposals (docs/coordination.md "The filter").
/// `fallback_agent` is used when there are no proposals at all (fail-open: SOLO with the first
/// configured agent).
pub fn decide(
    proposals: &[NamedProposal],
    thresholds: &Thresholds,
    fallback_agent: &str,
) -> Decision {
    let mut d = decide_ranked(proposals, thresholds, fallback_agent);
    if let Some(note) = cost_tie_note(&d.proposals) {
        d.reason.push_str(&note);
    }
    d
}

fn decide_ranked(
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
        candidates: Vec::new(),
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
        candidates: Vec::new(),
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
mod tests;
