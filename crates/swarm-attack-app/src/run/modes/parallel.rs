//! PARALLEL (docs/coordination.md "The filter"; docs/run.md "The flow of one issue";
//! docs/coordination.md "Many candidates, one result"): every candidate at once, each in its own
//! worktree, and the join (`first`, `all` or `quorum`) that decides when to stop waiting. What
//! lands is decided in [`super::select`].

use super::select::{Collected, Diff, decide_parallel};
use super::{
    End, Pair, PairAttempt, PairOutcome, Slot, add_runner_worktree, discard_worktree, prompt_for,
    run_slot,
};
use crate::core::coordination::candidates;
use crate::core::coordination::selection::{self, CandidateFacts};
use crate::error::CmdResult;
use crate::io::config::JoinStrategy;
use crate::run::stop::Stop;
use crate::run::{RunContext, record};
use std::path::PathBuf;
use std::sync::mpsc;

pub(super) fn parallel(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let agents = pair.agents();
    let mut extra: Vec<PathBuf> = Vec::new();
    for a in &agents[1..] {
        match add_runner_worktree(ctx, &at, &a.name) {
            Ok(w) => extra.push(w),
            Err(e) => {
                for w in extra {
                    discard_worktree(ctx, w);
                }
                return Err(e);
            }
        }
    }
    let slots: Vec<Slot<'_>> = agents
        .iter()
        .enumerate()
        .map(|(i, a)| Slot {
            agent: a,
            role: candidates::role(i),
            worktree: match i {
                0 => at.worktree.to_path_buf(),
                _ => extra[i - 1].clone(),
            },
            artifacts: at.attempt_dir.join(&a.name),
            stop: Stop::new(),
            builds_on: None,
        })
        .collect();
    let join = ctx.project.config.coordination.join;
    let prompts: Vec<_> = slots
        .iter()
        .map(|s| prompt_for(ctx, &at, pair.decision, &s.agent.name, ""))
        .collect();
    // each candidate's prompt, for its review fix rounds
    let texts: Vec<String> = prompts.iter().map(|(t, _)| t.clone()).collect();
    let mode = "PARALLEL";
    let (tx, rx) = mpsc::channel::<(usize, End)>();
    let collected = std::thread::scope(|scope| {
        let at = &at;
        for (i, (prompt, ev)) in prompts.into_iter().enumerate() {
            let tx = tx.clone();
            let slot = &slots[i];
            scope.spawn(move || {
                let end = run_slot(ctx, at, slot, prompt, vec![ev], mode);
                let _ = tx.send((i, end));
            });
        }
        drop(tx);
        let pending = (0..slots.len()).map(|_| None).collect();
        collect(ctx, at.base, &slots, &rx, join, pending, slot_free)
    });
    let outcome = decide_parallel(ctx, pair, &at, &slots, &texts, collected, join, None);
    for w in extra {
        discard_worktree(ctx, w);
    }
    outcome
}

/// Waits for the outstanding candidates (`ends[i]` is `None` while candidate `i` runs).
/// Join `first`: the first that passes stops the others. Join `quorum`: as soon as
/// `coordination.quorum` passing candidates agree pairwise at `coordination.agree_at`, the
/// others are stopped. Join `all`: every candidate runs to its end.
pub(super) fn collect(
    ctx: &RunContext<'_>,
    base: &str,
    slots: &[Slot<'_>],
    rx: &mpsc::Receiver<(usize, End)>,
    join: JoinStrategy,
    mut ends: Vec<Option<End>>,
    slot_free: &dyn Fn(),
) -> Collected {
    let n = slots.len();
    let coordination = &ctx.project.config.coordination;
    let mut out = Collected {
        ends: Vec::new(),
        first: None,
        group: None,
        diffs: (0..n).map(|_| None).collect(),
    };
    let stop_others = |keep: &[usize], ends: &[Option<End>]| {
        for (j, slot) in slots.iter().enumerate() {
            if !keep.contains(&j) && ends.get(j).is_none_or(Option::is_none) {
                slot.stop.stop();
            }
        }
    };
    let on_end = |i: usize, end: &mut End, ends: &[Option<End>], out: &mut Collected| {
        let _ = record::emit(ctx, end.take_events());
        let Some(p) = end.passed() else {
            return;
        };
        out.diffs[i] = Some(Diff::of(ctx, base, &p.commit));
        if out.first.is_none() {
            out.first = Some(i);
            slot_free();
            if join == JoinStrategy::First {
                stop_others(&[i], ends);
            }
        }
        if join == JoinStrategy::Quorum && out.group.is_none() {
            let facts: Vec<CandidateFacts> = (0..n).map(|j| out.facts(slots, j)).collect();
            if let Some(names) =
                selection::quorum(&facts, coordination.quorum as usize, coordination.agree_at)
            {
                let group: Vec<usize> = names
                    .iter()
                    .filter_map(|a| slots.iter().position(|s| &s.agent.name == a))
                    .collect();
                stop_others(&group, ends);
                out.group = Some(group);
            }
        }
    };
    for i in 0..n {
        if let Some(mut e) = ends.get_mut(i).and_then(Option::take) {
            on_end(i, &mut e, &ends, &mut out);
            ends[i] = Some(e);
        }
    }
    while ends.iter().any(Option::is_none) {
        let Ok((i, mut end)) = rx.recv() else {
            break;
        };
        on_end(i, &mut end, &ends, &mut out);
        ends[i] = Some(end);
    }
    out.ends = ends
        .into_iter()
        .map(|e| {
            e.unwrap_or_else(|| End::Error("the candidate's thread ended without a result".into()))
        })
        .collect();
    out
}
