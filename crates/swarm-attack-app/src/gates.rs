//! The gates before dispatch in use (docs/gates.md; rules in `core::gates`, docs/gates.md).
//!
//! - **Specify**: [`score`] asks `llm.command` (`SWARM_PURPOSE=specify`, one re-prompt
//!   after an invalid answer, fail-open) or, without `llm.command`, the offline heuristic;
//!   it runs with no lock held. [`record`] writes the scores into a transaction (the task
//!   held, released or left as it was by `core::gates::specify::apply`).
//!   [`rescore_changed`] scores the texts that changed since they were held (greenlight);
//!   `run` scores at the claim and the Action at registration and at a writer's edit.
//! - **Risk**: [`risk_of`] is the one place the app asks whether an issue is risky (the
//!   review gate reads it too); [`landing_for`] is how a task lands.

use crate::core::config::Landing;
use crate::core::feature_id::FeatureId;
use crate::core::gates::risk::{self, Risk};
use crate::core::gates::specify::{self, SpecifyRecord};
use crate::core::gates::specify_heuristic::{self, ScoredText};
use crate::core::readiness;
use crate::core::state::Task;
use crate::error::CmdResult;
use crate::io::llm::{self, LlmRequest};
use crate::project::{FeatureTxn, Project};

/// The name `SWARM_AGENT` carries for a gate request.
const GATE_AGENT: &str = "specify-gate";

/// Scores the current text of `task`: `llm.command` when configured (strict JSON, one
/// re-prompt, then a passing record with a warning), else the offline heuristic.
pub(crate) fn score(project: &Project, feature: &FeatureId, task: &Task) -> SpecifyRecord {
    let cfg = &project.config.gates.specify;
    let sha = specify::text_sha256(task);
    if project.config.llm.command.is_none() {
        let answer = specify_heuristic::score(&ScoredText {
            title: &task.title,
            body: specify::issue_body(task),
            labels: &task.labels,
            files: &task.files,
        });
        return specify::record(sha, answer, cfg.min_score, specify::SOURCE_HEURISTIC);
    }
    let first = specify::prompt(task, feature);
    let mut prompt = first.clone();
    let mut problem = String::new();
    for _ in 0..2 {
        let req = LlmRequest {
            agent: GATE_AGENT,
            feature,
            issue: task.issue_number,
            purpose: specify::PURPOSE,
            prompt: &prompt,
        };
        let (answer, call) = llm::ask_call(&project.config, &project.root, &req);
        // the call is charged to the issue (docs/budgets.md)
        let events = crate::llm_calls::charged(
            &project.config,
            GATE_AGENT,
            specify::PURPOSE,
            task.issue_number,
            call.as_ref(),
        );
        if let Err(e) = project.append_events(feature, &events, false) {
            tracing::warn!("the specify gate's cost was not recorded: {}", e.message);
        }
        let answer = answer
            .map_err(|e| e.to_string())
            .and_then(|text| specify::parse_answer(&text));
        match answer {
            Ok(a) => return specify::record(sha, a, cfg.min_score, specify::SOURCE_LLM),
            Err(why) => {
                tracing::warn!(
                    "issue {}: the specify answer is unusable ({why})",
                    task.issue_number
                );
                prompt = specify::reprompt(&first, &why);
                problem = why;
            }
        }
    }
    specify::record_unscored(sha, &problem)
}

/// Records scores in `txn` (events, held / released tasks, readiness) and returns one
/// notice per issue for the user (`issue 3 needs info (4/10): ...`).
pub(crate) fn record(txn: &mut FeatureTxn<'_>, scored: Vec<(u32, SpecifyRecord)>) -> Vec<String> {
    let cfg = txn.project().config.gates.specify;
    let mut notices = Vec::new();
    for (issue, rec) in scored {
        let Some(task) = txn.state_mut().task_mut(issue) else {
            continue;
        };
        let warning = rec.warning.clone();
        let events = specify::apply(task, rec, &cfg);
        if events.is_empty() {
            continue;
        }
        if let Some(w) = warning {
            notices.push(format!("issue {issue}: {w}"));
        } else if specify::is_needs_info(task) {
            notices.push(format!(
                "issue {issue} is not dispatched: {}",
                task.blocked_reason.as_deref().unwrap_or("needs info")
            ));
        } else if events
            .iter()
            .any(|e| matches!(e, crate::core::events::Event::IssueUnblocked { .. }))
        {
            let score = task
                .specify
                .as_ref()
                .map(SpecifyRecord::score_text)
                .unwrap_or_default();
            notices.push(format!(
                "issue {issue} passes the specify gate now ({score}) and is queued again"
            ));
        }
        txn.events_mut().extend(events);
    }
    readiness::recompute(txn.state_mut());
    notices
}

/// The tasks whose text should be scored now (outside a dispatch): see
/// `core::gates::specify::wants_score`. Only tasks held for info, unless `ready_too`.
pub(crate) fn to_rescore(project: &Project, tasks: &[Task], ready_too: bool) -> Vec<Task> {
    let cfg = &project.config.gates.specify;
    tasks
        .iter()
        .filter(|t| specify::wants_score(t, cfg))
        .filter(|t| ready_too || specify::is_needs_info(t))
        .cloned()
        .collect()
}

/// Greenlight: scores again the held tasks whose text changed (no lock held while the LLM
/// answers), then records the scores; a passing one is queued again. Returns the notices.
pub(crate) fn rescore_changed(project: &Project, feature: &FeatureId) -> CmdResult<Vec<String>> {
    if !project.config.gates.specify.enabled {
        return Ok(Vec::new());
    }
    let Some(state) = project.load_state(feature)? else {
        return Ok(Vec::new());
    };
    let todo = to_rescore(project, &state.tasks, false);
    if todo.is_empty() {
        return Ok(Vec::new());
    }
    let scored: Vec<(u32, SpecifyRecord)> = todo
        .iter()
        .map(|t| (t.issue_number, score(project, feature, t)))
        .collect();
    let mut txn = project.begin(feature)?;
    let notices = record(&mut txn, scored);
    txn.commit()?;
    Ok(notices)
}

/// The risk of `task` under `gates.risk` (no signals when the gate is off).
pub(crate) fn risk_of(project: &Project, task: &Task) -> Risk {
    risk::assess(task, &project.config.gates.risk)
}

/// How `task` lands: `gates.risk.landing` for a risky task, else `git.landing`. A risky
/// task whose risk landing is `pr` while GitHub is not configured lands as `git.landing`
/// says, and the second value is the warning that says so.
pub(crate) fn landing_for(project: &Project, task: &Task) -> (Landing, Option<String>) {
    let configured = project.config.git.landing;
    let r = risk_of(project, task);
    if !r.is_risky() {
        return (configured, None);
    }
    let wanted = project.config.gates.risk.landing;
    if wanted == Landing::Pr && configured != Landing::Pr {
        let missing = match crate::io::github::settings::resolve(&project.config, &project.root) {
            Ok(Ok(_)) => None,
            Ok(Err(missing)) => Some(missing.join(" and ")),
            Err(e) => Some(e.to_string()),
        };
        if let Some(missing) = missing {
            return (
                configured,
                Some(format!(
                    "issue {} is risky ({}), but `gates.risk.landing: pr` needs GitHub ({missing} is missing), so it lands as `git.landing` says",
                    task.issue_number,
                    r.lines().join("; ")
                )),
            );
        }
    }
    (wanted, None)
}
