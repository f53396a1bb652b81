//! What GitHub should show for a task (docs/github.md "What an issue shows"): the one `swarm:*`
//! label for its stage and the body of its status comment. Pure: the same task always renders the
//! same bytes, so an unchanged task never causes a write.

use crate::budget::{Limits, SpendView};
use crate::readiness;
use crate::stage::Stage;
use crate::state::{FeatureState, Task};
use sha2::{Digest, Sha256};

/// The hidden marker that starts the status comment; the comment is found by it.
pub const STATUS_MARKER: &str = "<!-- swarm-attack:status -->";

/// Every label this tool owns starts with this.
pub const LABEL_PREFIX: &str = "swarm:";

/// One of the four labels, with its colour (six hex digits, no `#`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelSpec {
    pub name: &'static str,
    pub color: &'static str,
    pub description: &'static str,
}

/// The four labels and their colours (docs/github.md "What an issue shows").
pub const LABELS: [LabelSpec; 4] = [
    LabelSpec {
        name: "swarm:ready",
        color: "0E8A16",
        description: "swarm-attack: queued, or waiting on its dependencies",
    },
    LabelSpec {
        name: "swarm:in-progress",
        color: "FBCA04",
        description: "swarm-attack: an agent is working on it",
    },
    LabelSpec {
        name: "swarm:blocked",
        color: "D93F0B",
        description: "swarm-attack: stopped after its attempts; needs a human",
    },
    LabelSpec {
        name: "swarm:done",
        color: "1D76DB",
        description: "swarm-attack: implemented and committed",
    },
];

/// The label of an issue whose pull request waits for review (`git.landing: pr`,
/// docs/github.md "Pull requests"). Created, like the four, before its first use — only in
/// repositories that land through pull requests.
pub const IN_REVIEW_LABEL: LabelSpec = LabelSpec {
    name: "swarm:in-review",
    color: "5319E7",
    description: "swarm-attack: implemented and verified; its pull request waits for review",
};

/// The label of an issue the specify gate holds (docs/gates.md "The specify gate"), instead of
/// `swarm:blocked`. Created, like the four, before its first use — only when `gates.specify` is
/// enabled.
pub const NEEDS_INFO_LABEL: LabelSpec = LabelSpec {
    name: "swarm:needs-info",
    color: "C5DEF5",
    description: "swarm-attack: not dispatched until the issue answers the question in its status comment",
};

/// The spec of one of the tool's labels.
pub fn label_spec(name: &str) -> Option<&'static LabelSpec> {
    LABELS
        .iter()
        .chain([&IN_REVIEW_LABEL, &NEEDS_INFO_LABEL])
        .find(|l| l.name.eq_ignore_ascii_case(name))
}

/// The one `swarm:*` label of a task: its stage's, except `swarm:needs-info` for a task the
/// specify gate holds.
pub fn task_label(task: &Task) -> Option<&'static str> {
    if crate::gates::specify::is_needs_info(task) {
        Some(NEEDS_INFO_LABEL.name)
    } else {
        task.stage.label()
    }
}

/// Whether a label name is one this tool owns (`swarm:*`; the trigger label `swarm` is not).
pub fn is_swarm_label(name: &str) -> bool {
    name.len() > LABEL_PREFIX.len() && name[..LABEL_PREFIX.len()].eq_ignore_ascii_case(LABEL_PREFIX)
}

/// The hidden marker `github publish` puts in the body of the issue it creates for a task.
pub fn task_marker(feature: &str, issue: u32) -> String {
    format!("<!-- swarm-attack:task {feature}#{issue} -->")
}

/// Whether a comment body is a status comment (the marker starts it; a quote of it in a
/// human's reply does not count).
pub fn is_status_comment(body: &str) -> bool {
    body.trim_start().starts_with(STATUS_MARKER)
}

/// A short digest of a body, to remember what was written without keeping it.
pub fn body_digest(body: &str) -> String {
    let d = Sha256::digest(body.as_bytes());
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// What one linked issue should look like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Desired {
    /// The task's number in the feature.
    pub issue: u32,
    pub github_issue: u64,
    pub stage: Stage,
    /// The one `swarm:*` label (None: SKIPPED/SPLIT carry none).
    pub label: Option<&'static str>,
    /// The status comment body, starting with [`STATUS_MARKER`].
    pub body: String,
    /// Whether the issue should be closed (DONE and `github.close_on_done`).
    pub close: bool,
}

/// The desired view of every linked task whose stage is known, in task order.
/// `limits` are the configured `budgets` (the comment shows spent vs limit).
pub fn desired_all(state: &FeatureState, close_on_done: bool, limits: &Limits) -> Vec<Desired> {
    state
        .tasks
        .iter()
        .filter_map(|t| desired_for(state, t, close_on_done, limits))
        .collect()
}

/// The desired view of one task; None when it is not linked or its stage is unknown (an
/// unknown stage is left alone on GitHub).
pub fn desired_for(
    state: &FeatureState,
    task: &Task,
    close_on_done: bool,
    limits: &Limits,
) -> Option<Desired> {
    let github_issue = task.github_issue?;
    if !task.stage.is_known() {
        return None;
    }
    Some(Desired {
        issue: task.issue_number,
        github_issue,
        stage: task.stage.clone(),
        label: task_label(task),
        // quoted issue text, summaries and test output cannot act as a keyword
        body: crate::commit_message::neutralise(&render_comment(state, task, limits)),
        close: close_on_done && task.stage == Stage::Done,
    })
}

/// How another task of the feature is named in a comment: `#G` when linked (GitHub links
/// it), else `issue N of \`feature\``.
fn issue_ref(state: &FeatureState, n: u32) -> String {
    match state.task(n).and_then(|t| t.github_issue) {
        Some(g) => format!("#{g}"),
        None => format!("issue {n} of `{}`", state.feature_id),
    }
}

/// Free text from agents or the state, made safe for a comment: no mentions that ping
/// people, no hidden HTML comments, one line.
fn inline_text(s: &str) -> String {
    let one_line: Vec<&str> = s.split_whitespace().collect();
    one_line
        .join(" ")
        .replace("<!--", "&lt;!--")
        .replace('@', "@\u{200b}")
}

/// The last lines of a failure excerpt, fenced so nothing in it is rendered.
fn fenced_excerpt(text: &str, max_lines: usize, max_chars: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(max_lines);
    let mut excerpt = lines[start..].join("\n");
    if excerpt.chars().count() > max_chars {
        let skip = excerpt.chars().count() - max_chars;
        excerpt = excerpt.chars().skip(skip).collect();
    }
    let cut = start > 0 || excerpt.len() < text.trim_end().len();
    let mut longest = 0;
    let mut run = 0;
    for c in excerpt.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!(
        "{}{fence}text\n{excerpt}\n{fence}",
        if cut { "(last lines)\n" } else { "" }
    )
}

fn code_list(items: &[String]) -> String {
    items
        .iter()
        .map(|f| format!("`{}`", f.replace('`', "'")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn task_files(task: &Task) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for f in task.outputs.files_created.iter().chain(task.files.iter()) {
        if !files.contains(f) {
            files.push(f.clone());
        }
    }
    files
}

fn attempts(task: &Task) -> u32 {
    task.attempts.max(task.retries + 1)
}

/// The status comment body for a task (docs/github.md "What an issue shows"): always starts with
/// [`STATUS_MARKER`]. When the issue has a limit in `budgets`, it ends with what the ledger holds
/// as spent on the issue against that limit (docs/budgets.md "Limits").
pub fn render_comment(state: &FeatureState, task: &Task, limits: &Limits) -> String {
    let f = &state.feature_id;
    let n = task.issue_number;
    let mut out = String::new();
    out.push_str(STATUS_MARKER);
    out.push('\n');
    let label = task_label(task)
        .map(|l| format!(" · `{l}`"))
        .unwrap_or_default();
    out.push_str(&format!(
        "**swarm-attack** · feature `{f}` · issue {n}{label}\n\n"
    ));
    match &task.stage {
        Stage::Ready => {
            out.push_str(&format!(
                "**Ready** — queued for the next `swarm-attack run {f}`.\n"
            ));
        }
        Stage::Backlog => {
            // A dependency's stage is named only when it needs a human (so the comment is
            // not edited at every step of its dependencies).
            let waiting: Vec<String> = readiness::waiting_on(state, n)
                .iter()
                .map(|(d, s)| match s {
                    Stage::Blocked | Stage::Skipped => format!("{} ({s})", issue_ref(state, *d)),
                    _ => issue_ref(state, *d),
                })
                .collect();
            if waiting.is_empty() {
                out.push_str("**Waiting** — on its dependencies.\n");
            } else {
                out.push_str(&format!(
                    "**Waiting** on {}; queued as soon as {} done.\n",
                    waiting.join(", "),
                    if waiting.len() == 1 {
                        "it is"
                    } else {
                        "they are"
                    }
                ));
            }
        }
        Stage::Interrupted => {
            out.push_str(&format!(
                "**Interrupted** — attempt {} stopped before it finished; the next `swarm-attack run {f}` resumes it.\n",
                attempts(task)
            ));
        }
        Stage::InProgress => {
            out.push_str(&format!("**In progress** — attempt {}", attempts(task)));
            if let Some(m) = &task.last_mode {
                out.push_str(&format!(" ({})", inline_text(m)));
            }
            out.push_str(".\n");
        }
        Stage::Blocked if crate::gates::specify::is_needs_info(task) => {
            render_needs_info(&mut out, task, f)
        }
        Stage::Blocked => render_blocked(&mut out, task, f),
        Stage::InReview => {
            out.push_str("**In review** — implemented and verified");
            if let Some(pr) = task.pull_request {
                out.push_str(&format!(" in pull request #{pr}"));
            }
            out.push_str("; it is done once the pull request is merged.\n");
            render_mode(&mut out, task);
            render_review(&mut out, task);
        }
        Stage::Done => render_done(&mut out, state, task),
        Stage::Skipped => {
            out.push_str(&format!(
                "**Skipped** — the swarm does not work on this issue, and issues that depend on it wait. To queue it again: `swarm-attack unblock {f} --issue {n}`.\n"
            ));
        }
        Stage::Split => {
            let children: Vec<String> = task
                .child_issues
                .iter()
                .map(|c| issue_ref(state, *c))
                .collect();
            if children.is_empty() {
                out.push_str("**Split** into smaller issues.\n");
            } else {
                out.push_str(&format!("**Split** into {}.\n", children.join(", ")));
            }
        }
        Stage::Unknown(s) => {
            out.push_str(&format!("Stage `{}`.\n", inline_text(s)));
        }
    }
    if let Some(v) = SpendView::issue(state.ledger.as_ref(), limits, n)
        .filter(|v| v.limit_usd.is_some() || v.limit_minutes.is_some() || v.limit_tokens.is_some())
    {
        out.push_str(&format!("\n**Budget:** {}\n", v.line()));
    }
    out
}

/// `**Mode:**` — how the last attempt ran: the mode and its agents (both of a PARALLEL or
/// SYNTHESIS pair, which one's result landed, any fallback), from `last_mode`.
fn render_mode(out: &mut String, task: &Task) {
    if let Some(m) = task
        .last_mode
        .as_deref()
        .map(inline_text)
        .filter(|m| !m.is_empty())
    {
        out.push_str(&format!("**Mode:** {m}\n\n"));
    }
}

/// `**Review:**` — the review gate's verdict on the landed work and its counted findings.
fn render_review(out: &mut String, task: &Task) {
    if let Some(r) = task.review.as_deref().filter(|r| !r.trim().is_empty()) {
        out.push_str(&format!("**Review:** {}\n\n", inline_text(r)));
    }
}

fn render_blocked(out: &mut String, task: &Task, f: &str) {
    let n = task.issue_number;
    let a = attempts(task);
    out.push_str(&format!(
        "**Blocked** after {a} attempt{}.\n\n",
        if a == 1 { "" } else { "s" }
    ));
    let reason = task
        .blocked_reason
        .as_deref()
        .map(inline_text)
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "not recorded".into());
    out.push_str(&format!("**Reason:** {reason}\n\n"));
    render_mode(out, task);
    if let Some(fail) = task
        .last_failure
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        out.push_str("<details><summary>Test output (excerpt)</summary>\n\n");
        out.push_str(&fenced_excerpt(fail, 40, 3000));
        out.push_str("\n\n</details>\n\n");
    }
    let files = task_files(task);
    if !files.is_empty() {
        out.push_str(&format!("**Files:** {}\n\n", code_list(&files)));
    }
    out.push_str("**Next steps**\n");
    out.push_str(&format!(
        "- see what happened: `swarm-attack events {f} --issue {n}` and `swarm-attack audit {f}`\n"
    ));
    out.push_str(&format!(
        "- see what the agent was told: `swarm-attack prompt {f} --issue {n}`\n"
    ));
    out.push_str(&format!(
        "- once the cause is fixed: `swarm-attack unblock {f} --issue {n}`, then `swarm-attack run {f} --issue {n}` (or comment `/swarm unblock` here)\n"
    ));
}

/// A task the specify gate holds: the score, the question, how to answer it.
fn render_needs_info(out: &mut String, task: &Task, f: &str) {
    let n = task.issue_number;
    let record = task.specify.as_ref();
    let score = record
        .map(|r| r.score_text())
        .unwrap_or_else(|| "not recorded".into());
    out.push_str(&format!(
        "**Needs info** — this issue is not dispatched yet: its specification scored {score} (the minimum is set by `gates.specify.min_score`).\n\n"
    ));
    if let Some(sc) = record.and_then(|r| r.scores) {
        out.push_str(&format!("**Scores:** {}\n\n", sc.describe()));
    }
    let question = record
        .and_then(|r| r.question.as_deref())
        .map(inline_text)
        .filter(|q| !q.is_empty());
    match question {
        Some(q) => out.push_str(&format!("**Question:** {q}\n\n")),
        None => {
            let reason = task
                .blocked_reason
                .as_deref()
                .map(inline_text)
                .unwrap_or_default();
            out.push_str(&format!("**Reason:** {reason}\n\n"));
        }
    }
    out.push_str("**Next steps**\n");
    out.push_str(
        "- answer the question by editing the issue: an edit by someone with write access scores it again, and a passing score queues it\n",
    );
    out.push_str(&format!(
        "- locally, after editing `issues.json`: `swarm-attack greenlight {f}`\n"
    ));
    out.push_str(&format!(
        "- to dispatch it as it is: `swarm-attack unblock {f} --issue {n}` (or comment `/swarm unblock` here)\n"
    ));
}

fn render_done(out: &mut String, state: &FeatureState, task: &Task) {
    match &task.commit {
        Some(c) => out.push_str(&format!("**Done** — implemented in {c}.\n\n")),
        None => out.push_str("**Done**.\n\n"),
    }
    render_mode(out, task);
    render_review(out, task);
    if !task.evidence.is_empty() {
        let ev: Vec<String> = task
            .evidence
            .iter()
            .map(|e| match &e.commit {
                Some(c) => format!("{} ({})", e.source, &c[..c.len().min(12)]),
                None => e.source.clone(),
            })
            .collect();
        out.push_str(&format!("**Evidence:** {}\n\n", ev.join(", ")));
    }
    let files = task_files(task);
    out.push_str(&format!(
        "**Files:** {}\n\n",
        if files.is_empty() {
            "none recorded".to_string()
        } else {
            code_list(&files)
        }
    ));
    out.push_str(&format!(
        "**Tests:** {}\n\n",
        match &task.test_file {
            Some(t) => code_list(std::slice::from_ref(t)),
            None => "no issue test file declared".to_string(),
        }
    ));
    if let Some(s) = task.summary() {
        out.push_str(&format!("**Summary:** {}\n\n", inline_text(s)));
    }
    let unblocks: Vec<String> = readiness::dependents(state, task.issue_number)
        .iter()
        .map(|d| issue_ref(state, *d))
        .collect();
    out.push_str(&format!(
        "**Unblocks:** {}\n",
        if unblocks.is_empty() {
            "no other issue of this feature".to_string()
        } else {
            unblocks.join(", ")
        }
    ));
}

#[cfg(test)]
mod tests;
