//! The worker worktrees of a run: one per busy worker, reused from issue to issue. An
//! issue hands its worktree back as soon as its commit passed verification and its summary
//! read the files, before it lands (the landing works in git's object store), so with one
//! worker the next issue resets the same worktree while the last one lands; a landing that
//! must cherry-pick (hooks on, a signed commit, an older git) takes one for itself.
//!
//! A worktree is reset (`git clean -ffdx`, then `git checkout -f --detach <commit>`): only
//! the paths that differ are written, so a big tree costs nothing per issue, and nothing of
//! the previous agent's work (files, untracked or ignored, HEAD, index, a branch it
//! created) is left. A worktree handed back is reset at once, in the background, to the
//! commit its HEAD names (the issue's own commit, which the landing usually fast-forwards
//! the branch to), while the issue lands and the next one is claimed: the next issue
//! takes it as it is when that commit is its base, and otherwise moves it to its base with
//! one `checkout` (it is known clean: no `clean` needed) (issue 19: the reset's two passes
//! over the tree were on every issue's critical path). A worktree whose HEAD is not where
//! the next user will start — `fail_before`'s scratch tree, at the attempt's start commit —
//! is handed back at the commit the next user is expected to start from
//! ([`WorkerTree::hand_back_at`]: the attempt's own commit).
//! Only when none is idle is one added (`<worktrees>/<feature>/worker-<session>-<n>`); a
//! reset that fails falls back to removing and adding it again. When the run ends they
//! are all removed (after their background resets finished).
//!
//! Crash safety: the session in the name says which run made a worktree; a later run
//! removes those whose run is no longer alive (its liveness lock is free), never those
//! of a live run (see [`is_dead_leftover`]). Git itself only ever sees `clean`,
//! `checkout`, `worktree add` and `worktree remove`, each in its own process group, so a
//! `kill -9` of `run` leaves at worst a worktree of a dead run, removed by the next one.

use crate::core::owner::{Liveness, Owner};
use crate::error::{CmdResult, CommandError};
use crate::io::run_lock;
use crate::run::RunContext;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

const PREFIX: &str = "worker-";

/// A worker worktree in use; back to the idle ones when dropped (success, failure or
/// error alike: the next user resets it).
pub(crate) struct WorkerTree<'g> {
    ctx: &'g RunContext<'g>,
    pub path: PathBuf,
    /// Where the background reset goes when handed back; `None`: the commit HEAD names.
    back_at: Option<String>,
}

impl WorkerTree<'_> {
    /// Hands the worktree back, reset in the background to `commit` (where its next user
    /// is expected to start) instead of to its HEAD.
    pub(crate) fn hand_back_at(mut self, commit: &str) {
        self.back_at = Some(commit.to_string());
    }
}

impl Drop for WorkerTree<'_> {
    fn drop(&mut self) {
        let idle = IdleTree {
            path: self.path.clone(),
            resetting: reset_in_background(self.ctx, &self.path, self.back_at.take()),
        };
        match self.ctx.idle_worktrees.lock() {
            Ok(mut v) => v.push(idle),
            Err(_) => {
                idle.settle();
                self.ctx.git.remove_worktree(&self.path);
            }
        }
    }
}

/// A worker worktree no issue uses now.
pub(crate) struct IdleTree {
    path: PathBuf,
    /// The background reset to the commit HEAD named when the worktree was handed back;
    /// it yields that commit when the reset succeeded.
    resetting: Option<JoinHandle<Option<String>>>,
}

impl IdleTree {
    /// Waits for the background reset; the commit the worktree is now clean at, if any.
    fn settle(self) -> (PathBuf, Option<String>) {
        let at = self.resetting.and_then(|h| h.join().ok().flatten());
        (self.path, at)
    }
}

/// Starts resetting the worktree at `path` to `to`, else to the commit its HEAD names
/// (`None` when no thread could be started: the next user resets it then).
fn reset_in_background(
    ctx: &RunContext<'_>,
    path: &Path,
    to: Option<String>,
) -> Option<JoinHandle<Option<String>>> {
    let git = ctx.git.clone();
    let path = path.to_path_buf();
    std::thread::Builder::new()
        .name("worktree-reset".into())
        .spawn(move || {
            let at = match to {
                Some(c) => c,
                None => git.head(&path).ok().flatten()?,
            };
            git.reset_worktree(&path, &at).ok().map(|_| at)
        })
        .ok()
}

impl AsRef<Path> for WorkerTree<'_> {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// A worktree at `base` for an issue: an idle one (as it is when its background reset
/// left it clean at `base`; moved to `base` by one checkout when it left it clean
/// elsewhere; else reset to `base`), else a new one.
pub(crate) fn take<'g>(
    ctx: &'g RunContext<'g>,
    issue: u32,
    base: &str,
) -> CmdResult<WorkerTree<'g>> {
    let idle = ctx.idle_worktrees.lock().ok().and_then(|mut v| v.pop());
    let (path, clean_at) = match idle {
        Some(idle) => idle.settle(),
        None => {
            let n = ctx.worktrees_made.fetch_add(1, Ordering::SeqCst) + 1;
            let path = ctx
                .worktrees_dir()
                .join(format!("{PREFIX}{}-{n}", ctx.session));
            (path, None)
        }
    };
    let tree = WorkerTree {
        ctx,
        path,
        back_at: None,
    };
    match clean_at {
        Some(at) if at == base => {}
        Some(_) if ctx.git.switch_clean_worktree(&tree.path, base).is_ok() => {}
        _ => reset(ctx, &tree.path, issue, base)?,
    }
    Ok(tree)
}

/// Puts the worktree at `path` (existing or not) at `base`, clean.
pub(crate) fn reset(ctx: &RunContext<'_>, path: &Path, issue: u32, base: &str) -> CmdResult<()> {
    if path.exists() && ctx.git.reset_worktree(path, base).is_ok() {
        return Ok(());
    }
    ctx.git.add_worktree(path, base).map_err(|e| {
        let message = format!("could not create the worktree for issue {issue}: {e}");
        CommandError::from(e).with_message(message)
    })
}

/// Removes this run's worker worktrees (the run ends).
pub(crate) fn remove_all(ctx: &RunContext<'_>) {
    let idle: Vec<IdleTree> = ctx
        .idle_worktrees
        .lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default();
    for tree in idle {
        let (path, _) = tree.settle();
        ctx.git.remove_worktree(&path);
    }
}

/// The session of a worker worktree's folder name (`worker-<session>-<n>`).
fn session_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(PREFIX)?;
    let (session, n) = rest.rsplit_once('-')?;
    n.parse::<u32>().ok()?;
    Some(session)
}

/// Whether the folder `name` in the worktrees folder is a worker worktree.
pub(crate) fn is_worker_tree(name: &str) -> bool {
    session_of(name).is_some()
}

/// Whether `name` is a worker worktree left by a run that is no longer alive (this run's
/// and live runs' are not).
pub(crate) fn is_dead_leftover(ctx: &RunContext<'_>, name: &str) -> bool {
    let Some(session) = session_of(name) else {
        return false;
    };
    if session == ctx.session {
        return false;
    }
    // the session is `<time>-<pid>`: the liveness lock decides, the pid when it is gone
    let pid = session
        .rsplit_once('-')
        .and_then(|(_, p)| p.parse::<u32>().ok())
        .unwrap_or(0);
    let owner = Owner {
        pid,
        host: ctx.host.clone(),
        since: String::new(),
        session: Some(session.to_string()),
    };
    let locks = ctx.project.paths.locks_dir();
    run_lock::liveness(&locks, &owner, &ctx.host) == Liveness::Dead
}

/// Removes the worker worktrees of runs that are no longer alive.
pub(crate) fn remove_dead(ctx: &RunContext<'_>) {
    let Ok(rd) = std::fs::read_dir(ctx.worktrees_dir()) else {
        return;
    };
    for e in rd.flatten() {
        if is_dead_leftover(ctx, &e.file_name().to_string_lossy()) {
            ctx.git.remove_worktree(&e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_tree_names_carry_the_session() {
        assert_eq!(
            session_of("worker-20260102T030405Z-4242-3"),
            Some("20260102T030405Z-4242")
        );
        assert!(is_worker_tree("worker-x-1"));
        assert!(!is_worker_tree("worker-x-y"));
        assert!(!is_worker_tree("issue-1-attempt-1"));
        assert!(!is_worker_tree("worker-1"));
    }
}
