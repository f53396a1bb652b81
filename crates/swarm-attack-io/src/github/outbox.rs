//! The outbox: `.swarm/outbox/<feature>.jsonl`, one JSON object per line, holding the GitHub
//! writes that still failed after retries. The next `github sync` (or `github publish`)
//! replays them first, against the current state: an entry names its target (an issue, the
//! labels, a task to publish) and the replay brings that target to what the state wants
//! now, so a later transition supersedes an earlier one and nothing is lost.

use crate::atomic::write_atomic;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One pending operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxEntry {
    /// When it failed first (RFC 3339).
    pub ts: String,
    /// `issue` (labels/comment/state of a linked issue), `labels` (the repository's four
    /// labels) or `publish` (creating the issue of a task).
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github_issue: Option<u64>,
    /// What was being done (`comment_updated`, `labels_set`, `closed`, `label_created`, ...).
    pub op: String,
    /// `METHOD path` of the failed request.
    pub request: String,
    #[serde(default)]
    pub status: Option<u16>,
    /// The failure, one line, no token.
    pub error: String,
    /// How many syncs tried it.
    pub attempts: u32,
}

impl OutboxEntry {
    /// The target's identity (entries with the same key are one pending operation).
    pub fn key(&self) -> (String, Option<u32>, Option<u64>) {
        (self.target.clone(), self.issue, self.github_issue)
    }
}

/// Reads the outbox; lines that are not entries are skipped (returned as warnings).
pub fn load(path: &Path) -> (Vec<OutboxEntry>, Vec<String>) {
    // bytes, not text: one line of garbage must not hide the good entries around it
    let Ok(bytes) = std::fs::read(path) else {
        return (Vec::new(), Vec::new());
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<OutboxEntry>(line) {
            Ok(e) => entries.push(e),
            Err(e) => warnings.push(format!(
                "{} line {}: not an outbox entry ({e}); skipped",
                path.display(),
                i + 1
            )),
        }
    }
    (entries, warnings)
}

/// Replaces the outbox with `entries` (removes the file when there are none).
pub fn save(path: &Path, entries: &[OutboxEntry]) -> std::io::Result<()> {
    if entries.is_empty() {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let mut text = String::new();
    for e in entries {
        text.push_str(&serde_json::to_string(e).unwrap_or_default());
        text.push('\n');
    }
    write_atomic(path, text.as_bytes())
}
