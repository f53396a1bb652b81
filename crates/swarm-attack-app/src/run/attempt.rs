//! One attempt of one candidate agent in one worktree: run the agent, collect what it
//! changed, verify, and commit exactly those paths in the worktree. Landing is not part of
//! an attempt (the caller decides which candidate's commit lands), so a two-agent mode
//! (PARALLEL / SYNTHESIS) runs this twice, in two worktrees, and picks a result.

use crate::core::commit_message;
use crate::core::events::{AgentFinishedReport, Event};
use crate::core::failure_class::{self, Classified, Facts};
use crate::core::integrity::{self as rules, Subject};
use crate::core::test_report;
use crate::error::CmdResult;
use crate::io::agent::{self, AgentRun};
use crate::io::config::AgentConfig;
use crate::io::git::ChangeKind;
use crate::io::interrupt;
use crate::run::integrity;
use crate::run::record;
use crate::run::stop::Stop;
use crate::run::verify;
use crate::run::{Progress, RunContext};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Who works, with which prompt.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub agent: &'a AgentConfig,
    /// `primary` or `runner-up` (SWARM_ROLE).
    pub role: &'static str,
    pub prompt: String,
    /// Events to append right before `agent_started` (e.g. the prompt's
    /// `context_injected`).
    pub pre_events: Vec<Event>,
}

/// Where and for what.
#[derive(Debug, Clone)]
pub struct AttemptSpec<'a> {
    pub issue: u32,
    pub attempt: u32,
    pub title: &'a str,
    pub github_issue: Option<u64>,
    pub test_file: Option<&'a str>,
    /// The issue's `files` and labels (test integrity: files it may change, test-only
    /// labels).
    pub files: &'a [String],
    pub labels: &'a [String],
    pub worktree: &'a Path,
    /// The commit the worktree started from.
    pub base: &'a str,
    pub artifacts: PathBuf,
    /// Set for a candidate of a two-agent run: its processes register there, and a stop
    /// ends the attempt as [`AttemptResult::Stopped`].
    pub stop: Option<&'a Stop>,
    /// Name the agent in `implementation_complete` and `verification_*` (two-agent runs).
    pub tag_agent: bool,
    /// SYNTHESIS runner-up: the agent whose result this attempt builds on; the commit names
    /// both.
    pub builds_on: Option<&'a str>,
}

/// A candidate whose work passed verification and is committed in its worktree.
#[derive(Debug, Clone, PartialEq)]
pub struct Passed {
    pub commit: String,
    pub files_created: Vec<String>,
    pub files_modified: Vec<String>,
    pub tests_passed: Option<u64>,
    pub cost_usd: Option<f64>,
    /// Events the caller appends with the attempt's record (`verification_passed`).
    pub pending_events: Vec<Event>,
    /// The handoff the agent's final text ended with (docs/learning.md "Handoffs"), neutralised.
    pub handoff: Option<crate::core::handoff::Handoff>,
    /// The review gate's result on this commit, once the gate ran (docs/review.md).
    pub review: Option<Box<crate::core::review::Reviewed>>,
}

/// What the governor (`app::run::governor`) needs to know about a rate-limited agent run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitHit {
    pub agent: String,
    /// The wait the CLI asked for, when it named one.
    pub retry_after_ms: Option<u64>,
}

/// A failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct Failed {
    /// One sentence.
    pub reason: String,
    /// An excerpt of the output that shows the failure (fed into the next prompt).
    pub excerpt: String,
    /// The agent process itself failed (counts toward the circuit breaker).
    pub agent_failure: bool,
    pub cost_usd: Option<f64>,
    /// Events the caller appends with the attempt's record (`verification_failed`).
    pub pending_events: Vec<Event>,
    /// The agent was rate-limited (or its API overloaded): not the issue's failure.
    pub rate_limited: Option<RateLimitHit>,
    /// What the run saw, for the failure's class
    /// (docs/run.md "After a failure: classes, analysis, fallback").
    pub facts: Facts,
    /// The agent whose run failed (`None`: several, or none ran).
    pub agent: Option<String>,
    /// The files the attempt changed (shown to the failure analyst).
    pub files_changed: Vec<String>,
}

impl Failed {
    /// A failure with only a reason (no agent run, no excerpt).
    pub fn plain(reason: impl Into<String>, facts: Facts) -> Failed {
        Failed {
            reason: reason.into(),
            excerpt: String::new(),
            agent_failure: false,
            cost_usd: None,
            pending_events: Vec::new(),
            rate_limited: None,
            facts,
            agent: None,
            files_changed: Vec::new(),
        }
    }

    /// Its class and kind (docs/run.md "After a failure: classes, analysis, fallback").
    pub fn classified(&self) -> Classified {
        failure_class::classify(&self.facts, &self.reason)
    }

    /// The text given to the next attempt's prompt.
    pub fn feedback(&self, attempt: u32) -> String {
        if self.excerpt.trim().is_empty() {
            format!("Attempt {attempt}: {}", self.reason)
        } else {
            format!(
                "Attempt {attempt}: {}\n\n```\n{}\n```",
                self.reason, self.excerpt
            )
        }
    }
}

/// The result of an attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum AttemptResult {
    Passed(Passed),
    Failed(Failed),
    /// Stopped by the caller (the other candidate won); nothing verified or committed.
    Stopped {
        cost_usd: Option<f64>,
    },
}

const EXCERPT_CHARS: usize = 4000;

/// Runs one attempt. Events appended: the candidate's `pre_events` (e.g.
/// `agents_selected`, `context_injected`), `agent_started`, `agent_finished`,
/// `implementation_complete`, `tests_written`; `verification_passed` /
/// `verification_failed` are returned in the result's `pending_events`, for the caller to
/// append with the attempt's record (one lock hold instead of two).
pub fn run_attempt(
    ctx: &RunContext<'_>,
    spec: &AttemptSpec<'_>,
    cand: Candidate<'_>,
) -> CmdResult<AttemptResult> {
    let issue = spec.issue;
    let name = cand.agent.name.clone();
    let mut events = cand.pre_events;
    events.push(Event::AgentStarted {
        issue,
        agent: name.clone(),
        role: cand.role.to_string(),
    });
    let limits = crate::run::budget_gate::start_agent(ctx, events, issue, cand.agent)?;
    let run = AgentRun {
        agent: cand.agent,
        feature: &ctx.feature,
        issue,
        attempt: spec.attempt,
        role: cand.role,
        purpose: None,
        prompt: &cand.prompt,
        worktree: spec.worktree,
        artifacts: &spec.artifacts,
        project_root: &ctx.project.root,
        limits,
    };
    let mut pid = None;
    let outcome = agent::run_agent(&run, |p| {
        interrupt::track(p);
        crate::io::agent_pid::record(&spec.artifacts, p);
        if let Some(s) = spec.stop {
            s.register(p);
        }
        pid = Some(p);
    });
    if let Some(p) = pid {
        interrupt::untrack(p);
        if let Some(s) = spec.stop {
            s.unregister(p);
        }
    }
    let stopped = || spec.stop.is_some_and(Stop::is_stopped);
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            let reason = e.to_string();
            record::emit(
                ctx,
                vec![Event::agent_not_started(
                    issue,
                    &name,
                    e.error_kind().as_str(),
                )],
            )?;
            ctx.breaker.record(Some(&reason));
            // the only agent of the attempt cannot start: a setup cause, stop the run
            // (a two-agent attempt falls back on the other agent)
            if spec.stop.is_none() {
                ctx.breaker.trip_setup(&reason);
            }
            let failed = Failed {
                agent_failure: true,
                agent: Some(name.clone()),
                ..Failed::plain(
                    format!("{reason} (check agents[].command in config.yaml)"),
                    Facts {
                        error_kind: Some(e.error_kind()),
                        agent_failed: true,
                        ..Facts::default()
                    },
                )
            };
            save_result(&spec.artifacts, &AttemptResult::Failed(failed.clone()));
            return Ok(AttemptResult::Failed(failed));
        }
    };
    let priced = crate::ledger::priced_cost(&ctx.project.config, &name, &outcome.report);
    let cost = outcome.cost_usd.or(priced);
    // appended with what the agent changed when there is something (one append less),
    // else at once
    let finished = Event::AgentFinished {
        issue,
        agent: name.clone(),
        exit_code: outcome.exit_code,
        duration_ms: outcome.duration_ms,
        timed_out: outcome.timed_out,
        cost_usd: cost,
        report: AgentFinishedReport {
            output: Some(saved_output(ctx, &spec.artifacts)),
            cost_priced: outcome.cost_usd.is_none() && priced.is_some(),
            ..outcome.report.event_fields()
        },
    };
    let tag = spec.tag_agent.then(|| name.clone());
    let process_failure = outcome.failure(&name);
    let facts = Facts {
        error_kind: outcome.report.error_kind,
        overloaded: outcome.report.error_kind
            == Some(crate::core::agent_report::ErrorKind::RateLimit)
            && outcome
                .report
                .message
                .as_deref()
                .is_some_and(failure_class::says_overloaded),
        timed_out: outcome.timed_out,
        agent_failed: process_failure.is_some(),
        ..Facts::default()
    };
    let rate_limited = outcome.report.error_kind
        == Some(crate::core::agent_report::ErrorKind::RateLimit)
        && (process_failure.is_some() || outcome.report.is_error);
    let was_stopped = stopped();
    if was_stopped || rate_limited || process_failure.is_some() {
        record::emit(ctx, vec![finished.clone()])?;
    }
    if was_stopped {
        // killed on purpose: not an agent failure
        return Ok(finish(spec, AttemptResult::Stopped { cost_usd: cost }));
    }
    if rate_limited {
        // the model API's limit, not the agent's or the issue's failure: no retry used, not
        // counted by the circuit breaker (the governor backs off instead)
        return Ok(finish(
            spec,
            AttemptResult::Failed(Failed {
                reason: process_failure
                    .unwrap_or_else(|| format!("agent `{name}` was rate-limited")),
                excerpt: test_report::excerpt(&outcome.stdout, 1500),
                agent_failure: false,
                cost_usd: cost,
                pending_events: Vec::new(),
                rate_limited: Some(RateLimitHit {
                    agent: name.clone(),
                    retry_after_ms: outcome.report.retry_after_ms,
                }),
                facts,
                agent: Some(name.clone()),
                files_changed: Vec::new(),
            }),
        ));
    }
    ctx.breaker.record(process_failure.as_deref());
    if let Some(reason) = process_failure {
        let mut out = outcome.stderr.clone();
        if out.trim().is_empty() {
            out = outcome.stdout.clone();
        }
        return Ok(finish(
            spec,
            AttemptResult::Failed(Failed {
                reason,
                excerpt: test_report::excerpt(&out, EXCERPT_CHARS),
                agent_failure: true,
                cost_usd: cost,
                pending_events: Vec::new(),
                rate_limited: None,
                facts,
                agent: Some(name.clone()),
                files_changed: Vec::new(),
            }),
        ));
    }
    // What did the agent change? Fold any commits/staging it did back into the worktree.
    let git = &ctx.git;
    let changes = match git.changes_since(spec.worktree, spec.base) {
        Ok(c) => c,
        Err(e) => {
            record::emit(ctx, vec![finished])?;
            return Err(e.into());
        }
    };
    let changes: Vec<_> = changes
        .into_iter()
        .filter(|c| !crate::run::is_tool_path(&c.path))
        .collect();
    if changes.is_empty() {
        record::emit(ctx, vec![finished])?;
        return Ok(finish(
            spec,
            AttemptResult::Failed(Failed {
                reason: outcome.report.cause(&name).unwrap_or_else(|| {
                    format!("agent `{name}` exited normally but changed no file")
                }),
                excerpt: test_report::excerpt(&outcome.stdout, 1500),
                agent_failure: false,
                cost_usd: cost,
                pending_events: Vec::new(),
                rate_limited: None,
                facts: Facts {
                    no_change: true,
                    ..facts
                },
                agent: Some(name.clone()),
                files_changed: Vec::new(),
            }),
        ));
    }
    let created: Vec<String> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Created)
        .map(|c| c.path.clone())
        .collect();
    let modified: Vec<String> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Created)
        .map(|c| c.path.clone())
        .collect();
    let paths: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
    let events = vec![
        finished,
        Event::ImplementationComplete {
            issue,
            files_created: created.clone(),
            files_modified: modified.clone(),
            agent: tag.clone(),
        },
    ];
    record::emit(ctx, events)?;
    // Test integrity (docs/integrity.md): the checks that need no test run first.
    let verify_cfg = &ctx.project.config.verify;
    let subject = Subject {
        agent: &name,
        test_file: spec.test_file,
        files: spec.files,
        labels: spec.labels,
    };
    let changed = integrity::changed(ctx, spec.worktree, spec.base, &changes);
    let at = integrity::At {
        issue,
        base: spec.base,
        worktree: spec.worktree,
        artifacts: &spec.artifacts,
        stop: spec.stop,
    };
    let statics = rules::static_checks(verify_cfg, &subject, &changed);
    if statics.iter().any(|c| !c.passed) {
        let report = integrity::finish_checks(ctx, &at, &subject, &changed, statics)?.report;
        return Ok(finish(
            spec,
            integrity_failure(spec, &name, &report, (cost, Vec::new()), &paths),
        ));
    }
    // Verify.
    if stopped() {
        return Ok(finish(spec, AttemptResult::Stopped { cost_usd: cost }));
    }
    ctx.report(Progress::Phase {
        issue,
        phase: "tests",
    });
    let v = verify::verify_stoppable(
        ctx,
        spec.worktree,
        issue,
        &spec.artifacts.join("tests.log"),
        spec.stop,
    )?;
    if stopped() {
        return Ok(finish(spec, AttemptResult::Stopped { cost_usd: cost }));
    }
    if !v.passed {
        let tests = &ctx.project.config.tests;
        let mut reason = v.failure_reason(&tests.command, tests.timeout_seconds);
        // the agent's own trouble (e.g. it was not allowed to run the tests) explains it
        if let Some(cause) = outcome.report.cause(&name) {
            reason.push_str(&format!("; {cause}"));
        }
        let excerpt = test_report::excerpt(&v.output, EXCERPT_CHARS);
        let mut checks = statics;
        checks.push(rules::CheckResult::skipped(
            rules::Check::FailBefore,
            "not run: the tests failed",
        ));
        integrity::save(&spec.artifacts, &rules::Report::new(checks, None));
        let mut pending = integrity::tests_written(
            issue,
            &rules::tests_written(verify_cfg, &subject, &changed, None),
        );
        pending.push(Event::VerificationFailed {
            issue,
            tests_failed: v.counts.failed,
            failures: test_report::excerpt(&v.output, 1500),
            agent: tag.clone(),
        });
        return Ok(finish(
            spec,
            AttemptResult::Failed(Failed {
                reason,
                excerpt,
                agent_failure: false,
                cost_usd: cost,
                pending_events: pending,
                rate_limited: None,
                facts,
                agent: Some(name.clone()),
                files_changed: paths.clone(),
            }),
        ));
    }
    let passed_event = Event::VerificationPassed {
        issue,
        tests_passed: v.counts.passed,
        agent: tag.clone(),
    };
    // fail_before: the new tests must fail on the start commit
    let mut checked = integrity::finish_checks(ctx, &at, &subject, &changed, statics)?;
    let (report, runs) = (&checked.report, checked.runs.take());
    if stopped() {
        return Ok(finish(spec, AttemptResult::Stopped { cost_usd: cost }));
    }
    if !report.passed {
        return Ok(finish(
            spec,
            integrity_failure(spec, &name, report, (cost, vec![passed_event]), &paths),
        ));
    }
    integrity::save(&spec.artifacts, report);
    let mut pending = integrity::tests_written(
        issue,
        &rules::tests_written(verify_cfg, &subject, &changed, runs.as_deref()),
    );
    pending.push(passed_event);
    // Commit exactly the agent's paths.
    let by = match spec.builds_on {
        Some(first) => format!("Implemented by agent `{first}` then `{name}` (SYNTHESIS, "),
        None => format!("Implemented by agent `{name}` ("),
    };
    let body = format!(
        "{}\n\n{by}attempt {}); verified with `{}`.",
        spec.title.trim(),
        spec.attempt,
        ctx.project.config.tests.command
    );
    let message = commit_message::message(&ctx.feature, issue, spec.github_issue, &body);
    let committed = git.commit_changes(spec.worktree, spec.base, &changes, &message);
    let commit = match committed {
        Ok(c) => c,
        Err(e) => {
            return Ok(finish(
                spec,
                AttemptResult::Failed(Failed {
                    reason: "the verified change could not be committed (a commit hook may have refused it)".into(),
                    excerpt: test_report::excerpt(&e.message(), EXCERPT_CHARS),
                    agent_failure: false,
                    cost_usd: cost,
                    pending_events: pending,
                    rate_limited: None,
                    facts: Facts {
                        commit_refused: true,
                        ..facts
                    },
                    agent: Some(name.clone()),
                    files_changed: paths.clone(),
                }),
            ));
        }
    };
    // docs/integrity.md "Cost": the scratch tree goes back at this commit, where the next
    // issue usually starts (a failed attempt's goes back at the start commit, a retry's)
    checked.hand_back_at(&commit);
    Ok(finish(
        spec,
        AttemptResult::Passed(Passed {
            commit,
            files_created: created,
            files_modified: modified,
            tests_passed: v.counts.passed,
            cost_usd: cost,
            pending_events: pending,
            // the final text: a preset's result text, a custom agent's stdout
            handoff: crate::core::handoff::parse(&crate::core::agent_report::unwrap_text(
                &outcome.stdout,
            )),
            review: None,
        }),
    ))
}

/// The agent's saved stdout, relative to the project root when inside it.
fn saved_output(ctx: &RunContext<'_>, artifacts: &Path) -> String {
    let p = artifacts.join("agent.stdout");
    p.strip_prefix(&ctx.project.root)
        .unwrap_or(&p)
        .to_string_lossy()
        .into_owned()
}

fn finish(spec: &AttemptSpec<'_>, r: AttemptResult) -> AttemptResult {
    save_result(&spec.artifacts, &r);
    r
}

/// Saves `result.json` in the attempt folder.
fn save_result(dir: &Path, r: &AttemptResult) {
    let v = match r {
        AttemptResult::Passed(p) => json!({
            "outcome": "passed",
            "commit": p.commit,
            "files_created": p.files_created,
            "files_modified": p.files_modified,
            "tests_passed": p.tests_passed,
            "cost_usd": p.cost_usd,
        }),
        AttemptResult::Failed(f) => json!({
            "outcome": "failed",
            "reason": f.reason,
            "agent_failure": f.agent_failure,
            "cost_usd": f.cost_usd,
        }),
        AttemptResult::Stopped { cost_usd } => json!({
            "outcome": "stopped",
            "reason": "stopped: the other candidate passed first",
            "cost_usd": cost_usd,
        }),
    };
    let _ = std::fs::create_dir_all(dir);
    let _ = crate::io::secrets::write_file(
        dir.join("result.json"),
        serde_json::to_vec_pretty(&v).unwrap_or_default(),
    );
}

/// A failed test-integrity check: the attempt fails with the checks' reasons (classified by
/// them, docs/run.md "After a failure: classes, analysis, fallback"), their guidance fed to the
/// retry.
fn integrity_failure(
    spec: &AttemptSpec<'_>,
    agent: &str,
    report: &rules::Report,
    (cost_usd, before): (Option<f64>, Vec<Event>),
    paths: &[String],
) -> AttemptResult {
    let who = (spec.issue, spec.attempt, agent);
    let (reason, excerpt, pending_events) =
        integrity::failure_parts(&spec.artifacts, who, report, before);
    AttemptResult::Failed(Failed {
        excerpt,
        cost_usd,
        pending_events,
        agent: Some(agent.to_string()),
        files_changed: paths.to_vec(),
        ..Failed::plain(reason, Facts::default())
    })
}
