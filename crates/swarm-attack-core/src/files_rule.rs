//! The `files` duplicate check (docs/run.md "The flow of one issue", duplicate detection): an
//! issue's listed files count as "already implemented" only when every one exists AND at least one
//! was created or changed by a commit after the feature's first greenlight. Listing files to modify
//! is therefore safe.
//!
//! The first greenlight's commit is kept in the state file as `first_greenlight_commit`
//! (a top-level key the original tool ignores).

use crate::state::FeatureState;
use serde_json::Value;

/// The state key holding the commit checked out at the feature's first greenlight.
pub const KEY: &str = "first_greenlight_commit";

impl FeatureState {
    /// The commit checked out at the feature's first greenlight, when recorded.
    pub fn first_greenlight_commit(&self) -> Option<&str> {
        self.extra.get(KEY).and_then(Value::as_str)
    }

    /// Records `commit` as the first greenlight's, unless one is recorded already.
    pub fn record_first_greenlight(&mut self, commit: &str) {
        if self.first_greenlight_commit().is_none() {
            self.extra
                .insert(KEY.to_string(), Value::String(commit.to_string()));
        }
    }
}

/// What the files check found in the worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilesFinding {
    /// Some listed files do not exist.
    Missing(Vec<String>),
    /// All exist; none changed since the first greenlight (or none is recorded).
    Untouched { base: Option<String> },
    /// All exist and these were created or changed after the first greenlight.
    Changed(Vec<String>),
}

/// Whether the check fires, and its detail line.
pub fn verdict(listed: &[String], finding: &FilesFinding) -> (bool, String) {
    match finding {
        FilesFinding::Missing(m) => (false, format!("missing: {}", m.join(", "))),
        FilesFinding::Untouched { base: Some(b) } => (
            false,
            format!(
                "all {} listed files exist, but none was created or changed since the first greenlight ({}): they are files to modify",
                listed.len(),
                &b[..b.len().min(12)]
            ),
        ),
        FilesFinding::Untouched { base: None } => (
            false,
            format!(
                "all {} listed files exist, but the feature's first greenlight is not recorded, so they count as files to modify",
                listed.len()
            ),
        ),
        FilesFinding::Changed(c) => (
            true,
            format!(
                "all {} listed files exist and {} changed since the first greenlight",
                listed.len(),
                c.join(", ")
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_only_when_a_listed_file_changed_after_the_first_greenlight() {
        let listed = vec!["a.py".to_string(), "b.py".to_string()];
        assert!(!verdict(&listed, &FilesFinding::Missing(vec!["b.py".into()])).0);
        assert!(!verdict(&listed, &FilesFinding::Untouched { base: None }).0);
        let (fired, why) = verdict(
            &listed,
            &FilesFinding::Untouched {
                base: Some("0123456789abcdef".into()),
            },
        );
        assert!(!fired && why.contains("files to modify"), "{why}");
        let (fired, why) = verdict(&listed, &FilesFinding::Changed(vec!["a.py".into()]));
        assert!(fired && why.contains("a.py changed"), "{why}");
    }

    #[test]
    fn the_first_greenlight_is_recorded_once() {
        let mut s = FeatureState::new("auth", "t");
        s.record_first_greenlight("abc");
        s.record_first_greenlight("def");
        assert_eq!(s.first_greenlight_commit(), Some("abc"));
    }
}
