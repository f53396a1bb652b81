//! SYNTHESIS (docs/coordination.md "The filter"; docs/run.md "The flow of one issue"): the winner
//! first, then the runner-up on top of its result in the same worktree; the wait's fallback to
//! PARALLEL and the runner-up's to SOLO.

use super::reviewed::review_result;
use super::select::{Collected, candidate_record, decide_parallel, failed_result, save_candidates};
use super::{
    End, Pair, PairAttempt, PairOutcome, PairResult, Slot, add_runner_worktree, discard_worktree,
    fallback_event, prompt_for, run_slot,
};
use crate::core::coordination::Mode;
use crate::error::CmdResult;
use crate::io::config::JoinStrategy;
use crate::run::attempt::{AttemptResult, Passed};
use crate::run::stop::Stop;
use crate::run::{RunContext, record};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// The winner's output for the runner-up's prompt, readable: its final text (a CLI's JSON
/// envelope is unwrapped), the files it changed, and how its verification went when it
/// failed.
fn winner_output(dir: &Path, end: &End) -> String {
    let stdout = std::fs::read_to_string(dir.join("agent.stdout")).unwrap_or_default();
    let mut out = crate::core::agent_report::unwrap_text(&stdout)
        .trim_end()
        .to_string();
    if out.is_empty() {
        out = "(the agent printed nothing)".into();
    }
    if let Some(p) = end.passed() {
        let files: Vec<&String> = p.files_created.iter().chain(&p.files_modified).collect();
        if !files.is_empty() {
            let list: Vec<&str> = files.iter().map(|f| f.as_str()).collect();
            out.push_str(&format!("\n\nFiles it changed: {}", list.join(", ")));
        }
    }
    if let Some(r) = end.reason() {
        out.push_str(&format!(
            "\n\n(Its result did not pass: {r}. Its changes, if any, are in your worktree.)"
        ));
    }
    out
}

pub(super) fn synthesis(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let issue = at.claim.issue;
    let wait = Duration::from_secs(ctx.project.config.coordination.synthesis_wait_seconds);
    let mut slots = [
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
            worktree: at.worktree.to_path_buf(),
            artifacts: at.attempt_dir.join(&pair.runner.name),
            stop: Stop::new(),
            builds_on: None,
        },
    ];
    let (p0, e0) = prompt_for(ctx, &at, pair.decision, &pair.primary.name, "");
    // the prompts, for the review's fix rounds
    let text0 = p0.clone();
    let mut text1 = String::new();
    let pre0 = vec![e0];
    let (tx, rx) = mpsc::channel::<(usize, End)>();
    let mut runner_wt = None;
    let flow = std::thread::scope(|scope| -> CmdResult<SynthesisFlow> {
        let at_ref = &at;
        let slot0 = &slots[0];
        let tx0 = tx.clone();
        scope.spawn(move || {
            let end = run_slot(ctx, at_ref, slot0, p0, pre0, "SYNTHESIS");
            let _ = tx0.send((0, end));
        });
        match rx.recv_timeout(wait) {
            Ok((_, end)) => Ok(Ok(end)),
            Err(_) => {
                // the winner's result is not there in time: the runner-up starts now, in
                // its own worktree, with PARALLEL context
                let reason = format!(
                    "the winner's result was not there within coordination.synthesis_wait_seconds ({} s); the runner-up ran with PARALLEL context",
                    wait.as_secs()
                );
                record::emit(
                    ctx,
                    vec![fallback_event(pair.decision, issue, "parallel", &reason)],
                )?;
                let wt = add_runner_worktree(ctx, at_ref, &pair.runner.name);
                let wt = match wt {
                    Ok(w) => w,
                    Err(e) => {
                        // no second worktree: the winner alone (SOLO)
                        let end = rx.recv().map(|(_, e)| e).unwrap_or(End::Error(
                            "the winner's thread ended without a result".into(),
                        ));
                        let why = format!("{}; SOLO with the winner", e.message);
                        record::emit(
                            ctx,
                            vec![fallback_event(pair.decision, issue, "solo", &why)],
                        )?;
                        return Ok(Err(([end, End::Error(e.message)], None, why)));
                    }
                };
                runner_wt = Some(wt.clone());
                let mut pdec = pair.decision.clone();
                pdec.mode = Mode::Parallel;
                let (p1, e1) = prompt_for(ctx, at_ref, &pdec, &pair.runner.name, "");
                text1 = p1.clone();
                let runner_slot = Slot {
                    agent: pair.runner,
                    role: "runner-up",
                    worktree: wt,
                    artifacts: at_ref.attempt_dir.join(&pair.runner.name),
                    stop: Stop::new(),
                    builds_on: None,
                };
                let tx1 = tx.clone();
                let both = [
                    Slot {
                        agent: pair.primary,
                        role: "primary",
                        worktree: at_ref.worktree.to_path_buf(),
                        artifacts: at_ref.attempt_dir.join(&pair.primary.name),
                        stop: Stop::new(),
                        builds_on: None,
                    },
                    runner_slot,
                ];
                // the winner's thread registers its processes with slots[0].stop; a stop
                // of the pair's primary goes through it
                let join = ctx.project.config.coordination.join;
                let (ends, first) = std::thread::scope(|inner| {
                    let s1 = &both[1];
                    inner.spawn(move || {
                        let end = run_slot(ctx, at_ref, s1, p1, vec![e1], "SYNTHESIS → PARALLEL");
                        let _ = tx1.send((1, end));
                    });
                    collect_with_primary_stop(ctx, &both, &slot0.stop, &rx, join, slot_free)
                });
                Ok(Err((ends, first, reason)))
            }
        }
    })?;
    match flow {
        Ok(winner_end) => {
            synthesis_on_top(ctx, pair, &at, &mut slots, (winner_end, &text0), slot_free)
        }
        Err((ends, first, reason)) => {
            let out = if runner_wt.is_some() {
                slots[1].worktree = runner_wt.clone().unwrap_or_default();
                decide_parallel(
                    ctx,
                    pair,
                    &at,
                    &slots,
                    &[text0, text1],
                    Collected::from_ends(ends.into(), first),
                    ctx.project.config.coordination.join,
                    Some(&reason),
                )
            } else {
                solo_of_winner(ctx, pair, &at, &slots, ends, &reason, slot_free).and_then(
                    |mut o| {
                        o.result = review_result(ctx, &at, &slots[0], &text0, o.result)?;
                        Ok(o)
                    },
                )
            };
            if let Some(w) = runner_wt {
                discard_worktree(ctx, w);
            }
            out
        }
    }
}

/// How SYNTHESIS went on: the winner's result in time (`Ok`), or the pair joined after the
/// wait timed out (both ends, the first to pass, the fallback's reason).
type SynthesisFlow = Result<End, ([End; 2], Option<usize>, String)>;

/// Like [`collect`](super::parallel::collect) for a pair whose primary registered with `primary_stop`.
fn collect_with_primary_stop(
    ctx: &RunContext<'_>,
    slots: &[Slot<'_>; 2],
    primary_stop: &Stop,
    rx: &mpsc::Receiver<(usize, End)>,
    join: JoinStrategy,
    slot_free: &dyn Fn(),
) -> ([End; 2], Option<usize>) {
    let mut first = None;
    let mut ends: [Option<End>; 2] = [None, None];
    while ends.iter().any(Option::is_none) {
        let Ok((i, mut end)) = rx.recv() else {
            break;
        };
        let _ = record::emit(ctx, end.take_events());
        if end.passed().is_some() && first.is_none() {
            first = Some(i);
            slot_free();
            if join == JoinStrategy::First {
                if i == 0 {
                    slots[1].stop.stop();
                } else {
                    primary_stop.stop();
                }
            }
        }
        ends[i] = Some(end);
    }
    let [a, b] = ends;
    let lost = || End::Error("the candidate's thread ended without a result".into());
    ([a.unwrap_or_else(lost), b.unwrap_or_else(lost)], first)
}

/// The winner alone (the runner-up could not run).
fn solo_of_winner(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &[Slot<'_>; 2],
    ends: [End; 2],
    reason: &str,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let [mut w, r] = ends;
    let _ = record::emit(ctx, w.take_events());
    let record = json!({
        "mode": pair.decision.mode.as_str(),
        "winner": w.passed().map(|_| pair.primary.name.clone()),
        "candidates": [candidate_record(&slots[0], &w, None), candidate_record(&slots[1], &r, None)],
        "fallback": {"to": "solo", "reason": reason},
    });
    save_candidates(at, &record);
    let executed = format!(
        "SYNTHESIS {} then {} → fallback solo",
        pair.primary.name, pair.runner.name
    );
    let result = match w {
        End::Result(AttemptResult::Passed(p)) => {
            slot_free();
            PairResult::Passed {
                passed: p,
                worktree: slots[0].worktree.clone(),
            }
        }
        other => failed_result(slots, &[other, r]),
    };
    Ok(PairOutcome {
        result,
        executed,
        convergence: record,
    })
}

/// SYNTHESIS proper: the runner-up on top of the winner's result, in the same worktree.
fn synthesis_on_top(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &mut [Slot<'_>; 2],
    (mut winner, text0): (End, &str),
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let issue = at.claim.issue;
    let _ = record::emit(ctx, winner.take_events());
    let output = winner_output(&slots[0].artifacts, &winner);
    slots[1].builds_on = Some(pair.primary.name.clone());
    let (p1, e1) = prompt_for(ctx, at, pair.decision, &pair.runner.name, &output);
    if winner.passed().is_some() {
        // the winner's commit may have left the index at the base (made in process): the
        // runner-up sees what a `git commit` leaves
        let _ = ctx.git.sync_index(&slots[1].worktree);
    }
    let text1 = p1.clone();
    let mut runner = run_slot(ctx, at, &slots[1], p1, vec![e1], "SYNTHESIS");
    let _ = record::emit(ctx, runner.take_events());
    let winner_commit = winner.passed().map(|p| p.commit.clone());
    // what the runner-up added on top of the winner
    let runner_files: Option<Vec<String>> = match (&winner_commit, runner.passed()) {
        (Some(c1), Some(p2)) => ctx.git.changed_paths(c1, &p2.commit).ok(),
        _ => None,
    };
    let mut rec1 = candidate_record(&slots[1], &runner, None);
    if let Some(f) = &runner_files {
        rec1["added_files"] = json!(f);
    }
    let mut record = json!({
        "mode": "SYNTHESIS",
        "candidates": [candidate_record(&slots[0], &winner, None), rec1],
    });
    let name0 = &pair.primary.name;
    let name1 = &pair.runner.name;
    let total_cost = record::sum_cost(winner.cost(), runner.cost());
    let result;
    let executed;
    match (winner, runner) {
        (w, End::Result(AttemptResult::Passed(p2))) => {
            record["winner"] = json!(format!("{name0}+{name1}"));
            record["landed"] = json!("both contributions");
            slot_free();
            let _ = w;
            // the one result goes through the review gate; the runner-up, whose run made
            // it, does the fix rounds
            result = review_result(
                ctx,
                at,
                &slots[1],
                &text1,
                PairResult::Passed {
                    passed: Passed {
                        cost_usd: total_cost,
                        ..p2
                    },
                    worktree: slots[1].worktree.clone(),
                },
            )?;
            executed = match &result {
                PairResult::Passed { .. } => {
                    format!("SYNTHESIS {name0} then {name1}: both contributions landed")
                }
                _ => format!("SYNTHESIS {name0} then {name1}: the review stopped the result"),
            };
        }
        (End::Result(AttemptResult::Passed(p1)), r) => {
            let why = format!(
                "the runner-up `{name1}` did not pass ({}); the winner's verified result lands",
                r.reason().unwrap_or_default()
            );
            record::emit(
                ctx,
                vec![fallback_event(pair.decision, issue, "solo", &why)],
            )?;
            record["winner"] = json!(name0);
            record["fallback"] = json!({"to": "solo", "reason": why});
            // back to the winner's commit (the runner-up's changes are discarded)
            ctx.git.discard_changes(&slots[0].worktree, &p1.commit)?;
            slot_free();
            result = review_result(
                ctx,
                at,
                &slots[0],
                text0,
                PairResult::Passed {
                    passed: Passed {
                        cost_usd: total_cost,
                        ..p1
                    },
                    worktree: slots[0].worktree.clone(),
                },
            )?;
            let end = match &result {
                PairResult::Passed { .. } => format!("{name0}'s result landed"),
                _ => format!("the review stopped {name0}'s result"),
            };
            executed = format!(
                "SYNTHESIS {name0} then {name1} → fallback solo: {end} ({name1} did not pass)"
            );
        }
        (w, r) => {
            record["winner"] = Value::Null;
            executed = format!("SYNTHESIS {name0} then {name1}: neither passed");
            result = failed_result(slots, &[w, r]);
        }
    }
    save_candidates(at, &record);
    Ok(PairOutcome {
        result,
        executed,
        convergence: record,
    })
}
