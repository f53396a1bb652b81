//! Semantic summaries of DONE issues (docs/prompt.md "Semantic summaries"): the deterministic
//! summary built from the commit subject, its files and the symbols they define; the question put
//! to `llm.command` and the cleaning of its answer. Pure; the app layer reads git and runs the
//! command.

use crate::feature_id::FeatureId;
use crate::prompt::sanitize::{sanitize_line, strip_hidden_chars};
use crate::registry::Symbol;

const MAX_FILES: usize = 5;
const MAX_SYMBOLS: usize = 6;
/// The longest summary kept from an LLM answer, in characters.
pub const MAX_SUMMARY_CHARS: usize = 600;

/// What is known about the implementing commit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommitFacts {
    pub sha: String,
    pub subject: String,
    pub added: Vec<String>,
    pub modified: Vec<String>,
    pub deleted: Vec<String>,
}

fn list(items: &[String], max: usize, render: impl Fn(&String) -> String) -> String {
    let mut parts: Vec<String> = items.iter().take(max).map(render).collect();
    if items.len() > max {
        parts.push(format!("{} more", items.len() - max));
    }
    match parts.len() {
        0 => String::new(),
        1 => parts.remove(0),
        _ => {
            let last = parts.pop().unwrap_or_default();
            format!("{} and {last}", parts.join(", "))
        }
    }
}

/// A 1–2 sentence summary from the facts alone. `files` are the task's files when no commit
/// is known; `symbols` gives the public items of created files.
pub fn deterministic_summary(
    issue: u32,
    title: &str,
    commit: Option<&CommitFacts>,
    files: &[String],
    symbols: &[(String, Vec<Symbol>)],
) -> String {
    let title = sanitize_line(title);
    let with_symbols = |f: &String| {
        let names: Vec<String> = symbols
            .iter()
            .find(|(p, _)| p == f)
            .map(|(_, s)| s.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        if names.is_empty() {
            format!("`{f}`")
        } else {
            format!("`{f}` ({})", list(&names, MAX_SYMBOLS, |n| n.clone()))
        }
    };
    let plain = |f: &String| format!("`{f}`");
    let Some(c) = commit else {
        let mut s = format!("Issue #{issue} ({title}) is done.");
        if !files.is_empty() {
            s.push_str(&format!(
                " Files: {}.",
                list(files, MAX_FILES, with_symbols)
            ));
        }
        return s;
    };
    let short = &c.sha[..c.sha.len().min(7)];
    let mut subject = sanitize_line(&c.subject);
    if subject.chars().count() > 120 {
        subject = subject.chars().take(119).collect::<String>() + "…";
    }
    let mut s = format!("Issue #{issue} ({title}) was implemented in commit {short}");
    if !subject.is_empty() {
        s.push_str(&format!(" \"{subject}\""));
    }
    s.push('.');
    let mut changes = Vec::new();
    if !c.added.is_empty() {
        changes.push(format!("adds {}", list(&c.added, MAX_FILES, with_symbols)));
    }
    if !c.modified.is_empty() {
        changes.push(format!("changes {}", list(&c.modified, MAX_FILES, plain)));
    }
    if !c.deleted.is_empty() {
        changes.push(format!("removes {}", list(&c.deleted, MAX_FILES, plain)));
    }
    if !changes.is_empty() {
        s.push_str(&format!(" It {}.", changes.join("; ")));
    } else if !files.is_empty() {
        s.push_str(&format!(
            " Files: {}.",
            list(files, MAX_FILES, with_symbols)
        ));
    }
    s
}

/// The question for `llm.command` (purpose `summary`).
pub fn llm_question(
    feature: &FeatureId,
    issue: u32,
    title: &str,
    subject: &str,
    diffstat: &str,
    patch: &str,
    patch_cut: bool,
) -> String {
    format!(
        "Summarise in one or two sentences what this commit implemented, for other coding agents who will build on it: name the modules, public types and functions it added and what they do. Answer with the sentences only, no preamble, no Markdown headings.\n\n\
         Feature: {feature}\nIssue #{issue}: {}\nCommit subject: {}\n\n\
         Diffstat:\n{}\n\nPatch{}:\n{}\n",
        sanitize_line(title),
        sanitize_line(subject),
        diffstat.trim_end(),
        if patch_cut { " (cut short)" } else { "" },
        patch.trim_end()
    )
}

/// The usable summary in an LLM answer: code fences and hidden characters removed,
/// whitespace collapsed, at most [`MAX_SUMMARY_CHARS`] (cut at a word). `None` when empty.
pub fn clean_answer(answer: &str) -> Option<String> {
    let text = strip_hidden_chars(answer);
    let text: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    let mut s = text
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if s.chars().count() > MAX_SUMMARY_CHARS {
        let cut: String = s.chars().take(MAX_SUMMARY_CHARS - 1).collect();
        let cut = match cut.rfind(' ') {
            Some(i) if i > MAX_SUMMARY_CHARS / 2 => cut[..i].to_string(),
            _ => cut,
        };
        s = format!("{cut}…");
    }
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> CommitFacts {
        CommitFacts {
            sha: "0123456789abcdef".into(),
            subject: "feat(auth): Implement issue #3".into(),
            added: vec!["src/login.rs".into(), "tests/login.rs".into()],
            modified: vec!["src/lib.rs".into()],
            deleted: vec![],
        }
    }

    #[test]
    fn deterministic_summary_names_commit_files_and_symbols() {
        let symbols = vec![(
            "src/login.rs".to_string(),
            vec![
                Symbol {
                    kind: "fn",
                    name: "login".into(),
                },
                Symbol {
                    kind: "struct",
                    name: "Session".into(),
                },
            ],
        )];
        let s = deterministic_summary(3, "Add login", Some(&facts()), &[], &symbols);
        assert_eq!(
            s,
            "Issue #3 (Add login) was implemented in commit 0123456 \"feat(auth): Implement issue #3\". It adds `src/login.rs` (login and Session) and `tests/login.rs`; changes `src/lib.rs`."
        );
    }

    #[test]
    fn deterministic_summary_without_commit_uses_task_files() {
        let s = deterministic_summary(2, "Hashing", None, &["src/hash.rs".into()], &[]);
        assert_eq!(s, "Issue #2 (Hashing) is done. Files: `src/hash.rs`.");
        assert_eq!(
            deterministic_summary(2, "Hashing", None, &[], &[]),
            "Issue #2 (Hashing) is done."
        );
    }

    #[test]
    fn long_file_lists_are_capped() {
        let mut f = facts();
        f.added = (1..=8).map(|n| format!("f{n}.py")).collect();
        f.modified.clear();
        let s = deterministic_summary(1, "t", Some(&f), &[], &[]);
        assert!(s.ends_with("`f4.py`, `f5.py` and 3 more."), "{s}");
    }

    #[test]
    fn answers_are_cleaned() {
        assert_eq!(
            clean_answer("  \n```\nAdds `login`.\n  It returns a token.\n```\n"),
            Some("Adds `login`. It returns a token.".into())
        );
        assert_eq!(clean_answer(" \n\u{200B}\n"), None);
        let long = "word ".repeat(400);
        let c = clean_answer(&long).unwrap();
        assert!(c.chars().count() <= MAX_SUMMARY_CHARS && c.ends_with('…'));
    }

    #[test]
    fn the_question_carries_diffstat_and_patch() {
        let q = llm_question(
            &crate::fid("auth"),
            3,
            "Add login",
            "feat: x",
            " src/a.rs | 3 +++",
            "+fn a() {}",
            true,
        );
        assert!(q.contains("Issue #3: Add login"));
        assert!(q.contains("Diffstat:\n src/a.rs | 3 +++"));
        assert!(q.contains("Patch (cut short):\n+fn a() {}"));
    }
}
