//! PARALLEL (SPEC §6, §7): both candidates at once, the join (`first` or `all`), the
//! choice of the commit that lands and the record of the join (`candidates.json`).

use super::{
    End, Pair, PairAttempt, PairOutcome, PairResult, Slot, add_runner_worktree, discard_worktree,
    prompt_for, run_slot,
};
use crate::app::run::attempt::{AttemptResult, Failed, Passed};
use crate::app::run::stop::Stop;
use crate::app::run::{RunContext, record};
use crate::core::convergence;
use crate::error::{CmdResult, CommandError};
use crate::io::config::JoinStrategy;
use serde_json::{Value, json};
use std::sync::mpsc;

pub(super) fn parallel(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let runner_wt = add_runner_worktree(ctx, &at, &pair.runner.name)?;
    let slots = [
        Slot {
            agent: pair.primary,
            role: "primary",
            worktree: at.worktree.to_path_buf(),
            artifacts: at.attempt_dir.join(&pair.primary.name),
            stop: Stop::new(),
            builds_on: None,
        },
        Slot {
            agent: pair.runner,
            role: "runner-up",
            worktree: runner_wt.clone(),
            artifacts: at.attempt_dir.join(&pair.runner.name),
            stop: Stop::new(),
            builds_on: None,
        },
    ];
    let join = ctx.project.config.coordination.join;
    let (p0, e0) = prompt_for(ctx, &at, pair.decision, &pair.primary.name, "");
    let (p1, e1) = prompt_for(ctx, &at, pair.decision, &pair.runner.name, "");
    let pre0 = vec![e0];
    let mode = "PARALLEL";
    let (tx, rx) = mpsc::channel::<(usize, End)>();
    let (ends, first) = std::thread::scope(|scope| {
        let at = &at;
        for (i, (prompt, pre)) in [(p0, pre0), (p1, vec![e1])].into_iter().enumerate() {
            let tx = tx.clone();
            let slot = &slots[i];
            scope.spawn(move || {
                let end = run_slot(ctx, at, slot, prompt, pre, mode);
                let _ = tx.send((i, end));
            });
        }
        drop(tx);
        collect(ctx, &slots, &rx, join, [None, None], slot_free)
    });
    let outcome = decide_parallel(ctx, pair, &at, &slots, ends, first, join, None);
    discard_worktree(ctx, runner_wt);
    outcome
}

/// Waits for the outstanding candidates; with join `first`, the first that passes stops
/// the other. Returns both ends and the index of the first to pass (join `first`).
pub(super) fn collect(
    ctx: &RunContext<'_>,
    slots: &[Slot<'_>; 2],
    rx: &mpsc::Receiver<(usize, End)>,
    join: JoinStrategy,
    mut ends: [Option<End>; 2],
    slot_free: &dyn Fn(),
) -> ([End; 2], Option<usize>) {
    let mut first = None;
    let on_end = |i: usize, end: &mut End, first: &mut Option<usize>| {
        let _ = record::emit(ctx, end.take_events());
        if end.passed().is_some() && first.is_none() {
            *first = Some(i);
            slot_free();
            if join == JoinStrategy::First {
                slots[1 - i].stop.stop();
            }
        }
    };
    for (i, e) in ends.iter_mut().enumerate() {
        if let Some(e) = e {
            on_end(i, e, &mut first);
        }
    }
    while ends.iter().any(Option::is_none) {
        let Ok((i, mut end)) = rx.recv() else {
            break;
        };
        on_end(i, &mut end, &mut first);
        ends[i] = Some(end);
    }
    let [a, b] = ends;
    let lost = || End::Error("the candidate's thread ended without a result".into());
    ([a.unwrap_or_else(lost), b.unwrap_or_else(lost)], first)
}

/// The changed lines of a candidate's commit and its diff text.
pub(super) fn diff_of(ctx: &RunContext<'_>, base: &str, commit: &str) -> (String, usize) {
    let text = ctx.git.diff(base, commit).unwrap_or_default();
    let n = convergence::changed_lines(&text).len();
    (text, n)
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
    v
}

/// Both candidates failed: one failure with both reasons and excerpts.
pub(super) fn combined_failure(slots: &[Slot<'_>; 2], ends: &[End; 2]) -> Failed {
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
                // neither passed and one was rate-limited: the pair waits and runs again
                rate_limited = rate_limited.take().or(f.rate_limited.clone());
                // the pair's class: the primary's (the first failed candidate's) facts
                facts = facts.take().or(Some(f.facts));
                files_changed.extend(f.files_changed.iter().cloned());
                if !f.excerpt.trim().is_empty() {
                    excerpts.push(format!("[{name}, {}]\n{}", slot.role, f.excerpt));
                }
            }
            _ => agent_failure = false,
        }
    }
    Failed {
        reason: format!("neither candidate passed ({})", reasons.join("; ")),
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

#[allow(clippy::too_many_arguments)]
pub(super) fn decide_parallel(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &[Slot<'_>; 2],
    ends: [End; 2],
    first: Option<usize>,
    join: JoinStrategy,
    fallback: Option<&str>,
) -> CmdResult<PairOutcome> {
    let join_word = match join {
        JoinStrategy::First => "first",
        JoinStrategy::All => "all",
    };
    let passing: Vec<usize> = (0..2).filter(|i| ends[*i].passed().is_some()).collect();
    let mut diff_lines = [None, None];
    let mut score = None;
    let chosen = match (join, passing.as_slice()) {
        (_, []) => None,
        (JoinStrategy::First, _) => first.or_else(|| passing.first().copied()),
        (JoinStrategy::All, [only]) => Some(*only),
        (JoinStrategy::All, _) => {
            let (d0, n0) = diff_of(
                ctx,
                at.base,
                &ends[0]
                    .passed()
                    .map(|p| p.commit.clone())
                    .unwrap_or_default(),
            );
            let (d1, n1) = diff_of(
                ctx,
                at.base,
                &ends[1]
                    .passed()
                    .map(|p| p.commit.clone())
                    .unwrap_or_default(),
            );
            diff_lines = [Some(n0), Some(n1)];
            score = Some(convergence::score(&d0, &d1));
            Some(convergence::pick(n0, n1))
        }
    };
    let mut record = json!({
        "mode": pair.decision.mode.as_str(),
        "join": join_word,
        "winner": chosen.map(|i| slots[i].agent.name.clone()),
        "candidates": [
            candidate_record(&slots[0], &ends[0], diff_lines[0]),
            candidate_record(&slots[1], &ends[1], diff_lines[1]),
        ],
    });
    if let Some(s) = score {
        record["score"] = json!(s);
        record["pick"] = json!("smaller diff (fewer changed lines), then the primary");
    }
    if let Some(f) = fallback {
        record["fallback"] = json!({"to": "parallel", "reason": f});
    }
    save_candidates(at, &record);
    let who = format!("{} + {}", pair.primary.name, pair.runner.name);
    let prefix = match fallback {
        Some(_) => format!(
            "SYNTHESIS {} then {} → fallback parallel (join {join_word})",
            pair.primary.name, pair.runner.name
        ),
        None => format!("PARALLEL {who} (join {join_word})"),
    };
    let [e0, e1] = ends;
    let mut ends = [Some(e0), Some(e1)];
    match chosen {
        Some(i) => {
            let Some(End::Result(AttemptResult::Passed(p))) = ends[i].take() else {
                return Err(CommandError::internal("the chosen candidate has no result"));
            };
            let mut cost = p.cost_usd;
            if let Some(other) = &ends[1 - i] {
                cost = record::sum_cost(cost, other.cost());
            }
            let passed = Passed {
                cost_usd: cost,
                ..p
            };
            Ok(PairOutcome {
                result: PairResult::Passed {
                    passed,
                    worktree: slots[i].worktree.clone(),
                },
                executed: format!("{prefix}: {}'s result landed", slots[i].agent.name),
                convergence: record,
            })
        }
        None => {
            let [a, b] = ends;
            let ends = [
                a.unwrap_or(End::Error("no result".into())),
                b.unwrap_or(End::Error("no result".into())),
            ];
            Ok(PairOutcome {
                result: PairResult::Failed(combined_failure(slots, &ends)),
                executed: format!("{prefix}: neither passed"),
                convergence: record,
            })
        }
    }
}
