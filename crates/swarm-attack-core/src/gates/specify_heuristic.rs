//! The offline specify scorer, used when `gates.specify` is enabled and no `llm.command` is
//! configured. Deterministic: the same title, body, labels and files always give the same
//! scores. The rules (documented in docs/gates.md):
//!
//! - **goal**: +1 when the title has at least 3 words; +1 when the body has at least 12
//!   words.
//! - **acceptance**: 2 with an acceptance heading (`acceptance`, `done means`, `done when`,
//!   `definition of done`, `expected`, `criteria`, `tests`) or 2+ checklist items
//!   (`- [ ]`); 1 with one checklist item or a line holding `should`, `must`, `expect`,
//!   `returns` or `test`; else 0.
//! - **scope**: 2 when the issue lists `files`, has a scope heading (`scope`, `files`,
//!   `out of scope`, `non-goals`) or names 2+ paths (a word with `/` or a file
//!   extension); 1 with one path or an inline code span; else 0.
//! - **constraints**: 2 with a constraints heading (`constraints`, `requirements`,
//!   `limitations`) or 2+ distinct markers (`must not`, `do not`, `don't`, `never`,
//!   `without`, `only`, `keep`, `backward`, `compatib`, `performance`, `no new`); 1 with one
//!   marker; else 0.
//! - **context**: 2 with a context heading (`context`, `background`, `why`, `motivation`,
//!   `problem`) or 2+ of: a link (`http://`, `https://`), an issue reference (`#12`), a
//!   fenced code block, a label; 1 with one of them; else 0.
//!
//! A heading is a short line (at most 40 characters) that, without leading `#`, `*`, `-`
//! and a trailing `:`, starts with the word. The question asks about the first lowest
//! dimension ([`QUESTIONS`]).

use super::specify::{Answer, DIMENSIONS, Scores};

/// The question asked for each dimension when it is the lowest.
pub const QUESTIONS: [(&str, &str); 5] = [
    (
        "goal",
        "What should be different when this issue is done, and why is it needed?",
    ),
    (
        "acceptance",
        "How will we know it is done: which behaviour or test should pass?",
    ),
    (
        "scope",
        "Which files, modules or commands does the change touch, and what is out of scope?",
    ),
    (
        "constraints",
        "What must not change or break (APIs, compatibility, dependencies, performance)?",
    ),
    (
        "context",
        "What background explains this issue (related issues, links, error output)?",
    ),
];

/// The issue text the scorer reads.
#[derive(Debug, Clone, Copy)]
pub struct ScoredText<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub labels: &'a [String],
    pub files: &'a [String],
}

fn word_count(s: &str) -> usize {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count()
}

/// The heading words of `body`'s lines, lowercased (short lines only).
fn headings(body: &str) -> Vec<String> {
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && l.chars().count() <= 40)
        .map(|l| {
            l.trim_start_matches(['#', '*', '-', ' ', '_'])
                .trim_end_matches(['*', '_', ' '])
                .trim_end_matches(':')
                .trim()
                .to_lowercase()
        })
        .collect()
}

fn has_heading(heads: &[String], words: &[&str]) -> bool {
    heads.iter().any(|h| words.iter().any(|w| h.starts_with(w)))
}

fn checklist_items(body: &str) -> usize {
    body.lines()
        .map(|l| l.trim_start().to_lowercase())
        .filter(|l| {
            ["- [ ]", "- [x]", "* [ ]", "* [x]"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .count()
}

fn is_path_like(w: &str) -> bool {
    let w = w.trim_matches(|c: char| matches!(c, '`' | '(' | ')' | ',' | ';' | ':' | '"' | '\''));
    let w = w.trim_end_matches('.');
    if w.starts_with("http") || w.len() < 3 {
        return false;
    }
    let has_slash = w.contains('/') && w.split('/').filter(|p| !p.is_empty()).count() >= 2;
    let ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    (has_slash || ext) && w.chars().all(|c| !c.is_whitespace())
}

fn has_issue_ref(body: &str) -> bool {
    let b = body.as_bytes();
    b.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'#' && w[1].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
    })
}

const CONSTRAINT_MARKERS: &[&str] = &[
    "must not",
    "do not",
    "don't",
    "never",
    "without",
    "only",
    "keep",
    "backward",
    "compatib",
    "performance",
    "no new",
];

/// The scores and question of the offline scorer.
pub fn score(t: &ScoredText<'_>) -> Answer {
    let body = t.body;
    let lower = body.to_lowercase();
    let heads = headings(body);
    let goal = u8::from(word_count(t.title) >= 3) + u8::from(word_count(body) >= 12);

    let checks = checklist_items(body);
    let acceptance = if has_heading(
        &heads,
        &[
            "acceptance",
            "done means",
            "done when",
            "definition of done",
            "expected",
            "criteria",
            "tests",
        ],
    ) || checks >= 2
    {
        2
    } else if checks == 1
        || ["should", "must", "expect", "returns", "test"]
            .iter()
            .any(|w| {
                lower
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|x| x.starts_with(w))
            })
    {
        1
    } else {
        0
    };

    let paths = body.split_whitespace().filter(|w| is_path_like(w)).count();
    let scope = if !t.files.is_empty()
        || has_heading(&heads, &["scope", "files", "out of scope", "non-goals"])
        || paths >= 2
    {
        2
    } else if paths == 1 || body.matches('`').count() >= 2 {
        1
    } else {
        0
    };

    let markers = CONSTRAINT_MARKERS
        .iter()
        .filter(|m| lower.contains(*m))
        .count();
    let constraints =
        if has_heading(&heads, &["constraints", "requirements", "limitations"]) || markers >= 2 {
            2
        } else {
            u8::from(markers == 1)
        };

    let facts = [
        lower.contains("http://") || lower.contains("https://"),
        has_issue_ref(body),
        body.contains("```"),
        !t.labels.is_empty(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    let context = if has_heading(
        &heads,
        &["context", "background", "why", "motivation", "problem"],
    ) || facts >= 2
    {
        2
    } else {
        u8::from(facts == 1)
    };

    let s = Scores {
        goal,
        acceptance,
        scope,
        constraints,
        context,
    };
    let lowest = s.lowest();
    let question = QUESTIONS
        .iter()
        .find(|(d, _)| *d == lowest)
        .map(|(_, q)| q.to_string())
        .unwrap_or_default();
    debug_assert!(DIMENSIONS.contains(&lowest));
    Answer {
        scores: s,
        question,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(title: &str, body: &str, labels: &[&str], files: &[&str]) -> Answer {
        let labels: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
        let files: Vec<String> = files.iter().map(|s| s.to_string()).collect();
        score(&ScoredText {
            title,
            body,
            labels: &labels,
            files: &files,
        })
    }

    #[test]
    fn a_vague_issue_scores_zero_and_asks_for_the_goal() {
        let a = scored("Improve auth", "", &[], &[]);
        assert_eq!(a.scores.total(), 0);
        assert_eq!(a.question, QUESTIONS[0].1);
    }

    #[test]
    fn a_precise_issue_scores_high() {
        let body = "Users get logged out after 5 minutes because the session cookie has no max-age.\n\n\
## Acceptance\n- [ ] a session lasts 24 hours\n- [ ] tests/session.rs covers expiry\n\n\
## Scope\nOnly `src/session.rs` and `src/cookie.rs`.\n\n\
## Constraints\nDo not change the cookie name; keep backward compatibility.\n\n\
## Context\nSee #12 and https://example.com/rfc6265.\n";
        let a = scored("Make sessions last 24 hours", body, &["backend"], &[]);
        assert_eq!(
            a.scores,
            Scores {
                goal: 2,
                acceptance: 2,
                scope: 2,
                constraints: 2,
                context: 2
            }
        );
        assert_eq!(a.scores.total(), 10);
    }

    #[test]
    fn each_rule_gives_its_middle_score() {
        // one of each fact: one path, one marker, one link, one "should"
        let a = scored(
            "Fix it",
            "The parser in src/parse.rs should accept tabs; never panic. https://x.io",
            &[],
            &[],
        );
        assert_eq!(
            a.scores,
            Scores {
                goal: 1,
                acceptance: 1,
                scope: 1,
                constraints: 1,
                context: 1
            },
            "{a:?}"
        );
        assert_eq!(a.question, QUESTIONS[0].1, "ties go to the first dimension");
    }

    #[test]
    fn declared_files_count_as_scope_and_labels_as_context() {
        let a = scored("Add a retry", "", &["net"], &["src/net.rs"]);
        assert_eq!(a.scores.scope, 2);
        assert_eq!(a.scores.context, 1);
    }

    #[test]
    fn the_scorer_is_deterministic_and_bounded() {
        for body in ["", "x", "- [ ] a\n- [x] b", "#1 #2 http://a ``` ```"] {
            let a = scored("t", body, &[], &[]);
            assert_eq!(a, scored("t", body, &[], &[]));
            assert!(a.scores.total() <= 10);
            assert!(!a.question.is_empty());
        }
    }
}
