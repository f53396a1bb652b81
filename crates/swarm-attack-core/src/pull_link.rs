//! Which open pull requests link which issues (docs/github.md "Pull requests", supersession gate).
//!
//! A pull request links issue N of feature F when its head branch is
//! `swarm/<F>/issue-<N>` (the branch `git.landing: pr` pushes), when its title and body,
//! read as one commit message, give evidence for N by rule 1 (the tool's subject), rule 2
//! (the trailers) or rule 3 (a closing keyword on N's linked GitHub issue), or when one of
//! its commits gives evidence for N by rule 1 or rule 2 (docs/github.md "Pull requests": a
//! teammate's `feat(F): Implement issue #N` on any branch). While one is open, N is not dispatched:
//! someone (an agent or a person) is already on it.

use crate::evidence::{EvidenceRule, Source};
use crate::feature_id::FeatureId;
use std::collections::BTreeMap;

/// What the gate needs to know about an open pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPull {
    pub number: u64,
    /// The head branch name (`head.ref`).
    pub head_ref: String,
    pub title: String,
    pub body: String,
    /// The head commit (`head.sha`): the pull request's commits change only with it.
    pub head_sha: String,
    /// The messages of the pull request's commits (GitHub lists at most 250).
    pub commits: Vec<String>,
}

/// The branch a PR landing pushes issue `issue` of `feature` to.
pub fn branch_name(feature: &FeatureId, issue: u32) -> String {
    format!("swarm/{feature}/issue-{issue}")
}

/// The issue a `swarm/<feature>/issue-<N>` branch is for.
pub fn issue_of_branch(feature: &str, head_ref: &str) -> Option<u32> {
    let rest = head_ref
        .strip_prefix("swarm/")?
        .strip_prefix(feature)?
        .strip_prefix("/issue-")?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.starts_with('0') {
        return None;
    }
    rest.parse().ok()
}

/// Issue → the lowest-numbered open pull request that links it.
pub fn linked_issues(rule: &EvidenceRule, pulls: &[OpenPull]) -> BTreeMap<u32, u64> {
    let mut out: BTreeMap<u32, u64> = BTreeMap::new();
    let mut add = |issue: u32, pr: u64| {
        let e = out.entry(issue).or_insert(pr);
        *e = (*e).min(pr);
    };
    for p in pulls {
        if let Some(n) = issue_of_branch(&rule.feature, &p.head_ref) {
            add(n, p.number);
        }
        let message = format!("{}\n\n{}", p.title, p.body);
        for hit in rule.matches(&message) {
            if matches!(
                hit.source,
                Source::Subject | Source::Trailers | Source::ClosingKeyword
            ) {
                add(hit.issue, p.number);
            }
        }
        for commit in &p.commits {
            for hit in rule.matches(commit) {
                if matches!(hit.source, Source::Subject | Source::Trailers) {
                    add(hit.issue, p.number);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pull(number: u64, head: &str, title: &str, body: &str) -> OpenPull {
        OpenPull {
            number,
            head_ref: head.into(),
            title: title.into(),
            body: body.into(),
            head_sha: String::new(),
            commits: Vec::new(),
        }
    }

    #[test]
    fn a_commit_of_an_open_pull_request_links_by_its_subject_or_trailers_only() {
        let mut rule = EvidenceRule::new("pl");
        rule.links.insert(9, 109);
        let with = |number: u64, commits: &[&str]| OpenPull {
            commits: commits.iter().map(|c| c.to_string()).collect(),
            ..pull(number, "teammate/branch", "Dark mode", "")
        };
        let pulls = vec![
            with(60, &["wip", "feat(pl): Implement issue #7\n\nby hand"]),
            with(61, &["refactor\n\nSwarm-Feature: pl\nSwarm-Issue: 8"]),
            // a closing keyword in a commit closes on merge; it is the PR text that links
            with(62, &["fix things\n\nFixes #109"]),
            // another feature or a mention never links #7; #70 is issue 70
            with(
                63,
                &[
                    "feat(other): Implement issue #7",
                    "feat(pl): Implement issue #70",
                    "see issue #7",
                ],
            ),
        ];
        assert_eq!(
            linked_issues(&rule, &pulls),
            BTreeMap::from([(7, 60), (8, 61), (70, 63)])
        );
    }

    #[test]
    fn branch_names_round_trip_and_are_exact() {
        assert_eq!(branch_name(&crate::fid("auth"), 7), "swarm/auth/issue-7");
        assert_eq!(issue_of_branch("auth", "swarm/auth/issue-7"), Some(7));
        assert_eq!(issue_of_branch("auth", "swarm/auth/issue-07"), None);
        assert_eq!(issue_of_branch("auth", "swarm/auth/issue-7x"), None);
        assert_eq!(issue_of_branch("auth", "swarm/auth2/issue-7"), None);
        assert_eq!(issue_of_branch("auth", "swarm/auth/issue-"), None);
        assert_eq!(issue_of_branch("auth", "feature/auth/issue-7"), None);
    }

    #[test]
    fn each_way_of_linking_counts_and_bare_mentions_do_not() {
        let mut rule = EvidenceRule::new("auth");
        rule.links.insert(3, 103);
        let pulls = vec![
            pull(50, "swarm/auth/issue-1", "anything", ""),
            pull(51, "user/branch", "feat(auth): Implement issue #2", ""),
            pull(52, "x", "Dark mode", "Fixes #103"),
            pull(53, "y", "Mentions #103 and issue #4", "Ref #103"),
            pull(
                54,
                "z",
                "body trailers",
                "text\n\nSwarm-Feature: auth\nSwarm-Issue: 5",
            ),
            pull(49, "swarm/auth/issue-1", "older PR for 1", ""),
        ];
        let linked = linked_issues(&rule, &pulls);
        assert_eq!(
            linked,
            BTreeMap::from([(1, 49), (2, 51), (3, 52), (5, 54)]),
            "bare #103 / Ref #103 never link"
        );
    }
}
