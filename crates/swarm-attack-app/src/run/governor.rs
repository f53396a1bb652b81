//! The run's rate-limit governor (docs/budgets.md "Rate limits: the governor"; the rules are in
//! [`crate::core::governor`]): the shared state behind a lock, on a monotonic clock, and the
//! record of a rate-limited attempt — it uses no retry, the issue goes back to READY (to be
//! dispatched again after the back-off), event `rate_limited{issue, agent, retry_after_ms,
//! workers}`; a persistent limit stops the run.
//!
//! `SWARM_ATTACK_TEST_BACKOFF_DIVISOR=N` (tests only, docs/budgets.md) makes the governor's
//! clock run N times faster: every wait is decided and recorded in real milliseconds, but
//! lasts 1/N of it.

use crate::core::events::Event;
use crate::core::governor::{self as rules, Decision, Settings, Ticket};
use crate::core::readiness;
use crate::error::CmdResult;
use crate::run::attempt::{Failed, RateLimitHit};
use crate::run::claim::Claim;
use crate::run::{Outcome, Progress, RunContext, record};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The shared back-off of one run.
pub(crate) struct Governor {
    state: Mutex<rules::Governor>,
    start: Instant,
    /// The test knob: the clock runs this many times faster.
    speed: u32,
    max_minutes: f64,
    /// Agents waiting on their own rate limit, until when (the governor's clock), for the
    /// fallback chains (docs/run.md "After a failure: classes, analysis, fallback").
    agents: Mutex<std::collections::HashMap<String, u64>>,
}

impl Governor {
    /// The governor for a run with `workers` workers.
    pub(crate) fn new(config: &crate::core::config::GovernorConfig, workers: u32) -> Governor {
        let max_minutes = config.max_backoff_minutes;
        Governor {
            state: Mutex::new(rules::Governor::new(Settings::new(workers, max_minutes))),
            start: Instant::now(),
            speed: test_speed(),
            max_minutes,
            agents: Mutex::default(),
        }
    }

    /// The wait a limit would be given now (`None`: the governor would give up), without
    /// recording it.
    pub(crate) fn would_wait(&self, ticket: Ticket, retry_after_ms: Option<u64>) -> Option<u64> {
        let now = self.now();
        match self.lock().clone().limited(now, ticket, retry_after_ms) {
            Decision::Wait { wait_ms, .. } => Some(wait_ms),
            Decision::GiveUp { .. } => None,
        }
    }

    /// `agent` is rate-limited for `wait_ms` (its fallback agents take over meanwhile).
    pub(crate) fn agent_limited(&self, agent: &str, wait_ms: u64) {
        let until = self.now().saturating_add(wait_ms);
        let mut agents = self.agents.lock().unwrap_or_else(|e| e.into_inner());
        let at = agents.entry(agent.to_string()).or_default();
        *at = (*at).max(until);
    }

    /// Whether `agent` is waiting on a rate limit now.
    pub(crate) fn agent_waiting(&self, agent: &str) -> bool {
        let now = self.now();
        let agents = self.agents.lock().unwrap_or_else(|e| e.into_inner());
        agents.get(agent).is_some_and(|until| *until > now)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, rules::Governor> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The governor's clock, in milliseconds.
    fn now(&self) -> u64 {
        let real = self.start.elapsed().as_millis() as u64;
        real.saturating_mul(u64::from(self.speed))
    }

    /// How many agents may run at once now.
    pub(crate) fn workers(&self) -> u32 {
        self.lock().workers()
    }

    /// The real time left until agents may start again (`None`: not paused).
    pub(crate) fn pause_left(&self) -> Option<Duration> {
        let until = self.lock().paused_until();
        let now = self.now();
        (until > now).then(|| {
            let ms = (until - now).div_ceil(u64::from(self.speed));
            Duration::from_millis(ms.max(1))
        })
    }

    /// Whether the run was stopped for a persistent limit.
    pub(crate) fn gave_up(&self) -> bool {
        self.lock().gave_up()
    }

    /// Waits until no pause holds, then returns the ticket of an agent run starting now.
    pub(crate) fn wait_turn(&self) -> Ticket {
        while let Some(d) = self.pause_left().filter(|_| !self.gave_up()) {
            std::thread::sleep(d.min(Duration::from_millis(250)));
        }
        self.lock().ticket()
    }

    /// An agent run was rate-limited.
    pub(crate) fn limited(&self, ticket: Ticket, retry_after_ms: Option<u64>) -> Decision {
        let now = self.now();
        self.lock().limited(now, ticket, retry_after_ms)
    }

    /// An agent run ended without a limit; the new concurrency when a worker came back.
    pub(crate) fn succeeded(&self, ticket: Ticket) -> Option<u32> {
        self.lock().succeeded(ticket)
    }

    /// The sentence the run stops with after a persistent limit.
    fn give_up_reason(&self, total_ms: u64) -> String {
        format!(
            "stopped: rate limit: the agents' model APIs stayed rate-limited ({} s of back-off would exceed governor.max_backoff_minutes = {}); every unfinished issue is READY with its retries unchanged, so run again later",
            total_ms / 1000,
            self.max_minutes
        )
    }
}

/// `SWARM_ATTACK_TEST_BACKOFF_DIVISOR` (≥ 1; 1 when unset or invalid).
fn test_speed() -> u32 {
    crate::io::env::var("SWARM_ATTACK_TEST_BACKOFF_DIVISOR")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(1)
}

/// Before an attempt: waits out the shared pause. `Err(outcome)`: the run was stopped for a
/// persistent limit meanwhile; the issue is READY again (no retry used).
pub(crate) fn before_attempt(
    ctx: &RunContext<'_>,
    claim: &Claim,
) -> CmdResult<Result<Ticket, Outcome>> {
    let ticket = ctx.governor.wait_turn();
    if !ctx.governor.gave_up() {
        return Ok(Ok(ticket));
    }
    let reason = ctx.breaker.tripped().unwrap_or_default();
    record::with_txn(ctx, |txn| {
        if let Some(t) = record::owned(txn.state_mut(), claim.issue, &claim.owner) {
            let _ = t.stop();
        }
        readiness::recompute(txn.state_mut());
        Ok(())
    })?;
    Ok(Err(Outcome::Stopped { reason }))
}

/// After a failed attempt: `Some(outcome)` when its agent was rate-limited
/// ([`after_limit`], recording `analyzed`, its `failure_analyzed`), `None` (a normal run)
/// when the failure is the issue's.
pub(crate) fn after_failed(
    ctx: &RunContext<'_>,
    claim: &Claim,
    failed: &Failed,
    ticket: Ticket,
    mode: &str,
    analyzed: Event,
) -> CmdResult<Option<Outcome>> {
    match &failed.rate_limited {
        Some(hit) => after_limit(ctx, claim, failed, hit, ticket, mode, analyzed).map(Some),
        None => {
            after_normal_run(ctx, ticket);
            Ok(None)
        }
    }
}

/// An issue ended after a normal agent run: passes `outcome` through.
pub(crate) fn ended(ctx: &RunContext<'_>, ticket: Ticket, outcome: Outcome) -> Outcome {
    after_normal_run(ctx, ticket);
    outcome
}

/// After a rate-limited attempt: the governor decides the shared wait; the attempt is
/// recorded (its cost, `rate_limited`) and the issue goes back to READY without using a
/// retry. Returns [`Outcome::RateLimited`] (dispatched again after the wait) or, when the
/// limit persisted too long, [`Outcome::Stopped`] with the run stopped.
pub(crate) fn after_limit(
    ctx: &RunContext<'_>,
    claim: &Claim,
    failed: &Failed,
    hit: &RateLimitHit,
    ticket: Ticket,
    mode: &str,
    analyzed: Event,
) -> CmdResult<Outcome> {
    let issue = claim.issue;
    let decision = ctx.governor.limited(ticket, hit.retry_after_ms);
    let (wait_ms, workers) = match decision {
        Decision::Wait { wait_ms, workers } => (wait_ms, workers),
        Decision::GiveUp { total_ms } => {
            ctx.breaker.trip(ctx.governor.give_up_reason(total_ms));
            (0, ctx.governor.workers())
        }
    };
    let outcome = record::with_txn(ctx, |txn| {
        txn.events_mut()
            .extend(failed.pending_events.iter().cloned());
        txn.push_event(analyzed.clone());
        txn.push_event(Event::RateLimited {
            issue,
            agent: hit.agent.clone(),
            retry_after_ms: wait_ms,
            workers,
        });
        let Some(t) = record::owned(txn.state_mut(), issue, &claim.owner) else {
            return Ok(Outcome::Lost {
                reason: "another run took the issue over".into(),
            });
        };
        t.last_mode = Some(mode.to_string());
        let _ = t.stop();
        readiness::recompute(txn.state_mut());
        Ok(match decision {
            Decision::Wait { .. } => Outcome::RateLimited {
                agent: hit.agent.clone(),
                retry_after_ms: wait_ms,
                workers,
            },
            Decision::GiveUp { .. } => Outcome::Stopped {
                reason: ctx.breaker.tripped().unwrap_or_default(),
            },
        })
    })?;
    if matches!(outcome, Outcome::RateLimited { .. }) {
        ctx.report(Progress::RateLimited {
            issue,
            agent: hit.agent.clone(),
            retry_after_ms: wait_ms,
            workers,
        });
    }
    Ok(outcome)
}

/// After an attempt whose agent was not rate-limited: may give a worker back.
pub(crate) fn after_normal_run(ctx: &RunContext<'_>, ticket: Ticket) {
    if let Some(w) = ctx.governor.succeeded(ticket) {
        ctx.report(Progress::Notice(format!(
            "no rate limit lately: {w} worker{} again",
            if w == 1 { "" } else { "s" }
        )));
    }
}
