//! Recording an issue DONE: found already implemented (duplicate detection), or a passed
//! attempt landed on the checked-out branch (see [`crate::run::land`]), with its
//! summary, evidence and the `issue_done` event.

use crate::core::events::Event;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::core::state::EvidenceRecord;
use crate::error::CmdResult;
use crate::run::attempt;
use crate::run::claim::Claim;
use crate::run::land::{self, Landed};
use crate::run::worktrees::{self, WorkerTree};
use crate::run::{Outcome, Progress, RunContext, duplicate, record};
use crate::summary;
use std::path::Path;

/// Records an issue found already implemented: DONE with the evidence, no agent called.
pub(super) fn record_duplicate(
    ctx: &RunContext<'_>,
    claim: &Claim,
    dup: &duplicate::DuplicateReport,
    check: &str,
    evidence: EvidenceRecord,
) -> CmdResult<Outcome> {
    let issue = claim.issue;
    let mut done = claim.task.as_done();
    done.commit = evidence.commit.clone().or(done.commit);
    summary::ensure_summary(ctx.project, &ctx.feature, &mut done);
    record::with_txn(ctx, |txn| {
        let Some(t) = record::owned(txn.state_mut(), issue, &claim.owner) else {
            return Ok(Outcome::Lost {
                reason: "another run took the issue over".into(),
            });
        };
        if !t.evidence.contains(&evidence) {
            t.evidence.push(evidence.clone());
        }
        summary::copy_summary(t, &done);
        let done_event = t.done(evidence.commit.clone(), None, None)?;
        let commit = t.commit.clone();
        txn.push_event(Event::DuplicateDetected {
            issue,
            git: duplicate::DuplicateReport::to_json(&dup.git),
            tests: duplicate::DuplicateReport::to_json(&dup.tests),
            files: duplicate::DuplicateReport::to_json(&dup.files),
            pr: None,
        });
        txn.push_event(done_event);
        readiness::recompute(txn.state_mut());
        if txn.state().tasks.iter().all(|t| t.stage() == &Stage::Done) {
            txn.state_mut().phase = crate::core::stage::Phase::Complete;
        }
        Ok(Outcome::AlreadyImplemented {
            check: check.to_string(),
            detail: evidence.detail.clone().unwrap_or_default(),
            commit,
        })
    })
}

/// The worktree a passed attempt's commit was made in, as [`finish_done`] gets it.
pub(super) enum Tree<'a, 'c> {
    /// Kept until the issue ends (a pair's winner; the slot was freed already).
    Kept(&'a Path),
    /// Handed back to the run (and the worker's slot freed) once the summary has read the
    /// files: the landing then works in the object store, and only a landing that must
    /// cherry-pick takes a worktree of its own.
    HandedBack {
        path: &'a Path,
        tree: Option<WorkerTree<'c>>,
        slot_free: &'a dyn Fn(),
    },
}

/// Lands a passed attempt and records DONE. `None`: the change conflicts with what landed
/// meanwhile (the caller retries).
pub(super) fn finish_done(
    ctx: &RunContext<'_>,
    claim: &Claim,
    tree: Tree<'_, '_>,
    base: &str,
    p: &attempt::Passed,
    mode: &str,
    convergence: Option<serde_json::Value>,
) -> CmdResult<Option<Outcome>> {
    let issue = claim.issue;
    // The summary may ask the LLM helper: build it before taking the lock.
    let mut done = claim.task.as_done();
    done.outputs.files_created = p.files_created.clone();
    // the verified commit: the summary (LLM or built from the commit) reads it
    done.commit = Some(p.commit.clone());
    done.outputs.semantic_summary = None;
    done.completion_summary = None;
    let worktree = match &tree {
        Tree::Kept(path) | Tree::HandedBack { path, .. } => *path,
    };
    summary::ensure_summary_in(ctx.project, &ctx.feature, &mut done, worktree);
    let land_in = match tree {
        Tree::Kept(path) => Some(path),
        Tree::HandedBack {
            tree, slot_free, ..
        } => {
            drop(tree);
            slot_free();
            None
        }
    };
    ctx.report(Progress::Phase {
        issue,
        phase: "landing",
    });
    // a risky issue lands with `gates.risk.landing` (docs/gates.md "Risk routing")
    let (landing, _) = crate::gates::landing_for(ctx.project, &claim.task);
    if landing == crate::core::config::Landing::Pr {
        let low = convergence
            .as_ref()
            .and_then(|c| c.pointer("/low_convergence/score"))
            .and_then(serde_json::Value::as_f64);
        return crate::run::land_pr::finish_in_review(ctx, claim, p, &done, mode, low).map(Some);
    }
    // what the landed attempt followed: its failures (for a `retry_fixed` lesson)
    let mut followed: Option<(u32, u32, Option<String>)> = None;
    let outcome = record::with_txn(ctx, |txn| {
        txn.events_mut().extend(p.pending_events.iter().cloned());
        // the task's cost (in `issue_done`) holds this attempt's agents
        record::fold_spend(ctx, txn.state_mut());
        if record::owned(txn.state_mut(), issue, &claim.owner).is_none() {
            return Ok(Some(Outcome::Lost {
                reason: "another run took the issue over; this run's work was not landed".into(),
            }));
        }
        let take = |onto: &str| -> CmdResult<Box<dyn AsRef<Path> + '_>> {
            Ok(Box::new(worktrees::take(ctx, issue, onto)?))
        };
        let pick_in = match land_in {
            Some(path) => land::PickIn::Held(path),
            None => land::PickIn::Take(&take),
        };
        let landed = land::land(ctx, pick_in, &p.commit, base, issue)?;
        let Some(t) = record::owned(txn.state_mut(), issue, &claim.owner) else {
            return Ok(None);
        };
        t.last_mode = Some(mode.to_string());
        match landed {
            Landed::Conflict(_) => Ok(None),
            Landed::Refused {
                message,
                keep_ref,
                commit,
            } => {
                let short = &commit[..commit.len().min(10)];
                let reason = format!(
                    "implemented and verified in commit {short}, but it could not land on the checked-out branch ({message}); commit or stash your changes, then run `git merge --ff-only {keep_ref}`"
                );
                let blocked = t.block(reason.clone()).ok();
                txn.events_mut().extend(blocked);
                Ok(Some(Outcome::Blocked { reason }))
            }
            Landed::OnBranch { commit } => {
                t.commit = Some(commit.clone());
                t.outputs.files_created = p.files_created.clone();
                t.outputs.semantic_summary = None;
                t.completion_summary = None;
                summary::copy_summary(t, &done);
                if commit != p.commit {
                    // replayed onto a moved branch: the summary names the landed commit
                    let (old, new) = (
                        &p.commit[..7.min(p.commit.len())],
                        &commit[..7.min(commit.len())],
                    );
                    for s in [&mut t.completion_summary, &mut t.outputs.semantic_summary] {
                        if let Some(text) = s.as_mut() {
                            *text = text.replace(old, new);
                        }
                    }
                }
                let subject =
                    crate::core::commit_message::subject(&ctx.feature, issue, t.github_issue);
                let ev = EvidenceRecord {
                    source: "subject".into(),
                    commit: Some(commit.clone()),
                    detail: Some(subject),
                };
                if !t.evidence.contains(&ev) {
                    t.evidence.push(ev);
                }
                if p.handoff.is_some() {
                    t.handoff = p.handoff.clone();
                }
                // the status comment's `**Review:**` line
                t.review = p.review.as_ref().map(|r| r.line.clone());
                followed = Some((t.attempts, t.retries, t.last_failure.clone()));
                let cost = t.cost_usd;
                let done_event = t.done(Some(commit.clone()), cost, convergence.clone())?;
                txn.push_event(done_event);
                readiness::recompute(txn.state_mut());
                if txn.state().tasks.iter().all(|t| t.stage() == &Stage::Done) {
                    txn.state_mut().phase = crate::core::stage::Phase::Complete;
                }
                Ok(Some(Outcome::Done {
                    commit,
                    files_created: p.files_created.clone(),
                    files_modified: p.files_modified.clone(),
                    tests_passed: p.tests_passed,
                }))
            }
        }
    })?;
    land::clear_landing_marker(ctx, issue);
    if let (Some(Outcome::Done { commit, .. }), Some((attempt, retries, failure))) =
        (&outcome, followed)
    {
        after_done(ctx, claim, p, commit, attempt, retries, failure);
    }
    Ok(outcome)
}

/// Learning from a landed attempt (docs/learning.md "Lessons"), best effort and outside the feature
/// lock: the lessons the attempt used are renewed, and an issue that passed after failed attempts
/// may leave a `retry_fixed` lesson.
fn after_done(
    ctx: &RunContext<'_>,
    claim: &Claim,
    p: &attempt::Passed,
    commit: &str,
    attempt: u32,
    retries: u32,
    failure: Option<String>,
) {
    let project = ctx.project;
    // no lessons file: nothing to renew (and the log is not read)
    let used = if crate::lessons::path(project).exists() {
        crate::lessons::last_used(project, &ctx.feature, claim.issue)
    } else {
        Vec::new()
    };
    if let Err(e) = crate::lessons::renew(project, &used) {
        tracing::warn!(
            "issue {}: the used lessons were not renewed: {}",
            claim.issue,
            e.message
        );
    }
    let failures: Vec<String> = failure
        .into_iter()
        .filter(|f| !f.trim().is_empty())
        .collect();
    if retries == 0 || failures.is_empty() {
        return;
    }
    let mut files = p.files_created.clone();
    files.extend(p.files_modified.iter().cloned());
    let r = crate::lessons::RetryFixed {
        feature: &ctx.feature,
        task: &claim.task,
        attempt: attempt.max(2),
        failures: &failures,
        commit,
        files: &files,
    };
    match crate::lessons::retry_fixed(project, &r) {
        Ok(l) => ctx.report(Progress::Notice(format!(
            "issue #{}: lesson {} recorded (retry_fixed)",
            claim.issue, l.id
        ))),
        Err(why) => tracing::info!("issue {}: no retry_fixed lesson: {why}", claim.issue),
    }
}
