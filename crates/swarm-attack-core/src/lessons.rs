//! Lessons (docs/learning.md "Lessons"): verified facts from earlier work, with their evidence, and
//! the rules that decide which of them a prompt holds. Pure: the app reads the lessons file and
//! which cited files exist at the start commit, and hands them in.
//!
//! - A lesson **touches** an issue when one of its files equals one of the issue's `files`
//!   or its `test_file` (closeness 0), or is in the same directory as one (1), or it shares a
//!   label with the issue (2); a lesson with neither files nor labels touches every issue
//!   (3, general).
//! - It is **not used** when a file it cites is missing at the start commit, or when it was
//!   not verified (created, or renewed by a passing attempt that used it) for
//!   `lessons.ttl_days`.
//! - The prompt holds at most `lessons.max`: closest first, then the most recently
//!   verified, then by id.
//! - Facts, files and labels are neutralised like handoff items when written and again when
//!   shown ([`crate::handoff::neutral_item`]).

use crate::handoff::neutral_item;
use crate::prompt::sanitize::sanitize_line;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Where a lesson came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LessonSource {
    /// An issue became DONE after failed attempts; the analyst stated the fact.
    RetryFixed,
    /// A counted review finding that the next review round no longer reported.
    ReviewFixed,
    /// A pull request closed unmerged, with a comment by a user with write access.
    PrFeedback,
    /// `swarm-attack lessons add`.
    Person,
}

impl LessonSource {
    pub fn as_str(self) -> &'static str {
        match self {
            LessonSource::RetryFixed => "retry_fixed",
            LessonSource::ReviewFixed => "review_fixed",
            LessonSource::PrFeedback => "pr_feedback",
            LessonSource::Person => "person",
        }
    }
}

/// One line of the lessons file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    pub id: String,
    pub fact: String,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub labels: Vec<String>,
    pub source: LessonSource,
    /// What verified it (a commit, a pull request and comment, a review round).
    #[serde(default)]
    pub evidence: String,
    /// Who stated it: a GitHub login, `person` for the CLI, the analyst.
    #[serde(default)]
    pub author: String,
    pub created: String,
    pub last_verified: String,
    #[serde(default)]
    pub uses: u64,
}

/// The most characters of a fact.
pub const MAX_FACT_CHARS: usize = crate::handoff::MAX_CHARS;

/// A repository path as lessons keep it: `/`-separated, no leading `./` or `/`; `None` for
/// an empty path or one that leaves the repository (`..`).
pub fn normalise_path(p: &str) -> Option<String> {
    let p = sanitize_line(p).replace('\\', "/");
    let parts: Vec<&str> = p
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if parts.is_empty() || parts.contains(&"..") {
        return None;
    }
    Some(parts.join("/"))
}

/// The fact made safe to store and show (one line, neutralised, cut).
pub fn neutral_fact(fact: &str) -> String {
    neutral_item(fact)
}

/// A new lesson id: `L` and 8 hex digits of a hash of `seed`, bumped past the ids taken.
pub fn new_id(seed: &str, taken: &BTreeSet<String>) -> String {
    // FNV-1a, 64 bits
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    loop {
        let id = format!("L{:08x}", (h >> 32) as u32 ^ (h as u32));
        if !taken.contains(&id) {
            return id;
        }
        h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    }
}

/// What an issue offers for the touch test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueScope {
    /// The issue's `files` and `test_file`.
    pub files: Vec<String>,
    pub labels: Vec<String>,
}

fn dir_of(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
}

/// How close a lesson is to an issue (0 same file, 1 same directory, 2 shared label,
/// 3 general); `None` when it does not touch the issue.
pub fn closeness(lesson: &Lesson, scope: &IssueScope) -> Option<u8> {
    let issue_files: Vec<String> = scope
        .files
        .iter()
        .filter_map(|f| normalise_path(f))
        .collect();
    let files: Vec<String> = lesson
        .files
        .iter()
        .filter_map(|f| normalise_path(f))
        .collect();
    if files.iter().any(|f| issue_files.contains(f)) {
        return Some(0);
    }
    if files
        .iter()
        .any(|f| issue_files.iter().any(|i| dir_of(i) == dir_of(f)))
    {
        return Some(1);
    }
    let shared = lesson.labels.iter().any(|l| {
        scope
            .labels
            .iter()
            .any(|m| m.trim().eq_ignore_ascii_case(l.trim()) && !l.trim().is_empty())
    });
    if shared {
        return Some(2);
    }
    (lesson.files.is_empty() && lesson.labels.is_empty()).then_some(3)
}

/// Why a lesson is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unused {
    /// It cites a file missing at the start commit.
    MissingFile(String),
    /// Not verified for `ttl_days`.
    Expired,
}

/// Whether `lesson` may be used: its files exist (`exists`) and it was verified within
/// `ttl_days` of `now` (RFC 3339). An unreadable `last_verified` counts as expired.
pub fn usable(
    lesson: &Lesson,
    now: &str,
    ttl_days: u64,
    exists: &dyn Fn(&str) -> bool,
) -> Result<(), Unused> {
    for f in &lesson.files {
        match normalise_path(f) {
            Some(p) if exists(&p) => {}
            _ => return Err(Unused::MissingFile(f.clone())),
        }
    }
    let age = crate::audit::millis_between(&lesson.last_verified, now);
    let ttl_ms = ttl_days.saturating_mul(86_400_000);
    match age {
        Some(ms) if ms <= ttl_ms => Ok(()),
        // verified "in the future" (a clock skew): usable
        None if crate::audit::millis_between(now, &lesson.last_verified).is_some() => Ok(()),
        _ => Err(Unused::Expired),
    }
}

/// The lessons a prompt holds for an issue: those that touch it and are usable, closest
/// first, then the most recently verified, then by id; at most `max`.
pub fn select<'a>(
    lessons: &'a [Lesson],
    scope: &IssueScope,
    now: &str,
    ttl_days: u64,
    max: usize,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<&'a Lesson> {
    let mut picked: Vec<(u8, &Lesson)> = lessons
        .iter()
        .filter_map(|l| closeness(l, scope).map(|c| (c, l)))
        .filter(|(_, l)| usable(l, now, ttl_days, exists).is_ok())
        .collect();
    picked.sort_by(|(ca, a), (cb, b)| {
        ca.cmp(cb)
            .then_with(|| b.last_verified.cmp(&a.last_verified))
            .then_with(|| a.id.cmp(&b.id))
    });
    picked.into_iter().take(max).map(|(_, l)| l).collect()
}

/// The rendered entry of one lesson in `### Lessons from earlier work`.
pub fn render_entry(l: &Lesson) -> String {
    let mut s = format!("- [{}] {}", sanitize_line(&l.id), neutral_fact(&l.fact));
    let files: Vec<String> = l
        .files
        .iter()
        .filter_map(|f| normalise_path(f))
        .map(|f| format!("`{}`", f.replace('`', "'")))
        .collect();
    let mut meta = Vec::new();
    if !files.is_empty() {
        meta.push(format!("files: {}", files.join(", ")));
    }
    let labels: Vec<String> = l
        .labels
        .iter()
        .map(|x| sanitize_line(x))
        .filter(|x| !x.is_empty())
        .collect();
    if !labels.is_empty() {
        meta.push(format!("labels: {}", labels.join(", ")));
    }
    meta.push(format!("source: {}", l.source.as_str()));
    let ev = neutral_item(&l.evidence);
    if !ev.is_empty() {
        meta.push(format!("evidence: {ev}"));
    }
    s.push_str(&format!("\n  ({})", meta.join("; ")));
    s
}

/// Whether a fact stated by an analyst repeats the issue's own text: it contains a run of
/// [`PLANTED_WORDS`] consecutive words of `issue_text` (case-insensitive), or all of it is
/// in there. Issue text is never a lesson, even when an analyst repeats it.
pub fn repeats_issue_text(fact: &str, issue_text: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let f = words(fact);
    let i = words(issue_text);
    if f.is_empty() || i.is_empty() {
        return false;
    }
    let joined = format!(" {} ", i.join(" "));
    if f.len() < PLANTED_WORDS {
        return joined.contains(&format!(" {} ", f.join(" ")));
    }
    f.windows(PLANTED_WORDS)
        .any(|w| joined.contains(&format!(" {} ", w.join(" "))))
}

/// The run of consecutive words shared with the issue text that rejects a stated fact.
pub const PLANTED_WORDS: usize = 5;

/// What the analyst is shown to state a `retry_fixed` lesson: never the issue's text (it is
/// not verified, and may try to plant a lesson), only what the work verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryFixedInput<'a> {
    pub feature: &'a str,
    pub issue: u32,
    /// The attempt that passed (after `attempt - 1` failed ones).
    pub attempt: u32,
    /// The failures of the earlier attempts (excerpts of test output, reasons).
    pub failures: &'a [String],
    /// The passing commit and the files it changed.
    pub commit: &'a str,
    pub files: &'a [String],
}

/// The most characters of failure text shown to the analyst.
const FAILURE_CHARS: usize = 3000;

/// The analyst's prompt (`SWARM_PURPOSE=lesson`).
pub fn retry_fixed_prompt(input: &RetryFixedInput<'_>) -> String {
    let mut s = format!(
        "You are the lesson analyst of swarm-attack. Issue #{} of feature `{}` failed {} time(s) and then passed in attempt {} (commit {}).\n\n\
         State, in one sentence, the one fact about this repository that the failures taught: what the first attempts got wrong and the passing attempt got right, so that later work avoids it. Name only files from the list below.\n\n\
         ## Files changed by the passing commit\n\n",
        input.issue,
        input.feature,
        input.attempt.saturating_sub(1),
        input.attempt,
        input.commit.chars().take(12).collect::<String>()
    );
    for f in input.files {
        s.push_str(&format!("- `{}`\n", f.replace('`', "'")));
    }
    s.push_str("\n## The failures, oldest first\n");
    for (i, f) in input.failures.iter().enumerate() {
        let f = crate::prompt::sanitize::strip_hidden_chars(f);
        let tail: String = {
            let n = f.chars().count();
            f.chars().skip(n.saturating_sub(FAILURE_CHARS)).collect()
        };
        let fe = crate::prompt::sections::fence(&tail);
        s.push_str(&format!(
            "\nFailure {}:\n\n{fe}text\n{}\n{fe}\n",
            i + 1,
            tail.trim_end()
        ));
    }
    s.push_str(
        "\n## Answer\n\nExactly one JSON object: {\"fact\": \"<one sentence>\", \"files\": [\"<a path from the list above>\", ...]}\n",
    );
    s
}

/// The first JSON object in `text` that has a `fact` key.
fn fact_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    for (i, _) in text.match_indices('{') {
        let mut it =
            serde_json::Deserializer::from_str(&text[i..]).into_iter::<serde_json::Value>();
        if let Some(Ok(serde_json::Value::Object(m))) = it.next()
            && m.contains_key("fact")
        {
            return Some(m);
        }
    }
    None
}

/// Reads the analyst's answer: `(fact, files)`, the fact neutralised and the files
/// normalised; every file must be one of `allowed` (the passing commit's files) and there
/// must be at least one. `Err` says why there is no lesson.
pub fn parse_retry_fixed(text: &str, allowed: &[String]) -> Result<(String, Vec<String>), String> {
    let obj = fact_object(text).ok_or("the answer holds no JSON object with a `fact`")?;
    let fact = obj
        .get("fact")
        .and_then(|f| f.as_str())
        .map(neutral_fact)
        .filter(|f| !f.is_empty())
        .ok_or("`fact` is not a non-empty string")?;
    let Some(serde_json::Value::Array(items)) = obj.get("files") else {
        return Err("`files` is not a list".into());
    };
    let allowed: Vec<String> = allowed.iter().filter_map(|f| normalise_path(f)).collect();
    let mut files = Vec::new();
    for item in items {
        let Some(p) = item.as_str().and_then(normalise_path) else {
            return Err(format!(
                "`files` holds {item}, which is not a repository path"
            ));
        };
        if !allowed.contains(&p) {
            return Err(format!("`{p}` is not among the passing commit's files"));
        }
        if !files.contains(&p) {
            files.push(p);
        }
    }
    if files.is_empty() {
        return Err("`files` is empty".into());
    }
    Ok((fact, files))
}

#[cfg(test)]
mod tests;
