//! Project root discovery (docs/cli.md "Project root"), like git and cargo: from the starting
//! folder, walk up to the nearest folder holding `config.yaml` or `.swarm/`, else the git top
//! level. The walk never leaves the git repository; outside any repository the starting folder is
//! the root.

use std::path::{Path, PathBuf};

/// Why a folder was taken as the project root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootReason {
    /// It holds `config.yaml` or `.swarm/`.
    Marker,
    /// It is the git top level (no marker below it).
    GitTopLevel,
    /// Not inside a git repository: the starting folder.
    Start,
}

/// The root found from `start`.
pub fn discover(start: &Path) -> (PathBuf, RootReason) {
    let Some(top) = git_top_level(start) else {
        return (start.to_path_buf(), RootReason::Start);
    };
    for dir in start.ancestors() {
        if dir.join("config.yaml").is_file() || dir.join(".swarm").is_dir() {
            return (dir.to_path_buf(), RootReason::Marker);
        }
        if dir == top {
            break;
        }
    }
    (top, RootReason::GitTopLevel)
}

/// The nearest folder at or above `start` holding `.git` (a folder, or a file for worktrees
/// and submodules).
fn git_top_level(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_up_to_the_marker_or_the_git_top_level_and_no_further() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let sub = repo.join("pkg").join("inner");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir(repo.join(".git")).unwrap();
        // a marker above the repository is never reached
        std::fs::write(t.path().join("config.yaml"), "").unwrap();
        assert_eq!(discover(&sub), (repo.clone(), RootReason::GitTopLevel));
        std::fs::create_dir(repo.join("pkg").join(".swarm")).unwrap();
        assert_eq!(discover(&sub), (repo.join("pkg"), RootReason::Marker));
        let outside = t.path().join("plain");
        std::fs::create_dir(&outside).unwrap();
        assert_eq!(discover(&outside), (outside.clone(), RootReason::Start));
    }
}
