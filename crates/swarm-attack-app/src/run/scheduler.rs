//! The run loop: claim READY issues in dependency order and work on up to `--workers` of
//! them at once (threads, each issue in its own worktree). Whenever an issue finishes, the
//! next claim re-reads the state, so a dependent becomes READY — and is started — the
//! moment its dependencies are DONE. `--issue N` limits the run to one issue,
//! `--max-issues K` to K dispatched issues (issues found already implemented do not count).
//! The circuit breaker stops claiming after K consecutive agent-process failures.

use crate::core::feature_id::FeatureId;
use crate::error::{CmdResult, CommandError};
use crate::io::git::Git;
use crate::io::run_lock::{self, RunLock};
use crate::io::{clock, interrupt};
use crate::project::Project;
use crate::run::claim::{self, ClaimResult};
use crate::run::{
    Breaker, IssueResult, Outcome, Progress, RunContext, RunOptions, RunReport, dry_run, issue,
    record, verify,
};
use std::sync::mpsc;

/// What workers tell the scheduler.
enum Msg {
    /// The worker's work passed verification; its slot may take the next issue.
    SlotFree,
    /// The worker finished its issue.
    Done {
        freed: bool,
        issue: u32,
        owner: String,
        result: CmdResult<IssueResult>,
    },
}

/// Runs the feature's READY issues (docs/run.md "The flow of one issue").
pub fn run(
    project: &Project,
    feature: &FeatureId,
    opts: &RunOptions,
    progress: &(dyn Fn(&Progress) + Sync),
) -> CmdResult<RunReport> {
    if opts.workers == 0 {
        return Err(CommandError::input("--workers must be at least 1"));
    }
    if opts.dry_run {
        return dry_run::plan(project, feature, opts);
    }
    // A feature without state is an input error (exit 2) before anything else.
    if !project.paths.state_file(feature).exists() {
        drop(project.begin(feature)?);
    }
    if let Some(n) = opts.issue
        && let Ok(Some(state)) = project.load_state(feature)
        && state.task(n).is_none()
    {
        let known: Vec<String> = state
            .tasks
            .iter()
            .map(|t| t.issue_number.to_string())
            .collect();
        return Err(
            CommandError::input(format!("feature `{feature}` has no issue {n}"))
                .with_hint(format!("its issues are: {}", known.join(", "))),
        );
    }

    if project.config.agents.is_empty() {
        return Err(CommandError::input(format!(
            "{} has no agents (agents: [])",
            project.config_path.display()
        ))
        .with_hint("add an agent with a name and a command"));
    }
    verify::check_test_command(project)?;
    // setup problems (a missing agent program, no credentials) stop here, exit 2, before
    // any attempt: they never consume a retry
    crate::doctor::preflight(project)?;
    // the `origin` URL (asked before every claim, remembered per process) is read while the
    // repository is opened: one process less on the way to the first agent
    let opened = std::thread::scope(|s| {
        s.spawn(|| crate::io::git::origin_url(&project.root));
        Git::open(
            &project.root,
            crate::io::git::Hooks::from_config(project.config.git.run_hooks),
            &project.ui,
        )
    });
    let (git, fallback_identity) = opened.map_err(|e| {
        CommandError::input(format!(
            "{} is not a git repository ({})",
            project.root.display(),
            e.message()
        ))
        .with_hint("run swarm-attack inside a git repository (or pass -p DIR)")
    })?;
    if git.head(&project.root)?.is_none() {
        return Err(CommandError::input(
            "the repository has no commit yet; agents work in worktrees of the checked-out commit",
        )
        .with_hint("make a first commit, then run again"));
    }
    // crash leftovers: before any agent runs, stale git locks are removed (a held one stops
    // the run, exit 3, naming it)
    let cleared = clear_stale_git_locks(project)?;
    let session = clock::session_id().to_string();
    let run_lock = RunLock::acquire(&project.paths.locks_dir(), &session)?;
    interrupt::install(&project.ui);
    git.prune();
    let branch = git.branch(&project.root);
    let ctx = RunContext {
        project,
        feature: feature.clone(),
        git,
        host: run_lock::hostname(),
        session,
        breaker: Breaker::new(project.config.sessions.max_consecutive_agent_failures),
        progress,
        run_lock,
        pending_removals: Default::default(),
        idle_worktrees: Default::default(),
        worktrees_made: Default::default(),
        gated: Default::default(),
        governor: crate::run::governor::Governor::new(&project.config.governor, opts.workers),
    };
    for lock in cleared {
        ctx.report(Progress::Notice(format!(
            "removed the stale git lock {} (left by a crashed git; no git process holds it)",
            project.paths.display(&lock)
        )));
    }
    if fallback_identity {
        ctx.report(Progress::Notice(
            "no git identity is configured; commits are made as `swarm-attack <swarm-attack@localhost>`".into(),
        ));
    }
    ctx.report(Progress::Started {
        branch: branch.clone(),
        workers: opts.workers,
    });
    let mut report = RunReport {
        feature: feature.to_string(),
        branch,
        ..Default::default()
    };
    let error = schedule(&ctx, opts, &mut report);
    crate::run::worktrees::remove_all(&ctx);
    report.breaker = ctx.breaker.tripped();
    let _ = &ctx.run_lock;
    if let Some(e) = error {
        return Err(e);
    }
    // the run's closing transaction (nothing left to append), mirrored to GitHub
    project.append_events(feature, &[], opts.mirror_at_end)?;
    Ok(report)
}

/// Removes the repository's stale git lock files ([`crate::io::git::locks::clear_stale`]);
/// returns them. A lock a live git may hold is an error (exit 3) naming it.
fn clear_stale_git_locks(project: &Project) -> CmdResult<Vec<std::path::PathBuf>> {
    use crate::io::git::locks;
    let Some(git_dir) = crate::io::git::common_dir(&project.root) else {
        return Ok(Vec::new());
    };
    locks::clear_stale(&project.root, &git_dir, locks::STALE_AFTER).map_err(|held| {
        let message = format!(
            "{} is held by a running git (pid {}); no agent was started",
            project.paths.display(&held.path),
            held.pid
        );
        CommandError::from(held).with_message(message)
    })
}

/// The loop. Returns the first unexpected error (after every worker stopped).
fn schedule(
    ctx: &RunContext<'_>,
    opts: &RunOptions,
    report: &mut RunReport,
) -> Option<CommandError> {
    let budget = opts.max_issues.map(|k| k as i64);
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut error: Option<CommandError> = None;
    let mut first_nothing: Option<String> = None;
    std::thread::scope(|scope| {
        // `running`: workers holding a slot (their agent or tests may be running);
        // `outstanding`: workers that have not reported yet (a worker gives its slot back
        // once its work passed verification: landing is short and serialised anyway).
        let mut running = 0u32;
        let mut outstanding = 0u32;
        let mut dispatched: i64 = 0;
        let mut first = true;
        // `--issue N` was rate-limited: it is claimed once more after the back-off
        let mut again = false;
        loop {
            // Fill the free workers (as many as the governor allows; none while it pauses).
            let pause = ctx.governor.pause_left();
            while error.is_none()
                && pause.is_none()
                && running < opts.workers.min(ctx.governor.workers())
                && ctx.breaker.tripped().is_none()
                && budget.is_none_or(|b| dispatched < b)
                && (opts.issue.is_none() || first || again)
            {
                again = false;
                match claim::claim_next(ctx, opts.issue, first) {
                    Ok(ClaimResult::Claimed(c)) => {
                        first = false;
                        running += 1;
                        outstanding += 1;
                        dispatched += 1;
                        let tx = tx.clone();
                        scope.spawn(move || {
                            let freed = std::cell::Cell::new(false);
                            let free = || {
                                if !freed.replace(true) {
                                    let _ = tx.send(Msg::SlotFree);
                                }
                            };
                            // a worker that panics (for any reason) still reports: its
                            // issue is released (INTERRUPTED) and the run ends with an
                            // error, instead of the scheduler waiting for it forever
                            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                crate::io::test_hooks::panic_if_asked("worker");
                                issue::work(ctx, &c, &free)
                            }))
                            .unwrap_or_else(|p| Err(panicked(c.issue, p.as_ref())));
                            let _ = tx.send(Msg::Done {
                                freed: freed.get(),
                                issue: c.issue,
                                owner: c.owner.clone(),
                                result: r,
                            });
                            ctx.remove_pending_worktrees();
                        });
                    }
                    Ok(ClaimResult::Held {
                        issue,
                        title,
                        reason,
                    }) => {
                        // held by the specify gate: a BLOCKED result, no attempt
                        first = false;
                        let res = IssueResult {
                            issue,
                            title,
                            attempts: 0,
                            cost_usd: None,
                            outcome: Outcome::Blocked { reason },
                        };
                        ctx.report(Progress::Finished(res.clone()));
                        report.results.push(res);
                        if opts.issue.is_some() {
                            break;
                        }
                    }
                    Ok(ClaimResult::Nothing(why)) => {
                        if first {
                            first_nothing = Some(why);
                        }
                        first = false;
                        break;
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            let paused = pause.is_some() && ctx.breaker.tripped().is_none() && error.is_none();
            if outstanding == 0 && !paused {
                break;
            }
            let msg = match pause {
                // the shared back-off: claim again once it is over
                Some(d) if paused => match rx.recv_timeout(d) {
                    Ok(m) => m,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                },
                _ => match rx.recv() {
                    Ok(m) => m,
                    Err(_) => break,
                },
            };
            let Msg::Done {
                freed,
                issue,
                owner,
                result,
            } = msg
            else {
                running -= 1;
                continue;
            };
            outstanding -= 1;
            if !freed {
                running -= 1;
            }
            match result {
                Ok(res) if matches!(res.outcome, Outcome::RateLimited { .. }) => {
                    // READY again: dispatched anew after the back-off (not a result yet)
                    dispatched -= 1;
                    again = opts.issue.is_some();
                }
                Ok(res) if matches!(res.outcome, Outcome::Deferred { .. }) => {
                    // BACKLOG behind a dependency: claimed again once it is READY
                    dispatched -= 1;
                }
                Ok(res) => {
                    if matches!(res.outcome, Outcome::AlreadyImplemented { .. }) {
                        dispatched -= 1;
                    }
                    ctx.report(Progress::Finished(res.clone()));
                    report.results.push(res);
                }
                Err(e) => {
                    record::release_after_error(ctx, issue, &owner, &e.message);
                    if error.is_none() {
                        error = Some(e);
                    }
                }
            }
        }
    });
    if report.results.is_empty() && error.is_none() {
        report.nothing_to_do = Some(first_nothing.unwrap_or_else(|| "nothing to do".into()));
    }
    error
}

/// The error of a worker that panicked on `issue`.
fn panicked(issue: u32, payload: &(dyn std::any::Any + Send)) -> CommandError {
    let why = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    CommandError::internal(format!(
        "the worker on issue #{issue} stopped on an internal error ({why}); the issue is INTERRUPTED and the next `swarm-attack run` retries it"
    ))
}

#[cfg(test)]
mod tests {
    use crate::run::Breaker;

    #[test]
    fn breaker_trips_after_consecutive_failures_and_resets() {
        let b = Breaker::new(3);
        b.record(Some("x"));
        b.record(Some("x"));
        b.record(None);
        b.record(Some("x"));
        b.record(Some("x"));
        assert!(b.tripped().is_none());
        b.record(Some("not logged in"));
        let msg = b.tripped().unwrap();
        assert!(msg.contains("3 consecutive") && msg.contains("not logged in"));
        let off = Breaker::new(0);
        for _ in 0..10 {
            off.record(Some("x"));
        }
        assert!(off.tripped().is_none());
    }
}
