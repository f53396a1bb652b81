//! The review gate in PARALLEL and SYNTHESIS (docs/review.md, "Many candidates"): a
//! candidate that passed verification and test integrity goes through the same gate as a
//! SOLO attempt ([`review::gate_candidate`]): its own agent does the fix rounds in its own
//! worktree, with its own prompt plus the findings.

use super::{End, PairAttempt, PairResult, Slot, slot_spec};
use crate::core::config::ReviewStrategy;
use crate::core::coordination::selection::{Review, ReviewVerdict};
use crate::core::review::Verdict;
use crate::error::CmdResult;
use crate::run::RunContext;
use crate::run::attempt::{AttemptResult, Passed};
use crate::run::review::{self, Gate, Implementer};

/// What the selection knows of a reviewed candidate.
pub(super) fn facts_of(p: &Passed) -> Option<Review> {
    let r = p.review.as_ref()?;
    Some(Review {
        verdict: match r.verdict {
            Verdict::Pass => ReviewVerdict::Pass,
            Verdict::PassWithRisk => ReviewVerdict::PassWithRisk,
            Verdict::Fail => ReviewVerdict::Fail,
            Verdict::Unreviewed => ReviewVerdict::Unreviewed,
        },
        counted: r.counted().len() as u32,
    })
}

/// Reviews candidate `slot`'s end when it passed and was not reviewed yet; a failing review
/// (after its fix rounds) makes it a failed end. `Some(reason)`: no reviewer gave a valid
/// answer and `review.on_error` is `block`.
pub(super) fn review_end(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    slot: &Slot<'_>,
    prompt: &str,
    strategy: ReviewStrategy,
    end: &mut End,
) -> CmdResult<Option<String>> {
    if end.passed().is_none_or(|p| p.review.is_some()) {
        return Ok(None);
    }
    let End::Result(AttemptResult::Passed(p)) =
        std::mem::replace(end, End::Error("under review".into()))
    else {
        return Ok(None);
    };
    let cost = p.cost_usd;
    let spec = slot_spec(at, slot);
    let who = Implementer {
        agent: slot.agent,
        role: slot.role,
        prompt,
    };
    let issue = review::Issue::of(&at.claim.task, strategy);
    Ok(match review::gate_candidate(ctx, &spec, &who, &issue, p)? {
        Gate::Land(passed) => {
            *end = End::Result(AttemptResult::Passed(passed));
            None
        }
        Gate::Fail(f) => {
            *end = End::Result(AttemptResult::Failed(f));
            None
        }
        Gate::Block(reason) => {
            *end = End::Blocked {
                reason: reason.clone(),
                cost_usd: cost,
            };
            Some(reason)
        }
    })
}

/// The gate on the one result of a SYNTHESIS attempt (made by `slot`'s agent, with
/// `prompt`), when the gate is on for the issue.
pub(super) fn review_result(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    slot: &Slot<'_>,
    prompt: &str,
    result: PairResult,
) -> CmdResult<PairResult> {
    let Some(strategy) = review::strategy_for(ctx, &at.claim.task) else {
        return Ok(result);
    };
    let PairResult::Passed { passed, worktree } = result else {
        return Ok(result);
    };
    let mut end = End::Result(AttemptResult::Passed(passed));
    review_end(ctx, at, slot, prompt, strategy, &mut end)?;
    Ok(match end {
        End::Result(AttemptResult::Passed(passed)) => PairResult::Passed { passed, worktree },
        // a review's failure is no slot's infra failure: no chain moves
        End::Result(AttemptResult::Failed(f)) => PairResult::Failed(f, Vec::new()),
        End::Blocked { reason, cost_usd } => PairResult::Blocked { reason, cost_usd },
        other => PairResult::Failed(
            crate::run::attempt::Failed::plain(
                other.reason().unwrap_or_default(),
                Default::default(),
            ),
            Vec::new(),
        ),
    })
}
