//! The worktree an attempt runs in: created fresh on the checked-out branch's tip (or, for
//! a stacked dependent, on its dependency's commit) and queued for removal when dropped.

use crate::app::run::RunContext;
use crate::error::{CmdResult, CommandError};
use std::path::PathBuf;

/// A worktree queued for removal when dropped (success, failure or error alike); the
/// scheduler removes it after reporting the issue's result.
pub(super) struct WorktreeGuard<'g> {
    ctx: &'g RunContext<'g>,
    pub path: PathBuf,
}

impl Drop for WorktreeGuard<'_> {
    fn drop(&mut self) {
        match self.ctx.pending_removals.lock() {
            Ok(mut v) => v.push(self.path.clone()),
            Err(_) => self.ctx.git.remove_worktree(&self.path),
        }
    }
}

/// A fresh worktree for an attempt, on `start` when given (a stacked dependent's
/// dependency commit), else on the branch's current tip; returns it with the commit it
/// starts from.
pub(super) fn fresh_worktree<'g>(
    ctx: &'g RunContext<'g>,
    issue: u32,
    attempt: u32,
    start: Option<&str>,
) -> CmdResult<(WorktreeGuard<'g>, String)> {
    let git = &ctx.git;
    let base = match start {
        Some(s) => s.to_string(),
        None => git
            .head(&git.root)
            .map_err(|e| CommandError::internal(e.to_string()))?
            .ok_or_else(|| {
                CommandError::input("the repository has no commit yet; commit something first")
            })?,
    };
    let path = ctx.worktree_path(issue, attempt);
    git.add_worktree(&path, &base).map_err(|e| {
        CommandError::internal(format!(
            "could not create the worktree for issue {issue}: {e}"
        ))
    })?;
    Ok((WorktreeGuard { ctx, path }, base))
}
