//! The pull request a `git.landing: pr` landing opens for one issue
//! (docs/github.md "Pull requests"): its title is the tool's rule-1 subject (so a squash merge
//! keeps it), its body closes the linked GitHub issue and shows the summary, the verification
//! result, the cost and the label.
//!
//! The summary comes from agents and issue text: it is neutralised
//! ([`commit_message::neutralise`], the one function for all text the tool writes) so that
//! it cannot close another issue, cancel evidence (`This reverts commit`) or pose as the
//! tool's trailers — a squash merge may turn the body into a commit message.

use crate::commit_message;
use crate::github_status::IN_REVIEW_LABEL;

/// What the landing knows about the verified work.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PullFacts<'a> {
    pub feature: &'a str,
    pub issue: u32,
    pub github_issue: Option<u64>,
    pub summary: Option<&'a str>,
    pub files: &'a [String],
    pub tests_passed: Option<u64>,
    pub cost_usd: Option<f64>,
    /// Why the issue is routed as risky (`gates.risk`, docs/gates.md "Risk routing"); empty when it
    /// is not.
    pub risk: &'a [String],
    /// The candidates disagreed: their mean similarity
    /// (docs/coordination.md "Many candidates, one result" `on_low_convergence: land`), flagged in
    /// the body.
    pub low_convergence: Option<f64>,
    /// The review gate's verdict and counted findings (the status comment's `**Review:**`
    /// text), when the gate ran.
    pub review: Option<&'a str>,
}

/// The hidden marker in the body of the tool's pull requests.
pub fn pull_marker(feature: &str, issue: u32) -> String {
    format!("<!-- swarm-attack:pr {feature}#{issue} -->")
}

/// The pull request's title: the rule-1 subject.
pub fn pull_title(f: &PullFacts<'_>) -> String {
    commit_message::subject(f.feature, f.issue, f.github_issue)
}

/// The pull request's body.
pub fn pull_body(f: &PullFacts<'_>) -> String {
    let mut out = pull_marker(f.feature, f.issue);
    out.push('\n');
    if let Some(g) = f.github_issue {
        out.push_str(&format!("Closes #{g}\n"));
    }
    out.push_str(&format!(
        "\n**swarm-attack** · feature `{}` · issue {} · `{}`\n\n",
        f.feature, f.issue, IN_REVIEW_LABEL.name
    ));
    if !f.risk.is_empty() {
        let why: Vec<String> = f
            .risk
            .iter()
            .map(|r| commit_message::neutralise(r))
            .collect();
        out.push_str(&format!(
            "**Risk:** routed as risky by `gates.risk` ({}), so it lands through this pull request for a person to review.\n\n",
            why.join("; ")
        ));
    }
    if let Some(s) = f.summary.map(str::trim).filter(|s| !s.is_empty()) {
        out.push_str("**Summary**\n\n");
        out.push_str(&commit_message::neutralise(s));
        out.push_str("\n\n");
    }
    let verification = match f.tests_passed {
        Some(n) => format!("the test command passed ({n} tests)"),
        None => "the test command passed".to_string(),
    };
    out.push_str(&format!("**Verification:** {verification}\n\n"));
    if let Some(score) = f.low_convergence {
        out.push_str(&format!(
            "**Low convergence:** the candidates disagreed (mean similarity {score:.2}); compare before merging\n\n"
        ));
    }
    if let Some(r) = f.review.map(str::trim).filter(|r| !r.is_empty()) {
        // a reviewer's words: neutralised like the summary
        out.push_str(&format!(
            "**Review:** {}\n\n",
            commit_message::neutralise(r)
        ));
    }
    let cost = f
        .cost_usd
        .map_or_else(|| "unknown".to_string(), |c| format!("${c:.2}"));
    out.push_str(&format!("**Cost:** {cost}\n\n"));
    if !f.files.is_empty() {
        let files: Vec<String> = f
            .files
            .iter()
            .map(|p| format!("`{}`", commit_message::neutralise(p)))
            .collect();
        out.push_str(&format!("**Files:** {}\n\n", files.join(", ")));
    }
    out.push_str(
        "Merging this pull request (merge commit, squash or rebase) marks the issue DONE on the next sync.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{EvidenceRule, Source, revert_targets};
    use proptest::prelude::*;

    #[test]
    fn the_body_closes_only_the_linked_issue_and_shows_the_facts() {
        let files = vec!["src/a.py".to_string()];
        let f = PullFacts {
            feature: "auth",
            issue: 2,
            github_issue: Some(42),
            summary: Some("Adds login. Fixes #8. This reverts commit abcdef1.\nSwarm-Issue: 9"),
            files: &files,
            tests_passed: Some(3),
            cost_usd: None,
            risk: &[],
            low_convergence: None,
            review: None,
        };
        assert_eq!(pull_title(&f), "feat(auth): Implement issue #2 (#42)");
        let body = pull_body(&f);
        assert!(!body.contains("Low convergence"), "{body}");
        let flagged = pull_body(&PullFacts {
            low_convergence: Some(0.25),
            ..f.clone()
        });
        assert!(
            flagged
                .contains("**Low convergence:** the candidates disagreed (mean similarity 0.25)"),
            "{flagged}"
        );
        assert!(body.contains("Closes #42"));
        assert!(body.contains("Fixes # 8"), "{body}");
        assert!(!body.contains("\nSwarm-Issue: 9"), "{body}");
        assert!(body.contains("**Cost:** unknown"));
        assert!(body.contains("3 tests"));
        assert!(body.contains("`swarm:in-review`"));
        let mut rule = EvidenceRule::new("auth");
        rule.links.insert(2, 42);
        rule.links.insert(7, 8);
        let message = format!("{}\n\n{body}", pull_title(&f));
        let hits = rule.matches(&message);
        assert!(hits.iter().all(|h| h.issue == 2), "{hits:?}");
        assert!(revert_targets(&message).is_empty());
        assert!(!body.contains("**Risk:**"), "{body}");
        assert!(!body.contains("**Review:**"), "{body}");
        let reviewed = pull_body(&PullFacts {
            review: Some("pass_with_risk (single): [minor] src/a.py:3 — closes #9"),
            ..f.clone()
        });
        assert!(
            reviewed
                .contains("**Review:** pass_with_risk (single): [minor] src/a.py:3 — closes # 9"),
            "{reviewed}"
        );
    }

    #[test]
    fn a_risky_issue_s_body_says_why_it_is_routed() {
        let risk = vec!["keyword `payment` in the title".to_string()];
        let f = PullFacts {
            feature: "auth",
            issue: 2,
            risk: &risk,
            ..Default::default()
        };
        let body = pull_body(&f);
        assert!(
            body.contains(
                "**Risk:** routed as risky by `gates.risk` (keyword `payment` in the title)"
            ),
            "{body}"
        );
    }

    proptest! {
        /// Whatever the summary says, the title + body give evidence for exactly this
        /// issue, name no revert, and close nothing but the linked issue.
        #[test]
        fn any_summary_gives_evidence_for_exactly_this_issue(
            summary in "(fixes #[0-9]{1,3}|This reverts commit [0-9a-f]{7,12}|Swarm-Feature: auth|\nSwarm-Issue: [0-9]{1,2}|closes owner/repo#[0-9]|[ -~]{0,12}|\n){0,12}",
        ) {
            let f = PullFacts {
                feature: "auth",
                issue: 5,
                github_issue: Some(50),
                summary: Some(&summary),
                ..Default::default()
            };
            let message = format!("{}\n\n{}", pull_title(&f), pull_body(&f));
            let mut rule = EvidenceRule::new("auth");
            rule.repo = Some("owner/repo".into());
            for n in (0..1000u64).filter(|n| *n != 50) {
                rule.links.insert(n as u32 + 1000, n);
            }
            rule.links.insert(5, 50);
            let hits = rule.matches(&message);
            prop_assert!(hits.iter().all(|h| h.issue == 5), "{hits:?}");
            prop_assert!(hits.iter().any(|h| h.source == Source::Subject));
            prop_assert!(revert_targets(&message).is_empty());
        }
    }
}
