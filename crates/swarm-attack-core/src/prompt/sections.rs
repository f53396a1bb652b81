//! The text of each prompt section, from a [`ContextPack`], as parts the budget can cut
//! ([`Parts`]); [`super::render`] puts them together with the cuts applied.

use super::sanitize::{
    UntrustedSource, is_trusted_association, sanitize, sanitize_line, strip_hidden_chars,
    untrusted_block,
};
use super::{ContextPack, CoordinationContext, issue_test_command, order_done};
use crate::registry::describe;

pub use super::render::{chars, cut_tail};

/// The line that marks text cut by the budget.
pub const CUT_MARKER: &str = "[… cut to fit the prompt budget; see the end of the prompt]";
/// The names the project instructions are looked for under, in order
/// (docs/prompt.md "Sections, in order").
pub const INSTRUCTION_FILES: &[&str] = &[
    "CLAUDE.md",
    "claude.md",
    ".claude/CLAUDE.md",
    "AGENTS.md",
    "README.md",
    "README.rst",
    "README.txt",
    "README",
];
const MAX_FILES_PER_SUMMARY: usize = 20;
const MAX_SYMBOLS_PER_FILE: usize = 40;

/// A piece of the original request: plain, or wrapped as untrusted.
#[derive(Debug, Clone, PartialEq)]
pub struct TextBlock {
    pub heading: Option<String>,
    pub text: String,
    pub untrusted: Option<UntrustedSource>,
}

/// Another agent's output shown in the coordination section.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOutput {
    pub agent: String,
    pub text: String,
}

/// The prompt as parts: what the budget may cut is kept apart from what it may not.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    pub request_head: String,
    pub request_blocks: Vec<TextBlock>,
    /// (source, text)
    pub instructions: Option<(String, String)>,
    /// (issue, rendered entry), most relevant first.
    pub summaries: Vec<(u32, String)>,
    /// How many of the first `summaries` are this issue's dependencies.
    pub dependency_summaries: usize,
    /// Rendered entries, most relevant first.
    pub registry: Vec<String>,
    /// Rendered handoffs of DONE issues, newest first (`### Decisions so far`).
    pub decisions: Vec<String>,
    /// Rendered lessons, closest first (`### Lessons from earlier work`).
    pub lessons: Vec<String>,
    pub coordination_head: Option<String>,
    pub coordination_output: Option<AgentOutput>,
    pub current_task: String,
    pub acceptance: String,
}

impl Parts {
    pub fn request_chars(&self) -> usize {
        self.request_blocks.iter().map(|b| chars(&b.text)).sum()
    }
    pub fn instructions_chars(&self) -> usize {
        self.instructions.as_ref().map_or(0, |(_, t)| chars(t))
    }
    pub fn coordination_chars(&self) -> usize {
        self.coordination_output
            .as_ref()
            .map_or(0, |o| chars(&o.text))
    }
}

/// Moves Markdown headings of embedded text two levels down (`#` → `###`, at most
/// `######`) so they nest under the prompt's `##` sections; fenced code is left alone.
pub fn demote_headings(text: &str) -> String {
    let mut fence: Option<&str> = None;
    let mut out: Vec<String> = Vec::new();
    for line in text.split('\n') {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        for f in ["```", "~~~"] {
            if t.starts_with(f) {
                fence = match fence {
                    None => Some(f),
                    Some(open) if open == f => None,
                    other => other,
                };
            }
        }
        let hashes = t.chars().take_while(|c| *c == '#').count();
        let is_heading = fence.is_none()
            && indent < 4
            && (1..=6).contains(&hashes)
            && t[hashes..]
                .chars()
                .next()
                .is_none_or(|c| c == ' ' || c == '\t');
        if is_heading {
            let level = (hashes + 2).min(6);
            out.push(format!("{}{}", "#".repeat(level), &t[hashes..]));
        } else {
            out.push(line.to_string());
        }
    }
    out.join("\n")
}

/// Builds the parts of the prompt for `pack`.
pub fn parts(pack: &ContextPack) -> Parts {
    let issue = &pack.issue;
    let untrusted_author = issue
        .github_author
        .as_ref()
        .filter(|a| !is_trusted_association(&a.association));
    let gh_label = match issue.github_issue {
        Some(g) => format!("GitHub issue #{g}"),
        None => "GitHub issue".to_string(),
    };
    let body = issue
        .body
        .as_deref()
        .map(|b| demote_headings(&sanitize(b)))
        .filter(|b| !b.trim().is_empty());
    let github_body = issue
        .github_body
        .as_deref()
        .map(|b| demote_headings(&sanitize(b)))
        .filter(|b| !b.trim().is_empty());
    // The GitHub text: the snapshot, or the body when a GitHub author is recorded without one.
    let (plain_body, gh_text) = match (&body, &github_body) {
        (Some(b), Some(g)) if b.trim() == g.trim() => (None, Some(g.clone())),
        (b, Some(g)) => (b.clone(), Some(g.clone())),
        (Some(b), None) if untrusted_author.is_some() => (None, Some(b.clone())),
        (b, None) => (b.clone(), None),
    };
    let title = sanitize_line(&issue.title);
    let mut blocks = Vec::new();
    let mut meta = vec![format!("Feature: `{}`", issue.feature)];
    if let Some(g) = issue.github_issue {
        meta.push(format!("GitHub issue #{g}"));
    }
    let labels: Vec<String> = issue
        .labels
        .iter()
        .map(|l| sanitize_line(l))
        .filter(|l| !l.is_empty())
        .collect();
    if !labels.is_empty() {
        meta.push(format!("Labels: {}", labels.join(", ")));
    }
    if !issue.dependencies.is_empty() {
        let d: Vec<String> = issue.dependencies.iter().map(|d| format!("#{d}")).collect();
        meta.push(format!("Depends on: {}", d.join(", ")));
    }
    let request_head = match untrusted_author {
        Some(_) => format!("### Issue #{}\n\n{}", issue.number, meta.join(" · ")),
        None => format!(
            "### Issue #{}: {}\n\n{}",
            issue.number,
            title,
            meta.join(" · ")
        ),
    };
    if let Some(b) = &plain_body {
        blocks.push(TextBlock {
            heading: None,
            text: b.clone(),
            untrusted: None,
        });
    }
    let untrusted_source = |what: &str| {
        untrusted_author.map(|a| UntrustedSource {
            source: format!("{gh_label} {what}"),
            author: a.login.clone(),
            association: a.association.clone(),
        })
    };
    match (&gh_text, untrusted_author) {
        (Some(g), Some(_)) => blocks.push(TextBlock {
            heading: Some(format!("#### {gh_label} (as written on GitHub)")),
            text: format!("Title: {title}\n\n{g}"),
            untrusted: untrusted_source("title and body"),
        }),
        (Some(g), None) => blocks.push(TextBlock {
            heading: (plain_body.is_some())
                .then(|| format!("#### {gh_label} (as written on GitHub)")),
            text: g.clone(),
            untrusted: None,
        }),
        (None, Some(_)) => blocks.push(TextBlock {
            heading: None,
            text: format!("Title: {title}"),
            untrusted: untrusted_source("title"),
        }),
        (None, None) => {}
    }
    if blocks.is_empty() {
        blocks.push(TextBlock {
            heading: None,
            text: "(The issue has no description beyond its title.)".into(),
            untrusted: None,
        });
    }

    // Acceptance criteria: from the issues.json body first, else the GitHub text.
    let (criteria, criteria_untrusted) = match plain_body.as_deref().and_then(acceptance_criteria) {
        Some(c) => (Some(c), None),
        None => match gh_text.as_deref().and_then(acceptance_criteria) {
            Some(c) => (Some(c), untrusted_source("acceptance criteria")),
            None => (None, None),
        },
    };

    let ordered = order_done(&pack.done, &issue.dependencies);
    let summaries = ordered
        .iter()
        .map(|d| {
            let dep = if issue.dependencies.contains(&d.number) {
                " (a dependency of this issue)"
            } else {
                ""
            };
            let mut s = format!("- #{} {}{dep}", d.number, sanitize_line(&d.title));
            let summary = d
                .summary
                .as_deref()
                .map(|s| {
                    strip_hidden_chars(s)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "(no summary recorded)".into());
            s.push_str(&format!("\n  Summary: {summary}"));
            if !d.files.is_empty() {
                let mut f: Vec<String> = d
                    .files
                    .iter()
                    .take(MAX_FILES_PER_SUMMARY)
                    .map(|f| format!("`{f}`"))
                    .collect();
                if d.files.len() > MAX_FILES_PER_SUMMARY {
                    f.push(format!("+{} more", d.files.len() - MAX_FILES_PER_SUMMARY));
                }
                s.push_str(&format!("\n  Files: {}", f.join(", ")));
            }
            (d.number, s)
        })
        .collect();
    let rank = |issue_no: u32| {
        ordered
            .iter()
            .position(|d| d.number == issue_no)
            .unwrap_or(usize::MAX)
    };
    let mut reg: Vec<&super::RegistryFile> = pack.registry.iter().collect();
    reg.sort_by_key(|r| rank(r.issue));
    let mut seen = std::collections::BTreeSet::new();
    let registry = reg
        .into_iter()
        .filter(|r| seen.insert(r.path.clone()))
        .map(|r| {
            if r.symbols.is_empty() {
                format!("- `{}`", r.path)
            } else {
                format!(
                    "- `{}`: {}",
                    r.path,
                    describe(&r.symbols, MAX_SYMBOLS_PER_FILE)
                )
            }
        })
        .collect();

    let (coordination_head, coordination_output) = coordination(pack);
    Parts {
        request_head,
        request_blocks: blocks,
        instructions: pack
            .instructions
            .as_ref()
            .map(|i| (i.source.clone(), demote_headings(&i.text))),
        dependency_summaries: ordered
            .iter()
            .take_while(|d| issue.dependencies.contains(&d.number))
            .count(),
        summaries,
        registry,
        decisions: pack
            .handoffs
            .iter()
            .filter(|h| !h.handoff.is_empty())
            .map(crate::handoff::render_entry)
            .collect(),
        lessons: pack
            .lessons
            .iter()
            .map(crate::lessons::render_entry)
            .collect(),
        coordination_head,
        coordination_output,
        current_task: current_task(pack),
        acceptance: acceptance(pack, criteria, criteria_untrusted),
    }
}

/// The lines under an "Acceptance Criteria" heading (`## Acceptance Criteria`,
/// `**Acceptance Criteria**`, `Acceptance criteria:`) up to the next heading.
pub fn acceptance_criteria(body: &str) -> Option<String> {
    let is_heading = |l: &str| {
        let t = l.trim();
        t.starts_with('#') || (t.starts_with("**") && t.trim_end_matches(':').ends_with("**"))
    };
    let is_ac = |l: &str| {
        let t = l
            .trim()
            .trim_start_matches('#')
            .trim()
            .trim_matches('*')
            .trim_end_matches(':')
            .trim_matches('*')
            .trim();
        t.eq_ignore_ascii_case("acceptance criteria")
    };
    let lines: Vec<&str> = body.lines().collect();
    let start = lines.iter().position(|l| is_ac(l))? + 1;
    let end = lines[start..]
        .iter()
        .position(|l| is_heading(l))
        .map_or(lines.len(), |i| start + i);
    let text = lines[start..end].join("\n");
    let text = text.trim_matches('\n').trim_end();
    (!text.trim().is_empty()).then(|| text.to_string())
}

fn coordination(pack: &ContextPack) -> (Option<String>, Option<AgentOutput>) {
    let me = &pack.agent;
    let mine = pack
        .agent_angle
        .as_deref()
        .map(sanitize_line)
        .filter(|a| !a.is_empty())
        .map(|a| format!(" Your angle: {a}."))
        .unwrap_or_default();
    let other = |agent: &str, angle: &str, covers: &[String]| {
        let mut s = format!("`{agent}`");
        let angle = sanitize_line(angle);
        if !angle.is_empty() {
            s.push_str(&format!(", angle: {angle}"));
        }
        let covers: Vec<String> = covers.iter().map(|c| sanitize_line(c)).collect();
        if !covers.is_empty() {
            s.push_str(&format!("; covers: {}", covers.join(", ")));
        }
        s
    };
    match &pack.coordination {
        CoordinationContext::Solo => (
            Some(format!(
                "Mode: SOLO (`{me}` works on this issue alone).{mine}"
            )),
            None,
        ),
        CoordinationContext::Parallel {
            primary: true,
            other_agent,
            other_angle,
            other_covers,
        } => (
            Some(format!(
                "Mode: PARALLEL. You (`{me}`) were selected as the primary agent for this issue.{mine}\n\
                 Another agent works on the same issue at the same time, in its own worktree: {}.\n\
                 Deliver a complete, working change from your angle; do not try to cover the other agent's angle as well.",
                other(other_agent, other_angle, other_covers)
            )),
            None,
        ),
        CoordinationContext::Parallel {
            primary: false,
            other_agent,
            other_angle,
            other_covers,
        } => (
            Some(format!(
                "Mode: PARALLEL. You (`{me}`) are the runner-up for this issue.{mine}\n\
                 The primary agent works on the same issue at the same time, in its own worktree: {}.\n\
                 Focus on your unique angle, what the primary agent's angle does not cover, and still deliver a complete, working change.",
                other(other_agent, other_angle, other_covers)
            )),
            None,
        ),
        CoordinationContext::Candidates { role, others } => {
            let me_as = match *role {
                "primary" => "were selected as the primary agent".to_string(),
                "runner-up" => "are the runner-up".to_string(),
                _ => "are one of the candidates".to_string(),
            };
            let list: Vec<String> = others
                .iter()
                .map(|o| format!("- {}", other(&o.agent, &o.angle, &o.covers)))
                .collect();
            (
                Some(format!(
                    "Mode: PARALLEL with {} candidates. You (`{me}`) {me_as} for this issue.{mine}\n\
                     The other candidates work on the same issue at the same time, each in its own worktree:\n{}\n\
                     Of the candidates that pass verification, one result lands, chosen by code (the review verdict, then agreement with the other candidates, then the smaller diff). \
                     Deliver a complete, working change from your angle; do not try to cover the other candidates' angles as well.",
                    others.len() + 1,
                    list.join("\n")
                )),
                None,
            )
        }
        CoordinationContext::SynthesisWinner { other_agent } => (
            Some(format!(
                "Mode: SYNTHESIS. You (`{me}`) run first.{mine}\n\
                 After you, `{other_agent}` will build on your result, so deliver a complete, working change and leave the code clear to extend."
            )),
            None,
        ),
        CoordinationContext::SynthesisRunnerUp {
            winner,
            winner_output,
        } => (
            Some(format!(
                "Mode: SYNTHESIS. `{winner}` worked on this issue first; your worktree holds its result, and its output is below.{mine}\n\
                 Extend, challenge or add to its work; don't repeat what it already did."
            )),
            Some(AgentOutput {
                agent: winner.clone(),
                text: strip_hidden_chars(winner_output),
            }),
        ),
    }
}

/// A fence of backticks longer than any run of backticks in `text`.
pub fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn current_task(pack: &ContextPack) -> String {
    let i = &pack.issue;
    let mut s = format!(
        "You are `{}`, implementing issue #{} of feature `{}` as described in the Original Request. This is attempt {} of {}.\n\n\
         Work in the current directory (your own git worktree). Keep the change focused on this issue and reuse what completed issues already provide. You do not need to commit: swarm-attack runs the tests and commits your change.",
        pack.agent,
        i.number,
        i.feature,
        pack.attempt,
        pack.max_attempts.max(pack.attempt)
    );
    s.push_str(HANDOFF_HINT);
    if !pack.previous_failures.is_empty() {
        s.push_str("\n\n### Previous failures\n\nEarlier attempts failed; fix these causes first.");
        let n = pack.previous_failures.len();
        let numbered = n as u32 + 1 == pack.attempt;
        for (k, f) in pack.previous_failures.iter().enumerate() {
            let f = strip_hidden_chars(f);
            let f = f.trim_end();
            let label = if numbered {
                format!("Attempt {}", k + 1)
            } else {
                format!("Failure {}", k + 1)
            };
            let fe = fence(f);
            s.push_str(&format!("\n\n{label}:\n\n{fe}text\n{f}\n{fe}"));
        }
    }
    if !pack.analyses.is_empty() {
        s.push_str("\n\n### Earlier analyses\n\nWhat was tried and why it failed:\n");
        for a in &pack.analyses {
            s.push_str(&format!("\n- {}", strip_hidden_chars(a).trim()));
        }
    }
    if let Some(m) = pack
        .modified_approach
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        let m = strip_hidden_chars(m);
        let fe = fence(&m);
        s.push_str(&format!(
            "\n\n### Modified approach\n\nThe earlier approach failed; take this one instead (from the failure analysis):\n\n{fe}text\n{m}\n{fe}"
        ));
    }
    s
}

/// The Current Task's last paragraph: the agent may leave a handoff (docs/learning.md "Handoffs").
pub const HANDOFF_HINT: &str = "\n\nYou may end your final message with one JSON object `{\"handoff\": {\"decisions\": [...], \"open_questions\": [...], \"risks\": [...]}}` (strings; at most 10 each, 300 characters each) to pass the decisions you took, open questions and risks on to later issues of this feature.";

fn acceptance(
    pack: &ContextPack,
    criteria: Option<String>,
    untrusted: Option<UntrustedSource>,
) -> String {
    let mut s = match (criteria, untrusted) {
        (Some(c), Some(who)) => untrusted_block(&who, &c),
        (Some(c), None) => c,
        (None, _) => "The issue lists no explicit criteria: implement what the Original Request asks, with tests.".into(),
    };
    s.push_str("\n\nThe change is accepted when these commands pass:\n");
    s.push_str(&format!("- `{}`", pack.tests.command));
    if let Some(tf) = &pack.issue.test_file {
        s.push_str(&format!(
            "\n- `{}` (this issue's test file `{tf}`)",
            issue_test_command(&pack.tests, tf)
        ));
    }
    s
}
