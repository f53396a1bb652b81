//! The git-history rule (docs/git-sync.md "The four rules"): when one commit message is
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
mod tests;
