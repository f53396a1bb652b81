//! The pull-request review of a reviewed candidate (`review.post_to_pr` with
//! `git.landing: pr`): one review with event `COMMENT` — never `APPROVE` nor
//! `REQUEST_CHANGES` — whose body lists the counted findings and whose inline comments put
//! each on its line. Reviewer text is untrusted: neutralised like every text the tool
//! writes. The body carries a hidden marker naming the commit, so a commit is reviewed on
//! its pull request once.

use super::{Finding, Severity};
use crate::commit_message::neutralise;

/// The only event the tool posts a review with.
pub const EVENT: &str = "COMMENT";

/// An inline comment: the file, the line of its new version, the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inline {
    pub path: String,
    pub line: u64,
    pub body: String,
}

/// The review to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullReview {
    pub body: String,
    pub comments: Vec<Inline>,
}

/// The hidden marker of the tool's review of `commit`.
pub fn marker(commit: &str) -> String {
    format!("<!-- swarm-attack:review {commit} -->")
}

/// Whether a review body is the tool's review of `commit`.
pub fn is_review_of(body: &str, commit: &str) -> bool {
    body.contains(&marker(commit))
}

/// The review of `commit` with the counted findings (most severe first); `None` when there
/// is none to post. `verdict_line` is the gate's `**Review:**` text.
pub fn review(commit: &str, verdict_line: &str, counted: &[&Finding]) -> Option<PullReview> {
    if counted.is_empty() {
        return None;
    }
    let mut body = marker(commit);
    body.push_str(&format!(
        "\n**swarm-attack review** (comments only; the merge is a person's decision): {}\n\n",
        neutralise(
            verdict_line
                .split(':')
                .next()
                .unwrap_or(verdict_line)
                .trim()
        )
    ));
    let mut comments = Vec::new();
    for f in counted {
        let sev = f.severity.map_or("?", Severity::as_str);
        let conf = f.confidence.map_or(String::new(), |c| format!(", {c:.0}"));
        let title = neutralise(f.title.trim());
        body.push_str(&format!(
            "- [{sev}{conf}] `{}` — {title}\n",
            neutralise(&f.at())
        ));
        if let (Some(path), Some(line)) = (&f.file, f.line) {
            comments.push(Inline {
                path: path.clone(),
                line,
                body: format!(
                    "**[{sev}{conf}] {title}** ({})\n\n{}",
                    neutralise(&f.reviewer),
                    neutralise(f.body.trim())
                ),
            });
        }
    }
    Some(PullReview { body, comments })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(sev: Severity, file: &str, line: u64, title: &str) -> Finding {
        Finding {
            reviewer: "rev".into(),
            severity: Some(sev),
            confidence: Some(91.0),
            file: Some(file.into()),
            line: Some(line),
            title: title.into(),
            body: "Fixes #12 by accident".into(),
            counted: true,
            drop_reason: None,
        }
    }

    #[test]
    fn a_review_lists_the_findings_inline_and_in_its_body_with_the_marker() {
        let a = f(Severity::Major, "src/a.rs", 4, "off by one");
        let b = f(Severity::Minor, "src/b.rs", 9, "closes #3");
        let r = review("abc123", "pass_with_risk (single): [major] ...", &[&a, &b]).unwrap();
        assert!(is_review_of(&r.body, "abc123"));
        assert!(!is_review_of(&r.body, "abc124"));
        assert!(r.body.contains("pass_with_risk (single)"), "{}", r.body);
        assert!(
            r.body.contains("- [major, 91] `src/a.rs:4` — off by one"),
            "{}",
            r.body
        );
        assert!(r.body.contains("closes # 3"), "neutralised: {}", r.body);
        assert_eq!(r.comments.len(), 2);
        assert_eq!(
            (r.comments[0].path.as_str(), r.comments[0].line),
            ("src/a.rs", 4)
        );
        assert!(
            r.comments[0].body.contains("Fixes # 12"),
            "{}",
            r.comments[0].body
        );
        assert_eq!(EVENT, "COMMENT");
    }

    #[test]
    fn no_counted_finding_no_review() {
        assert_eq!(review("abc", "pass (single)", &[]), None);
    }
}
