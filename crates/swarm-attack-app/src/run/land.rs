//! Where work lands (docs/run.md "Where work lands"): on the branch checked out in the repository,
//! in dependency order.
//!
//! The agent's commit is made in its worktree, on the commit the worktree started from.
//! Landing (done while holding the feature lock, so landings of one feature are serial):
//!
//! 1. the commit is replayed onto the current tip of the checked-out branch, if the tip
//!    moved since the worktree was created (in git's object store, else cherry-picked
//!    inside the worktree; see [`crate::io::git::Git::replay_onto`]) — a conflict is
//!    reported and the attempt is retried from a clean worktree; the user's tree is never
//!    touched by a conflict;
//! 2. the checked-out branch is fast-forwarded to it (`git merge --ff-only`). git refuses,
//!    and changes nothing, if that would overwrite the user's uncommitted changes or
//!    untracked files; other uncommitted work (staged or not) is kept as it is. Then the
//!    commit is kept under `refs/swarm/<feature>/issue-<N>` and the issue is BLOCKED with a
//!    reason that says how to land it by hand.
//!
//! Crash safety: the fast-forward runs in its own process group, so killing `run` never
//! interrupts it half-way. Its pid is written to `.swarm/runs/<feature>/issue-<N>/landing.json`
//! first; a run that recovers the issue waits for that git process to end before it checks
//! the branch for the issue's commit (see [`wait_for_orphaned_landing`]). The marker is
//! removed once DONE is recorded.
//!
//! A dependent issue is only claimed after its dependencies landed, so its worktree starts
//! from a tip that contains them: results land in dependency order.

use crate::error::{CmdResult, CommandError};
use crate::io::git::GitError;
use crate::io::run_lock;
use crate::run::RunContext;
use crate::run::attempt::Failed;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What landing did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Landed {
    /// On the branch as this commit.
    OnBranch { commit: String },
    /// The change conflicts with work that landed meanwhile (retry from a clean worktree).
    Conflict(String),
    /// git refused to update the user's working tree; the commit is kept under `keep_ref`.
    Refused {
        message: String,
        keep_ref: String,
        commit: String,
    },
}

/// Takes a worktree of the run put at the given commit (held until the box is dropped).
pub(crate) type TakeTree<'a> = dyn Fn(&str) -> CmdResult<Box<dyn AsRef<Path> + 'a>> + 'a;

/// Where a replay that must cherry-pick works (see [`crate::io::git::Git::replay_onto`]).
pub(crate) enum PickIn<'a> {
    /// The commit's own worktree, still held.
    Held(&'a Path),
    /// A worktree of the run, taken only when needed and put at the given commit (the
    /// commit's own was handed back to the run).
    Take(&'a TakeTree<'a>),
}

/// Lands `commit` (made on `parent`) on the checked-out branch. The caller holds the feature
/// lock.
pub(crate) fn land(
    ctx: &RunContext<'_>,
    worktree: PickIn<'_>,
    commit: &str,
    parent: &str,
    issue: u32,
) -> CmdResult<Landed> {
    let git = &ctx.git;
    let mut last_error = String::new();
    for _ in 0..5 {
        let tip = git
            .head(&git.root)?
            .ok_or_else(|| CommandError::internal("the repository's branch has no commit"))?;
        let replayed = match replay(ctx, &worktree, commit, parent, &tip)? {
            Ok(c) => c,
            Err(e) => return Ok(Landed::Conflict(first_lines(&e.message(), 6))),
        };
        let marker = landing_marker(ctx, issue);
        let ff = git.fast_forward(&replayed, &tip, |pid| {
            if let Some(d) = marker.parent() {
                let _ = std::fs::create_dir_all(d);
            }
            let body = serde_json::json!({"pid": pid, "commit": replayed});
            let _ = std::fs::write(&marker, body.to_string());
        });
        match ff {
            Ok(()) => return Ok(Landed::OnBranch { commit: replayed }),
            Err(e) => {
                last_error = e.message();
                let now = git.head(&git.root).ok().flatten();
                if now.as_deref() != Some(tip.as_str()) {
                    // the branch moved under us (another tool or the user): replay again
                    continue;
                }
                let keep_ref = format!("refs/swarm/{}/issue-{issue}", ctx.feature);
                git.keep_ref(&keep_ref, &replayed)?;
                return Ok(Landed::Refused {
                    message: first_lines(&e.message(), 6),
                    keep_ref,
                    commit: replayed,
                });
            }
        }
    }
    Err(CommandError::internal(format!(
        "the branch kept moving while issue {issue} was landing: {last_error}"
    )))
}

/// `commit` replayed onto `onto` (see [`crate::io::git::Git::replay_onto`]); a worktree is
/// taken only when the object store cannot do it.
fn replay(
    ctx: &RunContext<'_>,
    worktree: &PickIn<'_>,
    commit: &str,
    parent: &str,
    onto: &str,
) -> CmdResult<Result<String, GitError>> {
    let git = &ctx.git;
    let take = match worktree {
        PickIn::Held(dir) => return Ok(git.replay_onto(dir, commit, parent, onto)),
        PickIn::Take(take) => take,
    };
    if let Some(replayed) = git.replay_in_store(&git.root, commit, parent, onto) {
        return Ok(replayed);
    }
    let wt = take(onto)?;
    Ok(git.cherry_pick_onto((*wt).as_ref(), commit, onto))
}

/// The landing marker of an issue.
pub(crate) fn landing_marker(ctx: &RunContext<'_>, issue: u32) -> PathBuf {
    ctx.project.paths.landing_marker(&ctx.feature, issue)
}

/// Removes the landing marker (after DONE was recorded).
pub(crate) fn clear_landing_marker(ctx: &RunContext<'_>, issue: u32) {
    let _ = std::fs::remove_file(landing_marker(ctx, issue));
}

/// A recovering run: if a dead run left a landing in flight for `issue`, waits (up to a
/// minute) for that git process to finish, so the branch shows whether it landed.
pub(crate) fn wait_for_orphaned_landing(ctx: &RunContext<'_>, issue: u32) {
    let marker = landing_marker(ctx, issue);
    let Ok(text) = std::fs::read_to_string(&marker) else {
        return;
    };
    if let Some(pid) = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("pid").and_then(serde_json::Value::as_u64))
    {
        run_lock::wait_until_gone(pid as u32, Duration::from_secs(60));
    }
    let _ = std::fs::remove_file(&marker);
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The failure of an attempt whose verified change could not land: it conflicts with work
/// that landed meanwhile (the next attempt starts from the new tip).
pub(super) fn conflict_failure() -> Failed {
    Failed::plain(
        "the change conflicts with work that landed meanwhile",
        crate::core::failure_class::Facts {
            conflict: true,
            ..Default::default()
        },
    )
}
