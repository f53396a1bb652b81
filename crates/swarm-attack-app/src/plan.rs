//! Agent selection for an issue: proposals from the configured source (`heuristic`, or
//! `llm` with a per-agent fallback to the heuristic), then the coordination filter; the
//! `plan` use case; the `agents_selected` events.

use crate::core::coordination::{self, Decision, NamedProposal};
use crate::core::events::{Event, EventKind};
use crate::core::feature_id::FeatureId;
use crate::core::gates::specify::{self, SpecifyRecord, issue_body};
use crate::core::heuristic::{self, IssueText};
use crate::core::llm_proposal::{self, IssueBrief};
use crate::core::stage::Stage;
use crate::core::state::{FeatureState, Task};
use crate::error::{CmdResult, CommandError};
use crate::io::config::{AgentConfig, ProposalSource};
use crate::io::llm::{self, LlmRequest};
use crate::project::Project;
use crate::sync::SyncReport;
use serde_json::Value;

/// The source name of a heuristic proposal.
pub(crate) const SOURCE_HEURISTIC: &str = "heuristic";
/// The source name of a proposal answered by `llm.command`.
pub(crate) const SOURCE_LLM: &str = "llm";

/// One issue's decision, with what identifies the issue.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedIssue {
    pub issue: u32,
    pub title: String,
    pub stage: Stage,
    pub decision: Decision,
    /// The specify gate's view of the issue (only with `gates.specify` enabled).
    pub specify: Option<SpecifyView>,
    /// Why the issue is risky (`gates.risk`); empty when it is not, or the gate is off.
    pub risk: Vec<String>,
}

/// What `plan` and `status` show of the specify gate for one issue.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecifyView {
    /// The kept score, if the issue was scored.
    pub record: Option<SpecifyRecord>,
    /// Whether the kept score is for the issue's current text.
    pub current: bool,
}

impl SpecifyView {
    /// The view of `task` under `project`'s configuration (None: the gate is off).
    pub(crate) fn of(project: &Project, task: &Task) -> Option<SpecifyView> {
        project.config.gates.specify.enabled.then(|| SpecifyView {
            record: task.specify.clone(),
            current: task
                .specify
                .as_ref()
                .is_some_and(|r| r.sha256 == specify::text_sha256(task)),
        })
    }

    /// One line: `7/10 (llm)`, `not scored yet`, `4/10 (llm); the text changed since`.
    pub fn line(&self) -> String {
        match (&self.record, self.current) {
            (None, _) => "not scored yet (scored before its first dispatch)".into(),
            (Some(r), true) => r.summary_line(),
            (Some(r), false) => format!(
                "{} for an earlier text; scored again before its first dispatch",
                r.summary_line()
            ),
        }
    }
}

/// What `plan` computed.
#[derive(Debug)]
pub struct PlanOutcome {
    pub sync: SyncReport,
    pub planned: Vec<PlannedIssue>,
    /// Manual issues not DONE (number, title): they wait for a person, no agent is chosen.
    pub manual: Vec<(u32, String)>,
    /// Issues the specify gate holds (number, title, score and question).
    pub needs_info: Vec<(u32, String, String)>,
}

fn heuristic_proposal(agent: &AgentConfig, task: &Task, source: String) -> NamedProposal {
    let issue = IssueText {
        title: &task.title,
        body: issue_body(task),
        labels: &task.labels,
    };
    NamedProposal {
        agent: agent.name.clone(),
        source,
        proposal: heuristic::propose(agent, &issue),
        learned: None,
    }
}

fn one_line(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > max {
        format!("{}…", s.chars().take(max).collect::<String>())
    } else {
        s
    }
}

/// One agent's proposal from `llm.command`, or the heuristic when the answer is missing,
/// late, failed or invalid (logged, and said in the proposal's `source`).
fn llm_proposal(
    project: &Project,
    feature: &FeatureId,
    task: &Task,
    agent: &AgentConfig,
) -> NamedProposal {
    let others: Vec<&AgentConfig> = project
        .config
        .agents
        .iter()
        .filter(|a| a.name != agent.name)
        .collect();
    let prompt = llm_proposal::prompt(
        agent,
        &others,
        &IssueBrief {
            feature,
            number: task.issue_number,
            title: &task.title,
            body: issue_body(task),
            labels: &task.labels,
        },
    );
    let req = LlmRequest {
        agent: &agent.name,
        feature,
        issue: task.issue_number,
        purpose: "proposal",
        prompt: &prompt,
    };
    let answer = llm::ask(&project.config, &project.root, &req)
        .map_err(|e| e.to_string())
        .and_then(|text| llm_proposal::parse(&text));
    match answer {
        Ok(proposal) => NamedProposal {
            agent: agent.name.clone(),
            source: SOURCE_LLM.into(),
            proposal,
            learned: None,
        },
        Err(why) => {
            let why = one_line(&why, 200);
            tracing::warn!(
                "issue {}: the llm proposal of agent `{}` is unusable ({why}); using the heuristic",
                task.issue_number,
                agent.name
            );
            heuristic_proposal(
                agent,
                task,
                format!("{SOURCE_HEURISTIC} (llm fallback: {why})"),
            )
        }
    }
}

/// Every configured agent's proposal for `task`, in configuration order. With the `llm`
/// source the agents are asked concurrently.
pub(crate) fn proposals_for_task(
    project: &Project,
    feature: &FeatureId,
    task: &Task,
) -> Vec<NamedProposal> {
    let agents = &project.config.agents;
    match project.config.coordination.proposal_source {
        ProposalSource::Heuristic => agents
            .iter()
            .map(|a| heuristic_proposal(a, task, SOURCE_HEURISTIC.into()))
            .collect(),
        ProposalSource::Llm => std::thread::scope(|scope| {
            let handles: Vec<_> = agents
                .iter()
                .map(|a| {
                    (
                        a,
                        scope.spawn(move || llm_proposal(project, feature, task, a)),
                    )
                })
                .collect();
            handles
                .into_iter()
                .map(|(a, h)| {
                    h.join().unwrap_or_else(|_| {
                        heuristic_proposal(
                            a,
                            task,
                            format!("{SOURCE_HEURISTIC} (llm fallback: the request panicked)"),
                        )
                    })
                })
                .collect()
        }),
    }
}

/// The coordination decision for `task` (never fails: fail-open to SOLO with the first
/// configured agent when there are no proposals).
pub(crate) fn decide_for_task(project: &Project, feature: &FeatureId, task: &Task) -> Decision {
    let mut proposals = proposals_for_task(project, feature, task);
    learn(project, task, &mut proposals);
    let fallback = project
        .config
        .agents
        .first()
        .map(|a| a.name.as_str())
        .unwrap_or("agent");
    let c = &project.config.coordination;
    coordination::candidates::with_candidates(
        coordination::decide(&proposals, &c.thresholds, fallback),
        c.thresholds.high_confidence,
        c.candidates,
    )
}

/// With `coordination.learn: on`, blends each proposal with the agent's recorded outcomes
/// in the task's class (docs/learning.md "Outcomes"): the same outcomes file gives `plan` and `run`
/// the same decision. Without outcomes, nothing changes.
pub(crate) fn learn(project: &Project, task: &Task, proposals: &mut [NamedProposal]) {
    let c = &project.config.coordination;
    if !c.learn {
        return;
    }
    let stats = crate::outcomes::stats(&project.paths);
    if stats.by.is_empty() {
        return;
    }
    let class = crate::outcomes::class_of(&project.config, task);
    crate::core::outcomes::apply(proposals, &class, &stats, c.learn_prior);
}

/// Decisions for the given tasks, in the given order.
pub(crate) fn decide_tasks(
    project: &Project,
    feature: &FeatureId,
    tasks: &[&Task],
) -> Vec<PlannedIssue> {
    tasks
        .iter()
        .map(|t| PlannedIssue {
            issue: t.issue_number,
            title: t.title.clone(),
            stage: t.stage().clone(),
            decision: decide_for_task(project, feature, t),
            specify: SpecifyView::of(project, t),
            risk: crate::gates::risk_of(project, t).lines(),
        })
        .collect()
}

/// Decisions for every READY task of `state`, in issue order.
pub(crate) fn decide_ready(
    project: &Project,
    feature: &FeatureId,
    state: &FeatureState,
) -> Vec<PlannedIssue> {
    let mut ready: Vec<&Task> = state
        .tasks
        .iter()
        .filter(|t| t.stage() == &Stage::Ready && !t.is_manual())
        .collect();
    ready.sort_by_key(|t| t.issue_number);
    decide_tasks(project, feature, &ready)
}

/// Appends one `agents_selected` per planned issue, under the feature lock; with `mirror`,
/// the feature is then mirrored to GitHub (the finish hook).
pub(crate) fn emit(
    project: &Project,
    feature: &FeatureId,
    planned: &[PlannedIssue],
    mirror: bool,
) -> CmdResult<()> {
    // a preview: `plan` and `greenlight` decide, nothing runs (left out of audit's timeline)
    let events: Vec<Event> = planned
        .iter()
        .map(|p| {
            let mut ev = p.decision.event(p.issue);
            if let Event::AgentsSelected { preview, .. } = &mut ev {
                *preview = true;
            }
            ev
        })
        .collect();
    project.append_events(feature, &events, mirror)
}

const DECISION_KEYS: &[&str] = &["mode", "winner", "runner_up", "reason", "proposals"];

/// The last `agents_selected` record per issue in the feature's event log (unreadable lines
/// are skipped: the `events` reader is the one that reports them).
fn last_selected(project: &Project, feature: &FeatureId) -> std::collections::BTreeMap<u64, Value> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(project.paths.events_file(feature)) else {
        return out;
    };
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("event")
            .and_then(Value::as_str)
            .and_then(EventKind::parse)
            == Some(EventKind::AgentsSelected)
            && let Some(issue) = v.get("issue").and_then(Value::as_u64)
        {
            out.insert(issue, v);
        }
    }
    out
}

/// The planned issues whose decision differs from the last `agents_selected` logged for
/// them (or that have none): what `greenlight` emits, so that a second greenlight with
/// nothing changed appends nothing.
pub(crate) fn changed_since_last(
    project: &Project,
    feature: &FeatureId,
    planned: &[PlannedIssue],
) -> Vec<PlannedIssue> {
    let last = last_selected(project, feature);
    planned
        .iter()
        .filter(|p| {
            let Some(prev) = last.get(&u64::from(p.issue)) else {
                return true;
            };
            let now = serde_json::to_value(p.decision.event(p.issue)).unwrap_or_default();
            DECISION_KEYS.iter().any(|k| prev.get(*k) != now.get(*k))
        })
        .cloned()
        .collect()
}

/// `plan <feature> [--issue N]`: syncs like `status`, then decides for every READY issue
/// (or the given issue, whatever its stage) and emits `agents_selected` for each.
pub fn plan(project: &Project, feature: &FeatureId, issue: Option<u32>) -> CmdResult<PlanOutcome> {
    let (txn, sync) = crate::sync::open_synced(project, feature)?;
    let state = txn.state().clone();
    txn.commit()?;
    let planned = match issue {
        None => decide_ready(project, feature, &state),
        Some(n) => {
            let task = state
                .tasks
                .iter()
                .find(|t| t.issue_number == n)
                .ok_or_else(|| {
                    CommandError::input(format!("feature `{feature}` has no issue {n}"))
                        .with_hint(format!("`swarm-attack status {feature}` lists its issues"))
                })?;
            decide_tasks(project, feature, &[task])
        }
    };
    emit(project, feature, &planned, false)?;
    let manual = state
        .tasks
        .iter()
        .filter(|t| t.is_manual() && t.stage() != &Stage::Done)
        .filter(|t| issue.is_none_or(|n| n == t.issue_number))
        .map(|t| (t.issue_number, t.title.clone()))
        .collect();
    let needs_info = state
        .tasks
        .iter()
        .filter(|t| specify::is_needs_info(t))
        .filter(|t| issue.is_none_or(|n| n == t.issue_number))
        .map(|t| {
            let line = SpecifyView::of(project, t)
                .map(|v| v.line())
                .or_else(|| t.blocked_reason.clone())
                .unwrap_or_default();
            (t.issue_number, t.title.clone(), line)
        })
        .collect();
    Ok(PlanOutcome {
        sync,
        planned,
        manual,
        needs_info,
    })
}
