//! PARALLEL and SYNTHESIS execution (docs/coordination.md "The filter";
//! docs/run.md "The flow of one issue"; docs/coordination.md "Many candidates, one result"): the
//! candidates of one attempt (two, or up to `coordination.candidates` for PARALLEL), each an
//! [`attempt::run_attempt`] (agent → verification → commit in its worktree, not landed), and the
//! choice of the one commit that lands. Many candidates, join `quorum`, the selection and the
//! low-convergence actions: docs/coordination.md.
//!
//! - **PARALLEL**: the winner (`SWARM_ROLE=primary`, in the attempt's worktree) and the
//!   runner-up (`runner-up`, in `issue-<N>-attempt-<k>-<agent>`) run at the same time
//!   (threads), each told the other's angle and covers. Join `first` (default): the first
//!   candidate that passes verification lands; the other one is stopped (its agent's or its
//!   tests' process group killed) and its worktree removed. Join `all`: both run to their
//!   end (each bounded by its timeout); both passed → the smaller diff (fewer changed
//!   lines) lands, a tie goes to the primary, and the convergence score (token Jaccard of
//!   the two diffs' changed lines, [`crate::core::convergence`]) is recorded; one passed →
//!   it lands.
//! - **SYNTHESIS**: the winner runs first (agent, verification, commit); once its result
//!   exists, the runner-up runs in the same worktree on top of it, with the winner's output
//!   (its stdout, plus its verification failure if any) in its prompt; verification after
//!   the runner-up; the one commit holds both contributions. The winner's result not there
//!   within `coordination.synthesis_wait_seconds` → the runner-up starts at once in its own
//!   worktree with PARALLEL context and the pair is joined as PARALLEL (`fallback:
//!   parallel`). The runner-up fails or breaks the tests but the winner's result passed →
//!   the winner's commit lands (`fallback: solo`).
//! - Neither candidate passes → the attempt failed with both failures (fed back to both
//!   agents on the retry). Any error of this machinery → the caller falls back to SOLO
//!   with the winner (`fallback: solo`).
//!
//! Artifacts: `.swarm/runs/<feature>/issue-<N>/attempt-<k>/<agent>/` (prompt.md,
//! agent.stdout, agent.stderr, tests.log, result.json) per candidate, and
//! `attempt-<k>/candidates.json` (the join's record, the same as `issue_done.convergence`).

mod parallel;
mod reviewed;
mod select;
mod synthesis;

use crate::core::coordination::{Decision, Mode};
use crate::core::events::Event;
use crate::error::{CmdResult, CommandError};
use crate::io::config::AgentConfig;
use crate::prompt::{self, PromptRequest};
use crate::run::attempt::{self, AttemptResult, AttemptSpec, Candidate, Failed, Passed};
use crate::run::claim::Claim;
use crate::run::stop::Stop;
use crate::run::{Progress, RunContext};
use parallel::parallel;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use synthesis::synthesis;

/// The agents of a PARALLEL / SYNTHESIS decision: the winner, the runner-up and, for a
/// PARALLEL run with `coordination.candidates` above 2, the next candidates by rank.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    pub decision: &'a Decision,
    pub primary: &'a AgentConfig,
    pub runner: &'a AgentConfig,
    /// The third and later candidates (`SWARM_ROLE=candidate`), in rank order.
    pub more: &'a [&'a AgentConfig],
}

impl<'a> Pair<'a> {
    /// Every candidate, in rank order.
    pub fn agents(&self) -> Vec<&'a AgentConfig> {
        let mut v = vec![self.primary, self.runner];
        v.extend(self.more.iter().copied());
        v
    }
}

/// One attempt's inputs.
pub struct PairAttempt<'a> {
    pub claim: &'a Claim,
    pub attempt: u32,
    pub failures: &'a [String],
    /// Earlier analyses (one line each) and a `modify` approach
    /// (docs/run.md "After a failure: classes, analysis, fallback").
    pub analyses: &'a [String],
    pub approach: Option<&'a str>,
    /// The attempt's worktree (the primary's) and the commit it started from.
    pub worktree: &'a Path,
    pub base: &'a str,
    /// `.swarm/runs/<feature>/issue-<N>/attempt-<k>`.
    pub attempt_dir: PathBuf,
}

/// What one attempt of the pair gave.
pub enum PairResult {
    /// This commit (made on `base` in `worktree`) lands.
    Passed { passed: Passed, worktree: PathBuf },
    /// Neither candidate passed: the combined failure, and each failed candidate's agent
    /// with its failure's class (a slot whose class is `infra` follows its agent's fallback
    /// chain on the retry).
    Failed(
        Failed,
        Vec<(String, crate::core::failure_class::Classified)>,
    ),
    /// The issue goes BLOCKED at once (the candidates disagree and
    /// `coordination.on_low_convergence` is `block`); no retry is used.
    Blocked {
        reason: String,
        cost_usd: Option<f64>,
    },
}

/// The result, how it was reached (`last_mode`), and the record of the join.
pub struct PairOutcome {
    pub result: PairResult,
    pub executed: String,
    pub convergence: Value,
}

/// One candidate's end.
enum End {
    Result(AttemptResult),
    Error(String),
    /// Passed, but no reviewer gave a valid answer and `review.on_error` is `block`.
    Blocked {
        reason: String,
        cost_usd: Option<f64>,
    },
}

impl End {
    fn passed(&self) -> Option<&Passed> {
        match self {
            End::Result(AttemptResult::Passed(p)) => Some(p),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            End::Result(AttemptResult::Passed(_)) => "passed",
            End::Result(AttemptResult::Failed(_)) => "failed",
            End::Result(AttemptResult::Stopped { .. }) => "stopped",
            End::Error(_) => "error",
            End::Blocked { .. } => "blocked",
        }
    }
    fn reason(&self) -> Option<String> {
        match self {
            End::Result(AttemptResult::Failed(f)) => Some(f.reason.clone()),
            End::Result(AttemptResult::Stopped { .. }) => {
                Some("stopped: the other candidate passed first".into())
            }
            End::Error(e) | End::Blocked { reason: e, .. } => Some(e.clone()),
            End::Result(AttemptResult::Passed(_)) => None,
        }
    }
    fn cost(&self) -> Option<f64> {
        match self {
            End::Result(AttemptResult::Passed(p)) => p.cost_usd,
            End::Result(AttemptResult::Failed(f)) => f.cost_usd,
            End::Result(AttemptResult::Stopped { cost_usd }) | End::Blocked { cost_usd, .. } => {
                *cost_usd
            }
            End::Error(_) => None,
        }
    }
    /// Takes the events the attempt left for the caller.
    fn take_events(&mut self) -> Vec<Event> {
        match self {
            End::Result(AttemptResult::Passed(p)) => std::mem::take(&mut p.pending_events),
            End::Result(AttemptResult::Failed(f)) => std::mem::take(&mut f.pending_events),
            _ => Vec::new(),
        }
    }
}

/// A candidate about to run.
struct Slot<'a> {
    agent: &'a AgentConfig,
    role: &'static str,
    worktree: PathBuf,
    artifacts: PathBuf,
    stop: Stop,
    /// SYNTHESIS runner-up: the agent whose result this one builds on (named in the commit).
    builds_on: Option<String>,
}

/// The runner-up's own worktree (PARALLEL).
pub fn runner_worktree(ctx: &RunContext<'_>, issue: u32, attempt: u32, agent: &str) -> PathBuf {
    let safe: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    ctx.worktree_path(issue, attempt)
        .with_file_name(format!("issue-{issue}-attempt-{attempt}-{safe}"))
}

/// `agents_selected` for `decision` with a fallback (`to`: `solo` or `parallel`) and why.
pub fn fallback_event(decision: &Decision, issue: u32, to: &str, reason: &str) -> Event {
    let mut ev = decision.event(issue);
    if let Event::AgentsSelected {
        fallback,
        candidates,
        ..
    } = &mut ev
    {
        *fallback = Some(json!({"to": to, "reason": reason}));
        *candidates = Some(candidate_names(decision));
    }
    ev
}

/// `agents_selected` for a two-agent decision (with `candidates`).
pub fn selected_event(decision: &Decision, issue: u32) -> Event {
    let mut ev = decision.event(issue);
    if let Event::AgentsSelected { candidates, .. } = &mut ev {
        *candidates = Some(candidate_names(decision));
    }
    ev
}

fn candidate_names(decision: &Decision) -> Vec<String> {
    if !decision.candidates.is_empty() {
        return decision.candidates.clone();
    }
    let mut v = vec![decision.winner.clone()];
    v.extend(decision.runner_up.clone());
    v
}

/// Runs one attempt of the pair.
/// `slot_free` is called once a candidate passed (the scheduler may start the next issue).
pub fn run_pair(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    match pair.decision.mode {
        Mode::Synthesis => synthesis(ctx, pair, at, slot_free),
        _ => parallel(ctx, pair, at, slot_free),
    }
}

fn prompt_for(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    decision: &Decision,
    agent: &str,
    winner_output: &str,
) -> (String, Event) {
    let built = prompt::build_prompt(
        ctx.project,
        &at.claim.state,
        &PromptRequest {
            issue: at.claim.issue,
            agent: agent.to_string(),
            coordination: prompt::coordination_for(decision, agent, winner_output),
            attempt: at.attempt,
            previous_failures: at.failures.to_vec(),
            analyses: at.analyses.to_vec(),
            modified_approach: at.approach.map(str::to_string),
        },
    );
    // the lessons the pair's prompts hold, logged once (with the winner's prompt)
    if agent == decision.winner
        && let Some(used) = built.lessons_used
    {
        let _ = crate::run::record::emit(ctx, vec![used]);
    }
    (built.text, built.event)
}

/// Where and for what candidate `slot` runs.
fn slot_spec<'a>(at: &'a PairAttempt<'_>, slot: &'a Slot<'_>) -> AttemptSpec<'a> {
    let task = &at.claim.task;
    AttemptSpec {
        issue: at.claim.issue,
        attempt: at.attempt,
        title: &task.title,
        github_issue: task.github_issue,
        test_file: task.test_file.as_deref(),
        files: &task.files,
        labels: &task.labels,
        worktree: &slot.worktree,
        base: at.base,
        artifacts: slot.artifacts.clone(),
        stop: Some(&slot.stop),
        tag_agent: true,
        builds_on: slot.builds_on.as_deref(),
    }
}

/// Runs a candidate (in the calling thread); errors and panics become [`End::Error`].
fn run_slot(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    slot: &Slot<'_>,
    prompt: String,
    pre_events: Vec<Event>,
    mode: &str,
) -> End {
    ctx.report(Progress::AgentStarted {
        issue: at.claim.issue,
        agent: slot.agent.name.clone(),
        mode: format!("{mode}, {}", slot.role),
        attempt: at.attempt,
    });
    let spec = slot_spec(at, slot);
    let cand = Candidate {
        agent: slot.agent,
        role: slot.role,
        prompt,
        pre_events,
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        attempt::run_attempt(ctx, &spec, cand)
    }));
    match r {
        Ok(Ok(res)) => End::Result(res),
        Ok(Err(e)) => End::Error(format!(
            "agent `{}`'s attempt failed: {}",
            slot.agent.name, e.message
        )),
        Err(_) => End::Error(format!("agent `{}`'s attempt panicked", slot.agent.name)),
    }
}

fn add_runner_worktree(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    agent: &str,
) -> CmdResult<PathBuf> {
    let path = runner_worktree(ctx, at.claim.issue, at.attempt, agent);
    ctx.git.add_worktree(&path, at.base).map_err(|e| {
        let issue = at.claim.issue;
        let message = format!("could not create the runner-up's worktree for issue {issue}: {e}");
        CommandError::from(e).with_message(message)
    })?;
    Ok(path)
}

/// Queues a worktree for removal (after the issue's result is reported).
fn discard_worktree(ctx: &RunContext<'_>, path: PathBuf) {
    match ctx.pending_removals.lock() {
        Ok(mut v) => v.push(path),
        Err(_) => ctx.git.remove_worktree(&path),
    }
}
