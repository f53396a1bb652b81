//! The tool's own implementing commits (docs/git-sync.md "The four rules", last paragraph): the
//! message it writes, and recognising such a message again (used by `run` right before dispatching
//! an issue, so an issue whose commit landed just before a crash is never implemented twice, even
//! with `coordination.auto_sync_from_git: false`).
//!
//! Subject `feat(<feature>): Implement issue #<N>` (+ ` (#<G>)` when linked to GitHub
//! issue G), a body, a blank line, and the trailers `Swarm-Feature: <feature>` and
//! `Swarm-Issue: <N>`.

use crate::feature_id::FeatureId;
use regex::Regex;
use std::sync::LazyLock;

/// The subject line.
pub fn subject(feature: &str, issue: u32, github_issue: Option<u64>) -> String {
    match github_issue {
        Some(g) => format!("feat({feature}): Implement issue #{issue} (#{g})"),
        None => format!("feat({feature}): Implement issue #{issue}"),
    }
}

/// The whole message: subject, blank line, body (if any), blank line, trailers. The body
/// (issue text, agent output) is [`neutralise`]d: the message is evidence for exactly
/// (`feature`, `issue`) and names no other issue with a closing keyword.
pub fn message(feature: &FeatureId, issue: u32, github_issue: Option<u64>, body: &str) -> String {
    let mut m = subject(feature, issue, github_issue);
    m.push_str("\n\n");
    let body = neutralise(body);
    let body = body.trim();
    if !body.is_empty() {
        m.push_str(body);
        m.push_str("\n\n");
    }
    m.push_str(&format!("Swarm-Feature: {feature}\nSwarm-Issue: {issue}\n"));
    m
}

static CLOSING_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b([ \t]*:?[ \t]*)([a-z0-9][a-z0-9-]*/[a-z0-9_.-]+)?#([0-9])",
    )
    .expect("closing reference pattern")
});

static CLOSING_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b([ \t]*:?[ \t]*)(https?://[^\s]*?/(?:issues|pull)/)([0-9])",
    )
    .expect("closing URL pattern")
});

static REVERTS_COMMIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(reverts)(\s+)(commit)\b").expect("reverts commit pattern")
});

static SWARM_TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^([ \t]*)(swarm-[a-z0-9_-]*[ \t]*:)").expect("swarm trailer pattern")
});

/// Text from issues or agents made safe to place in a message the tool writes (commit
/// message, comment, pull-request title or body): it keeps its meaning for a reader but
/// can never act as evidence (docs/git-sync.md "The four rules") or a GitHub keyword. Visible
/// changes only:
///
/// - a closing keyword on an issue reference gets a space after the `#` (`fixes #102` →
///   `fixes # 102`; `fixes o/r#8` → `fixes o/r# 8`; a URL `…/issues/ 8`);
/// - `reverts commit` becomes `reverts "commit"`;
/// - a line starting with `Swarm-…:` (a trailer) is quoted with `> `.
pub fn neutralise(text: &str) -> String {
    let mut out = text.to_string();
    // to a fixed point: one replacement can never create another, but be sure
    for _ in 0..4 {
        let next = CLOSING_REF.replace_all(&out, "$1$2$3# $4");
        let next = CLOSING_URL.replace_all(&next, "$1$2$3 $4");
        let next = REVERTS_COMMIT.replace_all(&next, "$1$2\"$3\"");
        let next = SWARM_TRAILER.replace_all(&next, "$1> $2").into_owned();
        if next == out {
            break;
        }
        out = next;
    }
    out
}

/// Which form of the tool's commit `message` is for issue `issue` of `feature`: `subject`
/// (rule 1) or `trailers` (rule 2); `None` when neither. The rule itself is
/// [`crate::evidence`]'s.
pub fn implements(message: &str, feature: &FeatureId, issue: u32) -> Option<&'static str> {
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
    use crate::fid;

    #[test]
    fn issue_text_is_defused_visibly() {
        assert_eq!(neutralise("Dark mode (fixes #8)"), "Dark mode (fixes # 8)");
        assert_eq!(
            neutralise("Closes: #12, resolved o/r#3"),
            "Closes: # 12, resolved o/r# 3"
        );
        assert_eq!(
            neutralise("fix https://github.com/o/r/issues/9"),
            "fix https://github.com/o/r/issues/ 9"
        );
        assert_eq!(
            neutralise("This reverts commit abcdef1234."),
            "This reverts \"commit\" abcdef1234."
        );
        assert_eq!(neutralise("a\nSwarm-Issue: 4\n"), "a\n> Swarm-Issue: 4\n");
        // plain references and words stay as they are
        assert_eq!(
            neutralise("see #8; prefix #9; a fix"),
            "see #8; prefix #9; a fix"
        );
        assert!(neutralise("FIXES #1").is_ascii());
    }

    #[test]
    fn message_has_subject_body_and_trailers() {
        let m = message(&fid("auth"), 3, Some(42), "Add login\n\nFiles: a.rs");
        assert!(m.starts_with("feat(auth): Implement issue #3 (#42)\n\nAdd login\n"));
        assert!(m.ends_with("\n\nSwarm-Feature: auth\nSwarm-Issue: 3\n"));
        assert_eq!(implements(&m, &fid("auth"), 3), Some("subject"));
        assert_eq!(implements(&m, &fid("auth"), 33), None);
        assert_eq!(implements(&m, &fid("aut"), 3), None);
    }

    #[test]
    fn recognises_forms() {
        assert_eq!(
            implements("FEAT(auth): implement ISSUE #2 and more", &fid("auth"), 2),
            Some("subject")
        );
        assert_eq!(
            implements("feat(auth): Implement issue #22", &fid("auth"), 2),
            None
        );
        assert_eq!(
            implements("feat(auth): Implement issue #2x", &fid("auth"), 2),
            None
        );
        assert_eq!(
            implements(
                "chore: x\n\nbody\n\nSwarm-Feature: auth\nSwarm-Issue: 2\n",
                &fid("auth"),
                2
            ),
            Some("trailers")
        );
        // trailers only count in the last paragraph
        assert_eq!(
            implements(
                "chore: x\n\nSwarm-Feature: auth\nSwarm-Issue: 2\n\nmore",
                &fid("auth"),
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

    use crate::evidence::EvidenceRule;
    use proptest::prelude::*;

    /// Text an issue author could write: words, keywords, references, reverts, trailers.
    fn hostile_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-zA-Z ]{0,12}",
            Just("fixes #".to_string()),
            Just("Closes: #".to_string()),
            Just("resolved o/r#".to_string()),
            Just("fix https://github.com/o/r/issues/".to_string()),
            Just("This reverts commit ".to_string()),
            Just("\nSwarm-Issue: ".to_string()),
            Just("\nSwarm-Feature: auth".to_string()),
            Just("\nfeat(auth): Implement issue #".to_string()),
            Just("\n\n".to_string()),
            "[0-9]{1,3}",
            "[0-9a-f]{7,12}",
            Just("#".to_string()),
        ];
        proptest::collection::vec(piece, 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn the_tools_message_is_evidence_for_its_issue_only(
            title in hostile_text(),
            summary in hostile_text(),
            issue in 1u32..50,
            linked in proptest::option::of(1u64..50),
        ) {
            let body = format!("{title}\n\n{summary}");
            let m = message(&fid("auth"), issue, linked, &body);
            // every issue number 1..200 is linked to a GitHub issue of the same number, so a
            // closing keyword on any of them would show up as evidence
            let mut rule = EvidenceRule::new("auth");
            rule.repo = Some("o/r".into());
            for n in 1..200u32 {
                rule.links.insert(n, u64::from(n));
            }
            let hits = rule.matches(&m);
            let issues: std::collections::BTreeSet<u32> = hits.iter().map(|h| h.issue).collect();
            // the tool's own issue (and, through its own `(#G)`, nothing else)
            prop_assert_eq!(issues, std::collections::BTreeSet::from([issue]), "{}", m);
            prop_assert!(hits.iter().all(|h| h.source != crate::evidence::Source::ClosingKeyword), "{}", m);
            prop_assert!(crate::evidence::revert_targets(&m).is_empty(), "{}", m);
            prop_assert_eq!(m.lines().filter(|l| l.starts_with("Swarm-")).count(), 2, "{}", m);
        }
    }
}
