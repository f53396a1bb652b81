//! Where things live in a user's repository (docs/state.md "Files").

use std::path::{Path, PathBuf};

/// The file layout of one project.
#[derive(Debug, Clone)]
pub struct Paths {
    pub root: PathBuf,
    pub specs_dir: PathBuf,
    pub swarm_dir: PathBuf,
}

impl Paths {
    pub fn new(root: &Path, specs_dir: &str, swarm_dir: &str) -> Self {
        Paths {
            root: root.to_path_buf(),
            specs_dir: root.join(specs_dir),
            swarm_dir: root.join(swarm_dir),
        }
    }
    pub fn issues_file(&self, feature: &str) -> PathBuf {
        self.specs_dir.join(feature).join("issues.json")
    }
    pub fn state_dir(&self) -> PathBuf {
        self.swarm_dir.join("state")
    }
    pub fn state_file(&self, feature: &str) -> PathBuf {
        self.state_dir().join(format!("{feature}.json"))
    }
    pub fn events_file(&self, feature: &str) -> PathBuf {
        self.swarm_dir
            .join("events")
            .join(format!("{feature}.jsonl"))
    }
    /// The folder of the feature locks and the runs' liveness locks.
    pub fn locks_dir(&self) -> PathBuf {
        self.swarm_dir.join("locks")
    }
    pub fn lock_file(&self, feature: &str) -> PathBuf {
        self.locks_dir().join(format!("{feature}.lock"))
    }
    /// The lock a GitHub session of a feature holds.
    pub fn github_lock_file(&self, feature: &str) -> PathBuf {
        self.locks_dir()
            .join("github")
            .join(format!("{feature}.lock"))
    }
    /// `.swarm/outcomes.jsonl`: how issues of every feature ended (docs/learning.md "Outcomes").
    pub fn outcomes_file(&self) -> PathBuf {
        self.swarm_dir.join("outcomes.jsonl")
    }
    /// The lock every change of the lessons file holds.
    pub fn lessons_lock(&self) -> PathBuf {
        self.locks_dir().join("lessons.lock")
    }
    pub fn cache_dir(&self) -> PathBuf {
        self.swarm_dir.join("cache")
    }
    pub fn outbox_file(&self, feature: &str) -> PathBuf {
        self.swarm_dir
            .join("outbox")
            .join(format!("{feature}.jsonl"))
    }
    pub fn attempt_dir(&self, feature: &str, issue: u32, attempt: u32) -> PathBuf {
        self.swarm_dir
            .join("runs")
            .join(feature)
            .join(format!("issue-{issue}"))
            .join(format!("attempt-{attempt}"))
    }
    /// The marker written while an issue's commit is landing.
    pub fn landing_marker(&self, feature: &str, issue: u32) -> PathBuf {
        self.swarm_dir
            .join("runs")
            .join(feature)
            .join(format!("issue-{issue}"))
            .join("landing.json")
    }
    /// A path relative to the root, for messages.
    pub fn display(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .display()
            .to_string()
    }
}

/// Whether `id` is a valid feature id: `^[a-z0-9][a-z0-9._-]{0,62}[a-z0-9]$`.
pub fn is_valid_feature_id(id: &str) -> bool {
    let b = id.as_bytes();
    let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mid = |c: u8| edge(c) || c == b'.' || c == b'_' || c == b'-';
    (2..=64).contains(&b.len()) && edge(b[0]) && edge(b[b.len() - 1]) && b.iter().all(|c| mid(*c))
}

#[cfg(test)]
mod tests {
    use super::is_valid_feature_id as ok;

    #[test]
    fn feature_ids() {
        assert!(ok("auth") && ok("a1") && ok("my.feature-2_x"));
        assert!(!ok("a") && !ok("-a") && !ok("a-") && !ok("Auth") && !ok("a/b") && !ok("../x"));
        assert!(ok(&"a".repeat(64)) && !ok(&"a".repeat(65)));
    }
}
