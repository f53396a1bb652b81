//! A failed attempt of an issue: the failure fed back, the optional failure analysis
//! (`llm.command`), and the record — retry (`retry_started`), BLOCKED when the retries are
//! used up, SKIPPED or BLOCKED on the analysis' verdict, or stopped by the circuit breaker.

use crate::app::run::attempt::Failed;
use crate::app::run::claim::Claim;
use crate::app::run::{Outcome, Progress, RunContext, record};
use crate::core::events::Event;
use crate::core::failure_verdict::{self, Verdict};
use crate::core::readiness;
use crate::core::state::Task;
use crate::error::CmdResult;
use crate::io::llm;

/// What the record step decided after a failed attempt.
pub(super) enum Next {
    Retry(u32),
    End(Outcome),
}

/// After a failed attempt: feeds the failure back, asks for an analysis, records the
/// failure (retry or end) and reports it.
#[allow(clippy::too_many_arguments)]
pub(super) fn after_failure(
    ctx: &RunContext<'_>,
    claim: &Claim,
    task: &Task,
    failed: &Failed,
    executed: &str,
    retries: &mut u32,
    failures: &mut Vec<String>,
    attempt: u32,
) -> CmdResult<Next> {
    failures.push(failed.feedback(attempt));
    let max = ctx.project.config.sessions.max_implementation_retries;
    let analysis = if *retries < max {
        analyse(ctx, task, &failed.feedback(attempt))
    } else {
        None
    };
    if let Some((_, text)) = &analysis {
        failures.push(format!("Failure analysis: {text}"));
    }
    let next = record_failure(ctx, claim, failed, analysis.as_ref(), executed, retries)?;
    ctx.report(Progress::AttemptFailed {
        issue: claim.issue,
        attempt,
        reason: failed.reason.clone(),
        retrying: matches!(next, Next::Retry(_)),
    });
    Ok(next)
}

/// Records a failed attempt: retry (event `retry_started`), or BLOCKED when the retries
/// are used up (event `issue_blocked`), or stopped by the circuit breaker (back to READY).
fn record_failure(
    ctx: &RunContext<'_>,
    claim: &Claim,
    failed: &Failed,
    analysis: Option<&(Verdict, String)>,
    mode: &str,
    retries: &mut u32,
) -> CmdResult<Next> {
    let issue = claim.issue;
    let max = ctx.project.config.sessions.max_implementation_retries;
    let tripped = ctx.breaker.tripped();
    record::with_txn(ctx, |txn| {
        txn.events.extend(failed.pending_events.iter().cloned());
        let over_budget =
            if txn.state.task(issue).is_some_and(|t| {
                t.owner.as_deref() == Some(claim.owner.as_str()) && t.retries < max
            }) {
                crate::app::run::budget_gate::over_limit(ctx, txn, issue)
            } else {
                None
            };
        if let Some(e) = over_budget {
            if let Some(t) = txn.state.task_mut(issue) {
                let feedback = failed.feedback(t.attempts);
                t.last_failure = Some(crate::core::test_report::excerpt(&feedback, 4000));
                t.last_mode = Some(mode.to_string());
            }
            let reason = crate::app::run::budget_gate::record(ctx, txn, issue, &e);
            if e.is_feature_limit() {
                if let Some(t) = txn.state.task_mut(issue) {
                    let _ = t.stop();
                }
                readiness::recompute(&mut txn.state);
                return Ok(Next::End(Outcome::Stopped { reason }));
            }
            return Ok(Next::End(Outcome::Blocked { reason }));
        }
        let Some(t) = record::owned(&mut txn.state, issue, &claim.owner) else {
            return Ok(Next::End(Outcome::Lost {
                reason: "another run took the issue over".into(),
            }));
        };
        t.last_mode = Some(mode.to_string());
        if ctx.breaker.setup_problem() {
            // not the issue's fault: back to READY, no retry used, no failure kept
            let _ = t.stop();
            return Ok(Next::End(Outcome::Stopped {
                reason: tripped.clone().unwrap_or_default(),
            }));
        }
        let feedback = failed.feedback(t.attempts);
        t.last_failure = Some(crate::core::test_report::excerpt(&feedback, 4000));
        let block = |t: &mut Task, reason: String, events: &mut Vec<Event>| {
            events.extend(t.block(reason.clone()).ok());
            Next::End(Outcome::Blocked { reason })
        };
        if t.retries >= max {
            let reason = format!(
                "{} (attempt {}; {} retr{} used of {max})",
                failed.reason,
                t.attempts,
                t.retries,
                if t.retries == 1 { "y" } else { "ies" }
            );
            *retries = t.retries;
            return Ok(block(t, reason, &mut txn.events));
        }
        match analysis {
            Some((Verdict::Escalate, text)) => {
                let reason = format!(
                    "{}; failure analysis: escalate to a human — {}",
                    failed.reason,
                    first_line(text)
                );
                return Ok(block(t, reason, &mut txn.events));
            }
            Some((Verdict::Skip, text)) => {
                let reason = format!(
                    "{}; failure analysis: skip — {}",
                    failed.reason,
                    first_line(text)
                );
                txn.events.extend(t.skip(reason.clone()).ok());
                readiness::recompute(&mut txn.state);
                return Ok(Next::End(Outcome::Skipped { reason }));
            }
            _ => {}
        }
        t.retries += 1;
        *retries = t.retries;
        if let Some(msg) = &tripped {
            let _ = t.stop();
            return Ok(Next::End(Outcome::Stopped {
                reason: msg.clone(),
            }));
        }
        t.attempts += 1;
        let next = t.attempts;
        txn.events.push(Event::RetryStarted {
            issue,
            attempt: next,
        });
        Ok(Next::Retry(next))
    })
}

/// The analysis without its verdict line, in one line.
fn first_line(analysis: &str) -> String {
    let mut lines = analysis.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    let rest: Vec<&str> = lines.collect();
    let text = if rest.is_empty() {
        first.to_string()
    } else {
        rest.join(" ")
    };
    text.chars().take(300).collect()
}

/// With `llm.command`: asks for a failure analysis. `None` without a helper or on any error.
fn analyse(ctx: &RunContext<'_>, task: &Task, failure: &str) -> Option<(Verdict, String)> {
    ctx.project.config.llm.command.as_ref()?;
    let prompt = failure_verdict::prompt(task.issue_number, &task.title, failure);
    let answer = llm::ask(
        &ctx.project.config,
        &ctx.project.root,
        &llm::LlmRequest {
            agent: "failure-analysis",
            feature: &ctx.feature,
            issue: task.issue_number,
            purpose: "failure-analysis",
            prompt: &prompt,
        },
    )
    .ok()?;
    let answer = answer.trim();
    if answer.is_empty() {
        return None;
    }
    Some((
        failure_verdict::parse(answer),
        crate::core::test_report::excerpt(answer, 2000),
    ))
}
