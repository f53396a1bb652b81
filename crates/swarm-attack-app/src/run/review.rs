//! The review gate (docs/review.md; the rules are [`crate::core::review`]): after a candidate
//! passed verification and test integrity, and before it lands, configured agents review
//! its diff. Each reviewer runs through its preset's command line in a worker worktree at
//! the candidate's commit (`SWARM_PURPOSE=review`, `SWARM_ROLE=reviewer`); whatever it
//! changes there is discarded when the worktree goes back to the pool (landing only ever
//! moves the candidate's commit). Its answer is read strictly (one re-prompt), its findings
//! validated and counted, and the verdict decided by code. On `fail` with fix rounds left,
//! the implementer gets the blocking findings in the same worktree; verification and test
//! integrity run again on its new commit, then a new round. A reviewer whose run fails
//! (timeout, crash, rate limit) is replaced by the next agent of its fallback chain
//! (`agents[].fallback`, `agent_fallback`), else by the next reviewer; never run twice in a
//! round, and never at the cost of a retry. Reviewer runs are charged like
//! any agent run (`agent_started{role: reviewer}` / `agent_finished`: the ledger, `audit`,
//! `report`).

use crate::core::agent_report;
use crate::core::config::{ReviewOnError, ReviewStrategy};
use crate::core::events::{AgentFinishedReport, Event};
use crate::core::review::{self, Anchors, Finding, Reviewed, Verdict, answer, prompt};
use crate::core::unified_diff;
use crate::error::{CmdResult, CommandError};
use crate::io::agent::{self, AgentRun};
use crate::io::config::AgentConfig;
use crate::run::attempt::{AttemptResult, AttemptSpec, Failed, Passed};
use crate::run::{RunContext, budget_gate, record, worktrees};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the gate decided about a candidate.
#[derive(Debug)]
pub enum Gate {
    /// It lands (`pass`, `pass_with_risk`, or `unreviewed` with `on_error: land`); `passed`
    /// is the last round's commit (a fix round makes a new one), its `review` set.
    Land(Passed),
    /// The attempt failed: `fail` after the last round (the findings fed to the retry), or
    /// a fix round that broke the tests or the integrity checks.
    Fail(Failed),
    /// No reviewer gave a valid answer and `on_error: block`: BLOCKED at once, no retry.
    Block(String),
}

/// Whether the gate runs for `task`, and with which strategy: `review.enabled` with
/// `review.strategy`, or a risky issue (docs/gates.md "Risk routing" `gates.risk`) with
/// `gates.risk.review` even when the gate is off.
pub fn strategy_for(
    ctx: &RunContext<'_>,
    task: &crate::core::state::Task,
) -> Option<ReviewStrategy> {
    let cfg = &ctx.project.config;
    if crate::gates::risk_of(ctx.project, task).is_risky() {
        return Some(match cfg.gates.risk.review {
            crate::core::gates::RiskReview::Single => ReviewStrategy::Single,
            crate::core::gates::RiskReview::Cross => ReviewStrategy::Cross,
        });
    }
    cfg.review.enabled.then_some(cfg.review.strategy)
}

/// The reviewers for a candidate of `implementer`: `review.reviewers`, else the other
/// configured agents in order, else the implementer itself (a fresh session).
pub fn reviewers<'c>(
    ctx: &'c RunContext<'_>,
    implementer: &'c AgentConfig,
) -> Vec<&'c AgentConfig> {
    let cfg = &ctx.project.config;
    if !cfg.review.reviewers.is_empty() {
        return cfg
            .review
            .reviewers
            .iter()
            .filter_map(|n| cfg.agents.iter().find(|a| &a.name == n))
            .collect();
    }
    let others: Vec<&AgentConfig> = cfg
        .agents
        .iter()
        .filter(|a| a.name != implementer.name)
        .collect();
    if others.is_empty() {
        vec![implementer]
    } else {
        others
    }
}

/// The issue the candidate is for.
pub struct Issue<'a> {
    pub title: &'a str,
    pub body: &'a str,
    /// `single` or `cross` for this issue ([`strategy_for`]).
    pub strategy: ReviewStrategy,
}

impl<'a> Issue<'a> {
    /// The issue of `task` (its GitHub body when it has one).
    pub fn of(task: &'a crate::core::state::Task, strategy: ReviewStrategy) -> Issue<'a> {
        Issue {
            strategy,
            title: &task.title,
            body: task
                .github_body
                .as_deref()
                .or(task.body.as_deref())
                .unwrap_or(""),
        }
    }
}

/// Who made a candidate, for its fix rounds: the agent, its role and its prompt.
pub struct Implementer<'a> {
    pub agent: &'a AgentConfig,
    pub role: &'static str,
    pub prompt: &'a str,
}

/// [`gate`] with the fix rounds run by `who` in the candidate's worktree: its prompt plus
/// the findings (`fix-<round>/` in the attempt's folder).
pub fn gate_candidate(
    ctx: &RunContext<'_>,
    spec: &AttemptSpec<'_>,
    who: &Implementer<'_>,
    issue: &Issue<'_>,
    passed: Passed,
) -> CmdResult<Gate> {
    let mut fix = |lines: &str, round: u32| {
        let fix_spec = AttemptSpec {
            artifacts: fix_dir(&spec.artifacts, round),
            ..spec.clone()
        };
        crate::run::attempt::run_attempt(
            ctx,
            &fix_spec,
            crate::run::attempt::Candidate {
                agent: who.agent,
                role: who.role,
                prompt: format!("{}{}", who.prompt, fix_section(lines, round)),
                pre_events: Vec::new(),
            },
        )
    };
    gate(ctx, spec, who.agent, issue, passed, &mut fix)
}

/// Runs the gate on a passed candidate. `fix(findings_text, round)` runs the implementer
/// again in the candidate's worktree with the findings (verification and integrity
/// included) and returns its result.
pub fn gate(
    ctx: &RunContext<'_>,
    spec: &AttemptSpec<'_>,
    implementer: &AgentConfig,
    issue: &Issue<'_>,
    passed: Passed,
    fix: &mut dyn FnMut(&str, u32) -> CmdResult<AttemptResult>,
) -> CmdResult<Gate> {
    let cfg = &ctx.project.config.review;
    let mut passed = passed;
    // the verification of this candidate comes before its review in the log
    record::emit(ctx, std::mem::take(&mut passed.pending_events))?;
    let mut earlier: Option<(String, String)> = None;
    // the counted findings of the previous round (a `review_fixed` lesson when the next
    // round no longer reports one, docs/learning.md "Lessons")
    let mut previous: Vec<Finding> = Vec::new();
    let last_round = cfg.fix_rounds + 1;
    for round in 1..=last_round {
        let r = review_round(
            ctx,
            spec,
            implementer,
            issue,
            &passed,
            round,
            earlier.as_ref(),
        )?;
        passed.cost_usd = record::sum_cost(passed.cost_usd, r.cost);
        let Some(findings) = r.findings else {
            emit_verdict(ctx, spec, round, Verdict::Unreviewed, &r.strategy, 0)?;
            return Ok(match cfg.on_error {
                ReviewOnError::Block => Gate::Block(format!("review could not run: {}", r.errors)),
                ReviewOnError::Land => Gate::Land(Passed {
                    review: Some(Box::new(Reviewed {
                        verdict: Verdict::Unreviewed,
                        findings: Vec::new(),
                        line: format!("unreviewed (no reviewer gave a valid answer: {})", r.errors),
                    })),
                    ..passed
                }),
            });
        };
        crate::lessons::learn_fixed(
            ctx.project,
            &ctx.feature,
            (spec.issue, spec.attempt, round),
            &previous,
            &findings,
        );
        previous = findings.iter().filter(|f| f.counted).cloned().collect();
        let verdict = review::verdict(&findings, &cfg.block_on);
        let counted = findings.iter().filter(|f| f.counted).count() as u32;
        emit_verdict(ctx, spec, round, verdict, &r.strategy, counted)?;
        save_round(&spec.artifacts, round, verdict, &r.strategy, &findings);
        if verdict != Verdict::Fail {
            let line = review::status_line(verdict, &r.strategy, &findings);
            return Ok(Gate::Land(Passed {
                review: Some(Box::new(Reviewed {
                    verdict,
                    line,
                    findings,
                })),
                ..passed
            }));
        }
        let blocking = review::blocking(&findings, &cfg.block_on);
        let lines = review::finding_lines(&blocking, 600);
        if round == last_round {
            return Ok(Gate::Fail(Failed {
                reason: review::fail_reason(&findings, &cfg.block_on),
                excerpt: format!("The review found:\n{lines}"),
                agent_failure: false,
                cost_usd: passed.cost_usd,
                pending_events: Vec::new(),
                rate_limited: None,
                // classified by its reason (`review: ...`,
                // docs/run.md "After a failure: classes, analysis, fallback")
                facts: Default::default(),
                agent: None,
                files_changed: passed
                    .files_created
                    .iter()
                    .chain(&passed.files_modified)
                    .cloned()
                    .collect(),
            }));
        }
        // a fix round: the implementer fixes or answers, in the same worktree
        let before = passed.cost_usd;
        match fix(&lines, round)? {
            AttemptResult::Passed(mut p) => {
                record::emit(ctx, std::mem::take(&mut p.pending_events))?;
                let reply = implementer_reply(&spec.artifacts.join(format!("fix-{round}")));
                earlier = Some((lines, reply));
                p.cost_usd = record::sum_cost(before, p.cost_usd);
                passed = p;
            }
            AttemptResult::Failed(mut f) => {
                f.cost_usd = record::sum_cost(before, f.cost_usd);
                return Ok(Gate::Fail(f));
            }
            AttemptResult::Stopped { cost_usd } => {
                return Ok(Gate::Fail(Failed {
                    reason: "the implementer was stopped during a review fix round".into(),
                    excerpt: String::new(),
                    agent_failure: false,
                    cost_usd: record::sum_cost(before, cost_usd),
                    pending_events: Vec::new(),
                    rate_limited: None,
                    facts: Default::default(),
                    agent: None,
                    files_changed: Vec::new(),
                }));
            }
        }
    }
    Err(CommandError::internal("the review ended without a verdict"))
}

fn emit_verdict(
    ctx: &RunContext<'_>,
    spec: &AttemptSpec<'_>,
    round: u32,
    verdict: Verdict,
    strategy: &str,
    counted: u32,
) -> CmdResult<()> {
    record::emit(
        ctx,
        vec![Event::ReviewVerdict {
            issue: spec.issue,
            attempt: spec.attempt,
            round,
            verdict: verdict.as_str().into(),
            strategy: strategy.to_string(),
            counted,
        }],
    )
}

/// The prompt section a fix round adds to the implementer's prompt.
pub fn fix_section(lines: &str, round: u32) -> String {
    format!(
        "\n\n## Review findings (round {round})\n\nA reviewer found these problems in your change (severity, file:line, title: why):\n\n{lines}\n\nFix each one in the code (the tests must still pass), or, when a finding is wrong, say why in your final message. Do not weaken, skip or delete tests.\n"
    )
}

/// The implementer's final text of a fix round (its answer to the findings).
fn implementer_reply(dir: &Path) -> String {
    let stdout = std::fs::read_to_string(dir.join("agent.stdout")).unwrap_or_default();
    let text = agent_report::parse(&stdout, "")
        .text
        .unwrap_or_else(|| stdout.clone());
    crate::core::test_report::excerpt(&text, 2000)
}

/// One round's result.
struct Round {
    /// `None`: no reviewer gave a valid answer.
    findings: Option<Vec<Finding>>,
    strategy: String,
    cost: Option<f64>,
    /// Why each reviewer failed (for `review could not run:`).
    errors: String,
}

/// What every reviewer of a round sees.
struct RoundInput<'a> {
    spec: &'a AttemptSpec<'a>,
    commit: &'a str,
    prompt: String,
    anchors: Anchors,
    round: u32,
}

fn review_round(
    ctx: &RunContext<'_>,
    spec: &AttemptSpec<'_>,
    implementer: &AgentConfig,
    issue: &Issue<'_>,
    passed: &Passed,
    round: u32,
    earlier: Option<&(String, String)>,
) -> CmdResult<Round> {
    let cfg = &ctx.project.config;
    let diff = ctx.git.diff(spec.base, &passed.commit)?;
    let tests = match passed.tests_passed {
        Some(n) => format!("`{}` passed ({n} tests)", cfg.tests.command),
        None => format!("`{}` passed", cfg.tests.command),
    };
    let text = prompt::build(&prompt::ReviewInput {
        issue: spec.issue,
        title: issue.title,
        body: issue.body,
        diff: &diff,
        tests: &tests,
        round,
        earlier: earlier.map(|(a, b)| (a.as_str(), b.as_str())),
        budget_chars: (cfg.context.max_prompt_tokens as usize).saturating_mul(4),
    });
    let input = RoundInput {
        spec,
        commit: &passed.commit,
        prompt: text,
        anchors: Anchors::from_diff(&unified_diff::parse(&diff)),
        round,
    };
    let all = reviewers(ctx, implementer);
    let queue: Mutex<VecDeque<&AgentConfig>> = Mutex::new(all.iter().copied().collect());
    let run = Shared {
        queue: &queue,
        tried: Mutex::new(Vec::new()),
        errors: Mutex::new(Vec::new()),
        cost: Mutex::new(None),
    };
    let min = f64::from(cfg.review.min_confidence);
    let cross = issue.strategy == ReviewStrategy::Cross;
    let distinct = {
        let mut names: Vec<&str> = all.iter().map(|a| a.name.as_str()).collect();
        names.dedup();
        names.len()
    };
    if cross && distinct >= 2 {
        // two reviewers at once, preferably of different presets
        let second = pick_second(&queue);
        let first = queue.lock().ok().and_then(|mut q| q.pop_front());
        let (a, b) = std::thread::scope(|s| {
            let ha = s.spawn(|| first_valid(ctx, &input, first, &run));
            let hb = s.spawn(|| first_valid(ctx, &input, second, &run));
            (ha.join().unwrap_or(Ok(None)), hb.join().unwrap_or(Ok(None)))
        });
        let (a, b) = (a?, b?);
        let cost = run.cost.into_inner().unwrap_or(None);
        let errors = run.errors.into_inner().unwrap_or_default().join("; ");
        // docs/review.md "A stricter `cross`": a finding one reviewer alone reported may
        // need more confidence than a matched pair; with one valid answer `single` rules
        let unmatched = f64::from(cfg.review.cross_unmatched_min());
        let (findings, strategy) = match (a, b) {
            (Some(a), Some(b)) => (
                Some(review::cross_counted(a, b, min, unmatched)),
                "cross".to_string(),
            ),
            (Some(mut x), None) | (None, Some(mut x)) => {
                review::count(&mut x, min);
                (
                    Some(x),
                    "single (cross: only one reviewer gave a valid answer)".to_string(),
                )
            }
            (None, None) => (None, "cross".to_string()),
        };
        return Ok(Round {
            findings,
            strategy,
            cost,
            errors,
        });
    }
    let strategy = if cross {
        "single (cross needs two reviewers; one is configured)".to_string()
    } else {
        "single".to_string()
    };
    let next = queue.lock().ok().and_then(|mut q| q.pop_front());
    let got = first_valid(ctx, &input, next, &run)?;
    let findings = got.map(|mut f| {
        review::count(&mut f, min);
        f
    });
    Ok(Round {
        findings,
        strategy,
        cost: run.cost.into_inner().unwrap_or(None),
        errors: run.errors.into_inner().unwrap_or_default().join("; "),
    })
}

/// What the reviewers of one round share (two run at once with `cross`).
struct Shared<'q, 'c> {
    /// The reviewers not run yet, in order.
    queue: &'q Mutex<VecDeque<&'c AgentConfig>>,
    /// The reviewers that ran in this round (never twice).
    tried: Mutex<Vec<String>>,
    /// Why each reviewer failed (for `review could not run:`).
    errors: Mutex<Vec<String>>,
    cost: Mutex<Option<f64>>,
}

impl<'c> Shared<'_, 'c> {
    /// The reviewer that replaces `failed` after its run failed with an `infra` kind: the
    /// first agent of its fallback chain (docs/review.md) that did not run in this round
    /// and is not waiting on a rate limit, taken out of the queue; `None`: the queue's next.
    fn fallback_for(
        &self,
        ctx: &'c RunContext<'_>,
        failed: &AgentConfig,
    ) -> Option<&'c AgentConfig> {
        let tried = self.tried.lock().ok()?;
        let to = failed
            .fallback
            .iter()
            .filter(|n| !tried.contains(n) && !ctx.governor.agent_waiting(n))
            .find_map(|n| ctx.project.config.agents.iter().find(|a| &a.name == n))?;
        if let Ok(mut q) = self.queue.lock() {
            q.retain(|a| a.name != to.name);
        }
        Some(to)
    }
}

/// Takes, for `cross`'s second reviewer, the first queued one whose preset differs from
/// the head's, else the second in line.
fn pick_second<'c>(queue: &Mutex<VecDeque<&'c AgentConfig>>) -> Option<&'c AgentConfig> {
    let mut q = queue.lock().ok()?;
    let head = q.front().map(|a| a.preset)?;
    let idx = q
        .iter()
        .skip(1)
        .position(|a| a.preset != head)
        .map(|i| i + 1)
        .unwrap_or(1);
    q.remove(idx)
}

/// Runs `first`, then the queued reviewers one by one, until one gives a valid answer: its
/// validated findings (not yet counted), or `None`. A reviewer whose run failed (timeout,
/// crash, rate limit) is replaced by the next agent of its fallback chain when it has one
/// (`agent_fallback`), else by the queue's next.
fn first_valid<'c>(
    ctx: &'c RunContext<'_>,
    input: &RoundInput<'_>,
    first: Option<&'c AgentConfig>,
    run: &Shared<'_, 'c>,
) -> CmdResult<Option<Vec<Finding>>> {
    let mut next = first;
    while let Some(r) = next {
        if let Ok(mut t) = run.tried.lock() {
            t.push(r.name.clone());
        }
        let (result, c) = run_reviewer(ctx, input, r)?;
        if let Ok(mut total) = run.cost.lock() {
            *total = record::sum_cost(*total, c);
        }
        let failed = match result {
            Ok(f) => return Ok(Some(f)),
            Err(e) => e,
        };
        if let Ok(mut v) = run.errors.lock() {
            v.push(format!("{}: {}", r.name, failed.why));
        }
        let to = failed.infra.and_then(|kind| {
            let to = run.fallback_for(ctx, r)?;
            Some((to, kind))
        });
        if let Some((to, kind)) = to {
            record::emit(
                ctx,
                vec![Event::AgentFallback {
                    issue: input.spec.issue,
                    attempt: input.spec.attempt,
                    from: r.name.clone(),
                    to: to.name.clone(),
                    reason: format!("reviewer {kind}"),
                }],
            )?;
            next = Some(to);
            continue;
        }
        next = run.queue.lock().ok().and_then(|mut q| q.pop_front());
    }
    Ok(None)
}

/// Why a reviewer gave no valid answer.
struct NoAnswer {
    why: String,
    /// The kind of its failed run when its class is `infra` (timeout, crash, rate limit):
    /// the fallback chain then replaces it.
    infra: Option<&'static str>,
}

impl NoAnswer {
    fn answer(why: String) -> NoAnswer {
        NoAnswer { why, infra: None }
    }
}

/// A reviewer's validated findings, or why it gave none.
type Answered = Result<Vec<Finding>, NoAnswer>;

/// One reviewer: one run, and one re-prompt when its answer cannot be read. Returns its
/// validated findings or why it gave none, and what it cost.
fn run_reviewer(
    ctx: &RunContext<'_>,
    input: &RoundInput<'_>,
    reviewer: &AgentConfig,
) -> CmdResult<(Answered, Option<f64>)> {
    let spec = input.spec;
    let name = reviewer.name.clone();
    let dir = spec
        .artifacts
        .join(format!("review-{}-{name}", input.round));
    let scratch = worktrees::take(ctx, spec.issue, input.commit)?;
    let mut cost: Option<f64> = None;
    let mut tokens: (Option<u64>, Option<u64>) = (None, None);
    let mut ask = |prompt: &str, dir: &Path| -> CmdResult<Result<String, NoAnswer>> {
        let events = vec![
            Event::ReviewStarted {
                issue: spec.issue,
                attempt: spec.attempt,
                round: input.round,
                reviewer: name.clone(),
            },
            Event::AgentStarted {
                issue: spec.issue,
                agent: name.clone(),
                role: "reviewer".into(),
            },
        ];
        let limits = budget_gate::start_agent(ctx, events, spec.issue, reviewer)?;
        let run = AgentRun {
            agent: reviewer,
            feature: &ctx.feature,
            issue: spec.issue,
            attempt: spec.attempt,
            role: "reviewer",
            purpose: Some("review"),
            prompt,
            worktree: &scratch.path,
            artifacts: dir,
            project_root: &ctx.project.root,
            limits,
        };
        let mut pid = None;
        let out = agent::run_agent(&run, |p| {
            crate::io::interrupt::track(p);
            pid = Some(p);
        });
        if let Some(p) = pid {
            crate::io::interrupt::untrack(p);
        }
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                record::emit(
                    ctx,
                    vec![Event::agent_not_started(
                        spec.issue,
                        &name,
                        e.error_kind().as_str(),
                    )],
                )?;
                return Ok(Err(NoAnswer::answer(e.to_string())));
            }
        };
        let priced = crate::ledger::priced_cost(&ctx.project.config, &name, &out.report);
        let c = out.cost_usd.or(priced);
        cost = record::sum_cost(cost, c);
        tokens.0 = add(tokens.0, out.report.tokens_in);
        tokens.1 = add(tokens.1, out.report.tokens_out);
        record::emit(
            ctx,
            vec![Event::AgentFinished {
                issue: spec.issue,
                agent: name.clone(),
                exit_code: out.exit_code,
                duration_ms: out.duration_ms,
                timed_out: out.timed_out,
                cost_usd: c,
                report: AgentFinishedReport {
                    cost_priced: out.cost_usd.is_none() && priced.is_some(),
                    ..out.report.event_fields()
                },
            }],
        )?;
        if let Some(why) = out.failure(&name) {
            let c = crate::core::failure_class::failed_run(
                out.report.error_kind,
                out.report.message.as_deref(),
                out.timed_out,
            );
            let infra = (c.class == crate::core::failure_class::Class::Infra).then_some(c.kind);
            return Ok(Err(NoAnswer { why, infra }));
        }
        Ok(Ok(out.report.text.clone().unwrap_or(out.stdout)))
    };
    let first = ask(&input.prompt, &dir)?;
    let result = match first {
        Err(e) => Err(e),
        Ok(text) => match answer::parse(&text) {
            Ok(a) => Ok(a),
            Err(problem) => {
                // one re-prompt naming the problem
                let again = format!("{}\n\n{}", input.prompt, prompt::reprompt(&problem));
                match ask(&again, &dir.join("reprompt"))? {
                    Err(e) => Err(e),
                    Ok(text) => answer::parse(&text).map_err(|p| {
                        NoAnswer::answer(format!("no valid answer after one re-prompt: {p}"))
                    }),
                }
            }
        },
    };
    let min = f64::from(ctx.project.config.review.min_confidence);
    let (findings, error) = match result {
        Ok(a) => (
            Some(review::validate(&name, &a.findings, &input.anchors)),
            None,
        ),
        Err(e) => (None, Some(e)),
    };
    let (error, infra) = match error {
        Some(e) => (Some(e.why), e.infra),
        None => (None, None),
    };
    // this reviewer's own view (the round counts after `cross` matching)
    let mut shown = findings.clone().unwrap_or_default();
    review::count(&mut shown, min);
    let counted = shown.iter().filter(|f| f.counted).count() as u32;
    record::emit(
        ctx,
        vec![Event::ReviewFinished {
            issue: spec.issue,
            attempt: spec.attempt,
            round: input.round,
            reviewer: name.clone(),
            findings: serde_json::to_value(&shown).unwrap_or_default(),
            counted,
            dropped: shown.len() as u32 - counted,
            cost_usd: cost,
            tokens_in: tokens.0,
            tokens_out: tokens.1,
            error: error.clone(),
        }],
    )?;
    let result = findings.ok_or_else(|| NoAnswer {
        why: error.unwrap_or_default(),
        infra,
    });
    Ok((result, cost))
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

/// Saves `review-<round>.json` in the attempt folder.
fn save_round(dir: &Path, round: u32, verdict: Verdict, strategy: &str, findings: &[Finding]) {
    let v = serde_json::json!({
        "round": round,
        "verdict": verdict.as_str(),
        "strategy": strategy,
        "findings": findings,
    });
    let _ = std::fs::create_dir_all(dir);
    let _ = crate::io::secrets::write_file(
        dir.join(format!("review-{round}.json")),
        serde_json::to_vec_pretty(&v).unwrap_or_default(),
    );
}

/// The folder of a fix round's implementer run.
pub fn fix_dir(artifacts: &Path, round: u32) -> PathBuf {
    artifacts.join(format!("fix-{round}"))
}
