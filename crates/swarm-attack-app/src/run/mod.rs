//! `run <feature>` (docs/run.md "The flow of one issue"): turns READY issues into verified commits.
//!
//! The flow per issue: claim (under the feature lock: sync, recover stale claims, mark the
//! task IN_PROGRESS with this run as owner) → unlock → duplicate checks → coordination →
//! prompt → agent in a clean worktree (the worker's, reset to the base) → verification → commit in the worktree → lock →
//! land the commit on the checked-out branch and record DONE → unlock. Failures retry with
//! the failure fed back, then BLOCKED. The feature lock is never held while an agent or a
//! test command runs, so `status` and other commands never wait for minutes.
//!
//! Modules: `scheduler` (the loop, `--workers`), `claim` (taking a task, stale-owner
//! recovery), `issue` (one issue from claim to DONE/BLOCKED), `failure` (a failed
//! attempt: analysis, then retry or BLOCKED), `attempt` (one candidate agent in one
//! worktree — the unit a two-agent mode runs twice), `modes` (PARALLEL and SYNTHESIS),
//! `stop` (stopping a candidate), `duplicate`, `verify`, `land`, `record` (state
//! changes under the lock), `governor` (rate limits: the shared back-off), `worktrees`
//! (one reused worktree per worker), [`dry_run`].

pub(crate) mod attempt;
pub(crate) mod budget_gate;
pub(crate) mod claim;
pub(crate) mod done;
pub mod dry_run;
pub(crate) mod duplicate;
pub(crate) mod failure;
pub(crate) mod governor;
pub(crate) mod integrity;
pub(crate) mod issue;
pub(crate) mod land;
pub(crate) mod land_pr;
pub(crate) mod modes;
pub(crate) mod record;
pub(crate) mod review;
pub(crate) mod scheduler;
pub(crate) mod stack;
pub(crate) mod stop;
pub(crate) mod verify;
pub(crate) mod worktrees;

use crate::core::feature_id::FeatureId;
use crate::io::git::Git;
use crate::io::run_lock::RunLock;
use crate::project::Project;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

pub use scheduler::run;

/// What `run` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only this issue.
    pub issue: Option<u32>,
    /// At most this many issues dispatched to agents.
    pub max_issues: Option<u32>,
    /// Independent issues run at once (≥ 1).
    pub workers: u32,
    /// Print what would run; write nothing.
    pub dry_run: bool,
    /// Mirror the feature to GitHub when the run ends (the `run` command; the Action syncs
    /// by itself). A claimed linked issue is mirrored either way.
    pub mirror_at_end: bool,
}

/// How one issue ended in this run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Implemented, verified, committed and landed.
    Done {
        commit: String,
        files_created: Vec<String>,
        files_modified: Vec<String>,
        tests_passed: Option<u64>,
    },
    /// Verified and pushed as a pull request (`git.landing: pr`); DONE once it is merged.
    InReview {
        pr: u64,
        branch: String,
        commit: String,
        /// The branch's open pull request already existed and was updated.
        reused: bool,
    },
    /// Found already implemented before dispatch (`check` is `git`, `tests` or `files`).
    AlreadyImplemented {
        check: String,
        detail: String,
        commit: Option<String>,
    },
    /// Retries exhausted (or escalated, or the work could not land).
    Blocked { reason: String },
    /// The failure analysis recommended skipping it.
    Skipped { reason: String },
    /// Stopped by the circuit breaker (back to READY, retries kept).
    Stopped { reason: String },
    /// The agent was rate-limited: back to READY (no retry used), dispatched again after
    /// the shared back-off. Not a final result: the scheduler re-queues the issue.
    RateLimited {
        agent: String,
        retry_after_ms: u64,
        workers: u32,
    },
    /// Another run took it over (this run had been considered dead); nothing recorded.
    Lost { reason: String },
    /// The failure analysis found a missing dependency
    /// (docs/run.md "After a failure: classes, analysis, fallback"): back to BACKLOG behind
    /// `depends_on`, no retry used. Not a final result: the scheduler claims it again once it is
    /// READY.
    Deferred { depends_on: u32, reason: String },
}

/// One issue's result in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IssueResult {
    pub issue: u32,
    pub title: String,
    /// Attempts started by this run.
    pub attempts: u32,
    pub cost_usd: Option<f64>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunReport {
    pub feature: String,
    /// The branch results landed on (`None`: detached HEAD).
    pub branch: Option<String>,
    pub results: Vec<IssueResult>,
    /// Set when there was nothing to do, saying why.
    pub nothing_to_do: Option<String>,
    /// Set when the circuit breaker stopped the run.
    pub breaker: Option<String>,
    /// The plan of a dry run.
    pub plan: Option<dry_run::Plan>,
}

impl RunReport {
    /// Whether any issue ended BLOCKED.
    pub fn any_blocked(&self) -> bool {
        self.results
            .iter()
            .any(|r| matches!(r.outcome, Outcome::Blocked { .. }))
    }
}

/// Progress reported while running (the CLI prints it).
#[derive(Debug, Clone)]
pub enum Progress {
    Started {
        branch: Option<String>,
        workers: u32,
    },
    Claimed {
        issue: u32,
        title: String,
        attempt: u32,
        resumed: bool,
        /// The issue's dependencies (its start is shown after their end).
        dependencies: Vec<u32>,
    },
    Recovered {
        issue: u32,
        owner: String,
    },
    AgentStarted {
        issue: u32,
        agent: String,
        mode: String,
        attempt: u32,
    },
    AttemptFailed {
        issue: u32,
        attempt: u32,
        reason: String,
        retrying: bool,
    },
    Finished(IssueResult),
    /// The issue's agent was rate-limited: READY again, every worker waits.
    RateLimited {
        issue: u32,
        agent: String,
        retry_after_ms: u64,
        workers: u32,
    },
    Notice(String),
    /// The issue's work moved to another phase: `tests` (verification) or `landing`.
    Phase {
        issue: u32,
        phase: &'static str,
    },
}

/// The circuit breaker: consecutive agent-process failures (spawn failure, crash, non-zero
/// exit, timeout, an error reported in the agent's JSON) across the whole run. An agent
/// process that ends normally resets it; test failures do not count.
#[derive(Debug, Default)]
pub(crate) struct Breaker {
    limit: u32,
    consecutive: AtomicU32,
    tripped: Mutex<Option<String>>,
    /// Tripped by a setup problem (the agent's program vanished): the failed issue goes
    /// back to READY without using a retry.
    setup: std::sync::atomic::AtomicBool,
}

impl Breaker {
    pub(crate) fn new(limit: u32) -> Self {
        Breaker {
            limit,
            ..Default::default()
        }
    }

    /// Records an agent process's result (`Some(reason)`: it failed).
    pub(crate) fn record(&self, failure: Option<&str>) {
        match failure {
            None => self.consecutive.store(0, Ordering::SeqCst),
            Some(reason) => {
                let n = self.consecutive.fetch_add(1, Ordering::SeqCst) + 1;
                if self.limit > 0
                    && n >= self.limit
                    && let Ok(mut t) = self.tripped.lock()
                    && t.is_none()
                {
                    *t = Some(format!(
                        "stopped after {n} consecutive agent failures (sessions.max_consecutive_agent_failures = {}); last: {reason}",
                        self.limit
                    ));
                }
            }
        }
    }

    /// Stops the run now (e.g. a feature budget was reached), with this message.
    pub(crate) fn trip(&self, reason: String) {
        if let Ok(mut t) = self.tripped.lock()
            && t.is_none()
        {
            *t = Some(reason);
        }
    }

    /// Stops the run at once: every agent of an attempt failed for a setup cause (e.g. its
    /// program vanished), so retrying this or other issues cannot help.
    pub(crate) fn trip_setup(&self, reason: &str) {
        self.setup.store(true, Ordering::SeqCst);
        if let Ok(mut t) = self.tripped.lock()
            && t.is_none()
        {
            *t = Some(format!("setup problem: {reason}"));
        }
    }

    /// Whether a setup problem tripped the breaker.
    pub(crate) fn setup_problem(&self) -> bool {
        self.setup.load(Ordering::SeqCst)
    }

    /// The message when tripped.
    pub(crate) fn tripped(&self) -> Option<String> {
        self.tripped.lock().ok().and_then(|t| t.clone())
    }
}

/// Everything the workers of one run share.
pub(crate) struct RunContext<'p> {
    pub project: &'p Project,
    pub feature: FeatureId,
    pub git: Git,
    /// This run's owner identity (written into claimed tasks).
    pub host: String,
    pub session: String,
    pub breaker: Breaker,
    pub progress: &'p (dyn Fn(&Progress) + Sync),
    /// Held for the run's life: tells other runs this one is alive.
    pub run_lock: RunLock,
    /// Worktrees to remove once the issue's result is reported (off the critical path).
    pub pending_removals: Mutex<Vec<PathBuf>>,
    /// The workers' worktrees not in use now (see [`worktrees`]), each maybe being reset
    /// in the background: the next issue takes one instead of adding a worktree; all are
    /// removed when the run ends.
    pub idle_worktrees: Mutex<Vec<worktrees::IdleTree>>,
    /// How many worker worktrees this run created (names them).
    pub worktrees_made: AtomicU32,
    /// Issues the supersession gate held back in this run (an open pull request links
    /// them): their `duplicate_detected{pr}` is recorded once per run.
    pub gated: Mutex<std::collections::BTreeSet<u32>>,
    /// The shared rate-limit back-off.
    pub governor: governor::Governor,
}

impl RunContext<'_> {
    pub(crate) fn report(&self, p: Progress) {
        (self.progress)(&p)
    }

    /// The owner string for a claim made now.
    pub(crate) fn owner_now(&self) -> String {
        crate::core::owner::Owner {
            pid: std::process::id(),
            host: self.host.clone(),
            since: crate::io::clock::now_rfc3339(),
            session: Some(self.session.clone()),
        }
        .format()
    }

    /// The folder that holds this feature's worktrees.
    pub(crate) fn worktrees_dir(&self) -> PathBuf {
        let root = PathBuf::from(&self.project.config.git.worktrees_root);
        let base = if root.is_absolute() {
            root
        } else {
            self.project.root.join(root)
        };
        base.join(&self.feature)
    }

    /// Removes the worktrees queued by finished attempts.
    pub(crate) fn remove_pending_worktrees(&self) {
        self.remove_worktrees_in(&self.pending_removals);
    }

    /// Removes (and forgets) every worktree listed in `list`.
    pub(crate) fn remove_worktrees_in(&self, list: &Mutex<Vec<PathBuf>>) {
        let paths: Vec<PathBuf> = list
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        for p in paths {
            self.git.remove_worktree(&p);
        }
    }

    /// The worktree path of one attempt (PARALLEL's runner-up worktrees are named after
    /// it; the primary works in a worker worktree, see [`worktrees`]).
    pub(crate) fn worktree_path(&self, issue: u32, attempt: u32) -> PathBuf {
        self.worktrees_dir()
            .join(format!("issue-{issue}-attempt-{attempt}"))
    }
}

/// Paths the tool owns, or an agent CLI keeps for itself (its history and caches): never
/// committed.
pub(crate) fn is_tool_path(path: &str) -> bool {
    path == ".swarm"
        || path.starts_with(".swarm/")
        || crate::core::agent_preset::is_agent_scratch_path(path)
}

#[cfg(test)]
mod tool_path_tests {
    use super::*;

    #[test]
    fn tool_paths() {
        assert!(is_tool_path(".swarm/state/x.json"));
        assert!(!is_tool_path(".swarmy/x"));
    }
}
