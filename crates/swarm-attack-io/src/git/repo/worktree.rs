//! The run's worktrees: added (once per worker slot), reset for the next issue, removed,
//! pruned. Adding and removing share a process-wide lock that pruning takes alone.

use super::Git;
use crate::git::exec::GitError;
use std::path::Path;
use std::time::Duration;

/// Keeps this process's `git worktree prune` apart from its worktree adds and removes: a
/// prune running while another thread adds a worktree can delete the new one's admin
/// folder. Adds and removes share the lock (they run concurrently); a prune takes it
/// exclusively.
static WORKTREE_ADMIN: std::sync::RwLock<()> = std::sync::RwLock::new(());

impl Git {
    /// Creates a worktree at `path` with `commit` checked out (detached). A leftover at
    /// `path` is removed first. (Retried once: another process pruning worktrees at the
    /// same moment can make git's `worktree add` fail.)
    pub fn add_worktree(&self, path: &Path, commit: &str) -> Result<(), GitError> {
        let _shared = WORKTREE_ADMIN.read();
        if path.exists() && !self.try_remove_worktree_unlocked(path) {
            let _ = std::fs::remove_dir_all(path);
        }
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let p = path.to_string_lossy();
        let args = ["worktree", "add", "--detach", "-f", "-q", &p, commit];
        match self.run(&self.root, &args, b"") {
            Ok(_) => Ok(()),
            Err(_) => {
                // e.g. another process pruned at the same moment: clean up and retry once
                drop(_shared);
                std::thread::sleep(Duration::from_millis(50));
                if path.exists() {
                    let _ = std::fs::remove_dir_all(path);
                }
                self.prune();
                let _shared = WORKTREE_ADMIN.read();
                self.run(&self.root, &args, b"").map(|_| ())
            }
        }
    }

    /// Reuses the worktree at `path` for new work: every untracked and ignored file is
    /// removed (nested repositories too), then `commit` is checked out detached over
    /// whatever HEAD, index and files the last user left. Only the paths that differ are
    /// written, so this costs what changed, not the size of the tree.
    pub fn reset_worktree(&self, path: &Path, commit: &str) -> Result<(), GitError> {
        if !path.join(".git").is_file() {
            return Err(GitError::failed(path, &["checkout"], "not a worktree"));
        }
        self.run(path, &["clean", "-ffdxq"], b"")?;
        self.run(path, &["checkout", "-q", "-f", "--detach", commit], b"")
            .map(|_| ())
    }

    /// Moves the worktree at `path`, known to be clean (a [`Self::reset_worktree`] left it
    /// so and nothing ran there since), to `commit`: one `checkout`, no `clean` (a clean
    /// tree has nothing untracked or ignored to remove, and the checkout writes only
    /// tracked paths).
    pub fn switch_clean_worktree(&self, path: &Path, commit: &str) -> Result<(), GitError> {
        if !path.join(".git").is_file() {
            return Err(GitError::failed(path, &["checkout"], "not a worktree"));
        }
        self.run(path, &["checkout", "-q", "-f", "--detach", commit], b"")
            .map(|_| ())
    }

    /// Removes the worktree at `path` (best effort: falls back to deleting the folder and
    /// pruning).
    pub fn remove_worktree(&self, path: &Path) {
        if !self.try_remove_worktree(path) {
            let _ = std::fs::remove_dir_all(path);
            self.prune();
        }
    }

    /// `git worktree remove`; whether the folder is gone afterwards.
    fn try_remove_worktree(&self, path: &Path) -> bool {
        let _shared = WORKTREE_ADMIN.read();
        self.try_remove_worktree_unlocked(path)
    }

    fn try_remove_worktree_unlocked(&self, path: &Path) -> bool {
        let p = path.to_string_lossy();
        let removed = self
            .run(
                &self.root,
                &["worktree", "remove", "--force", "--force", &p],
                b"",
            )
            .is_ok();
        removed && !path.exists()
    }

    /// Forgets worktrees whose folders are gone. Nothing to forget (no process started)
    /// when the repository records no linked worktree.
    pub fn prune(&self) {
        let _exclusive = WORKTREE_ADMIN.write();
        if let Some(common) = crate::git::common_dir(&self.root) {
            let none = match std::fs::read_dir(common.join("worktrees")) {
                Err(e) => e.kind() == std::io::ErrorKind::NotFound,
                Ok(mut entries) => entries.next().is_none(),
            };
            if none {
                return;
            }
        }
        let _ = self.run(&self.root, &["worktree", "prune"], b"");
    }
}
