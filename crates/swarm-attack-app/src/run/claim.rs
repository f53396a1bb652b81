//! Taking the next issue (under the feature lock): git sync, recovery of tasks whose owner
//! is gone (IN_PROGRESS → INTERRUPTED, their worktrees removed), readiness, then the first
//! READY or INTERRUPTED issue in dependency order is marked IN_PROGRESS with this run as
//! its owner (event `issue_started`). Because the claim is one locked read-modify-write,
//! two runs can never both claim an issue.

use crate::core::events::Event;
use crate::core::owner::{self, Owner};
use crate::core::readiness;
use crate::core::stage::{Phase, Stage};
use crate::core::state::{FeatureState, Task};
use crate::error::{CmdResult, CommandError};
use crate::io::{clock, run_lock};
use crate::project::FeatureTxn;
use crate::run::{Progress, RunContext, budget_gate, worktrees};
use crate::sync::{Summaries, open_synced_for};

/// A task this run now owns.
#[derive(Debug, Clone)]
pub(crate) struct Claim {
    pub issue: u32,
    /// The attempt number (1-based, over the task's life).
    pub attempt: u32,
    /// Retries already used.
    pub retries: u32,
    /// The owner string written into the task.
    pub owner: String,
    /// The task as claimed.
    pub task: Task,
    /// The feature as claimed (for the prompt's accumulated context).
    pub state: FeatureState,
    /// The task was INTERRUPTED (a crashed or killed run) and is resumed.
    pub resumed: bool,
    /// The commit HEAD pointed to when the claim's sync read the history with the whole
    /// git rule (docs/git-sync.md "The four rules"; None: no sync, or `HEAD` is not among
    /// `git.sync_refs`).
    pub synced_head: Option<String>,
}

/// The result of looking for work.
#[derive(Debug)]
pub(crate) enum ClaimResult {
    Claimed(Box<Claim>),
    /// The specify gate held the issue before its first attempt (now BLOCKED, needs info):
    /// a result of the run, with the reason.
    Held {
        issue: u32,
        title: String,
        reason: String,
    },
    /// Nothing to claim now, and why.
    Nothing(String),
}

/// Claims the next dispatchable issue (only `only` when given). `first` is true on the
/// run's first call, when an `--issue N` that cannot run is an error.
pub(crate) fn claim_next(
    ctx: &RunContext<'_>,
    only: Option<u32>,
    first: bool,
) -> CmdResult<ClaimResult> {
    // the summaries the prompts show, built now if missing and kept in the state
    let (mut txn, report) = open_synced_for(ctx.project, &ctx.feature, Summaries::All)?;
    let synced_head = report.head.filter(|_| {
        ctx.project.config.coordination.auto_sync_from_git
            && ctx.project.config.git.sync_refs.iter().any(|r| r == "HEAD")
    });
    recover_stale(ctx, &mut txn);
    if first {
        remove_leftover_worktrees(ctx, txn.state());
    }
    readiness::recompute(txn.state_mut());
    let open_prs = supersession_gate(ctx, &mut txn)?;
    let issue = loop {
        let pick = match only {
            Some(n) => match check_requested(ctx, txn.state(), n, first)? {
                Ok(()) => match open_prs.get(&n) {
                    Some(pr) => {
                        txn.commit()?;
                        return Ok(ClaimResult::Nothing(format!(
                            "issue {n} is not dispatched: pull request #{pr} is open for it"
                        )));
                    }
                    None => Some(n),
                },
                Err(why) => {
                    txn.commit()?;
                    return Ok(ClaimResult::Nothing(why));
                }
            },
            None => readiness::next_dispatchable_except(txn.state(), &open_prs),
        };
        let Some(issue) = pick else {
            let mut why = nothing_reason(txn.state());
            if !open_prs.is_empty() {
                let held: Vec<String> = open_prs
                    .iter()
                    .map(|(n, pr)| format!("#{n} (pull request #{pr})"))
                    .collect();
                why.push_str(&format!(
                    "; held by open pull requests: {}",
                    held.join(", ")
                ));
            }
            txn.commit()?;
            return Ok(ClaimResult::Nothing(why));
        };
        // the budget gate, before the first attempt
        if let Some(e) = budget_gate::over_limit(ctx, &mut txn, issue) {
            let reason = budget_gate::record(ctx, &mut txn, issue, &e);
            if e.is_feature_limit() || only.is_some() {
                readiness::recompute(txn.state_mut());
                txn.commit()?;
                return Ok(ClaimResult::Nothing(reason));
            }
            ctx.report(Progress::Notice(format!("issue {issue} BLOCKED: {reason}")));
            continue;
        }
        // the specify gate, before the first attempt (docs/gates.md "The specify gate")
        match specify_gate(ctx, txn, issue)? {
            Gated::Pass(back) => {
                txn = *back;
                break issue;
            }
            Gated::Held(result) => return Ok(result),
            Gated::Scored => return claim_next(ctx, only, first),
        }
    };
    let owner = ctx.owner_now();
    let Some(task) = txn.state_mut().task_mut(issue) else {
        txn.commit()?;
        return Ok(ClaimResult::Nothing(format!("issue {issue} is gone")));
    };
    let resumed = task.stage() == &Stage::Interrupted;
    let started = task.claim(owner.clone())?;
    let attempt = task.attempts;
    let retries = task.retries;
    let task_snapshot = task.clone();
    if matches!(txn.state().phase, Phase::ReadyToImplement) {
        txn.state_mut().phase = Phase::Implementing;
    }
    txn.push_event(started);
    // risk routing (docs/gates.md "Risk routing"): recorded at each dispatch of a risky issue
    let risk = crate::gates::risk_of(ctx.project, &task_snapshot);
    if risk.is_risky() {
        txn.push_event(Event::RiskFlagged {
            issue,
            signals: risk.lines(),
        });
        ctx.report(Progress::Notice(format!(
            "issue {issue} is risky: {}",
            risk.lines().join("; ")
        )));
        if let (_, Some(w)) = crate::gates::landing_for(ctx.project, &task_snapshot) {
            ctx.report(Progress::Notice(w));
        }
    }
    tracing::info!(
        "claimed issue #{issue} of `{}` (attempt {attempt}) as {owner}",
        ctx.feature
    );
    if task_snapshot.github_issue.is_some() {
        // show the issue as in progress on GitHub while the agents work
        txn.mirror_after_commit();
    }
    let state = txn.state().clone();
    txn.commit()?;
    Ok(ClaimResult::Claimed(Box::new(Claim {
        issue,
        attempt,
        retries,
        owner,
        task: task_snapshot,
        state,
        resumed,
        synced_head,
    })))
}

/// What the specify gate did with the picked issue.
enum Gated<'p> {
    /// Dispatch it (the transaction is handed back).
    Pass(Box<FeatureTxn<'p>>),
    /// It is held (committed): the claim's result.
    Held(ClaimResult),
    /// Its text was scored and recorded (committed): look for work again.
    Scored,
}

/// The specify gate for `issue` (docs/gates.md "The specify gate"): a kept passing score (or the
/// gate off) passes; a kept low score holds the task; a text with no score is scored with no lock
/// held, and the score recorded in a new transaction.
fn specify_gate<'p>(
    ctx: &RunContext<'p>,
    mut txn: FeatureTxn<'p>,
    issue: u32,
) -> CmdResult<Gated<'p>> {
    use crate::core::gates::specify::{self, Check};
    let cfg = ctx.project.config.gates.specify;
    let Some(task) = txn.state().task(issue).cloned() else {
        return Ok(Gated::Pass(Box::new(txn)));
    };
    match specify::check(&task, &cfg) {
        Check::Pass => Ok(Gated::Pass(Box::new(txn))),
        Check::Hold(reason) => {
            // a kept low score (e.g. the task was made READY by hand): held again
            if let Some(t) = txn.state_mut().task_mut(issue)
                && let Ok(ev) = t.hold(reason.clone())
            {
                let linked = t.github_issue.is_some();
                txn.push_event(ev);
                if linked {
                    txn.mirror_after_commit();
                }
            }
            readiness::recompute(txn.state_mut());
            txn.commit()?;
            Ok(Gated::Held(ClaimResult::Held {
                issue,
                title: task.title.clone(),
                reason,
            }))
        }
        Check::Score => {
            txn.commit()?;
            ctx.report(Progress::Notice(format!(
                "issue {issue}: scoring its specification (gates.specify)"
            )));
            let rec = crate::gates::score(ctx.project, &ctx.feature, &task);
            let mut txn = ctx.project.begin(&ctx.feature)?;
            let notices = crate::gates::record(&mut txn, vec![(issue, rec)]);
            let now = txn.state().task(issue).cloned();
            if now.as_ref().is_some_and(|t| t.github_issue.is_some()) {
                txn.mirror_after_commit();
            }
            txn.commit()?;
            for n in notices {
                if !n.contains("is not dispatched") {
                    ctx.report(Progress::Notice(n));
                }
            }
            match now {
                Some(t) if specify::is_needs_info(&t) => Ok(Gated::Held(ClaimResult::Held {
                    issue,
                    title: t.title.clone(),
                    reason: t.blocked_reason.clone().unwrap_or_default(),
                })),
                _ => Ok(Gated::Scored),
            }
        }
    }
}

/// The supersession gate (docs/github.md "Pull requests"): the open pull requests that link
/// dispatchable issues (one listing per claim, i.e. per sync). Each held issue gets
/// `duplicate_detected{pr}` once per run.
fn supersession_gate(
    ctx: &RunContext<'_>,
    txn: &mut FeatureTxn<'_>,
) -> CmdResult<std::collections::BTreeMap<u32, u64>> {
    let gate = crate::pull_gate::open_pull_links(ctx.project, txn.state())?;
    if let Some(w) = gate.warning {
        ctx.report(Progress::Notice(w));
    }
    let mut links = gate.links;
    links.retain(|n, _| {
        txn.state()
            .task(*n)
            .is_some_and(|t| readiness::dispatchable(txn.state(), t))
    });
    let mut gated = ctx.gated.lock().unwrap_or_else(|e| e.into_inner());
    for (issue, pr) in &links {
        if gated.insert(*issue) {
            txn.push_event(Event::DuplicateDetected {
                issue: *issue,
                git: serde_json::Value::Null,
                tests: serde_json::Value::Null,
                files: serde_json::Value::Null,
                pr: Some(*pr),
            });
            ctx.report(Progress::Notice(format!(
                "issue {issue} is not dispatched: pull request #{pr} is open for it"
            )));
        }
    }
    Ok(links)
}

/// `--issue N`: whether it can run now. Errors (first call only) for an issue that is
/// unknown, blocked, skipped, waiting, or held by another live run.
fn check_requested(
    ctx: &RunContext<'_>,
    state: &FeatureState,
    n: u32,
    first: bool,
) -> CmdResult<Result<(), String>> {
    let file = ctx
        .project
        .paths
        .display(&ctx.project.paths.state_file(&ctx.feature));
    let Some(t) = state.task(n) else {
        return Err(CommandError::input(format!(
            "feature `{}` has no issue {n} ({file})",
            ctx.feature
        )));
    };
    if readiness::dispatchable(state, t) {
        return Ok(Ok(()));
    }
    if !first {
        return Ok(Err(format!("issue {n} is {}", t.stage())));
    }
    if t.is_manual() && t.stage() != &Stage::Done {
        return Err(CommandError::input(format!(
            "issue {n} of `{}` is manual (automation_type: manual): it waits for a person and is never sent to an agent",
            ctx.feature
        ))
        .with_hint(format!(
            "implement it yourself; it becomes DONE when a commit `feat({}): Implement issue #{n}` is on the branch",
            ctx.feature
        )));
    }
    match &t.stage() {
        Stage::Done => Ok(Err(format!("issue {n} is already DONE"))),
        Stage::InProgress => Err(CommandError::locked(format!(
            "issue {n} of `{}` is IN_PROGRESS in another run ({})",
            ctx.feature,
            t.owner.as_deref().unwrap_or("owner unknown")
        ))
        .with_hint("wait for that run to finish")),
        Stage::Blocked | Stage::Skipped => Err(CommandError::input(format!(
            "issue {n} of `{}` is {}{}",
            ctx.feature,
            t.stage(),
            t.blocked_reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ))
        .with_hint(format!(
            "run `swarm-attack unblock {} --issue {n}` first",
            ctx.feature
        ))),
        Stage::Backlog | Stage::Interrupted => {
            let waits: Vec<String> = readiness::waiting_on(state, n)
                .iter()
                .map(|(d, s)| format!("#{d} ({s})"))
                .collect();
            Err(CommandError::input(format!(
                "issue {n} of `{}` is waiting on {}",
                ctx.feature,
                waits.join(", ")
            ))
            .with_hint("run its dependencies first (or run without --issue)"))
        }
        other => Err(CommandError::input(format!(
            "issue {n} of `{}` is {other} and cannot be run",
            ctx.feature
        ))),
    }
}

/// Why nothing can be claimed, in one sentence.
pub(crate) fn nothing_reason(state: &FeatureState) -> String {
    let count = |s: Stage| state.tasks.iter().filter(|t| *t.stage() == s).count();
    let list = |s: Stage| {
        state
            .tasks
            .iter()
            .filter(|t| *t.stage() == s)
            .map(|t| format!("#{}", t.issue_number))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if state.tasks.is_empty() {
        return "the feature has no issues".into();
    }
    let mut parts = vec![format!("{} DONE", count(Stage::Done))];
    for s in [
        Stage::InProgress,
        Stage::Blocked,
        Stage::Backlog,
        Stage::Skipped,
        Stage::Interrupted,
    ] {
        if count(s.clone()) > 0 {
            parts.push(format!("{} {} ({})", count(s.clone()), s, list(s.clone())));
        }
    }
    let manual: Vec<String> = state
        .tasks
        .iter()
        .filter(|t| t.is_manual() && t.stage() == &Stage::Ready)
        .map(|t| format!("#{}", t.issue_number))
        .collect();
    if !manual.is_empty() {
        parts.push(format!(
            "{} waiting for a person (manual: {})",
            manual.len(),
            manual.join(", ")
        ));
        return format!("no issue can be sent to an agent: {}", parts.join(", "));
    }
    format!("no issue is READY: {}", parts.join(", "))
}

/// IN_PROGRESS tasks whose owner is gone become INTERRUPTED; their worktrees are removed.
fn recover_stale(ctx: &RunContext<'_>, txn: &mut FeatureTxn<'_>) {
    let locks_dir = ctx.project.paths.locks_dir();
    let now = clock::now();
    let timeout = ctx.project.config.sessions.stale_timeout_minutes;
    let mut recovered = Vec::new();
    for t in txn.state_mut().tasks.iter_mut() {
        if t.stage() != &Stage::InProgress {
            continue;
        }
        let parsed = t.owner.as_deref().and_then(Owner::parse);
        let liveness = match &parsed {
            Some(o) if o.session.as_deref() == Some(ctx.session.as_str()) => owner::Liveness::Alive,
            Some(o) => run_lock::liveness(&locks_dir, o, &ctx.host),
            None => owner::Liveness::Dead,
        };
        let age = parsed.as_ref().and_then(|o| {
            time::OffsetDateTime::parse(&o.since, &time::format_description::well_known::Rfc3339)
                .ok()
                .map(|since| ((now - since).whole_minutes().max(0)) as u64)
        });
        if owner::is_stale(parsed.as_ref(), liveness, age, timeout) {
            let old_owner = t.owner.clone().unwrap_or_default();
            if t.interrupt().is_ok() {
                recovered.push((t.issue_number, old_owner));
            }
        }
    }
    if !recovered.is_empty() {
        // the dead runs' worker worktrees
        worktrees::remove_dead(ctx);
    }
    for (issue, old_owner) in recovered {
        crate::run::land::wait_for_orphaned_landing(ctx, issue);
        remove_issue_worktrees(ctx, issue);
        ctx.report(Progress::Recovered {
            issue,
            owner: old_owner,
        });
    }
}

/// The liveness-lock folder of a project.
/// Removes worktrees left by killed runs: those of issues that are not IN_PROGRESS, and
/// worker worktrees of runs that are no longer alive.
fn remove_leftover_worktrees(ctx: &RunContext<'_>, state: &FeatureState) {
    let Ok(rd) = std::fs::read_dir(ctx.worktrees_dir()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if worktrees::is_worker_tree(&name) {
            if worktrees::is_dead_leftover(ctx, &name) {
                ctx.git.remove_worktree(&e.path());
            }
            continue;
        }
        let issue = name
            .strip_prefix("issue-")
            .and_then(|r| r.split('-').next())
            .and_then(|n| n.parse::<u32>().ok());
        let busy = issue
            .and_then(|n| state.task(n))
            .is_some_and(|t| t.stage() == &Stage::InProgress);
        if !busy {
            ctx.git.remove_worktree(&e.path());
        }
    }
}

/// Removes every worktree of `issue` (all attempts) left by a dead run.
pub(crate) fn remove_issue_worktrees(ctx: &RunContext<'_>, issue: u32) {
    let dir = ctx.worktrees_dir();
    let prefix = format!("issue-{issue}-attempt-");
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                ctx.git.remove_worktree(&e.path());
            }
        }
    }
}
