//! A failed attempt of an issue (docs/run.md "After a failure: classes, analysis, fallback"): its
//! class by code, the analysis of a `tests` / `review` failure (`analyst.rs`), one
//! `failure_analyzed` event, and what happens next — a retry (with the failure, and a `### Modified
//! approach` for `modify`), the next agent of the fallback chain, SKIPPED, BLOCKED (a setup cause,
//! `needs a person:`, retries used up, a fallback chain whose agents all failed), back to BACKLOG
//! behind a dependency the analysis found, or stopped by the circuit breaker.

mod analyst;
mod limit;
mod slots;

pub(super) use limit::limit_fallback;
pub(super) use slots::Slots;

use crate::core::events::Event;
use crate::core::failure_analysis::{self, Analysis, Note, Recommendation, Source};
use crate::core::failure_class::{Class, Classified};
use crate::core::fallback_chain::{Chain, Step};
use crate::core::readiness;
use crate::core::state::{FeatureState, Task};
use crate::error::CmdResult;
use crate::run::attempt::Failed;
use crate::run::claim::Claim;
use crate::run::{Outcome, Progress, RunContext, record};
use std::collections::BTreeMap;
use std::path::Path;

/// How many earlier analyses a prompt shows (one line each).
pub(super) const PROMPT_ANALYSES: usize = 5;

/// What the attempt loop of one issue keeps from failure to failure.
pub(super) struct Memory {
    pub retries: u32,
    /// The failures fed back to the next attempt.
    pub failures: Vec<String>,
    /// The issue's analyses so far (the task's, then this run's).
    pub notes: Vec<Note>,
    /// The `modify` recommendation's approach, for the next attempt's Current Task.
    pub approach: Option<String>,
    /// The fallback chain the issue follows.
    pub chain: Chain,
}

impl Memory {
    /// Earlier analyses condensed for a prompt.
    pub(crate) fn condensed(&self) -> Vec<String> {
        failure_analysis::condensed(&self.notes, PROMPT_ANALYSES)
    }
}

/// What the record step decided after a failed attempt.
pub(super) enum Next {
    /// Attempt `attempt` follows, by `agent` when the fallback chain switched agents.
    Retry {
        attempt: u32,
        agent: Option<String>,
    },
    End(Outcome),
}

/// Where the failed attempt ran.
pub(super) struct At<'a> {
    pub attempt: u32,
    /// The agent of a SOLO attempt (`None`: a pair; pairs follow no chain).
    pub agent: Option<&'a str>,
    /// How the work was executed (the task's `last_mode`).
    pub executed: &'a str,
    pub worktree: &'a Path,
}

/// The `failure_analyzed` event of an analysis.
pub(super) fn analyzed_event(issue: u32, attempt: u32, c: Classified, a: &Analysis) -> Event {
    Event::FailureAnalyzed {
        issue,
        attempt,
        class: c.class.as_str().into(),
        kind: c.kind.into(),
        diagnosis: a.diagnosis.map(|d| d.as_str().to_string()),
        recommendation: a.recommendation.as_str().into(),
        source: a.source.as_str().into(),
        reason: a.reason.clone(),
        evidence: a.evidence.clone(),
    }
}

/// The rule's analysis of a class that is not analysed (or with no analyst).
fn rule_analysis(c: Classified, failed: &Failed) -> Analysis {
    let rec = if c.class == Class::Setup {
        Recommendation::Escalate
    } else {
        Recommendation::Retry
    };
    Analysis::rule(rec, failed.reason.clone())
}

/// After a failed attempt: classifies it, asks for an analysis when the class is analysed
/// and an analyst is configured, records the failure (one transaction) and reports it.
pub(super) fn after_failure(
    ctx: &RunContext<'_>,
    claim: &Claim,
    failed: &Failed,
    at: &At<'_>,
    mem: &mut Memory,
) -> CmdResult<Next> {
    mem.failures.push(failed.feedback(at.attempt));
    let class = failed.classified();
    let max = ctx.project.config.sessions.max_implementation_retries;
    let analysis = if class.class.is_analysed() && analyst::configured(ctx) {
        let earlier = mem.condensed();
        analyst::analyse(
            ctx,
            &analyst::Asked {
                task: &claim.task,
                state: &claim.state,
                failed,
                class,
                attempt: at.attempt,
                retries_left: max.saturating_sub(mem.retries),
                earlier: &earlier,
                worktree: at.worktree,
            },
        )
    } else {
        rule_analysis(class, failed)
    };
    let next = record_failure(ctx, claim, failed, at, class, analysis, mem)?;
    let (retrying, reason) = match &next {
        Next::Retry {
            agent: Some(to), ..
        } => (true, format!("{}; `{to}` takes over", failed.reason)),
        Next::Retry { .. } => (true, failed.reason.clone()),
        Next::End(Outcome::Deferred { depends_on, .. }) => (
            false,
            format!("{}; waits for #{depends_on} first", failed.reason),
        ),
        Next::End(_) => (false, failed.reason.clone()),
    };
    ctx.report(Progress::AttemptFailed {
        issue: claim.issue,
        attempt: at.attempt,
        reason,
        retrying,
    });
    Ok(next)
}

/// The stages and dependencies of every task, for the `depend` check.
fn graph(state: &FeatureState) -> BTreeMap<u32, (crate::core::stage::Stage, Vec<u32>)> {
    state
        .tasks
        .iter()
        .map(|t| (t.issue_number, (t.stage().clone(), t.dependencies.clone())))
        .collect()
}

/// What the analysis comes to, decided in the record's transaction.
enum Decision {
    Block(String),
    Skip(String),
    Depend(u32),
    /// Another attempt (a retry is used), by this agent when the chain switched.
    Retry(Option<String>, Option<String>),
}

/// Records a failed attempt: `failure_analyzed`, then retry (`retry_started`, and
/// `agent_fallback` when the chain switched agents), BLOCKED, SKIPPED, BACKLOG behind a
/// dependency (`dependency_added`), or stopped by the circuit breaker (back to READY).
#[allow(clippy::too_many_arguments)]
fn record_failure(
    ctx: &RunContext<'_>,
    claim: &Claim,
    failed: &Failed,
    at: &At<'_>,
    class: Classified,
    mut analysis: Analysis,
    mem: &mut Memory,
) -> CmdResult<Next> {
    let issue = claim.issue;
    let max = ctx.project.config.sessions.max_implementation_retries;
    let tripped = ctx.breaker.tripped();
    record::with_txn(ctx, |txn| {
        txn.events_mut()
            .extend(failed.pending_events.iter().cloned());
        let over_budget =
            if txn.state().task(issue).is_some_and(|t| {
                t.owner.as_deref() == Some(claim.owner.as_str()) && t.retries < max
            }) {
                crate::run::budget_gate::over_limit(ctx, txn, issue)
            } else {
                None
            };
        if let Some(e) = over_budget {
            txn.events_mut()
                .push(analyzed_event(issue, at.attempt, class, &analysis));
            if let Some(t) = txn.state_mut().task_mut(issue) {
                let feedback = failed.feedback(t.attempts);
                t.last_failure = Some(crate::core::test_report::excerpt(&feedback, 4000));
                t.last_mode = Some(at.executed.to_string());
            }
            let reason = crate::run::budget_gate::record(ctx, txn, issue, &e);
            if e.is_feature_limit() {
                if let Some(t) = txn.state_mut().task_mut(issue) {
                    let _ = t.stop();
                }
                readiness::recompute(txn.state_mut());
                return Ok(Next::End(Outcome::Stopped { reason }));
            }
            return Ok(Next::End(Outcome::Blocked { reason }));
        }
        let tasks = graph(txn.state());
        let (state, events) = txn.state_and_events();
        let Some(t) = record::owned(state, issue, &claim.owner) else {
            return Ok(Next::End(Outcome::Lost {
                reason: "another run took the issue over".into(),
            }));
        };
        t.last_mode = Some(at.executed.to_string());
        if ctx.breaker.setup_problem() {
            // the run's own setup (the agent's program vanished), not the issue's fault:
            // back to READY, no retry used, no failure kept
            analysis.recommendation = Recommendation::Retry;
            analysis.reason = format!(
                "{}; the run stopped, the issue is READY with its retries unchanged",
                failed.reason
            );
            events.push(analyzed_event(issue, at.attempt, class, &analysis));
            let _ = t.stop();
            return Ok(Next::End(Outcome::Stopped {
                reason: tripped.clone().unwrap_or_default(),
            }));
        }
        let feedback = failed.feedback(t.attempts);
        t.last_failure = Some(crate::core::test_report::excerpt(&feedback, 4000));
        let free = |a: &str| !ctx.governor.agent_waiting(a);
        let decision = decide(t, failed, at, class, &mut analysis, mem, max, &tasks, &free);
        events.push(analyzed_event(issue, at.attempt, class, &analysis));
        let note = Note {
            attempt: at.attempt,
            agent: at
                .agent
                .map(str::to_string)
                .or_else(|| failed.agent.clone()),
            class: class.class.as_str().into(),
            kind: class.kind.into(),
            diagnosis: analysis.diagnosis,
            recommendation: analysis.recommendation,
            source: analysis.source,
            reason: analysis.reason.clone(),
            modified_approach: analysis.modified_approach.clone(),
        };
        failure_analysis::push_note(&mut t.failure_analyses, note.clone());
        failure_analysis::push_note(&mut mem.notes, note);
        let block = |t: &mut Task, reason: String, events: &mut Vec<Event>| {
            events.extend(t.block(reason.clone()).ok());
            Next::End(Outcome::Blocked { reason })
        };
        match decision {
            Decision::Block(reason) => {
                mem.retries = t.retries;
                Ok(block(t, reason, events))
            }
            Decision::Skip(reason) => {
                events.extend(t.skip(reason.clone()).ok());
                readiness::recompute(txn.state_mut());
                Ok(Next::End(Outcome::Skipped { reason }))
            }
            Decision::Depend(on) => {
                if !t.dependencies.contains(&on) {
                    t.dependencies.push(on);
                }
                // kept apart too: a re-greenlight rebuilds `dependencies` from issues.json
                if !t.added_dependencies.contains(&on) {
                    t.added_dependencies.push(on);
                }
                // back to BACKLOG (READY, then readiness sees the new dependency); the
                // attempt's retry is given back: no retry is counted
                let _ = t.stop();
                events.push(Event::DependencyAdded {
                    issue,
                    depends_on: on,
                    reason: analysis.reason.clone(),
                });
                readiness::recompute(txn.state_mut());
                Ok(Next::End(Outcome::Deferred {
                    depends_on: on,
                    reason: analysis.reason.clone(),
                }))
            }
            Decision::Retry(to, why) => {
                t.retries += 1;
                mem.retries = t.retries;
                if let Some(msg) = &tripped {
                    let _ = t.stop();
                    return Ok(Next::End(Outcome::Stopped {
                        reason: msg.clone(),
                    }));
                }
                t.attempts += 1;
                let next = t.attempts;
                events.push(Event::RetryStarted {
                    issue,
                    attempt: next,
                });
                if let (Some(to), Some(from)) = (&to, at.agent) {
                    events.push(Event::AgentFallback {
                        issue,
                        attempt: next,
                        from: from.to_string(),
                        to: to.clone(),
                        reason: why.unwrap_or_else(|| class.kind.to_string()),
                    });
                }
                Ok(Next::Retry {
                    attempt: next,
                    agent: to,
                })
            }
        }
    })
}

/// The decision for a failed attempt of task `t` (IN_PROGRESS, owned). May turn an
/// impossible `depend` into `escalate` (recorded so).
#[allow(clippy::too_many_arguments)]
fn decide(
    t: &Task,
    failed: &Failed,
    at: &At<'_>,
    class: Classified,
    analysis: &mut Analysis,
    mem: &mut Memory,
    max: u32,
    graph: &BTreeMap<u32, (crate::core::stage::Stage, Vec<u32>)>,
    free: &dyn Fn(&str) -> bool,
) -> Decision {
    mem.approach = None;
    if class.class == Class::Setup {
        // not something another attempt fixes: BLOCKED with the cause, no retry used
        return Decision::Block(failed.reason.clone());
    }
    let retries_used = || {
        format!(
            "{} (attempt {}; {} retr{} used of {max})",
            failed.reason,
            t.attempts,
            t.retries,
            if t.retries == 1 { "y" } else { "ies" }
        )
    };
    match analysis.recommendation {
        Recommendation::Skip => {
            return Decision::Skip(format!(
                "{}; failure analysis: skip — {}",
                failed.reason, analysis.reason
            ));
        }
        Recommendation::Escalate => {
            return Decision::Block(format!(
                "needs a person: {} (failure analysis of attempt {}: {})",
                analysis.reason, at.attempt, failed.reason
            ));
        }
        Recommendation::Depend => {
            let on = analysis.depends_on.unwrap_or(0);
            match failure_analysis::check_depend(t.issue_number, on, graph) {
                Ok(()) => return Decision::Depend(on),
                Err(why) => {
                    analysis.recommendation = Recommendation::Escalate;
                    analysis.reason = format!("{} (cannot depend: {why})", analysis.reason);
                    return Decision::Block(format!(
                        "needs a person: {} (failure analysis of attempt {}: {})",
                        analysis.reason, at.attempt, failed.reason
                    ));
                }
            }
        }
        Recommendation::Retry | Recommendation::Modify => {}
    }
    // never the same retry twice: this analysis and the one before agree
    let mut notes = mem.notes.clone();
    notes.push(Note {
        attempt: at.attempt,
        agent: None,
        class: class.class.as_str().into(),
        kind: class.kind.into(),
        diagnosis: analysis.diagnosis,
        recommendation: analysis.recommendation,
        source: analysis.source,
        reason: String::new(),
        modified_approach: None,
    });
    if analysis.source != Source::Rule
        && let Some(d) = failure_analysis::same_failure_twice(&notes)
    {
        if let Some(agent) = at.agent
            && let Step::To(to) = mem.chain.next(agent, class.kind, free)
        {
            if t.retries >= max {
                return Decision::Block(retries_used());
            }
            return Decision::Retry(Some(to), Some("same failure twice".into()));
        }
        return Decision::Block(format!(
            "needs a person: the same failure twice ({})",
            d.as_str()
        ));
    }
    let mut switch = None;
    if class.class == Class::Infra
        && let Some(agent) = at.agent
    {
        match mem.chain.next(agent, class.kind, free) {
            Step::To(to) => switch = Some(to),
            Step::Exhausted(reason) => return Decision::Block(reason),
            Step::Stay => {}
        }
    }
    if t.retries >= max {
        return Decision::Block(retries_used());
    }
    if analysis.recommendation == Recommendation::Modify {
        mem.approach = analysis.modified_approach.clone();
    }
    Decision::Retry(switch, None)
}
