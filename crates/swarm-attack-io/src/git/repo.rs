//! The git operations of `run`, named (the app layer never passes git arguments):
//! worktrees (add / remove / prune), what an agent changed, staging and committing exactly
//! those paths, discarding a worktree's changes, moving a commit onto the branch's tip,
//! fast-forwarding the checked-out branch (and undoing a half-done one), reading commits
//! and diffs.

use super::exec::{self, GitError, Hooks, Invocation};
use crate::ui::Ui;
use std::path::{Path, PathBuf};

mod commit_in_process;
mod replay;
mod worktree;

/// How an agent changed a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

/// One changed path (relative to the worktree root, `/`-separated).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    pub path: String,
    pub kind: ChangeKind,
}

/// What `git status` says: HEAD (None when unborn) and the changed paths, each with
/// whether it is staged.
type Status = (Option<String>, Vec<(bool, Change)>);

/// Git in one repository.
#[derive(Debug, Clone)]
pub struct Git {
    /// The repository's main working tree.
    pub root: PathBuf,
    /// `-c user.name=... -c user.email=...` when the user has no identity configured.
    identity: Vec<String>,
    /// Whether the repository's hooks run during these commands.
    hooks: Hooks,
    /// The repository's shared config (`<common dir>/config`) as it was when the run
    /// started; see [`Git::guard_config`].
    config: Option<std::sync::Arc<(PathBuf, Vec<u8>)>>,
    /// Each worktree's index as [`Git::changes_since`] left it (see
    /// [`Git::commit_changes`]).
    index_stamps: IndexStamps,
    /// Where the restored-config warning goes.
    ui: Ui,
}

type IndexStamps = std::sync::Arc<
    std::sync::Mutex<std::collections::HashMap<PathBuf, commit_in_process::IndexStamp>>,
>;

impl Git {
    /// Git for the repository at `root`. When no commit identity is configured (git would
    /// refuse to commit) the tool's commits use `swarm-attack <swarm-attack@localhost>`;
    /// `fallback_used` tells the caller so it can say so.
    pub fn open(root: &Path, hooks: Hooks, ui: &Ui) -> Result<(Git, bool), GitError> {
        let mut git = Git {
            root: root.to_path_buf(),
            identity: Vec::new(),
            hooks,
            config: None,
            index_stamps: IndexStamps::default(),
            ui: ui.clone(),
        };
        // one process both checks that `root` is in a repository and finds the common dir
        let common = git.run_trim(
            root,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        )?;
        super::remember_common_dir(root, Path::new(&common));
        // the two identities are asked at the same time (each is a process)
        let (author, committer) = std::thread::scope(|s| {
            let author = s.spawn(|| git.run(root, &["var", "GIT_AUTHOR_IDENT"], b"").is_ok());
            let committer = git.run(root, &["var", "GIT_COMMITTER_IDENT"], b"").is_ok();
            (author.join().unwrap_or(false), committer)
        });
        let has_identity = author && committer;
        if !has_identity {
            git.identity = vec![
                "-c".into(),
                "user.name=swarm-attack".into(),
                "-c".into(),
                "user.email=swarm-attack@localhost".into(),
            ];
        }
        git.config = super::common_dir(root).and_then(|d| {
            let path = d.join("config");
            let bytes = std::fs::read(&path).ok()?;
            Some(std::sync::Arc::new((path, bytes)))
        });
        Ok((git, !has_identity))
    }

    /// Puts the shared `.git/config` back as it was when this `Git` was opened, if it
    /// changed: worktrees share it, so an agent could add a filter, merge driver or signing
    /// program there for the tool's next git command to run. Checked before every command
    /// (one small read). Returns whether it was restored.
    pub fn guard_config(&self) -> bool {
        let Some(snapshot) = &self.config else {
            return false;
        };
        let (path, bytes) = &**snapshot;
        if std::fs::read(path).ok().as_deref() == Some(bytes.as_slice()) {
            return false;
        }
        // a plain replace (not `write_atomic`, which masks text): the user's bytes exactly
        let tmp = path.with_extension("swarm-restore");
        let restored = std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, path).is_ok();
        if restored {
            self.ui.warn(format_args!(
                "{} was changed while agents ran (worktrees share it); restored it as it was when the run started",
                path.display()
            ));
        }
        restored
    }

    /// Creates a repository in `root` with `branch` checked out (unborn) and the given
    /// identity in its own config (used by `demo`).
    pub fn init(
        root: &Path,
        branch: &str,
        name: &str,
        email: &str,
        ui: &Ui,
    ) -> Result<Git, GitError> {
        let git = Git {
            root: root.to_path_buf(),
            identity: Vec::new(),
            hooks: Hooks::Off,
            config: None,
            index_stamps: IndexStamps::default(),
            ui: ui.clone(),
        };
        git.run(root, &["init", "-q"], b"")?;
        let head = format!("refs/heads/{branch}");
        git.run(root, &["symbolic-ref", "HEAD", &head], b"")?;
        for (k, v) in [
            ("user.name", name),
            ("user.email", email),
            ("commit.gpgsign", "false"),
        ] {
            git.run(root, &["config", k, v], b"")?;
        }
        Ok(git)
    }

    /// Runs `git <args>` in `dir` with `stdin`; returns stdout (untrimmed).
    fn run(&self, dir: &Path, args: &[&str], stdin: &[u8]) -> Result<String, GitError> {
        self.run_observed(dir, args, stdin, |_| {})
    }

    /// Like [`Git::run`], calling `on_spawn(pid)` once git started.
    fn run_observed(
        &self,
        dir: &Path,
        args: &[&str],
        stdin: &[u8],
        on_spawn: impl FnOnce(u32),
    ) -> Result<String, GitError> {
        self.run_with_env(dir, args, stdin, &[], on_spawn)
    }

    /// Like [`Git::run_observed`], with extra environment variables.
    fn run_with_env(
        &self,
        dir: &Path,
        args: &[&str],
        stdin: &[u8],
        env: &[(String, String)],
        on_spawn: impl FnOnce(u32),
    ) -> Result<String, GitError> {
        self.guard_config();
        let inv = Invocation {
            options: &self.identity,
            stdin,
            hooks: self.hooks,
            env,
            ..Invocation::new(dir, args)
        };
        exec::run(&inv, on_spawn)
    }

    fn run_trim(&self, dir: &Path, args: &[&str]) -> Result<String, GitError> {
        Ok(self.run(dir, args, b"")?.trim().to_string())
    }

    /// The commit checked out in `dir` (`None` on an unborn branch). Read from the
    /// repository's files when they say it plainly (no process), else asked of git.
    pub fn head(&self, dir: &Path) -> Result<Option<String>, GitError> {
        if let Some(id) = super::head::read_head(dir) {
            return Ok(Some(id));
        }
        match self.run_trim(dir, &["rev-parse", "--verify", "-q", "HEAD^{commit}"]) {
            Ok(s) if !s.is_empty() => Ok(Some(s)),
            Ok(_) => Ok(None),
            Err(e) => {
                // `rev-parse --verify -q` fails silently on an unborn HEAD.
                if e.message().starts_with("exit code") {
                    Ok(None)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// The branch checked out in `dir` (`None` when HEAD is detached). Read from the
    /// repository's files when they say it plainly (no process), else asked of git.
    pub fn branch(&self, dir: &Path) -> Option<String> {
        if let Some(branch) = super::head::read_branch(dir) {
            return branch;
        }
        self.run_trim(dir, &["symbolic-ref", "--short", "-q", "HEAD"])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// The paths changed in `dir` since `base` (working tree, untracked files included,
    /// ignored files not). Commits or staging the agent did are first folded back into
    /// plain working-tree changes on `base` (HEAD and index reset, files kept).
    pub fn changes_since(&self, dir: &Path, base: &str) -> Result<Vec<Change>, GitError> {
        let (head, mut changes) = self.status(dir)?;
        let staged = changes.iter().any(|(staged, _)| *staged);
        if head.as_deref() != Some(base) || staged {
            self.reset_to(dir, base)?;
            changes = self.status(dir)?.1;
        }
        self.remember_index(dir);
        let mut out: Vec<Change> = changes.into_iter().map(|(_, c)| c).collect();
        out.sort();
        Ok(out)
    }

    /// `git status` (v2): HEAD and the changed paths, each with whether it is staged.
    fn status(&self, dir: &Path) -> Result<Status, GitError> {
        let out = self.run(
            dir,
            &[
                "status",
                "--porcelain=v2",
                "--branch",
                "-z",
                "--untracked-files=all",
                "--no-renames",
            ],
            b"",
        )?;
        let mut head = None;
        let mut changes = Vec::new();
        for entry in out.split('\0') {
            if let Some(oid) = entry.strip_prefix("# branch.oid ") {
                head = Some(oid.trim().to_string()).filter(|o| o != "(initial)");
            } else if let Some(path) = entry.strip_prefix("? ") {
                let kind = ChangeKind::Created;
                changes.push((
                    false,
                    Change {
                        path: path.to_string(),
                        kind,
                    },
                ));
            } else if let Some(rest) = entry.strip_prefix("1 ") {
                // 1 XY sub mH mI mW hH hI path
                let fields: Vec<&str> = rest.splitn(8, ' ').collect();
                if fields.len() < 8 {
                    continue;
                }
                let xy = fields[0].as_bytes();
                let kind = if xy.contains(&b'D') {
                    ChangeKind::Deleted
                } else if xy[0] == b'A' {
                    ChangeKind::Created
                } else {
                    ChangeKind::Modified
                };
                let path = fields[7].to_string();
                changes.push((xy[0] != b'.', Change { path, kind }));
            } else if let Some(rest) = entry.strip_prefix("u ") {
                // unmerged: u XY sub m1 m2 m3 mW h1 h2 h3 path
                if let Some(path) = rest.splitn(10, ' ').nth(9) {
                    let kind = ChangeKind::Modified;
                    changes.push((
                        true,
                        Change {
                            path: path.to_string(),
                            kind,
                        },
                    ));
                }
            }
        }
        Ok((head, changes))
    }

    /// Moves HEAD and the index of `dir` to `commit`, keeping the working tree (folds any
    /// commits or staging an agent did back into plain working-tree changes).
    pub fn reset_to(&self, dir: &Path, commit: &str) -> Result<(), GitError> {
        self.run(dir, &["reset", "-q", commit], b"").map(|_| ())
    }

    /// Stages exactly `paths` (literal paths; deletions included).
    pub fn stage(&self, dir: &Path, paths: &[String]) -> Result<(), GitError> {
        if paths.is_empty() {
            return Ok(());
        }
        let mut list = Vec::new();
        for p in paths {
            list.extend_from_slice(p.as_bytes());
            list.push(0);
        }
        self.run(
            dir,
            &[
                "--literal-pathspecs",
                "add",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
            ],
            &list,
        )
        .map(|_| ())
    }

    /// Commits what is staged in `dir` with `message`; returns the new commit.
    pub fn commit(&self, dir: &Path, message: &str) -> Result<String, GitError> {
        self.run(dir, &["commit", "-q", "-F", "-"], message.as_bytes())?;
        self.head(dir)?
            .ok_or_else(|| GitError::failed(dir, &["commit"], "no commit after committing"))
    }

    /// Re-applies `commit` (whose parent is `parent`) on top of `onto` (a no-op when `onto`
    /// is its parent); returns the resulting commit, with the commit's author, date and
    /// message. On a conflict the error names the conflicting files. Done in the object
    /// store when it can be (the worktree `dir` is then left as it was, see
    /// module `replay`), else by a cherry-pick inside the worktree `dir`, which a conflict
    /// leaves clean at `onto`.
    pub fn replay_onto(
        &self,
        dir: &Path,
        commit: &str,
        parent: &str,
        onto: &str,
    ) -> Result<String, GitError> {
        match self.replay_in_store(dir, commit, parent, onto) {
            Some(replayed) => replayed,
            None => self.cherry_pick_onto(dir, commit, onto),
        }
    }

    /// Cherry-picks `commit` onto `onto` inside the worktree `dir` (a conflict leaves it
    /// clean at `onto`); returns the new commit. The index is first put back at HEAD: a
    /// commit made in this process left it at the commit's parent (see
    /// [`Git::commit_changes`]), which `checkout` would take for staged changes.
    pub fn cherry_pick_onto(
        &self,
        dir: &Path,
        commit: &str,
        onto: &str,
    ) -> Result<String, GitError> {
        self.sync_index(dir)?;
        self.run(dir, &["checkout", "-q", "--detach", onto], b"")?;
        match self.run(dir, &["cherry-pick", "--allow-empty", commit], b"") {
            Ok(_) => self.head(dir)?.ok_or_else(|| {
                GitError::failed(dir, &["cherry-pick"], "no commit after cherry-pick")
            }),
            Err(e) => {
                let _ = self.run(dir, &["cherry-pick", "--abort"], b"");
                let _ = self.run(dir, &["reset", "-q", "--hard", onto], b"");
                Err(e)
            }
        }
    }

    /// Fast-forwards what is checked out in the main working tree to `commit`. Git refuses
    /// (and changes nothing) when that would overwrite the user's uncommitted changes or
    /// untracked files, or when the branch moved meanwhile. When git fails half-way (e.g. a
    /// ref lock appeared after the work tree was updated), the index and work tree are put
    /// back to the unchanged HEAD, keeping the user's own changes: a failed landing leaves
    /// nothing staged.
    /// `before` is the commit HEAD points to now (the caller just read it).
    /// `on_spawn` gets git's pid (the caller records it in its landing marker, so a crash
    /// mid-landing can tell whether that git still runs).
    pub fn fast_forward(
        &self,
        commit: &str,
        before: &str,
        on_spawn: impl FnOnce(u32),
    ) -> Result<(), GitError> {
        let result = self
            .run_observed(
                &self.root,
                &["merge", "--ff-only", "-q", "--no-edit", commit],
                b"",
                on_spawn,
            )
            .map(|_| ());
        if result.is_err() && self.head(&self.root).ok().flatten().as_deref() == Some(before) {
            // switch the index and work tree from `commit` back to HEAD (a no-op for paths
            // git had not touched yet; the user's other changes are kept)
            let _ = self.run(&self.root, &["read-tree", "-m", "-u", commit, before], b"");
        }
        result
    }

    /// Puts the worktree `dir` back to `commit` exactly: HEAD, index and files, untracked
    /// files removed (ignored ones kept).
    pub fn discard_changes(&self, dir: &Path, commit: &str) -> Result<(), GitError> {
        self.run(dir, &["reset", "-q", "--hard", commit], b"")?;
        self.run(dir, &["clean", "-fdq"], b"").map(|_| ())
    }

    /// The paths that differ between commits `a` and `b`.
    pub fn changed_paths(&self, a: &str, b: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(&self.root, &["diff", "--name-only", "-z", a, b, "--"], b"")?;
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect())
    }

    /// The patch from commit `a` to `b` (no colour, no external diff or text conversion).
    pub fn diff(&self, a: &str, b: &str) -> Result<String, GitError> {
        self.run(
            &self.root,
            &[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                a,
                b,
                "--",
            ],
            b"",
        )
    }

    /// The patch from commit `base` to the working tree of `dir`, for `paths` only (literal
    /// paths, tracked at `base`; no context lines, no colour, no external diff or text
    /// conversion). Empty when `paths` is.
    pub fn diff_worktree(
        &self,
        dir: &Path,
        base: &str,
        paths: &[String],
    ) -> Result<String, GitError> {
        if paths.is_empty() {
            return Ok(String::new());
        }
        let mut args: Vec<&str> = vec![
            "--literal-pathspecs",
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "-U0",
            base,
            "--",
        ];
        args.extend(paths.iter().map(String::as_str));
        self.run(dir, &args, b"")
    }

    /// Keeps `commit` reachable under `refname` (e.g. work that could not land).
    pub fn keep_ref(&self, refname: &str, commit: &str) -> Result<(), GitError> {
        self.run(&self.root, &["update-ref", refname, commit], b"")
            .map(|_| ())
    }

    /// Commits reachable from `rev` whose message contains every one of `needles`
    /// (fixed strings), newest first, as (sha, full message).
    pub fn grep_commits(
        &self,
        rev: &str,
        needles: &[&str],
        any: bool,
    ) -> Result<Vec<(String, String)>, GitError> {
        let mut args: Vec<String> = vec![
            "log".into(),
            "--format=%H%x00%B%x1e".into(),
            "-F".into(),
            "-i".into(),
        ];
        if !any {
            args.push("--all-match".into());
        }
        for n in needles {
            args.push(format!("--grep={n}"));
        }
        args.push(rev.into());
        args.push("--".into());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.run(&self.root, &refs, b"")?;
        Ok(out
            .split('\x1e')
            .filter_map(|rec| {
                let rec = rec.trim_start_matches('\n');
                let (sha, msg) = rec.split_once('\0')?;
                Some((sha.trim().to_string(), msg.to_string()))
            })
            .filter(|(sha, _)| !sha.is_empty())
            .collect())
    }

    /// Which of `paths` were created or changed by a commit in `base..HEAD` of `dir`.
    pub fn paths_changed_since(
        &self,
        dir: &Path,
        base: &str,
        paths: &[String],
    ) -> Result<Vec<String>, GitError> {
        let range = format!("{base}..HEAD");
        let mut args = vec![
            "log",
            "--format=",
            "--name-only",
            "--no-renames",
            &range,
            "--",
        ];
        args.extend(paths.iter().map(String::as_str));
        let out = self.run(dir, &args, b"")?;
        Ok(paths
            .iter()
            .filter(|p| out.lines().any(|l| l.trim() == p.trim_start_matches("./")))
            .cloned()
            .collect())
    }

    /// Whether `ancestor` is an ancestor of (or equal to) `rev`.
    pub fn is_ancestor(&self, ancestor: &str, rev: &str) -> bool {
        self.run(
            &self.root,
            &["merge-base", "--is-ancestor", ancestor, rev],
            b"",
        )
        .is_ok()
    }
}

#[cfg(test)]
mod tests;
