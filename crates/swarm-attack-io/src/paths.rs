//! Where things live in a user's repository (docs/state.md "Files").

use crate::core::feature_id::FeatureId;
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
    pub fn issues_file(&self, feature: &FeatureId) -> PathBuf {
        self.specs_dir.join(feature).join("issues.json")
    }
    pub fn state_dir(&self) -> PathBuf {
        self.swarm_dir.join("state")
    }
    pub fn state_file(&self, feature: &FeatureId) -> PathBuf {
        self.state_dir().join(format!("{feature}.json"))
    }
    pub fn events_file(&self, feature: &FeatureId) -> PathBuf {
        self.swarm_dir
            .join("events")
            .join(format!("{feature}.jsonl"))
    }
    /// The folder of the feature locks and the runs' liveness locks.
    pub fn locks_dir(&self) -> PathBuf {
        self.swarm_dir.join("locks")
    }
    pub fn lock_file(&self, feature: &FeatureId) -> PathBuf {
        self.locks_dir().join(format!("{feature}.lock"))
    }
    /// The lock a GitHub session of a feature holds.
    pub fn github_lock_file(&self, feature: &FeatureId) -> PathBuf {
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
    pub fn outbox_file(&self, feature: &FeatureId) -> PathBuf {
        self.swarm_dir
            .join("outbox")
            .join(format!("{feature}.jsonl"))
    }
    pub fn attempt_dir(&self, feature: &FeatureId, issue: u32, attempt: u32) -> PathBuf {
        self.swarm_dir
            .join("runs")
            .join(feature)
            .join(format!("issue-{issue}"))
            .join(format!("attempt-{attempt}"))
    }
    /// The marker written while an issue's commit is landing.
    pub fn landing_marker(&self, feature: &FeatureId, issue: u32) -> PathBuf {
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
