//! One claimed issue from claim to DONE / BLOCKED: duplicate checks, coordination, then
//! attempts (each in a clean worktree: the worker's worktree reset to the branch's tip, or
//! to an unmerged dependency's branch with `git.stack` — see [`crate::run::worktrees`])
//! with the failures fed
//! back, up to `sessions.max_implementation_retries` retries; the passing attempt lands.
//!
//! SOLO: the decision's winner runs as `primary`. PARALLEL / SYNTHESIS: [`modes::run_pair`]
//! runs two candidates per attempt and returns the one commit that lands; any error there
//! falls back to SOLO with the winner (docs/coordination.md "The filter" fail-open).

use crate::core::coordination::Mode;
use crate::core::events::Event;
use crate::error::{CmdResult, CommandError};
use crate::plan;
use crate::prompt::{self, CoordinationContext, PromptRequest};
use crate::run::attempt::{self, AttemptResult, AttemptSpec, Candidate, Failed};
use crate::run::claim::Claim;
use crate::run::done::{Tree, finish_done, record_duplicate};
use crate::run::failure::{At, Memory, Next, Slots, after_failure, analyzed_event, limit_fallback};
use crate::run::land;
use crate::run::modes::{self, Pair, PairAttempt, PairResult};
use crate::run::worktrees::{self, WorkerTree};
use crate::run::{
    IssueResult, Outcome, Progress, RunContext, duplicate, governor, record, review, stack,
};
use std::path::{Path, PathBuf};

/// The commit new work starts from: the HEAD the claim's sync read (it holds every
/// dependency, which landed before the claim), else the branch's current tip.
fn base_commit(ctx: &RunContext<'_>, claim: Option<&Claim>) -> CmdResult<String> {
    if let Some(h) = claim.and_then(|c| c.synced_head.clone()) {
        return Ok(h);
    }
    let git = &ctx.git;
    git.head(&git.root)?.ok_or_else(|| {
        CommandError::input("the repository has no commit yet; commit something first")
    })
}

/// The attempt loop's state for one issue.
struct Attempts<'c> {
    /// The attempt number (over the task's life).
    attempt: u32,
    /// Attempts made by this run.
    here: u32,
    cost: Option<f64>,
    /// Retries, failures fed back, analyses, the fallback chain.
    mem: Memory,
    /// The issue's worktree; handed back (`None`) once an attempt's commit passed and its
    /// summary was read, so the next issue can reset and reuse it while this one lands.
    wt: Option<WorkerTree<'c>>,
    base: String,
    /// The commit every attempt starts from with `git.stack` (else the branch's tip).
    start: Option<String>,
    artifacts: PathBuf,
    /// How the work is executed (`SOLO (agent)`, a pair's description, a fallback).
    executed: String,
    /// Events appended with the first attempt's (the decision, a fallback).
    selected: Option<Event>,
    fallback: Option<Event>,
    /// The candidates of the last pair attempt that failed, with their classes.
    slot_failures: Vec<(String, crate::core::failure_class::Classified)>,
}

/// What one attempt came to.
enum Step {
    /// The issue ended (DONE, or recorded otherwise).
    End(Outcome),
    /// The attempt failed: record it, then retry or end.
    Failed(Failed),
    /// The pair could not run: go on with the winner alone (SOLO), same attempt.
    Solo,
}

impl<'c> Attempts<'c> {
    fn result(&self, issue: u32, title: &str, outcome: Outcome) -> IssueResult {
        IssueResult {
            issue,
            title: title.to_string(),
            attempts: self.here,
            cost_usd: self.cost,
            outcome,
        }
    }

    /// The worktree's path (held from the start of the issue and again from every retry
    /// until an attempt passes).
    fn path(&self) -> &Path {
        // only a passed attempt hands it back, and only `retry` comes after that
        debug_assert!(self.wt.is_some(), "the issue's worktree was handed back");
        self.wt.as_ref().map_or(Path::new(""), |w| w.path.as_path())
    }

    /// The next attempt `n`, in the same worktree reset to the branch's current tip (or in
    /// one taken again when it was handed back before a landing that conflicted).
    fn retry(&mut self, ctx: &'c RunContext<'c>, issue: u32, n: u32) -> CmdResult<()> {
        self.attempt = n;
        self.here += 1;
        let base = match &self.start {
            Some(s) => s.clone(),
            None => base_commit(ctx, None)?,
        };
        match &self.wt {
            Some(wt) => worktrees::reset(ctx, &wt.path, issue, &base)?,
            None => self.wt = Some(worktrees::take(ctx, issue, &base)?),
        }
        self.base = base;
        self.artifacts = ctx.project.paths.attempt_dir(&ctx.feature, issue, n);
        Ok(())
    }
}

/// A resumed issue never gets a second agent: an earlier agent of it that is still running
/// (its `run` was killed and containment could not act) is stopped first, or the issue is
/// not started.
fn stop_earlier_agents(ctx: &RunContext<'_>, issue: u32) -> CmdResult<()> {
    let attempt_dir = ctx.project.paths.attempt_dir(&ctx.feature, issue, 1);
    let Some(issue_dir) = attempt_dir.parent() else {
        return Ok(());
    };
    let left = crate::io::agent_pid::stop_leftovers(issue_dir);
    match left.first() {
        None => Ok(()),
        Some(pid) => Err(CommandError::internal(format!(
            "an earlier agent of issue {issue} (pid {pid}) is still running and could not be stopped; stop it, then run again"
        ))),
    }
}

/// Works on a claimed issue until it is DONE, BLOCKED, SKIPPED or stopped.
/// `slot_free` is called once the work passed verification (before landing).
pub(crate) fn work(
    ctx: &RunContext<'_>,
    claim: &Claim,
    slot_free: &dyn Fn(),
) -> CmdResult<IssueResult> {
    let issue = claim.issue;
    let task = &claim.task;
    ctx.report(Progress::Claimed {
        issue,
        title: task.title.clone(),
        attempt: claim.attempt,
        resumed: claim.resumed,
        dependencies: task.dependencies.clone(),
    });
    stop_earlier_agents(ctx, issue)?;
    let start = stack::base_for(ctx, claim)?.map(|s| s.commit);
    let base = match &start {
        Some(s) => s.clone(),
        None => base_commit(ctx, Some(claim))?,
    };
    let wt = worktrees::take(ctx, issue, &base)?;
    let artifacts = ctx
        .project
        .paths
        .attempt_dir(&ctx.feature, issue, claim.attempt);

    // 1. Duplicate detection (on the checked-out branch, also when stacked).
    let tip = match start {
        Some(_) => ctx
            .git
            .head(&ctx.git.root)
            .ok()
            .flatten()
            .unwrap_or_default(),
        None => base.clone(),
    };
    let synced = claim.synced_head.as_deref().map(|h| (h, tip.as_str()));
    let dup = duplicate::check(
        ctx,
        task,
        claim.state.first_greenlight_commit(),
        &wt.path,
        &artifacts,
        synced,
    )?;
    if let Some((check, evidence)) = dup.fired() {
        let outcome = record_duplicate(ctx, claim, &dup, check, evidence)?;
        return Ok(IssueResult {
            issue,
            title: task.title.clone(),
            attempts: 0,
            cost_usd: None,
            outcome,
        });
    }

    // 2. Coordination (SOLO execution of the winner).
    let decision = plan::decide_for_task(ctx.project, &ctx.feature, task);
    let agent = ctx
        .project
        .config
        .agents
        .iter()
        .find(|a| a.name == decision.winner)
        .or_else(|| ctx.project.config.agents.first())
        .ok_or_else(|| CommandError::input("config.yaml has no agents (agents: [])"))?;
    let mode = decision.mode.as_str().to_string();
    // PARALLEL / SYNTHESIS: the pair (fail-open to SOLO with the winner when the runner-up
    // cannot run)
    let mut pair: Option<Pair<'_>> = None;
    let mut fallback: Option<Event> = None;
    // the third and later candidates of a PARALLEL run
    // (docs/coordination.md "Many candidates, one result")
    let more: Vec<&crate::io::config::AgentConfig> = decision
        .candidates
        .iter()
        .skip(2)
        .filter_map(|n| ctx.project.config.agents.iter().find(|a| &a.name == n))
        .collect();
    if decision.mode != Mode::Solo {
        let runner = decision
            .runner_up
            .as_ref()
            .and_then(|r| ctx.project.config.agents.iter().find(|a| &a.name == r));
        match runner {
            Some(runner) if runner.name != agent.name && agent.name == decision.winner => {
                pair = Some(Pair {
                    decision: &decision,
                    primary: agent,
                    runner,
                    more: &more,
                })
            }
            _ => {
                fallback = Some(modes::fallback_event(
                    &decision,
                    issue,
                    "solo",
                    "the runner-up is not a configured agent; SOLO with the winner",
                ))
            }
        }
    }
    let executed = if decision.mode == Mode::Solo {
        format!("SOLO ({})", agent.name)
    } else if pair.is_some() {
        String::new()
    } else {
        format!("{mode} decided → fallback solo ({})", agent.name)
    };
    let mut agent = agent;
    let mut st = Attempts {
        attempt: claim.attempt,
        here: 1,
        cost: None,
        mem: Memory {
            retries: claim.retries,
            // the last failure is fed back to a retry or a resumed attempt
            failures: task
                .last_failure
                .iter()
                .filter(|_| claim.retries > 0 || claim.resumed)
                .cloned()
                .collect(),
            notes: task.failure_analyses.clone(),
            // a resumed `modify` keeps its approach
            approach: task
                .failure_analyses
                .last()
                .filter(|n| n.attempt + 1 == claim.attempt)
                .and_then(|n| n.modified_approach.clone()),
            chain: crate::core::fallback_chain::Chain::new(&agent.name, &agent.fallback),
        },
        wt: Some(wt),
        base,
        start,
        artifacts,
        executed,
        selected: Some(if pair.is_some() {
            modes::selected_event(&decision, issue)
        } else {
            decision.event(issue)
        }),
        fallback,
        slot_failures: Vec::new(),
    };
    // the agents holding a pair's slots, each following its own fallback chain
    let mut slots = Slots::new(
        pair.map(|p| p.agents())
            .unwrap_or_default()
            .iter()
            .filter_map(|a| ctx.project.config.agents.iter().find(|c| c.name == a.name))
            .collect(),
    );

    // 3. Attempts (each after the governor's shared back-off, if any).
    loop {
        let t = match governor::before_attempt(ctx, claim)? {
            Ok(t) => t,
            Err(stopped) => return Ok(st.result(issue, &task.title, stopped)),
        };
        let step = match pair {
            Some(p) => pair_attempt(ctx, claim, p, &mut st, slot_free)?,
            None => solo_attempt(ctx, claim, agent, &mut st, slot_free)?,
        };
        let failed = match step {
            Step::End(o) => return Ok(st.result(issue, &task.title, governor::ended(ctx, t, o))),
            Step::Solo => {
                pair = None;
                st.executed = format!("{mode} decided → fallback solo ({})", agent.name);
                continue;
            }
            Step::Failed(f) => f,
        };
        // a change that passed but could not land handed its worktree back
        let wt_path = st
            .wt
            .as_ref()
            .map_or_else(|| ctx.project.root.clone(), |w| w.path.clone());
        let executed = st.executed.clone();
        let at = At {
            attempt: st.attempt,
            agent: pair.is_none().then_some(agent.name.as_str()),
            executed: &executed,
            worktree: &wt_path,
        };
        let mut next = None;
        if failed.rate_limited.is_some() {
            next = limit_fallback(ctx, claim, &failed, t, &at, &mut st.mem)?;
            if next.is_none() {
                let analyzed = analyzed_event(
                    issue,
                    st.attempt,
                    failed.classified(),
                    &crate::core::failure_analysis::Analysis::rule(
                        crate::core::failure_analysis::Recommendation::Retry,
                        format!(
                            "{}; no retry used (rate limits wait, see docs/budgets.md)",
                            failed.reason
                        ),
                    ),
                );
                if let Some(o) =
                    governor::after_failed(ctx, claim, &failed, t, &executed, analyzed)?
                {
                    return Ok(st.result(issue, &task.title, o));
                }
            }
        } else {
            governor::after_normal_run(ctx, t);
        }
        let next = match next {
            Some(n) => n,
            None => after_failure(ctx, claim, &failed, &at, &mut st.mem)?,
        };
        match next {
            Next::End(outcome) => return Ok(st.result(issue, &task.title, outcome)),
            Next::Retry {
                attempt: n,
                agent: to,
            } => {
                if let Some(to) = to
                    .as_deref()
                    .and_then(|n| ctx.project.config.agents.iter().find(|a| a.name == n))
                {
                    st.executed = format!("SOLO ({}), fallback from {}", to.name, agent.name);
                    agent = to;
                    pair = None;
                }
                if pair.is_some() && slots.agents.len() >= 2 {
                    let failed = std::mem::take(&mut st.slot_failures);
                    record::emit(ctx, slots.after_failure(ctx, issue, n, &failed))?;
                    pair = Some(Pair {
                        decision: &decision,
                        primary: slots.agents[0],
                        runner: slots.agents[1],
                        more: &slots.agents[2..],
                    });
                }
                st.retry(ctx, issue, n)?
            }
        }
    }
}

/// One attempt of a PARALLEL / SYNTHESIS pair. An error running the pair falls back to the
/// winner alone ([`Step::Solo`]) from a clean worktree (fail-open).
fn pair_attempt(
    ctx: &RunContext<'_>,
    claim: &Claim,
    p: Pair<'_>,
    st: &mut Attempts<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<Step> {
    let issue = claim.issue;
    let mut first_events: Vec<Event> = st.selected.take().into_iter().collect();
    first_events.extend(st.fallback.take());
    record::emit(ctx, first_events)?;
    let analyses = st.mem.condensed();
    let out = modes::run_pair(
        ctx,
        p,
        PairAttempt {
            claim,
            attempt: st.attempt,
            failures: &st.mem.failures,
            analyses: &analyses,
            approach: st.mem.approach.as_deref(),
            worktree: st.path(),
            base: &st.base,
            attempt_dir: st.artifacts.clone(),
        },
        slot_free,
    );
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            let mode = p.decision.mode.as_str();
            let why = format!("{}; SOLO with the winner", e.message);
            record::emit(
                ctx,
                vec![modes::fallback_event(p.decision, issue, "solo", &why)],
            )?;
            ctx.report(Progress::Notice(format!(
                "issue #{issue}: {mode} failed ({}); running {} alone",
                e.message, p.primary.name
            )));
            let _ = ctx.git.discard_changes(st.path(), &st.base);
            return Ok(Step::Solo);
        }
    };
    st.executed = out.executed.clone();
    match out.result {
        PairResult::Passed { passed, worktree } => {
            st.cost = record::sum_cost(st.cost, passed.cost_usd);
            slot_free();
            Ok(
                match finish_done(
                    ctx,
                    claim,
                    Tree::Kept(&worktree),
                    &st.base,
                    &passed,
                    &st.executed,
                    Some(out.convergence),
                )? {
                    Some(outcome) => Step::End(outcome),
                    None => Step::Failed(land::conflict_failure()),
                },
            )
        }
        PairResult::Failed(f, classes) => {
            st.cost = record::sum_cost(st.cost, f.cost_usd);
            st.slot_failures = classes;
            Ok(Step::Failed(f))
        }
        PairResult::Blocked { reason, cost_usd } => {
            st.cost = record::sum_cost(st.cost, cost_usd);
            Ok(Step::End(record::block_now(
                ctx,
                claim.issue,
                &claim.owner,
                reason,
                Some(&st.executed),
            )?))
        }
    }
}

/// One SOLO attempt of `agent`.
fn solo_attempt(
    ctx: &RunContext<'_>,
    claim: &Claim,
    agent: &crate::io::config::AgentConfig,
    st: &mut Attempts<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<Step> {
    let issue = claim.issue;
    let task = &claim.task;
    let built = prompt::build_prompt(
        ctx.project,
        &claim.state,
        &PromptRequest {
            issue,
            agent: agent.name.clone(),
            coordination: CoordinationContext::Solo,
            attempt: st.attempt,
            previous_failures: st.mem.failures.clone(),
            analyses: st.mem.condensed(),
            modified_approach: st.mem.approach.clone(),
        },
    );
    ctx.report(Progress::AgentStarted {
        issue,
        agent: agent.name.clone(),
        mode: st.executed.clone(),
        attempt: st.attempt,
    });
    let built_text = built.text.clone();
    let wt_path = st.path().to_path_buf();
    let spec = AttemptSpec {
        issue,
        attempt: st.attempt,
        title: &task.title,
        github_issue: task.github_issue,
        test_file: task.test_file.as_deref(),
        files: &task.files,
        labels: &task.labels,
        worktree: &wt_path,
        base: &st.base,
        artifacts: st.artifacts.clone(),
        stop: None,
        tag_agent: false,
        builds_on: None,
    };
    let res = attempt::run_attempt(
        ctx,
        &spec,
        Candidate {
            agent,
            role: "primary",
            prompt: built.text.clone(),
            pre_events: st
                .selected
                .take()
                .into_iter()
                .chain(st.fallback.take())
                .chain([built.event])
                .chain(built.lessons_used)
                .collect(),
        },
    )?;
    // the review gate (docs/review.md), before the commit lands
    let strategy = match &res {
        AttemptResult::Passed(_) => review::strategy_for(ctx, task),
        _ => None,
    };
    let res = match (res, strategy) {
        (AttemptResult::Passed(p), Some(strategy)) => {
            let issue_text = review::Issue::of(task, strategy);
            let implementer = review::Implementer {
                agent,
                role: "primary",
                prompt: &built_text,
            };
            match review::gate_candidate(ctx, &spec, &implementer, &issue_text, p)? {
                review::Gate::Land(passed) => AttemptResult::Passed(passed),
                review::Gate::Fail(f) => AttemptResult::Failed(f),
                review::Gate::Block(reason) => {
                    return Ok(Step::End(record::block_now(
                        ctx,
                        claim.issue,
                        &claim.owner,
                        reason,
                        None,
                    )?));
                }
            }
        }
        (other, _) => other,
    };
    Ok(match res {
        AttemptResult::Passed(p) => {
            st.cost = record::sum_cost(st.cost, p.cost_usd);
            let handed = Tree::HandedBack {
                path: &wt_path,
                tree: st.wt.take(),
                slot_free,
            };
            match finish_done(ctx, claim, handed, &st.base, &p, &st.executed, None)? {
                Some(outcome) => Step::End(outcome),
                None => Step::Failed(land::conflict_failure()),
            }
        }
        AttemptResult::Failed(f) => {
            st.cost = record::sum_cost(st.cost, f.cost_usd);
            Step::Failed(f)
        }
        AttemptResult::Stopped { cost_usd } => {
            // only a two-agent run stops a candidate; treat as a failure if it happens
            st.cost = record::sum_cost(st.cost, cost_usd);
            Step::Failed(Failed::plain(
                "the agent was stopped",
                crate::core::failure_class::Facts {
                    agent_failed: true,
                    ..Default::default()
                },
            ))
        }
    })
}
