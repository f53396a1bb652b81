//! Building the coder prompt for an issue (docs/prompt.md "Sections, in order") from the project's
//! files and state: reads the project instructions, the DONE tasks' summaries and files (module
//! registry), the commit times (newest first) and the config, and hands plain values to the pure
//! [`crate::core::prompt`] builder. Also the `prompt` command's use case ([`show_prompt`]).
//!
//! `prompt` appends `context_injected` to the event log, like `run` does for each prompt it
//! sends, so the log records what every shown prompt held (size, what was cut).

use crate::core::coordination::{Decision, Mode};
use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::handoff::DoneHandoff;
use crate::core::prompt::{
    self, ContextPack, DoneIssue, GITHUB_ASSOCIATION_KEY, GITHUB_AUTHOR_KEY, GithubAuthor,
    Instructions, IssueInput, RegistryFile, TestCommands, sections::INSTRUCTION_FILES,
};
use crate::core::registry::Symbol;
use crate::core::stage::Stage;
use crate::core::state::{FeatureState, Task};
use crate::error::{CmdResult, CommandError};
use crate::io::git::commit_info;
use crate::project::Project;
use crate::sync::Summaries;
use crate::task_facts::{file_symbols_under, task_commit, task_files};
use std::path::Path;

pub(crate) use crate::core::prompt::{CoordinationContext, OtherCandidate};

/// The most files read for the module registry.
const MAX_REGISTRY_FILES: usize = 200;
/// The largest project instructions file read (the budget cuts it further).
const MAX_INSTRUCTIONS_BYTES: u64 = 32 * 1024 * 1024;

/// Who the prompt is for and which attempt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PromptRequest {
    pub issue: u32,
    pub agent: String,
    pub coordination: CoordinationContext,
    /// 1-based attempt number.
    pub attempt: u32,
    /// Failure output of earlier attempts (newest last).
    pub previous_failures: Vec<String>,
    /// Earlier attempts' analyses, one line each, oldest first
    /// (docs/run.md "After a failure: classes, analysis, fallback").
    pub analyses: Vec<String>,
    /// The failure analysis' `modify` recommendation for this attempt.
    pub modified_approach: Option<String>,
}

/// A built prompt, its `context_injected` event, and the `lessons_used` event when it holds
/// lessons.
#[derive(Debug, Clone)]
pub struct BuiltPrompt {
    pub text: String,
    pub event: Event,
    pub lessons_used: Option<Event>,
}

/// Builds the prompt for `req` from the project files and `state`.
pub(crate) fn build_prompt(
    project: &Project,
    state: &FeatureState,
    req: &PromptRequest,
) -> BuiltPrompt {
    let pack = context_pack(project, state, req);
    let built = prompt::build(&pack);
    let has_claude_md = pack.instructions.as_ref().is_some_and(|i| {
        matches!(
            i.source.as_str(),
            "CLAUDE.md" | "claude.md" | ".claude/CLAUDE.md"
        )
    });
    let event = Event::ContextInjected {
        issue: req.issue,
        has_claude_md,
        summaries_count: built.summaries_count,
        prompt_bytes: built.text.len() as u64,
        truncated: built.truncated,
        preview: false,
    };
    let lessons_used = crate::lessons::used_event(req.issue, req.attempt.max(1), &pack.lessons);
    BuiltPrompt {
        text: built.text,
        event,
        lessons_used,
    }
}

/// The project instructions: the first of `CLAUDE.md`, `claude.md`, `.claude/CLAUDE.md`,
/// `AGENTS.md`, `README.md`, `README.rst`, `README.txt`, `README` that is a file in `root`. Names are matched exactly (also on
/// case-insensitive file systems); bytes that are not UTF-8 are replaced; a leading BOM is
/// dropped.
pub(crate) fn find_instructions(root: &Path) -> Option<Instructions> {
    for name in INSTRUCTION_FILES {
        let path = root.join(name);
        let (dir, file) = match name.rsplit_once('/') {
            Some((d, f)) => (root.join(d), f),
            None => (root.to_path_buf(), *name),
        };
        // a file of that name (in any case) first: the folder is listed only then, so a
        // root without instructions costs a stat per name, not a listing of the root each
        if !path.is_file() {
            continue;
        }
        let listed = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().any(|e| e.file_name() == file))
            .unwrap_or(false);
        if !listed {
            continue;
        }
        let Ok(f) = std::fs::File::open(&path) else {
            continue;
        };
        let mut bytes = Vec::new();
        use std::io::Read;
        if f.take(MAX_INSTRUCTIONS_BYTES)
            .read_to_end(&mut bytes)
            .is_err()
        {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text).to_string();
        return Some(Instructions {
            source: (*name).to_string(),
            text,
        });
    }
    None
}

/// The symbols recorded in `outputs.classes_defined` (`{file: [name, ...]}`) for `file`.
fn recorded_symbols(task: &Task, file: &str) -> Vec<Symbol> {
    task.outputs
        .classes_defined
        .get(file)
        .and_then(|v| v.as_array())
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str())
                .map(|n| Symbol {
                    kind: "item",
                    name: n.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The GitHub author recorded on a task (see [`crate::core::prompt`]).
pub(crate) fn github_author(task: &Task) -> Option<GithubAuthor> {
    let login = task.extra.get(GITHUB_AUTHOR_KEY)?.as_str()?.to_string();
    let association = task
        .extra
        .get(GITHUB_ASSOCIATION_KEY)
        .and_then(|v| v.as_str())
        .unwrap_or("NONE")
        .to_string();
    Some(GithubAuthor { login, association })
}

/// Gathers everything the prompt for `req` is built from.
pub(crate) fn context_pack(
    project: &Project,
    state: &FeatureState,
    req: &PromptRequest,
) -> ContextPack {
    let config = &project.config;
    let task = state.task(req.issue);
    let issue = match task {
        Some(t) => IssueInput {
            feature: state.feature_id.clone(),
            number: t.issue_number,
            title: t.title.clone(),
            body: t.body.clone(),
            labels: t.labels.clone(),
            dependencies: t.dependencies.clone(),
            github_issue: t.github_issue,
            github_body: t.github_body.clone(),
            github_author: github_author(t),
            test_file: t.test_file.clone(),
        },
        None => IssueInput {
            feature: state.feature_id.clone(),
            number: req.issue,
            ..Default::default()
        },
    };
    let done_tasks: Vec<&Task> = state
        .tasks
        .iter()
        .filter(|t| t.stage() == &Stage::Done && t.issue_number != req.issue)
        .collect();
    let shas: Vec<String> = done_tasks
        .iter()
        .filter_map(|t| task_commit(t).map(str::to_string))
        .collect();
    let times = commit_info::commit_times(&project.root, &shas);
    // the handoffs of DONE issues, newest first (as the summaries: commit time, then number)
    let mut handoffs: Vec<(Option<i64>, DoneHandoff)> = done_tasks
        .iter()
        .filter_map(|t| {
            let h = t.handoff.clone().filter(|h| !h.is_empty())?;
            Some((
                task_commit(t).and_then(|c| times.get(c).copied()),
                DoneHandoff {
                    issue: t.issue_number,
                    title: t.title.clone(),
                    handoff: h,
                },
            ))
        })
        .collect();
    handoffs.sort_by(|(ta, a), (tb, b)| {
        (tb.is_some(), tb.unwrap_or(0), b.issue).cmp(&(ta.is_some(), ta.unwrap_or(0), a.issue))
    });
    let done = done_tasks
        .iter()
        .map(|t| DoneIssue {
            number: t.issue_number,
            title: t.title.clone(),
            summary: t.summary().map(str::to_string),
            files: task_files(t).to_vec(),
            done_at: task_commit(t).and_then(|c| times.get(c).copied()),
        })
        .collect();
    let mut registry = Vec::new();
    let canon_root = project.root.canonicalize().ok();
    'tasks: for t in &done_tasks {
        for f in task_files(t) {
            if registry.len() >= MAX_REGISTRY_FILES {
                break 'tasks;
            }
            let read = canon_root
                .as_deref()
                .and_then(|c| file_symbols_under(&project.root, c, f));
            let symbols = match read {
                Some(s) if !s.is_empty() => s,
                _ => recorded_symbols(t, f),
            };
            registry.push(RegistryFile {
                path: f.clone(),
                issue: t.issue_number,
                symbols,
            });
        }
    }
    let agent = config.agents.iter().find(|a| a.name == req.agent);
    ContextPack {
        issue,
        instructions: find_instructions(&project.root),
        done,
        registry,
        agent: req.agent.clone(),
        agent_angle: agent.map(|a| a.angle.clone()),
        coordination: req.coordination.clone(),
        attempt: req.attempt.max(1),
        max_attempts: config.sessions.max_implementation_retries.saturating_add(1),
        previous_failures: req.previous_failures.clone(),
        analyses: req.analyses.clone(),
        modified_approach: req.modified_approach.clone(),
        tests: TestCommands {
            command: config.tests.command.clone(),
            issue_command: config.tests.issue_command.clone(),
        },
        max_prompt_tokens: config.context.max_prompt_tokens,
        lessons: task
            .map(|t| crate::lessons::select_for(project, t))
            .unwrap_or_default(),
        handoffs: handoffs.into_iter().map(|(_, h)| h).collect(),
    }
}

/// This agent's role in a decision: `primary`, `runner-up`, `candidate` (the third and
/// later of a PARALLEL run), or `None` when it is not one of the chosen agents.
pub(crate) fn role_in(decision: &Decision, agent: &str) -> Option<&'static str> {
    if decision.winner == agent {
        Some("primary")
    } else if decision.mode != Mode::Solo && decision.runner_up.as_deref() == Some(agent) {
        Some("runner-up")
    } else if decision.mode == Mode::Parallel && decision.candidates.iter().any(|c| c == agent) {
        Some("candidate")
    } else {
        None
    }
}

/// What `agent` is told about the coordination `decision` (SOLO when it is not one of the
/// chosen agents). A SYNTHESIS runner-up gets `winner_output` as the winner's output.
pub(crate) fn coordination_for(
    decision: &Decision,
    agent: &str,
    winner_output: &str,
) -> CoordinationContext {
    let proposal = |name: &str| decision.proposals.iter().find(|p| p.agent == name);
    let other = match role_in(decision, agent) {
        Some("primary") => decision.runner_up.clone(),
        Some(_) => Some(decision.winner.clone()),
        None => return CoordinationContext::Solo,
    };
    let Some(other) = other else {
        return CoordinationContext::Solo;
    };
    let primary = decision.winner == agent;
    if decision.mode == Mode::Parallel && decision.candidates.len() > 2 {
        let role = role_in(decision, agent).unwrap_or("candidate");
        let others = decision
            .candidates
            .iter()
            .filter(|c| c.as_str() != agent)
            .map(|c| OtherCandidate {
                agent: c.clone(),
                angle: proposal(c.as_str())
                    .map(|p| p.proposal.angle.clone())
                    .unwrap_or_default(),
                covers: proposal(c.as_str())
                    .map(|p| p.proposal.covers.clone())
                    .unwrap_or_default(),
            })
            .collect();
        return CoordinationContext::Candidates { role, others };
    }
    match decision.mode {
        Mode::Solo => CoordinationContext::Solo,
        Mode::Parallel => CoordinationContext::Parallel {
            primary,
            other_angle: proposal(&other)
                .map(|p| p.proposal.angle.clone())
                .unwrap_or_default(),
            other_covers: proposal(&other)
                .map(|p| p.proposal.covers.clone())
                .unwrap_or_default(),
            other_agent: other,
        },
        Mode::Synthesis if primary => CoordinationContext::SynthesisWinner { other_agent: other },
        Mode::Synthesis => CoordinationContext::SynthesisRunnerUp {
            winner: other,
            winner_output: winner_output.to_string(),
        },
    }
}

/// The next attempt `run` would make for a task (1-based).
pub(crate) fn next_attempt(task: &Task) -> u32 {
    if task.stage() == &Stage::InProgress {
        task.attempts.max(1)
    } else {
        task.attempts + 1
    }
}

/// The prompt `prompt` shows, and what it was built for.
#[derive(Debug, Clone)]
pub struct ShownPrompt {
    pub issue: u32,
    pub agent: String,
    /// `primary`, `runner-up`, `candidate` (third and later of a PARALLEL run), or `solo`
    /// for an agent the decision did not choose.
    pub role: &'static str,
    pub mode: Mode,
    pub attempt: u32,
    pub built: BuiltPrompt,
    /// Notices for the user (e.g. the issue is DONE).
    pub notes: Vec<String>,
}

/// `prompt <feature> --issue N [--agent NAME]`: syncs, decides the coordination, builds the
/// exact prompt `run` would send to that agent, and records `context_injected`.
pub fn show_prompt(
    project: &Project,
    feature: &FeatureId,
    issue: u32,
    agent: Option<&str>,
) -> CmdResult<ShownPrompt> {
    // the summaries the prompt shows, built now if missing and kept in the state
    let (mut txn, _) = crate::sync::open_synced_for(project, feature, Summaries::All)?;
    let Some(task) = txn.state().task(issue).cloned() else {
        let known: Vec<String> = txn
            .state()
            .tasks
            .iter()
            .map(|t| t.issue_number.to_string())
            .collect();
        return Err(
            CommandError::input(format!("feature `{feature}` has no issue {issue}"))
                .with_hint(format!("its issues are: {}", known.join(", "))),
        );
    };
    if project.config.agents.is_empty() {
        return Err(CommandError::input(format!(
            "{} configures no agents, so no prompt would be sent",
            project.config_path.display()
        ))
        .with_hint("add an entry under `agents:` (name, command)"));
    }
    let decision = crate::plan::decide_for_task(project, feature, &task);
    let agent = agent.map(str::to_string).unwrap_or(decision.winner.clone());
    if !project.config.agents.iter().any(|a| a.name == agent) {
        let names: Vec<&str> = project
            .config
            .agents
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        return Err(CommandError::input(format!(
            "no agent named `{agent}` in the config (agents: {})",
            names.join(", ")
        ))
        .with_hint("use --agent with one of the configured agent names"));
    }
    let mut notes = Vec::new();
    let role = match role_in(&decision, &agent) {
        Some(r) => r,
        None => {
            notes.push(format!(
                "agent `{agent}` is not chosen for issue {issue} ({} with `{}`); showing its prompt as if it worked alone",
                decision.mode.as_str(),
                decision.winner
            ));
            "solo"
        }
    };
    let placeholder = format!(
        "(The output of `{}` goes here once it has run.)",
        decision.winner
    );
    let coordination = coordination_for(&decision, &agent, &placeholder);
    match task.stage() {
        Stage::Done => notes.push(format!(
            "issue {issue} is DONE; `run` will not send it a prompt"
        )),
        Stage::Blocked | Stage::Skipped => notes.push(format!(
            "issue {issue} is {}; `run` sends its prompt after `swarm-attack unblock {feature} --issue {issue}`",
            task.stage()
        )),
        Stage::Backlog => notes.push(format!(
            "issue {issue} is BACKLOG; `run` sends its prompt once its dependencies are DONE"
        )),
        _ => {}
    }
    let attempt = next_attempt(&task);
    let previous_failures = match (&task.last_failure, attempt > 1) {
        (Some(f), true) if !f.trim().is_empty() => vec![f.clone()],
        _ => Vec::new(),
    };
    let analyses = &task.failure_analyses;
    let req = PromptRequest {
        issue,
        agent: agent.clone(),
        coordination,
        attempt,
        previous_failures,
        analyses: crate::core::failure_analysis::condensed(analyses, 5),
        modified_approach: analyses
            .last()
            .filter(|n| n.attempt + 1 == attempt)
            .and_then(|n| n.modified_approach.clone()),
    };
    let built = build_prompt(project, txn.state(), &req);
    let mut event = built.event.clone();
    if let Event::ContextInjected { preview, .. } = &mut event {
        *preview = true;
    }
    txn.push_event(event);
    txn.commit()?;
    Ok(ShownPrompt {
        issue,
        agent,
        role,
        mode: decision.mode,
        attempt,
        built,
        notes,
    })
}

#[cfg(test)]
mod tests;
