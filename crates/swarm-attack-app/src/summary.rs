//! Semantic summaries of DONE tasks (docs/prompt.md "Semantic summaries").
//!
//! When a task is DONE and has no summary, and `coordination.generate_summaries` is on: with
//! `llm.command` set, the command is asked (purpose `summary`) for 1–2 sentences from the
//! commit's diffstat and a capped patch; otherwise, or when it fails, times out or answers
//! nothing usable, a deterministic summary is built from the commit subject, its files and
//! the symbols they define ([`crate::core::summary`]). The summary is stored in
//! `completion_summary` and `outputs.semantic_summary`; `outputs.files_created` and
//! `outputs.classes_defined` are filled from the commit when empty.
//!
//! Lazy (issue 19): a git sync never builds summaries for the tasks it finds DONE, but for
//! the ones linked to a GitHub issue (their status comment shows it). The others get theirs
//! when a prompt needs them (`prompt` and `run`'s claim), and the transaction stores them in
//! the state, so each is built once. `run` also builds one when an issue becomes DONE.
//!
//! No `llm.command` call is made under the feature lock: when summaries may ask it, they are
//! built first with no lock held ([`prepare`], one `git log` for all the missing ones) and
//! applied under the transaction ([`apply`]) to the tasks that still lack one for the same
//! commit. Without `llm.command` they are built from the commit, under the lock.

use crate::core::feature_id::FeatureId;
use crate::core::registry::Symbol;
use crate::core::stage::Stage;
use crate::core::state::{FeatureState, Task};
use crate::core::summary::{self, CommitFacts};
use crate::io::git::commit_info;
use crate::io::llm::{self, LlmRequest};
use crate::project::Project;
use crate::task_facts::{file_symbols, task_commit, task_files};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The largest patch handed to `llm.command`, in bytes.
pub(crate) const MAX_PATCH_BYTES: usize = 24 * 1024;
const MAX_DIFFSTAT_BYTES: usize = 8 * 1024;
/// The name given as `SWARM_AGENT` to the summary helper.
pub(crate) const SUMMARY_AGENT: &str = "swarm-attack";

/// Summaries built with no feature lock held ([`prepare`]), to be applied under the next
/// transaction ([`apply`]): the task as filled in, by issue.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prepared {
    by_issue: BTreeMap<u32, Task>,
}

/// Whether a summary may ask `llm.command` (then it is never built under the feature lock).
pub(crate) fn asks_llm(project: &Project) -> bool {
    project.config.coordination.generate_summaries
        && project
            .config
            .llm
            .command
            .as_ref()
            .is_some_and(|c| !c.is_empty())
}

/// Builds the summaries of the DONE tasks of `state` lacking one that `wanted` accepts,
/// without changing `state`. Call it with no feature lock held: it may ask `llm.command`.
pub(crate) fn prepare(
    project: &Project,
    feature: &FeatureId,
    state: &FeatureState,
    wanted: impl Fn(&Task) -> bool,
) -> Prepared {
    let mut tasks: Vec<Task> = state
        .tasks
        .iter()
        .filter(|t| needs_summary(project, t) && wanted(t))
        .cloned()
        .collect();
    fill_all(project, feature, &mut tasks, |_| true);
    Prepared {
        by_issue: tasks
            .into_iter()
            .filter(|t| t.summary().is_some())
            .map(|t| (t.issue_number, t))
            .collect(),
    }
}

/// Fills in, under the feature lock, the summaries of the DONE tasks lacking one that
/// `wanted` accepts: from `prepared` when it holds one built for the task's commit. When
/// summaries may ask `llm.command`, a task with none prepared (it became DONE after the
/// summaries were prepared) is left for the next command; otherwise they are built from the
/// commits now. Returns the issues changed.
pub(crate) fn apply(
    project: &Project,
    feature: &FeatureId,
    prepared: &Prepared,
    state: &mut FeatureState,
    wanted: impl Fn(&Task) -> bool,
) -> Vec<u32> {
    if !asks_llm(project) {
        return ensure_summaries_of(project, feature, state, wanted);
    }
    let mut changed = Vec::new();
    for task in &mut state.tasks {
        if !needs_summary(project, task) || !wanted(task) {
            continue;
        }
        let Some(built) = prepared.by_issue.get(&task.issue_number) else {
            continue;
        };
        if task_commit(built) != task_commit(task) {
            continue;
        }
        if task.outputs.files_created.is_empty() {
            task.outputs.files_created = built.outputs.files_created.clone();
        }
        copy_summary(task, built);
        changed.push(task.issue_number);
    }
    changed
}

/// Copies `from`'s summary (and its classes, when `from` found some) into `to` when `to`
/// has none yet.
pub(crate) fn copy_summary(to: &mut Task, from: &Task) {
    if to.summary().is_none() {
        to.outputs.semantic_summary = from.outputs.semantic_summary.clone();
        to.completion_summary = from.completion_summary.clone();
        if from
            .outputs
            .classes_defined
            .as_object()
            .is_some_and(|m| !m.is_empty())
        {
            to.outputs.classes_defined = from.outputs.classes_defined.clone();
        }
    }
}

/// Fills in summaries for every DONE task that lacks one; returns the issues changed.
///
/// The time given to `llm.command` is bounded: half of `sessions.lock_timeout_seconds` in
/// all, so a command's summaries never take longer than a lock wait. A task reached after
/// the budget is spent gets the summary built from its commit. (The commands fill only the
/// tasks they are asked for, [`ensure_summaries_of`]; this one is the tests'.)
#[cfg(test)]
pub(crate) fn ensure_summaries(
    project: &Project,
    feature: &FeatureId,
    state: &mut FeatureState,
) -> Vec<u32> {
    ensure_summaries_of(project, feature, state, |_| true)
}

/// Fills in summaries for the DONE tasks lacking one that `wanted` accepts (the sync passes
/// the ones linked to a GitHub issue); returns the issues changed.
pub(crate) fn ensure_summaries_of(
    project: &Project,
    feature: &FeatureId,
    state: &mut FeatureState,
    wanted: impl Fn(&Task) -> bool,
) -> Vec<u32> {
    fill_all(project, feature, &mut state.tasks, wanted)
}

/// [`ensure_summaries_of`] over a list of tasks.
fn fill_all(
    project: &Project,
    feature: &FeatureId,
    tasks: &mut [Task],
    wanted: impl Fn(&Task) -> bool,
) -> Vec<u32> {
    let budget = Duration::from_secs(project.config.sessions.lock_timeout_seconds) / 2;
    let per_call = Duration::from_secs(project.config.llm.timeout_seconds);
    let start = Instant::now();
    // the commits of every task that needs a summary, read with one git process
    let shas: Vec<String> = tasks
        .iter()
        .filter(|t| needs_summary(project, t) && wanted(t))
        .filter_map(|t| task_commit(t).map(str::to_string))
        .collect();
    let mut infos = commit_info::commit_infos(&project.root, &shas);
    let mut changed = Vec::new();
    for task in tasks.iter_mut() {
        if !needs_summary(project, task) || !wanted(task) {
            continue;
        }
        let left = budget.saturating_sub(start.elapsed());
        let llm_time = (!left.is_zero()).then(|| left.min(per_call));
        let facts = task_commit(task)
            .and_then(|s| infos.remove(s))
            .map(commit_facts);
        if fill(project, feature, task, facts, &project.root, llm_time) {
            changed.push(task.issue_number);
        }
    }
    changed
}

/// Whether `task` gets a summary now: DONE, none yet, summaries on.
fn needs_summary(project: &Project, task: &Task) -> bool {
    task.stage() == &Stage::Done
        && task.summary().is_none()
        && project.config.coordination.generate_summaries
}

fn commit_facts(i: commit_info::CommitInfo) -> CommitFacts {
    CommitFacts {
        sha: i.sha,
        subject: i.subject,
        added: i.added,
        modified: i.modified,
        deleted: i.deleted,
    }
}

/// Fills in the task's summary (`completion_summary`, `outputs.semantic_summary`) when it
/// is DONE, has none, and `coordination.generate_summaries` is on. Returns whether it
/// changed the task.
pub(crate) fn ensure_summary(project: &Project, feature: &FeatureId, task: &mut Task) -> bool {
    ensure_summary_in(project, feature, task, &project.root)
}

/// [`ensure_summary`] reading the task's files (their public items) under `files_root`:
/// `run` passes the worktree holding the verified commit, before it lands.
pub(crate) fn ensure_summary_in(
    project: &Project,
    feature: &FeatureId,
    task: &mut Task,
    files_root: &std::path::Path,
) -> bool {
    if !needs_summary(project, task) {
        return false;
    }
    let llm_time = Duration::from_secs(project.config.llm.timeout_seconds);
    let facts = task_commit(task)
        .and_then(|s| commit_info::commit_info(&project.root, s))
        .map(commit_facts);
    fill(project, feature, task, facts, files_root, Some(llm_time))
}

/// The summary builder, given what the task's commit did; `llm_time` is how long
/// `llm.command` may take (`None`: no time left, build it from the commit).
fn fill(
    project: &Project,
    feature: &FeatureId,
    task: &mut Task,
    facts: Option<CommitFacts>,
    files_root: &std::path::Path,
    llm_time: Option<Duration>,
) -> bool {
    if !needs_summary(project, task) {
        return false;
    }
    if task.outputs.files_created.is_empty()
        && let Some(f) = &facts
    {
        task.outputs.files_created = f.added.clone();
    }
    let files = task_files(task).to_vec();
    let symbols: Vec<(String, Vec<Symbol>)> = files
        .iter()
        .filter_map(|f| {
            file_symbols(files_root, f)
                .filter(|s| !s.is_empty())
                .map(|s| (f.clone(), s))
        })
        .collect();
    let classes_empty = match &task.outputs.classes_defined {
        Value::Object(m) => m.is_empty(),
        Value::Null => true,
        _ => false,
    };
    if classes_empty && !symbols.is_empty() {
        let mut m = Map::new();
        for (f, s) in &symbols {
            m.insert(
                f.clone(),
                Value::Array(s.iter().map(|s| Value::String(s.name.clone())).collect()),
            );
        }
        task.outputs.classes_defined = Value::Object(m);
    }
    let text = facts
        .as_ref()
        .and_then(|f| llm_summary(project, feature, task, f, llm_time))
        .unwrap_or_else(|| {
            summary::deterministic_summary(
                task.issue_number,
                &task.title,
                facts.as_ref(),
                &files,
                &symbols,
            )
        });
    task.outputs.semantic_summary = Some(text.clone());
    task.completion_summary = Some(text);
    true
}

/// Asks `llm.command` for the summary; `None` when none is configured or it gave nothing
/// usable (with a warning naming the issue).
fn llm_summary(
    project: &Project,
    feature: &FeatureId,
    task: &Task,
    facts: &CommitFacts,
    llm_time: Option<Duration>,
) -> Option<String> {
    let config = &project.config;
    config.llm.command.as_ref().filter(|c| !c.is_empty())?;
    let Some(llm_time) = llm_time else {
        project.ui.warn(format_args!(
            "summary of issue {} in `{feature}`: no time left for llm.command (its summaries take at most half of sessions.lock_timeout_seconds); using the summary built from the commit",
            task.issue_number
        ));
        return None;
    };
    let stat =
        commit_info::diffstat(&project.root, &facts.sha, MAX_DIFFSTAT_BYTES).unwrap_or_default();
    let (patch, cut) =
        commit_info::patch(&project.root, &facts.sha, MAX_PATCH_BYTES).unwrap_or_default();
    let question = summary::llm_question(
        feature,
        task.issue_number,
        &task.title,
        &facts.subject,
        &stat,
        &patch,
        cut,
    );
    let req = LlmRequest {
        agent: SUMMARY_AGENT,
        feature,
        issue: task.issue_number,
        purpose: "summary",
        prompt: &question,
    };
    let answer = match llm::ask_within(config, &project.root, &req, llm_time) {
        Ok(a) => a,
        Err(e) => {
            project.ui.warn(format_args!(
                "summary of issue {} in `{feature}`: {e}; using the summary built from the commit",
                task.issue_number
            ));
            return None;
        }
    };
    let cleaned = summary::clean_answer(&answer);
    if cleaned.is_none() {
        project.ui.warn(format_args!(
            "summary of issue {} in `{feature}`: llm.command answered nothing usable; using the summary built from the commit",
            task.issue_number
        ));
    }
    cleaned
}

#[cfg(test)]
mod tests;
