//! The coder prompt as a Context Pack (docs/prompt.md "Sections, in order"): fixed sections built
//! from plain inputs, fitted to a size budget, with issue text sanitised. Pure: the app layer reads
//! the files and the state and hands the values in ([`ContextPack`]); [`build`] returns the text.
//!
//! Sections, in order: `## Original Request`, `## Project Instructions` (its source named),
//! `## Accumulated Context` (summaries of DONE issues, this issue's dependencies first, then
//! the rest newest first; the DONE issues' handoffs as `### Decisions so far`, newest first;
//! the lessons that touch the issue as `### Lessons from earlier work`; then the module
//! registry), `## Coordination` (SOLO: one line),
//! `## Current Task`, `## Acceptance Criteria`, and, when the budget cut anything,
//! `## Context Left Out` naming what was cut (the same strings as
//! `context_injected.truncated`).
//!
//! Budget ([`budget`]): `max_prompt_tokens`, a token being 4 Unicode scalar values (0 means
//! no limit). The least important content goes first: the module registry, then the
//! decisions so far (oldest first), then the lessons (least close first), then the
//! summaries of the least relevant DONE issues, then the tail of the project instructions,
//! then the tail of another agent's output and of the original request. Current Task and
//! Acceptance Criteria are never cut; the prompt exceeds the budget only when those two
//! alone do.
//!
//! GitHub authorship ([`GithubAuthor`]): the app takes it from the task's extra keys
//! `github_author` (login) and `github_author_association` (GitHub's `author_association`),
//! which the Action records with the body snapshot (`github_body`). When the association is
//! not OWNER, MEMBER or COLLABORATOR, the GitHub text (the `github_body` snapshot, or the
//! task body when there is no snapshot) and the title are wrapped in an untrusted block
//! ([`sanitize::untrusted_block`]). All issue text is sanitised ([`sanitize::sanitize`]).

pub mod budget;
pub mod render;
pub mod sanitize;
pub mod sections;

use crate::registry::Symbol;

/// The task-extra key holding the GitHub login that wrote the issue text.
pub const GITHUB_AUTHOR_KEY: &str = "github_author";
/// The task-extra key holding that author's `author_association`.
pub const GITHUB_ASSOCIATION_KEY: &str = "github_author_association";

/// What the agent is told about the coordination (docs/prompt.md "Sections, in order" `##
/// Coordination`).
#[derive(Debug, Clone, PartialEq)]
pub enum CoordinationContext {
    Solo,
    /// PARALLEL: this agent's role and the other agent's angle and covers.
    Parallel {
        primary: bool,
        other_agent: String,
        other_angle: String,
        other_covers: Vec<String>,
    },
    /// PARALLEL with three or more candidates (docs/coordination.md "Many candidates, one result"):
    /// this agent's role (`primary`, `runner-up`, `candidate`) and every other candidate's angle
    /// and covers, in rank order.
    Candidates {
        role: &'static str,
        others: Vec<OtherCandidate>,
    },
    /// SYNTHESIS, the winner (runs first).
    SynthesisWinner {
        other_agent: String,
    },
    /// SYNTHESIS, the runner-up: builds on the winner's output.
    SynthesisRunnerUp {
        winner: String,
        winner_output: String,
    },
}

/// Another candidate of a PARALLEL run, as a candidate's prompt names it.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherCandidate {
    pub agent: String,
    pub angle: String,
    pub covers: Vec<String>,
}

/// Who wrote an issue on GitHub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GithubAuthor {
    pub login: String,
    /// GitHub's `author_association` (`OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`,
    /// `NONE`, ...).
    pub association: String,
}

/// The issue the prompt is about.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IssueInput {
    pub feature: String,
    pub number: u32,
    pub title: String,
    /// The body from issues.json.
    pub body: Option<String>,
    pub labels: Vec<String>,
    pub dependencies: Vec<u32>,
    pub github_issue: Option<u64>,
    /// The body snapshot from the triggering GitHub event.
    pub github_body: Option<String>,
    pub github_author: Option<GithubAuthor>,
    pub test_file: Option<String>,
}

/// The project instructions file and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    /// The path it was read from, relative to the repository root (e.g. `CLAUDE.md`).
    pub source: String,
    pub text: String,
}

/// A DONE issue of the feature, for the accumulated context.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DoneIssue {
    pub number: u32,
    pub title: String,
    pub summary: Option<String>,
    pub files: Vec<String>,
    /// When it was done (e.g. the commit time, seconds); newer first.
    pub done_at: Option<i64>,
}

/// A file created by a DONE issue and the public items it defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryFile {
    pub path: String,
    /// The DONE issue that created it (decides its place in the registry).
    pub issue: u32,
    pub symbols: Vec<Symbol>,
}

/// The test commands of the project (docs/config.md "General rules";
/// docs/run.md "How `tests.command` is run").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TestCommands {
    /// `tests.command`.
    pub command: String,
    /// `tests.issue_command` (`{test_file}` is replaced).
    pub issue_command: Option<String>,
}

/// Everything the prompt is built from.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextPack {
    pub issue: IssueInput,
    pub instructions: Option<Instructions>,
    /// DONE issues of the feature, any order (ordered by [`order_done`]).
    pub done: Vec<DoneIssue>,
    pub registry: Vec<RegistryFile>,
    pub agent: String,
    /// This agent's configured angle.
    pub agent_angle: Option<String>,
    pub coordination: CoordinationContext,
    /// 1-based.
    pub attempt: u32,
    /// Total attempts allowed (retries + 1).
    pub max_attempts: u32,
    /// Failure excerpts of earlier attempts, oldest first.
    pub previous_failures: Vec<String>,
    /// Earlier attempts' analyses condensed (one line each, oldest first;
    /// docs/run.md "After a failure: classes, analysis, fallback").
    pub analyses: Vec<String>,
    /// The failure analysis' `modify` approach for this attempt (`### Modified approach`).
    pub modified_approach: Option<String>,
    pub tests: TestCommands,
    /// `context.max_prompt_tokens` (0: no limit).
    pub max_prompt_tokens: u64,
    /// The lessons selected for this issue, closest first (docs/learning.md "Lessons",
    /// [`crate::lessons::select`]).
    pub lessons: Vec<crate::lessons::Lesson>,
    /// The DONE issues' handoffs, newest first (`### Decisions so far`).
    pub handoffs: Vec<crate::handoff::DoneHandoff>,
}

/// A built prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    /// What the budget cut (`context_injected.truncated`), empty when nothing was cut.
    pub truncated: Vec<String>,
    /// Summaries of DONE issues included.
    pub summaries_count: u32,
}

/// Tokens of a text as the budget counts them: Unicode scalar values / 4, rounded up.
pub fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The command that runs one issue's test file (docs/run.md "How `tests.command` is run"):
/// `tests.issue_command` with `{test_file}` replaced, else `tests.command` followed by the path.
pub fn issue_test_command(tests: &TestCommands, test_file: &str) -> String {
    match &tests.issue_command {
        Some(c) if !c.trim().is_empty() => c.replace("{test_file}", test_file),
        _ => format!("{} {}", tests.command, shell_word(test_file)),
    }
}

/// A path shown as one shell word (quoted only when it needs it).
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "-_./+:@%,=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// DONE issues in prompt order: this issue's dependencies first (in the order listed), then
/// the rest newest first (`done_at` descending, unknown last; ties: higher issue number
/// first).
pub fn order_done<'a>(done: &'a [DoneIssue], dependencies: &[u32]) -> Vec<&'a DoneIssue> {
    let mut out: Vec<&DoneIssue> = Vec::new();
    for d in dependencies {
        if let Some(i) = done.iter().find(|x| x.number == *d)
            && !out.iter().any(|o| o.number == *d)
        {
            out.push(i);
        }
    }
    let mut rest: Vec<&DoneIssue> = done
        .iter()
        .filter(|x| !dependencies.contains(&x.number))
        .collect();
    rest.sort_by(|a, b| {
        let key = |x: &DoneIssue| (x.done_at.is_some(), x.done_at.unwrap_or(0), x.number);
        key(b).cmp(&key(a))
    });
    rest.dedup_by_key(|x| x.number);
    out.extend(rest);
    out
}

/// Builds the prompt for `pack`.
pub fn build(pack: &ContextPack) -> Prompt {
    let parts = sections::parts(pack);
    let budget_chars =
        usize::try_from(pack.max_prompt_tokens.saturating_mul(4)).unwrap_or(usize::MAX);
    let budget_chars = if pack.max_prompt_tokens == 0 {
        usize::MAX
    } else {
        budget_chars
    };
    let fitted = budget::fit(&parts, budget_chars, pack.max_prompt_tokens);
    Prompt {
        text: fitted.text,
        truncated: fitted.truncated,
        summaries_count: u32::try_from(fitted.summaries_kept).unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod snapshot_tests;
