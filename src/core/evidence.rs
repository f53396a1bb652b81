//! The git-history rule (SPEC §3, §11 "Git rule details"): when one commit message is
//! evidence that issue N of feature F is implemented, and which commits it reverts.
//!
//! A message is evidence for issue N when
//! 1. its subject is `feat(F): Implement issue #N…` (anchored at the start; `feat` and
//!    `implement issue` case-insensitive; F exact; N not followed by an alphanumeric);
//! 2. its last paragraph carries the trailers `Swarm-Feature: F` and `Swarm-Issue: N`;
//! 3. it closes the GitHub issue G linked to task N with a closing keyword
//!    (`close[sd]?|fix(e[sd])?|resolve[sd]?`, optional colon) on `#G` or `owner/repo#G`
//!    (this repository only); a bare `#G` or `Ref #G` never counts;
//! 4. it matches one of the user's `git.done_patterns` (named groups `feature`, `issue`;
//!    matched against the whole message, multi-line; the `feature` group must equal F).
//!
//! `This reverts commit <sha>` (full sha or a prefix of at least 7 hex digits) names the
//! commits a message reverts; the ledger (`core::ledger`) turns that into cancelled and
//! restored evidence.

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// What the rule needs to know about the feature.
#[derive(Debug, Clone, Default)]
pub struct EvidenceRule {
    /// The feature id F (matched exactly).
    pub feature: String,
    /// Task issue number → linked GitHub issue G (rule 3).
    pub links: BTreeMap<u32, u64>,
    /// `owner/repo` of this repository (rule 3's `owner/repo#G`), if known.
    pub repo: Option<String>,
    /// The user's extra patterns (rule 4), with named groups `feature` and `issue`, compiled
    /// multi-line (see [`compile_patterns`]).
    pub done_patterns: Vec<regex::Regex>,
}

/// Which part of the rule a piece of evidence comes from (the `source` of an
/// `EvidenceRecord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Subject,
    Trailers,
    ClosingKeyword,
    Pattern,
}

impl Source {
    /// The name written in the state file.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Subject => "subject",
            Source::Trailers => "trailers",
            Source::ClosingKeyword => "closing_keyword",
            Source::Pattern => "pattern",
        }
    }
}

/// One match of the rule in one message.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Hit {
    pub issue: u32,
    pub source: Source,
    /// The matched text (a subject, trailers, `Fixes #12`, `git.done_patterns[0]: …`).
    pub detail: String,
}

/// A `done_patterns` entry that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// Index in `git.done_patterns`.
    pub index: usize,
    pub message: String,
}

/// Compiles the user's `git.done_patterns` (multi-line). Each must be a valid regex with
/// the named groups `feature` and `issue`.
pub fn compile_patterns(patterns: &[String]) -> Result<Vec<Regex>, PatternError> {
    patterns
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let re = RegexBuilder::new(p)
                .multi_line(true)
                .build()
                .map_err(|e| PatternError {
                    index,
                    message: format!(
                        "is not a valid regular expression: {}",
                        e.to_string().lines().last().unwrap_or("").trim()
                    ),
                })?;
            for group in ["feature", "issue"] {
                if !re.capture_names().any(|n| n == Some(group)) {
                    return Err(PatternError {
                        index,
                        message: format!("lacks the named group `(?P<{group}>...)`"),
                    });
                }
            }
            Ok(re)
        })
        .collect()
}

/// Details longer than this are cut (they are for people, not for matching).
const MAX_DETAIL: usize = 200;

fn detail(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_DETAIL) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Parses the issue number at the start of `s`: a run of ASCII digits without a leading
/// zero (exact number text), not followed by an alphanumeric. Returns the number and the
/// length of its text.
pub fn issue_number_at(s: &str) -> Option<(u32, usize)> {
    let b = s.as_bytes();
    let len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if len == 0 || len > 9 || (len > 1 && b[0] == b'0') {
        return None;
    }
    if s[len..].chars().next().is_some_and(char::is_alphanumeric) {
        return None;
    }
    Some((s[..len].parse().ok()?, len))
}

/// The issue number in a whole value (`12` or `#12`, surrounding blanks ignored).
fn exact_issue(value: &str) -> Option<u32> {
    let v = value.trim();
    let v = v.strip_prefix('#').unwrap_or(v);
    match issue_number_at(v) {
        Some((n, len)) if len == v.len() => Some(n),
        _ => None,
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let b = s.as_bytes();
    (b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes()))
        .then(|| &s[prefix.len()..])
}

/// Strips at least one blank (space or tab).
fn strip_blanks1(s: &str) -> Option<&str> {
    let t = s.trim_start_matches([' ', '\t']);
    (t.len() < s.len()).then_some(t)
}

/// The first line of a message, without a trailing `\r`.
pub fn subject(message: &str) -> &str {
    let line = message.split('\n').next().unwrap_or("");
    line.strip_suffix('\r').unwrap_or(line)
}

/// The message's last paragraph when it is not the first one (the subject's paragraph
/// never holds trailers), else `None`.
pub fn last_paragraph(message: &str) -> Option<&str> {
    let msg = message.trim_end();
    let mut start = None;
    let mut offset = 0;
    for line in msg.split('\n') {
        let next = offset + line.len() + 1;
        if line.trim().is_empty() {
            start = Some(next);
        }
        offset = next;
    }
    start.map(|s| &msg[s.min(msg.len())..])
}

static CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?::[ \t]*|[ \t]+)(?:([a-z0-9][a-z0-9-]*/[a-z0-9_.-]+))?#([0-9]+)",
    )
    .expect("closing keyword pattern")
});

static REVERTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bthis reverts commit ([0-9a-f]{7,40})").expect("revert pattern")
});

impl EvidenceRule {
    /// A rule for `feature` with no links, no repository and no extra patterns.
    pub fn new(feature: &str) -> Self {
        EvidenceRule {
            feature: feature.to_string(),
            ..Default::default()
        }
    }

    /// Appends to `out` every piece of evidence `message` gives (at most one per issue and
    /// source, in rule order).
    pub fn scan(&self, message: &str, out: &mut Vec<Hit>) {
        let first = out.len();
        self.rule_subject(message, out);
        self.rule_trailers(message, out);
        self.rule_closing(message, out);
        self.rule_patterns(message, out);
        // keep the first hit per (issue, source)
        let mut i = first;
        while i < out.len() {
            let dup = out[first..i]
                .iter()
                .any(|h| h.issue == out[i].issue && h.source == out[i].source);
            if dup {
                out.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// The evidence `message` gives, as a new vector.
    pub fn matches(&self, message: &str) -> Vec<Hit> {
        let mut out = Vec::new();
        self.scan(message, &mut out);
        out
    }

    /// Rule 1: `feat(F): Implement issue #N` at the start of the subject.
    fn rule_subject(&self, message: &str, out: &mut Vec<Hit>) {
        let subj = subject(message);
        let Some(n) = self.subject_issue(subj) else {
            return;
        };
        out.push(Hit {
            issue: n,
            source: Source::Subject,
            detail: detail(subj),
        });
    }

    fn subject_issue(&self, subj: &str) -> Option<u32> {
        let rest = strip_prefix_ci(subj, "feat(")?;
        let rest = rest.strip_prefix(self.feature.as_str())?;
        let rest = rest.strip_prefix("):")?;
        let rest = rest.trim_start_matches([' ', '\t']);
        let rest = strip_prefix_ci(rest, "implement")?;
        let rest = strip_prefix_ci(strip_blanks1(rest)?, "issue")?;
        let rest = strip_blanks1(rest)?.strip_prefix('#')?;
        issue_number_at(rest).map(|(n, _)| n)
    }

    /// Rule 2: `Swarm-Feature: F` and `Swarm-Issue: N` in the last paragraph.
    fn rule_trailers(&self, message: &str, out: &mut Vec<Hit>) {
        let Some(par) = last_paragraph(message) else {
            return;
        };
        let mut feature_line = None;
        let first = out.len();
        for line in par.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim_end();
            if key.eq_ignore_ascii_case("swarm-feature") {
                if value.trim() == self.feature {
                    feature_line = Some(line.trim());
                }
            } else if key.eq_ignore_ascii_case("swarm-issue")
                && let Some(n) = exact_issue(value)
            {
                out.push(Hit {
                    issue: n,
                    source: Source::Trailers,
                    detail: detail(line),
                });
            }
        }
        match feature_line {
            None => out.truncate(first),
            Some(f) => {
                for h in &mut out[first..] {
                    h.detail = detail(&format!("{f}, {}", h.detail));
                }
            }
        }
    }

    /// Rule 3: a closing keyword on the GitHub issue linked to a task.
    fn rule_closing(&self, message: &str, out: &mut Vec<Hit>) {
        if self.links.is_empty() || !message.contains('#') {
            return;
        }
        for caps in CLOSING.captures_iter(message) {
            let whole = caps.get(0).expect("group 0");
            let digits = caps.get(2).expect("group 2");
            let Some((g, _)) = issue_number_at(&message[digits.start()..]) else {
                continue;
            };
            if let Some(repo) = caps.get(1) {
                let ours = self
                    .repo
                    .as_deref()
                    .is_some_and(|r| r.eq_ignore_ascii_case(repo.as_str()));
                if !ours {
                    continue;
                }
            }
            for (&issue, &linked) in &self.links {
                if linked == u64::from(g) {
                    out.push(Hit {
                        issue,
                        source: Source::ClosingKeyword,
                        detail: detail(whole.as_str()),
                    });
                }
            }
        }
    }

    /// Rule 4: the user's patterns.
    fn rule_patterns(&self, message: &str, out: &mut Vec<Hit>) {
        for (i, re) in self.done_patterns.iter().enumerate() {
            for caps in re.captures_iter(message) {
                if caps
                    .name("feature")
                    .is_none_or(|f| f.as_str() != self.feature)
                {
                    continue;
                }
                let Some(n) = caps.name("issue").and_then(|m| exact_issue(m.as_str())) else {
                    continue;
                };
                let whole = caps.get(0).map_or("", |m| m.as_str());
                out.push(Hit {
                    issue: n,
                    source: Source::Pattern,
                    detail: detail(&format!("git.done_patterns[{i}]: {whole}")),
                });
            }
        }
    }

    /// A stable fingerprint of everything the rule depends on (a change invalidates scans
    /// made with the old rule).
    pub fn fingerprint_input(&self) -> String {
        let links: Vec<String> = self.links.iter().map(|(n, g)| format!("{n}={g}")).collect();
        let patterns: Vec<&str> = self.done_patterns.iter().map(Regex::as_str).collect();
        serde_json::json!({
            "feature": self.feature,
            "links": links,
            "repo": self.repo.as_deref().map(str::to_ascii_lowercase),
            "patterns": patterns,
        })
        .to_string()
    }
}

/// The commits `message` says it reverts (`This reverts commit <hex>`), lowercase hex of 7
/// to 40 digits, each not followed by an alphanumeric.
pub fn revert_targets(message: &str) -> Vec<String> {
    if !message
        .as_bytes()
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"reverts"))
    {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for caps in REVERTS.captures_iter(message) {
        let hex = caps.get(1).expect("group 1");
        if message[hex.end()..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
        {
            continue;
        }
        let h = hex.as_str().to_ascii_lowercase();
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(feature: &str) -> EvidenceRule {
        EvidenceRule::new(feature)
    }

    fn issues(r: &EvidenceRule, msg: &str) -> Vec<(u32, Source)> {
        r.matches(msg)
            .into_iter()
            .map(|h| (h.issue, h.source))
            .collect()
    }

    use Source::*;

    #[test]
    fn subject_rule_table() {
        let r = rule("auth");
        let cases: &[(&str, &[(u32, Source)])] = &[
            ("feat(auth): Implement issue #2", &[(2, Subject)]),
            ("feat(auth): Implement issue #2 (#41)", &[(2, Subject)]),
            (
                "feat(auth): Implement issue #2: login form",
                &[(2, Subject)],
            ),
            ("feat(auth): Implement issue #2\n\nbody", &[(2, Subject)]),
            ("feat(auth): Implement issue #2\r\n", &[(2, Subject)]),
            // prefix trap
            ("feat(auth): Implement issue #22", &[(22, Subject)]),
            ("feat(auth): Implement issue #6x", &[]),
            ("feat(auth): Implement issue #6é", &[]),
            ("feat(auth): Implement issue #02", &[]),
            ("feat(auth): Implement issue #2.", &[(2, Subject)]),
            // case
            ("FEAT(auth): IMPLEMENT ISSUE #3", &[(3, Subject)]),
            ("Feat(auth): implement Issue #3", &[(3, Subject)]),
            ("feat(AUTH): Implement issue #3", &[]),
            // anchored
            ("Revert \"feat(auth): Implement issue #3\"", &[]),
            (" feat(auth): Implement issue #3", &[]),
            ("chore: x\n\nfeat(auth): Implement issue #3", &[]),
            // another feature
            ("feat(auth2): Implement issue #3", &[]),
            ("feat(au): Implement issue #3", &[]),
            ("feat(auth-x): Implement issue #3", &[]),
            ("fix(auth): Implement issue #3", &[]),
            // shape
            ("feat(auth): Implement #3", &[]),
            ("feat(auth): Implement issue 3", &[]),
            ("feat(auth): Implementissue #3", &[]),
            ("feat(auth): Implement issue#3", &[]),
            ("feat(auth):Implement issue #3", &[(3, Subject)]),
        ];
        for (msg, want) in cases {
            assert_eq!(issues(&r, msg), *want, "message: {msg:?}");
        }
    }

    #[test]
    fn feature_ids_with_dots_and_dashes_are_literal() {
        let r = rule("v1.2-x_y");
        assert_eq!(
            issues(&r, "feat(v1.2-x_y): Implement issue #1"),
            [(1, Subject)]
        );
        // `.` is not a regex wildcard
        assert_eq!(issues(&r, "feat(v1x2-x_y): Implement issue #1"), []);
        assert_eq!(issues(&r, "feat(v1.2-x): Implement issue #1"), []);
        let msg = "x\n\nSwarm-Feature: v1.2-x_y\nSwarm-Issue: 4";
        assert_eq!(issues(&r, msg), [(4, Trailers)]);
        assert_eq!(issues(&rule("v1.2"), msg), []);
    }

    #[test]
    fn trailers_only_in_last_paragraph() {
        let r = rule("auth");
        let cases: &[(&str, &[(u32, Source)])] = &[
            (
                "add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5",
                &[(5, Trailers)],
            ),
            (
                "add x\n\nbody\n\nSwarm-Feature: auth\nSwarm-Issue: 5\n",
                &[(5, Trailers)],
            ),
            (
                "add x\n\nswarm-feature: auth\nSWARM-ISSUE: #5",
                &[(5, Trailers)],
            ),
            (
                "add x\n\nSwarm-Issue: 5\nSwarm-Feature: auth",
                &[(5, Trailers)],
            ),
            // not the last paragraph
            (
                "add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5\n\nSigned-off-by: a",
                &[],
            ),
            // both trailers needed, in the same paragraph
            ("add x\n\nSwarm-Feature: auth\n\nSwarm-Issue: 5", &[]),
            ("add x\n\nSwarm-Issue: 5", &[]),
            // the subject paragraph never holds trailers
            ("Swarm-Feature: auth\nSwarm-Issue: 5", &[]),
            // exact values
            ("add x\n\nSwarm-Feature: auth2\nSwarm-Issue: 5", &[]),
            (
                "add x\n\nSwarm-Feature: auth\nSwarm-Issue: 55",
                &[(55, Trailers)],
            ),
            ("add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5x", &[]),
            ("add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5 and 6", &[]),
            // both rules
            (
                "feat(auth): Implement issue #5\n\nSwarm-Feature: auth\nSwarm-Issue: 5",
                &[(5, Subject), (5, Trailers)],
            ),
        ];
        for (msg, want) in cases {
            assert_eq!(issues(&r, msg), *want, "message: {msg:?}");
        }
    }

    #[test]
    fn closing_keywords_only_for_linked_issues() {
        let mut r = rule("auth");
        r.links.insert(3, 42);
        r.repo = Some("Owner/Repo".into());
        let cases: &[(&str, &[(u32, Source)])] = &[
            ("x\n\nFixes #42", &[(3, ClosingKeyword)]),
            ("Close #42", &[(3, ClosingKeyword)]),
            ("closes #42", &[(3, ClosingKeyword)]),
            ("closed #42", &[(3, ClosingKeyword)]),
            ("fix #42", &[(3, ClosingKeyword)]),
            ("FIXED #42.", &[(3, ClosingKeyword)]),
            ("resolve #42", &[(3, ClosingKeyword)]),
            ("Resolves: #42", &[(3, ClosingKeyword)]),
            ("resolved:#42", &[(3, ClosingKeyword)]),
            ("Fixes: #12\nFixes owner/repo#42", &[(3, ClosingKeyword)]),
            // bare references never
            ("x #42", &[]),
            ("Ref #42", &[]),
            ("See #42, relates to #42", &[]),
            ("Merge pull request #42 from a/b", &[]),
            // prefix trap and near misses
            ("Fixes #420", &[]),
            ("Fixes #4", &[]),
            ("Fixes #42a", &[]),
            ("prefixes #42", &[]),
            ("fixing #42", &[]),
            ("Fixes\n#42", &[]),
            ("Fixes#42", &[]),
            // another repository
            ("Fixes other/repo#42", &[]),
            ("Fixes owner/repo2#42", &[]),
        ];
        for (msg, want) in cases {
            assert_eq!(issues(&r, msg), *want, "message: {msg:?}");
        }
        // an unlinked task: never
        assert_eq!(issues(&rule("auth"), "Fixes #42"), []);
        // owner/repo needs a known repository
        let mut norepo = rule("auth");
        norepo.links.insert(3, 42);
        assert_eq!(issues(&norepo, "Fixes owner/repo#42"), []);
        assert_eq!(issues(&norepo, "Fixes #42"), [(3, ClosingKeyword)]);
    }

    #[test]
    fn bare_numbers_are_never_evidence() {
        let r = rule("auth");
        for msg in [
            "#3",
            "Ref #3",
            "implement issue #3",
            "auth: Implement issue #3",
            "feat: Implement issue #3",
            "Fixes #3",
            "x\n\nSwarm-Issue: 3",
        ] {
            assert_eq!(issues(&r, msg), [], "message: {msg:?}");
        }
    }

    #[test]
    fn done_patterns_match_the_whole_message_multiline() {
        let mut r = rule("auth");
        r.done_patterns = compile_patterns(&[
            r"^Done: (?P<feature>[a-z0-9._-]+)/(?P<issue>\d+)$".to_string(),
            r"^\[(?P<feature>[a-z]+)-(?P<issue>\d+)\] complete".to_string(),
        ])
        .unwrap();
        assert_eq!(issues(&r, "wip\n\nDone: auth/7\n"), [(7, Pattern)]);
        assert_eq!(
            issues(&r, "Done: auth/7\nDone: auth/8"),
            [(7, Pattern), (8, Pattern)]
        );
        assert_eq!(issues(&r, "Done: billing/7"), []);
        assert_eq!(issues(&r, "Done: auth/7x"), []);
        assert_eq!(issues(&r, "x\n[auth-9] complete"), [(9, Pattern)]);
        assert_eq!(issues(&r, "x\n[billing-9] complete"), []);
        let h = &r.matches("Done: auth/7")[0];
        assert_eq!(h.detail, "git.done_patterns[0]: Done: auth/7");
    }

    #[test]
    fn invalid_patterns_name_their_index() {
        let ok = "(?P<feature>x)(?P<issue>\\d+)".to_string();
        let e = compile_patterns(&[ok, "(".into()]).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(
            e.message.contains("not a valid regular expression"),
            "{}",
            e.message
        );
        let e = compile_patterns(&[r"(?P<issue>\d+)".into()]).unwrap_err();
        assert_eq!(e.index, 0);
        assert!(e.message.contains("feature"), "{}", e.message);
    }

    #[test]
    fn merge_commits_are_ordinary_messages() {
        let r = rule("auth");
        assert_eq!(
            issues(
                &r,
                "Merge branch 'feature/x'\n\nSwarm-Feature: auth\nSwarm-Issue: 2"
            ),
            [(2, Trailers)]
        );
        assert_eq!(issues(&r, "Merge pull request #2 from o/auth-2"), []);
    }

    #[test]
    fn revert_targets_table() {
        let full = "0123456789abcdef0123456789abcdef01234567";
        let cases: &[(&str, &[&str])] = &[
            (
                &format!("Revert \"x\"\n\nThis reverts commit {full}."),
                &[full],
            ),
            ("Revert\n\nThis reverts commit ABCDEF0.", &["abcdef0"]),
            ("this reverts commit abcdef0, reversing", &["abcdef0"]),
            ("This reverts commit abcdef", &[]),
            ("This reverts commit abcdef0g", &[]),
            (
                "This reverts commit abcdef01\nThis reverts commit 1234567",
                &["abcdef01", "1234567"],
            ),
            ("reverts abcdef0", &[]),
        ];
        for (msg, want) in cases {
            assert_eq!(revert_targets(msg), *want, "message: {msg:?}");
        }
    }

    #[test]
    fn fingerprint_changes_with_every_input() {
        let base = rule("auth");
        let mut linked = base.clone();
        linked.links.insert(1, 2);
        let mut repo = base.clone();
        repo.repo = Some("o/r".into());
        let mut pat = base.clone();
        pat.done_patterns = compile_patterns(&["(?P<feature>x)(?P<issue>\\d+)".into()]).unwrap();
        let all = [
            base.fingerprint_input(),
            rule("auth2").fingerprint_input(),
            linked.fingerprint_input(),
            repo.fingerprint_input(),
            pat.fingerprint_input(),
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn issue_n_never_matches_n_followed_by_a_digit(n in 1u32..100_000, d in 0u32..10) {
                let mut r = rule("auth");
                let longer = n * 10 + d;
                r.links.insert(n, u64::from(n) + 1000);
                let g = n + 1000;
                for msg in [
                    format!("feat(auth): Implement issue #{longer}"),
                    format!("x\n\nSwarm-Feature: auth\nSwarm-Issue: {longer}"),
                    format!("Fixes #{g}{d}"),
                ] {
                    let hits = r.matches(&msg);
                    prop_assert!(hits.iter().all(|h| h.issue != n), "{msg:?} gave {hits:?}");
                }
                prop_assert_eq!(
                    issues(&r, &format!("feat(auth): Implement issue #{n}")),
                    vec![(n, Subject)]
                );
            }

            #[test]
            fn subject_suffix_never_changes_the_number(n in 1u32..1_000_000, tail in "[ ,.:;()#!?-][ -~]{0,20}") {
                let r = rule("auth");
                let msg = format!("feat(auth): Implement issue #{n}{tail}");
                prop_assert_eq!(issues(&r, &msg), vec![(n, Subject)]);
            }

            #[test]
            fn alphanumeric_suffix_is_never_evidence(n in 1u32..1_000_000, c in "[a-zA-Z0-9]") {
                let r = rule("auth");
                let msg = format!("feat(auth): Implement issue #{n}{c}");
                prop_assert!(issues(&r, &msg).iter().all(|(i, _)| *i != n));
            }

            #[test]
            fn scan_never_panics(msg in "\\PC{0,200}") {
                let mut r = rule("auth");
                r.links.insert(1, 1);
                let _ = r.matches(&msg);
                let _ = revert_targets(&msg);
            }
        }
    }
}
