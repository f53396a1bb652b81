//! Lock files a crashed git leaves behind (`index.lock`, `HEAD.lock`,
//! `refs/heads/<branch>.lock`, ...). A git killed mid-command leaves them, and every later
//! git command that needs the file then fails. [`find`] lists them (for `doctor` and
//! `run`), [`clear_stale`] removes those no live git process can hold.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old a lock must be before it can be stale: git holds its locks for milliseconds,
/// so one older than this with no git running in the repository is a crash leftover.
pub const STALE_AFTER: Duration = Duration::from_secs(5);

/// Lock files directly in the git directory that git takes for everyday commands.
const TOP_LEVEL_LOCKS: &[&str] = &[
    "index.lock",
    "HEAD.lock",
    "ORIG_HEAD.lock",
    "FETCH_HEAD.lock",
    "packed-refs.lock",
    "config.lock",
    "shallow.lock",
];

/// One lock file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitLock {
    /// The lock file (absolute).
    pub path: PathBuf,
    /// Its age (from its modification time; zero when unknown or in the future).
    pub age: Duration,
}

/// A lock that may not be removed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{} is held by a running git (pid {pid}); wait for it to finish, or stop it", path.display())]
pub struct LockHeld {
    pub path: PathBuf,
    pub pid: u32,
}

/// The lock files in the git directory `git_dir` (the common one: `.git` of the main
/// working tree): the top-level ones and every `*.lock` under `refs/`.
pub fn find(git_dir: &Path) -> Vec<GitLock> {
    let mut paths: Vec<PathBuf> = TOP_LEVEL_LOCKS
        .iter()
        .map(|n| git_dir.join(n))
        .filter(|p| p.is_file())
        .collect();
    let mut stack = vec![git_dir.join("refs")];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "lock") => paths.push(p),
                _ => {}
            }
        }
    }
    paths.sort();
    let now = SystemTime::now();
    paths
        .into_iter()
        .map(|path| {
            let age = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .unwrap_or_default();
            GitLock { path, age }
        })
        .collect()
}

/// A live git process working in `root` or `git_dir` (its current directory inside one of
/// them), other than this process; its pid.
pub fn live_git_process(root: &Path, git_dir: &Path) -> Option<u32> {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (root, git_dir) = (canon(root), canon(git_dir));
    let me = std::process::id();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(comm) = std::fs::read_to_string(e.path().join("comm")) else {
            continue;
        };
        let comm = comm.trim();
        if comm != "git" && !comm.starts_with("git-") {
            continue;
        }
        // a zombie holds no lock
        let zombie = std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(false);
        if zombie {
            continue;
        }
        if let Ok(cwd) = std::fs::read_link(e.path().join("cwd"))
            && (cwd.starts_with(&root) || cwd.starts_with(&git_dir))
        {
            return Some(pid);
        }
    }
    None
}

/// Removes the stale lock files of the repository at `root` (git directory `git_dir`) and
/// returns them. A lock younger than `stale_after` is waited for (git holds locks for
/// milliseconds); one still there afterwards is removed when no live git process works in
/// the repository, else [`LockHeld`] names it and nothing is removed.
pub fn clear_stale(
    root: &Path,
    git_dir: &Path,
    stale_after: Duration,
) -> Result<Vec<PathBuf>, LockHeld> {
    let deadline = std::time::Instant::now() + stale_after + Duration::from_millis(200);
    let mut locks = find(git_dir);
    while locks.iter().any(|l| l.age < stale_after) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        locks = find(git_dir);
    }
    if locks.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(pid) = live_git_process(root, git_dir) {
        return Err(LockHeld {
            path: locks[0].path.clone(),
            pid,
        });
    }
    let mut removed = Vec::new();
    for l in locks {
        if std::fs::remove_file(&l.path).is_ok() {
            removed.push(l.path);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_and_ref_locks_only() {
        let tmp = tempfile::tempdir().unwrap();
        let g = tmp.path();
        std::fs::create_dir_all(g.join("refs/heads/feat")).unwrap();
        for f in [
            "index.lock",
            "HEAD.lock",
            "refs/heads/feat/x.lock",
            "refs/heads/main",
            "other.lock",
        ] {
            std::fs::write(g.join(f), "").unwrap();
        }
        let found: Vec<String> = find(g)
            .into_iter()
            .map(|l| l.path.strip_prefix(g).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            vec!["HEAD.lock", "index.lock", "refs/heads/feat/x.lock"]
        );
    }

    #[test]
    fn a_lock_with_no_git_running_is_removed_after_the_wait() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        let g = root.join(".git");
        std::fs::create_dir_all(g.join("refs/heads")).unwrap();
        std::fs::write(g.join("refs/heads/main.lock"), "").unwrap();
        let removed = clear_stale(&root, &g, Duration::from_millis(300)).unwrap();
        assert_eq!(removed, vec![g.join("refs/heads/main.lock")]);
        assert!(find(&g).is_empty());
    }
}
