//! The end of a PARALLEL attempt (docs/coordination.md "Many candidates, one result"): the
//! selection among the passing candidates (computed in [`crate::core::coordination::selection`]),
//! the low-convergence check and its action (`land`, `review`, `block`), and the record of the join
//! (`candidates.json`, `issue_done.convergence`).

use super::{End, Pair, PairAttempt, PairOutcome, PairResult, Slot, reviewed};
use crate::core::config::ReviewStrategy;
use crate::core::convergence;
use crate::core::coordination::selection::{self, CandidateFacts, SelectedBy, Selection};
use crate::core::events::Event;
use crate::error::{CmdResult, CommandError};
use crate::io::config::{JoinStrategy, OnLowConvergence};
use crate::run::attempt::{AttemptResult, Failed, Passed};
use crate::run::{RunContext, record, review};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// A passing candidate's diff against the attempt's start: its size and tokens.
pub(super) struct Diff {
    pub lines: usize,
    pub tokens: BTreeSet<String>,
}

impl Diff {
    pub(super) fn of(ctx: &RunContext<'_>, base: &str, commit: &str) -> Diff {
        let text = ctx.git.diff(base, commit).unwrap_or_default();
        Diff {
            lines: convergence::changed_lines(&text).len(),
            tokens: convergence::tokens(&text),
        }
    }
}

/// What the join collected: every candidate's end, the first to pass, the quorum group
/// (join `quorum`, once reached) and the diffs of the passing candidates.
pub(super) struct Collected {
    pub ends: Vec<End>,
    pub first: Option<usize>,
    pub group: Option<Vec<usize>>,
    pub diffs: Vec<Option<Diff>>,
}

impl Collected {
    /// Ends collected elsewhere (SYNTHESIS's fallback to PARALLEL).
    pub(super) fn from_ends(ends: Vec<End>, first: Option<usize>) -> Collected {
        let n = ends.len();
        Collected {
            ends,
            first,
            group: None,
            diffs: (0..n).map(|_| None).collect(),
        }
    }

    /// What the selection knows about candidate `j` (passing when its diff is known).
    pub(super) fn facts(&self, slots: &[Slot<'_>], j: usize) -> CandidateFacts {
        let d = self.diffs[j].as_ref();
        CandidateFacts {
            agent: slots[j].agent.name.clone(),
            rank: j,
            passed: d.is_some(),
            changed_lines: d.map_or(0, |d| d.lines),
            tokens: d.map(|d| d.tokens.clone()).unwrap_or_default(),
            review: self
                .ends
                .get(j)
                .and_then(End::passed)
                .and_then(reviewed::facts_of),
        }
    }

    /// The diffs of the passing candidates that have none yet (and none for the others).
    fn refresh_diffs(&mut self, ctx: &RunContext<'_>, base: &str) {
        for (end, diff) in self.ends.iter().zip(self.diffs.iter_mut()) {
            match end.passed() {
                Some(p) if diff.is_none() => *diff = Some(Diff::of(ctx, base, &p.commit)),
                Some(_) => {}
                None => *diff = None,
            }
        }
    }

    /// Reviews candidate `i` ([`reviewed::review_end`]); a fix round's new commit gets its
    /// diff again. Returns whether it still passes.
    fn review(
        &mut self,
        ctx: &RunContext<'_>,
        at: &PairAttempt<'_>,
        s: Review<'_, '_>,
        i: usize,
    ) -> CmdResult<bool> {
        let before = self.ends[i].passed().map(|p| p.commit.clone());
        if let Some(reason) = reviewed::review_end(
            ctx,
            at,
            &s.slots[i],
            &s.prompts[i],
            s.strategy,
            &mut self.ends[i],
        )? {
            s.blocked.borrow_mut().get_or_insert(reason);
        }
        let after = self.ends[i].passed().map(|p| p.commit.clone());
        if after != before {
            self.diffs[i] = None;
        }
        self.refresh_diffs(ctx, at.base);
        Ok(after.is_some())
    }
}

/// What reviewing a candidate of the join needs.
#[derive(Clone, Copy)]
struct Review<'s, 'a> {
    slots: &'s [Slot<'a>],
    prompts: &'s [String],
    strategy: ReviewStrategy,
    /// The first `review could not run:` reason.
    blocked: &'s std::cell::RefCell<Option<String>>,
}

pub(super) fn candidate_record(slot: &Slot<'_>, end: &End, diff_lines: Option<usize>) -> Value {
    let mut v = json!({
        "agent": slot.agent.name,
        "role": slot.role,
        "result": end.word(),
    });
    if let Some(r) = end.reason() {
        v["reason"] = json!(r);
    }
    if let Some(p) = end.passed() {
        let mut files = p.files_created.clone();
        files.extend(p.files_modified.iter().cloned());
        v["files"] = json!(files);
        v["commit"] = json!(p.commit);
    }
    if let Some(n) = diff_lines {
        v["changed_lines"] = json!(n);
    }
    if let Some(r) = end.passed().and_then(|p| p.review.as_ref()) {
        v["review"] = json!({"verdict": r.verdict.as_str(), "counted": r.counted().len()});
    }
    v
}

/// No candidate passed: the combined failure and each failed candidate's class.
pub(super) fn failed_result(slots: &[Slot<'_>], ends: &[End]) -> PairResult {
    let classes = slots
        .iter()
        .zip(ends)
        .filter_map(|(slot, end)| match end {
            End::Result(AttemptResult::Failed(f)) => {
                Some((slot.agent.name.clone(), f.classified()))
            }
            _ => None,
        })
        .collect();
    PairResult::Failed(combined_failure(slots, ends), classes)
}

/// No candidate passed: one failure with every reason and excerpt.
pub(super) fn combined_failure(slots: &[Slot<'_>], ends: &[End]) -> Failed {
    let mut reasons = Vec::new();
    let mut excerpts = Vec::new();
    let mut agent_failure = true;
    let mut cost = None;
    let mut rate_limited = None;
    let mut facts = None;
    let mut files_changed = Vec::new();
    for (slot, end) in slots.iter().zip(ends) {
        let name = &slot.agent.name;
        reasons.push(format!(
            "{name}: {}",
            end.reason().unwrap_or_else(|| "no result".into())
        ));
        cost = record::sum_cost(cost, end.cost());
        match end {
            End::Result(AttemptResult::Failed(f)) => {
                agent_failure &= f.agent_failure;
                // none passed and one was rate-limited: the candidates wait and run again
                rate_limited = rate_limited.take().or(f.rate_limited.clone());
                // the candidates' class: the primary's (the first failed candidate's) facts
                facts = facts.take().or(Some(f.facts));
                files_changed.extend(f.files_changed.iter().cloned());
                if !f.excerpt.trim().is_empty() {
                    excerpts.push(format!("[{name}, {}]\n{}", slot.role, f.excerpt));
                }
            }
            _ => agent_failure = false,
        }
    }
    let none = if slots.len() == 2 {
        "neither candidate passed"
    } else {
        "no candidate passed"
    };
    Failed {
        reason: format!("{none} ({})", reasons.join("; ")),
        excerpt: excerpts.join("\n\n"),
        agent_failure,
        cost_usd: cost,
        pending_events: Vec::new(),
        rate_limited,
        facts: facts.unwrap_or_default(),
        agent: None,
        files_changed,
    }
}

pub(super) fn save_candidates(at: &PairAttempt<'_>, record: &Value) {
    let _ = std::fs::create_dir_all(&at.attempt_dir);
    let _ = crate::io::secrets::write_file(
        at.attempt_dir.join("candidates.json"),
        serde_json::to_vec_pretty(record).unwrap_or_default(),
    );
}

/// Which candidate lands and why (`None`: none passed).
fn choose(
    facts: &[CandidateFacts],
    all: &Selection,
    collected: &Collected,
    join: JoinStrategy,
) -> (Option<usize>, Option<SelectedBy>) {
    let index = |name: &str| facts.iter().position(|f| f.agent == name);
    let passing = facts.iter().filter(|f| f.passed).count();
    match join {
        JoinStrategy::First => {
            let i = collected
                .first
                .or_else(|| facts.iter().position(|f| f.passed));
            // docs/coordination.md: the first to pass lands; it was the only passing one
            // when the join decided, even if another passed before the stop took effect
            let i = i.filter(|_| passing > 0);
            (i, i.map(|_| SelectedBy::OnlyPassing))
        }
        JoinStrategy::Quorum if collected.group.is_some() => {
            let group = collected.group.as_deref().unwrap_or_default();
            let among: Vec<CandidateFacts> = group.iter().map(|&i| facts[i].clone()).collect();
            let s = selection::select(&among);
            (s.chosen.as_deref().and_then(index), s.selected_by)
        }
        _ => (all.chosen.as_deref().and_then(index), all.selected_by),
    }
}

/// The end of a PARALLEL attempt: the selection, the low-convergence check, the record.
#[allow(clippy::too_many_arguments)]
pub(super) fn decide_parallel(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &[Slot<'_>],
    prompts: &[String],
    mut collected: Collected,
    join: JoinStrategy,
    fallback: Option<&str>,
) -> CmdResult<PairOutcome> {
    let coordination = &ctx.project.config.coordination;
    let n = slots.len();
    collected.refresh_diffs(ctx, at.base);
    let strategy = review::strategy_for(ctx, &at.claim.task);
    let blocked = std::cell::RefCell::new(None);
    let rev = |strategy| Review {
        slots,
        prompts,
        strategy,
        blocked: &blocked,
    };
    // with the gate on and a join that waited for its candidates, every candidate the
    // selection may pick is reviewed first: the selection compares their verdicts
    if let Some(s) = strategy.filter(|_| join != JoinStrategy::First) {
        let pool: Vec<usize> = match (&collected.group, join) {
            (Some(g), JoinStrategy::Quorum) => g.clone(),
            _ => (0..n).collect(),
        };
        for i in pool {
            collected.review(ctx, at, rev(s), i)?;
        }
    }
    let facts: Vec<CandidateFacts> = (0..n).map(|j| collected.facts(slots, j)).collect();
    let all = selection::select(&facts);
    let (mut chosen, mut selected_by) = choose(&facts, &all, &collected, join);
    let passing = facts.iter().filter(|f| f.passed).count();
    let low = (passing >= 2)
        .then(|| selection::low_convergence(&all, coordination.min_convergence))
        .flatten();
    let action = coordination.on_low_convergence;
    if let Some(score) = low {
        record::emit(
            ctx,
            vec![Event::LowConvergence {
                issue: at.claim.issue,
                attempt: at.attempt,
                score,
            }],
        )?;
    }
    // the candidate that would land is reviewed when it was not yet: join `first`, or low
    // convergence with `review` (the gate runs on the selection even when it is off); a
    // failing one leaves the choice to the next passing candidate
    let lazy = strategy.or_else(|| {
        (low.is_some() && action == OnLowConvergence::Review)
            .then_some(ctx.project.config.review.strategy)
    });
    if let (Some(s), false) = (lazy, low.is_some() && action == OnLowConvergence::Block) {
        while let Some(i) = chosen {
            if collected.ends[i]
                .passed()
                .is_none_or(|p| p.review.is_some())
                || collected.review(ctx, at, rev(s), i)?
            {
                break;
            }
            if collected.first == Some(i) {
                collected.first = None;
            }
            let facts: Vec<CandidateFacts> = (0..n).map(|j| collected.facts(slots, j)).collect();
            let again = selection::select(&facts);
            chosen = choose(&facts, &again, &collected, join).0;
            selected_by = chosen.map(|_| SelectedBy::Review);
        }
    }
    let blocked = blocked.into_inner();
    let mut record = json!({
        "mode": pair.decision.mode.as_str(),
        "join": join.as_str(),
        "winner": chosen.map(|i| slots[i].agent.name.clone()),
        "candidates": (0..n)
            .map(|i| candidate_record(&slots[i], &collected.ends[i], collected.diffs[i].as_ref().map(|d| d.lines)))
            .collect::<Vec<_>>(),
        "pairs": &all.pairs,
        "selected_by": selected_by.map(SelectedBy::as_str),
    });
    if let Some(mean) = all.mean {
        record["score"] = json!(mean);
        record["pick"] = json!(
            "review verdict, then consensus (3+ passing), then fewer changed lines, then rank"
        );
    }
    if join == JoinStrategy::Quorum {
        record["quorum"] = json!({
            "needed": coordination.quorum,
            "agree_at": coordination.agree_at,
            "reached": collected.group.is_some(),
            "agents": collected.group.as_ref().map(|g| g.iter().map(|&i| slots[i].agent.name.clone()).collect::<Vec<_>>()),
        });
    }
    if let Some(f) = fallback {
        record["fallback"] = json!({"to": "parallel", "reason": f});
    }
    let who = pair
        .agents()
        .iter()
        .map(|a| a.name.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    let join_word = join.as_str();
    let mut executed_prefix = match fallback {
        Some(_) => format!(
            "SYNTHESIS {} then {} → fallback parallel (join {join_word})",
            pair.primary.name, pair.runner.name
        ),
        None => format!("PARALLEL {who} (join {join_word})"),
    };
    if let Some(score) = low {
        record["low_convergence"] = json!({
            "score": score,
            "min_convergence": coordination.min_convergence,
            "action": action.as_str(),
        });
        executed_prefix.push_str(&format!(
            "; low convergence {score:.2} (below coordination.min_convergence {:.2})",
            coordination.min_convergence
        ));
    }
    let mut cost = None;
    for e in &collected.ends {
        cost = record::sum_cost(cost, e.cost());
    }
    if let (Some(score), OnLowConvergence::Block) = (low, action) {
        let mut kept = serde_json::Map::new();
        for (i, slot) in slots.iter().enumerate() {
            let Some(p) = collected.ends[i].passed() else {
                continue;
            };
            let name = format!(
                "refs/swarm/{}/candidates/issue-{}/{}",
                ctx.feature, at.claim.issue, slot.agent.name
            );
            match ctx.git.keep_ref(&name, &p.commit) {
                Ok(()) => kept.insert(slot.agent.name.clone(), json!(name)),
                Err(e) => kept.insert(
                    slot.agent.name.clone(),
                    json!(format!("could not keep {}: {e}", p.commit)),
                ),
            };
        }
        record["winner"] = Value::Null;
        record["kept"] = Value::Object(kept);
        save_candidates(at, &record);
        let reason = format!(
            "needs a person: candidates disagree ({score:.2}); compare them under refs/swarm/{}/candidates/issue-{}/",
            ctx.feature, at.claim.issue
        );
        return Ok(PairOutcome {
            result: PairResult::Blocked {
                reason,
                cost_usd: cost,
            },
            executed: format!("{executed_prefix}: blocked, no result landed"),
            convergence: record,
        });
    }
    save_candidates(at, &record);
    let mut ends: Vec<Option<End>> = collected.ends.into_iter().map(Some).collect();
    match chosen {
        Some(i) => {
            let Some(End::Result(AttemptResult::Passed(p))) = ends[i].take() else {
                return Err(CommandError::internal("the chosen candidate has no result"));
            };
            let passed = Passed {
                cost_usd: cost,
                ..p
            };
            Ok(PairOutcome {
                result: PairResult::Passed {
                    passed,
                    worktree: slots[i].worktree.clone(),
                },
                executed: format!("{executed_prefix}: {}'s result landed", slots[i].agent.name),
                convergence: record,
            })
        }
        None if blocked.is_some() => Ok(PairOutcome {
            result: PairResult::Blocked {
                reason: blocked.unwrap_or_default(),
                cost_usd: cost,
            },
            executed: format!("{executed_prefix}: blocked, the review could not run"),
            convergence: record,
        }),
        None => {
            let ends: Vec<End> = ends
                .into_iter()
                .map(|e| e.unwrap_or(End::Error("no result".into())))
                .collect();
            let none = if n == 2 {
                "neither passed"
            } else {
                "none passed"
            };
            Ok(PairOutcome {
                result: failed_result(slots, &ends),
                executed: format!("{executed_prefix}: {none}"),
                convergence: record,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn passing(agent: &str, rank: usize) -> CandidateFacts {
        CandidateFacts {
            agent: agent.into(),
            rank,
            passed: true,
            changed_lines: 3 - rank,
            tokens: BTreeSet::from([agent.to_string()]),
            review: None,
        }
    }

    #[test]
    fn join_first_names_a_step_of_the_selection_even_when_two_passed() {
        // beta passed first; alpha passed too before the stop took effect
        let facts = [passing("alpha", 0), passing("beta", 1)];
        let collected = Collected {
            ends: Vec::new(),
            first: Some(1),
            group: None,
            diffs: Vec::new(),
        };
        let all = selection::select(&facts);
        let (chosen, by) = choose(&facts, &all, &collected, JoinStrategy::First);
        assert_eq!(chosen, Some(1), "the first to pass lands");
        assert_eq!(by, Some(SelectedBy::OnlyPassing));
        // none passed: nothing chosen, nothing named
        let failing: Vec<CandidateFacts> = facts
            .iter()
            .cloned()
            .map(|f| CandidateFacts { passed: false, ..f })
            .collect();
        let none = Collected {
            first: None,
            ..collected
        };
        let all = selection::select(&failing);
        assert_eq!(
            choose(&failing, &all, &none, JoinStrategy::First),
            (None, None)
        );
    }
}
