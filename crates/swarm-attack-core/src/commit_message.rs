//! The tool's own implementing commits (SPEC §3, last paragraph): the message it writes,
//! and recognising such a message again (used by `run` right before dispatching an issue,
//! so an issue whose commit landed just before a crash is never implemented twice, even
//! with `coordination.auto_sync_from_git: false`).
//!
//! Subject `feat(<feature>): Implement issue #<N>` (+ ` (#<G>)` when linked to GitHub
//! issue G), a body, a blank line, and the trailers `Swarm-Feature: <feature>` and
//! `Swarm-Issue: <N>`.

/// The subject line.
pub fn subject(feature: &str, issue: u32, github_issue: Option<u64>) -> String {
    match github_issue {
        Some(g) => format!("feat({feature}): Implement issue #{issue} (#{g})"),
        None => format!("feat({feature}): Implement issue #{issue}"),
    }
}

/// The whole message: subject, blank line, body (if any), blank line, trailers.
pub fn message(feature: &str, issue: u32, github_issue: Option<u64>, body: &str) -> String {
    let mut m = subject(feature, issue, github_issue);
    m.push_str("\n\n");
    let body = body.trim();
    if !body.is_empty() {
        m.push_str(body);
        m.push_str("\n\n");
    }
    m.push_str(&format!("Swarm-Feature: {feature}\nSwarm-Issue: {issue}\n"));
    m
}

/// Which form of the tool's commit `message` is for issue `issue` of `feature`: `subject`
/// (rule 1) or `trailers` (rule 2); `None` when neither. The rule itself is
/// [`crate::evidence`]'s.
pub fn implements(message: &str, feature: &str, issue: u32) -> Option<&'static str> {
    use crate::evidence::{EvidenceRule, Source};
    EvidenceRule::new(feature)
        .matches(message)
        .into_iter()
        .filter(|h| h.issue == issue)
        .map(|h| h.source)
        .find(|s| matches!(s, Source::Subject | Source::Trailers))
        .map(Source::as_str)
}

/// The commit a revert message names (`This reverts commit <sha>`), at least 7 hex digits.
pub fn reverted_commit(message: &str) -> Option<String> {
    crate::evidence::revert_targets(message).into_iter().next()
}

/// Whether `commit` still counts, given `reverts` (revert commit → the commit it names): a
/// revert cancels, a revert of that revert restores, and so on.
pub fn still_counts(commit: &str, reverts: &[(String, String)]) -> bool {
    fn counts(commit: &str, reverts: &[(String, String)], depth: usize) -> bool {
        if depth > 64 {
            return true;
        }
        !reverts
            .iter()
            .any(|(r, target)| commit.starts_with(target.as_str()) && counts(r, reverts, depth + 1))
    }
    counts(commit, reverts, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_has_subject_body_and_trailers() {
        let m = message("auth", 3, Some(42), "Add login\n\nFiles: a.rs");
        assert!(m.starts_with("feat(auth): Implement issue #3 (#42)\n\nAdd login\n"));
        assert!(m.ends_with("\n\nSwarm-Feature: auth\nSwarm-Issue: 3\n"));
        assert_eq!(implements(&m, "auth", 3), Some("subject"));
        assert_eq!(implements(&m, "auth", 33), None);
        assert_eq!(implements(&m, "aut", 3), None);
    }

    #[test]
    fn recognises_forms() {
        assert_eq!(
            implements("FEAT(auth): implement ISSUE #2 and more", "auth", 2),
            Some("subject")
        );
        assert_eq!(
            implements("feat(auth): Implement issue #22", "auth", 2),
            None
        );
        assert_eq!(
            implements("feat(auth): Implement issue #2x", "auth", 2),
            None
        );
        assert_eq!(
            implements(
                "chore: x\n\nbody\n\nSwarm-Feature: auth\nSwarm-Issue: 2\n",
                "auth",
                2
            ),
            Some("trailers")
        );
        // trailers only count in the last paragraph
        assert_eq!(
            implements(
                "chore: x\n\nSwarm-Feature: auth\nSwarm-Issue: 2\n\nmore",
                "auth",
                2
            ),
            None
        );
    }

    #[test]
    fn reverts_cancel_and_restore() {
        assert_eq!(
            reverted_commit("Revert \"x\"\n\nThis reverts commit ABCDEF1234.\n"),
            Some("abcdef1234".into())
        );
        assert_eq!(reverted_commit("This reverts commit abc."), None);
        let reverts = vec![("r1".to_string(), "c0ffee1".to_string())];
        assert!(!still_counts("c0ffee1234", &reverts));
        let mut rr = reverts.clone();
        rr.push(("r2".into(), "r1".into()));
        assert!(still_counts("c0ffee1234", &rr));
        assert!(still_counts("other", &reverts));
    }
}
