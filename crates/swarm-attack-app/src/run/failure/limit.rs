//! A rate-limited or overloaded agent with a fallback chain
//! (docs/run.md "After a failure: classes, analysis, fallback"): an overloaded API, or a rate limit
//! whose wait would exceed `governor.fallback_after_seconds`, moves the issue to the next free
//! agent of the chain at once — no retry used, no shared pause — and the limited agent counts as
//! waiting until its limit would have ended. Otherwise the governor waits as
//! docs/budgets.md "Rate limits: the governor" says ([`crate::run::governor::after_limit`]).

use super::{Memory, Next, analyzed_event};
use crate::core::events::Event;
use crate::core::failure_analysis::{Analysis, Recommendation};
use crate::core::fallback_chain::Step;
use crate::core::governor::Ticket;
use crate::error::CmdResult;
use crate::run::attempt::Failed;
use crate::run::claim::Claim;
use crate::run::{Progress, RunContext, record};

/// `Some(next)` when the chain took over; `None`: the governor's wait applies.
pub(in crate::run) fn limit_fallback(
    ctx: &RunContext<'_>,
    claim: &Claim,
    failed: &Failed,
    ticket: Ticket,
    at: &super::At<'_>,
    mem: &mut Memory,
) -> CmdResult<Option<Next>> {
    let (Some(hit), Some(from)) = (&failed.rate_limited, at.agent) else {
        return Ok(None);
    };
    let class = failed.classified();
    let limit_ms = ctx
        .project
        .config
        .governor
        .fallback_after_seconds
        .saturating_mul(1000);
    let wait = ctx.governor.would_wait(ticket, hit.retry_after_ms);
    let why = match (class.kind, wait) {
        ("overloaded", _) => "its model API is overloaded".to_string(),
        (_, None) => "its rate limit outlasts governor.max_backoff_minutes".to_string(),
        (_, Some(w)) if w > limit_ms => format!(
            "its rate limit wait of {} s exceeds governor.fallback_after_seconds = {}",
            w / 1000,
            limit_ms / 1000
        ),
        _ => return Ok(None),
    };
    let free = |a: &str| !ctx.governor.agent_waiting(a);
    let Step::To(to) = mem.chain.next(from, class.kind, free) else {
        return Ok(None);
    };
    ctx.governor
        .agent_limited(from, wait.unwrap_or(u64::MAX / 4));
    let issue = claim.issue;
    let analysis = Analysis::rule(
        Recommendation::Retry,
        format!(
            "{}; `{to}` takes over at once, no retry used",
            failed.reason
        ),
    );
    let reason = format!("{} ({why})", class.kind);
    let next = record::with_txn(ctx, |txn| {
        txn.events_mut()
            .extend(failed.pending_events.iter().cloned());
        txn.events_mut()
            .push(analyzed_event(issue, at.attempt, class, &analysis));
        txn.push_event(Event::RateLimited {
            issue,
            agent: hit.agent.clone(),
            retry_after_ms: 0,
            workers: ctx.governor.workers(),
        });
        let Some(t) = record::owned(txn.state_mut(), issue, &claim.owner) else {
            return Ok(Next::End(crate::run::Outcome::Lost {
                reason: "another run took the issue over".into(),
            }));
        };
        t.last_mode = Some(at.executed.to_string());
        t.attempts += 1;
        let next = t.attempts;
        // a new attempt, not a retry (`retry_started` would count one)
        txn.push_event(Event::IssueStarted {
            issue,
            attempt: next,
        });
        txn.push_event(Event::AgentFallback {
            issue,
            attempt: next,
            from: from.to_string(),
            to: to.clone(),
            reason: reason.clone(),
        });
        Ok(Next::Retry {
            attempt: next,
            agent: Some(to.clone()),
        })
    })?;
    if matches!(next, Next::Retry { .. }) {
        ctx.report(Progress::AttemptFailed {
            issue,
            attempt: at.attempt,
            reason: format!(
                "{}; `{to}` takes over at once ({why}; no retry used)",
                failed.reason
            ),
            retrying: true,
        });
    }
    Ok(Some(next))
}
