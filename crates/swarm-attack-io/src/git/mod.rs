//! The one Git adapter: every git command the tool runs goes through here (the process is
//! started in `exec.rs`, the only place that spawns `git`), with one environment policy (no
//! `GIT_DIR` and friends, no secrets, no prompts), one hooks policy (`git.run_hooks`) and
//! typed errors ([`GitError`]). Callers use named operations, never raw git arguments.
//!
//! - [`Git`]: the operations of `run` (worktrees, staging, committing, landing);
//! - [`commit_info`]: what a commit did (summaries, ordering);
//! - [`push`]: pushing the Action's branch;
//! - [`locks`]: stale lock files left by a crashed git;
//! - [`origin_url`]: the `origin` remote.

pub mod commit_info;
mod exec;
mod head;
pub mod locks;
mod objects;
pub mod push;
mod repo;

#[cfg(any(test, feature = "test-support"))]
pub use exec::testing;
pub use exec::{GIT_ENV_REMOVED, GitError, Hooks};
pub use repo::{Change, ChangeKind, Git};

use std::path::Path;

/// The URL of the `origin` remote of the repository at `root`, if any. Read once per
/// process and repository (a `run` asks before every claim).
pub fn origin_url(root: &Path) -> Option<String> {
    type Known = std::collections::HashMap<std::path::PathBuf, Option<String>>;
    static KNOWN: std::sync::Mutex<Option<Known>> = std::sync::Mutex::new(None);
    if let Ok(known) = KNOWN.lock()
        && let Some(url) = known.as_ref().and_then(|k| k.get(root))
    {
        return url.clone();
    }
    let url = exec::read_capped(root, &["config", "--get", "remote.origin.url"], 64 * 1024)
        .map(|(out, _)| String::from_utf8_lossy(&out).trim().to_string())
        .filter(|u| !u.is_empty());
    if let Ok(mut known) = KNOWN.lock() {
        known
            .get_or_insert_with(Default::default)
            .insert(root.to_path_buf(), url.clone());
    }
    url
}

type KnownDirs = std::collections::HashMap<std::path::PathBuf, std::path::PathBuf>;

/// The common directories found by this process, per working tree root.
static COMMON_DIRS: std::sync::Mutex<Option<KnownDirs>> = std::sync::Mutex::new(None);

/// Records that `root`'s common git directory is `dir` (found by the caller's git).
fn remember_common_dir(root: &Path, dir: &Path) {
    if dir.as_os_str().is_empty() {
        return;
    }
    if let Ok(mut known) = COMMON_DIRS.lock() {
        known
            .get_or_insert_with(Default::default)
            .insert(root.to_path_buf(), dir.to_path_buf());
    }
}

/// The repository's common git directory (`.git` of the main working tree, shared by its
/// worktrees), absolute. Asked of git once per process and root while the folder exists
/// (a run asks when it opens the repository and when it looks for stale locks).
pub fn common_dir(root: &Path) -> Option<std::path::PathBuf> {
    let known = COMMON_DIRS
        .lock()
        .ok()
        .and_then(|k| k.as_ref()?.get(root).cloned());
    if let Some(dir) = known.filter(|d| d.is_dir()) {
        return Some(dir);
    }
    let (out, _) = exec::read_capped(
        root,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        64 * 1024,
    )?;
    let dir = String::from_utf8_lossy(&out).trim().to_string();
    let dir = (!dir.is_empty()).then(|| std::path::PathBuf::from(dir))?;
    remember_common_dir(root, &dir);
    Some(dir)
}

#[cfg(test)]
mod tests {
    /// Every `.rs` file under `dir`.
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// The tool starts git in exactly one file: `crates/swarm-attack-io/src/git/exec.rs`. (Test files that
    /// build repositories may use git themselves; they live under `tests/`.)
    #[test]
    fn exactly_one_file_spawns_git() {
        // the workspace root: this crate lives in crates/swarm-attack-io
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        rust_files(&root.join("src"), &mut files);
        rust_files(&root.join("crates"), &mut files);
        let spawn_patterns = [
            concat!("Command::new(", "\"git\")"),
            concat!("\"git\"", ".into()"),
            concat!("\"git\"", ".to_string()"),
            concat!("\"git\"", ".to_owned()"),
            concat!("String::from(", "\"git\")"),
        ];
        let mut spawning: Vec<String> = files
            .iter()
            .filter(|p| {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                spawn_patterns.iter().any(|pat| text.contains(pat))
            })
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        spawning.sort();
        assert_eq!(spawning, vec!["crates/swarm-attack-io/src/git/exec.rs"]);
    }
}
