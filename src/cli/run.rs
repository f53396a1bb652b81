//! `run <feature>`: printing progress, the summary and the exit code (1 when an issue
//! ended BLOCKED or the circuit breaker stopped the run; 0 when there was nothing to do).

use crate::app::run::{self as run_app, IssueResult, Outcome, Progress, RunOptions, RunReport};
use crate::cli::GlobalArgs;
use crate::cli::JsonFlag;
use crate::cli::progress::RunView;
use crate::core::feature_id::FeatureId;
use crate::error::{CmdResult, CommandError};
use crate::io::ui::Ui;
use clap::Args;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: FeatureId,
    /// Only this issue.
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    /// Implement at most K issues (K ≥ 1).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_issues: Option<u32>,
    /// Run up to W independent issues at once, each in its own worktree.
    #[arg(long, value_name = "W", default_value_t = 1)]
    pub workers: u32,
    /// Print what would run without running it.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn run(g: &GlobalArgs, ui: &Ui, a: RunArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    crate::app::setup::warn_missing_project_file(&project);
    let opts = RunOptions {
        issue: a.issue,
        max_issues: a.max_issues,
        workers: a.workers,
        dry_run: a.dry_run,
        mirror_at_end: true,
    };
    let as_json = a.json.json;
    let view = (!as_json && !g.quiet).then(|| RunView::new(ui, planned_total(&project, &a)));
    let heartbeat = view.as_ref().and_then(|v| v.start_heartbeat());
    let progress = |p: &Progress| {
        if let Some(v) = &view {
            if let Progress::Notice(m) = p {
                ui.errln(format_args!("note: {m}"));
            }
            v.show(p, progress_line(ui, p));
        }
    };
    // the run's transitions are mirrored to GitHub when it ends (skipped with one notice
    // when GitHub is not configured; failures go to the outbox, never the exit code)
    let report = run_app::run(&project, &a.feature, &opts, &progress);
    if let Some(v) = &view {
        v.finish(heartbeat);
    }
    let report = report?;
    finish(ui, &report, as_json)
}

/// How many issues this run may work on (the live display's N/M bar): the issues not yet
/// DONE, SKIPPED, SPLIT or BLOCKED and not manual, at most `--max-issues`, 1 with `--issue`.
fn planned_total(project: &crate::app::project::Project, a: &RunArgs) -> u64 {
    use crate::core::stage::Stage;
    if a.issue.is_some() {
        return 1;
    }
    let open = project
        .load_state(&a.feature)
        .ok()
        .flatten()
        .map(|s| {
            s.tasks
                .iter()
                .filter(|t| {
                    !t.is_manual()
                        && !matches!(
                            t.stage(),
                            Stage::Done | Stage::Skipped | Stage::Split | Stage::Blocked
                        )
                })
                .count() as u64
        })
        .unwrap_or(0);
    a.max_issues.map_or(open, |k| open.min(u64::from(k)))
}

/// Prints the summary (or the JSON report) and decides the exit code.
pub fn finish(ui: &Ui, report: &RunReport, as_json: bool) -> CmdResult<u8> {
    if as_json {
        ui.json(&serde_json::to_value(report).unwrap_or_default());
    } else {
        print_summary(ui, report);
    }
    if let Some(msg) = &report.breaker {
        if let Some(why) = msg.strip_prefix("stopped: rate limit: ") {
            // one sentence: what happened and that nothing was lost
            return Err(CommandError::work(format!("the run stopped: {why}")));
        }
        if msg.starts_with("stopped: budget") {
            return Err(CommandError::work(format!("the run {msg}")).with_hint(
                "raise the limit in config.yaml `budgets`; the issues that did not start are as they were",
            ));
        }
        return Err(CommandError::work(format!("the run stopped: {msg}")).with_hint(
            "check that the agent works on its own (installed, logged in, not rate-limited), then run again; the stopped issues are READY",
        ));
    }
    Ok(if report.any_blocked() { 1 } else { 0 })
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(10)]
}

/// One line per progress step (notices go to stderr).
pub fn print_progress(ui: &Ui, p: &Progress) {
    if let Progress::Notice(m) = p {
        ui.errln(format_args!("note: {m}"));
    } else if let Some(line) = progress_line(ui, p) {
        ui.outln(format_args!("{line}"));
    }
}

/// The line for a progress step on stdout (`None`: nothing to print there).
pub fn progress_line(ui: &Ui, p: &Progress) -> Option<String> {
    Some(match p {
        Progress::Started { branch, workers } => format!(
            "run: landing on {} ({workers} worker{})",
            branch
                .as_deref()
                .map(|b| format!("branch {b}"))
                .unwrap_or_else(|| "a detached HEAD".into()),
            if *workers == 1 { "" } else { "s" }
        ),
        Progress::Recovered { issue, owner } => format!(
            "#{issue}: its previous run is gone ({owner}); INTERRUPTED, retrying from a clean worktree"
        ),
        Progress::Claimed {
            issue,
            title,
            attempt,
            resumed,
            ..
        } => format!(
            "#{issue} {title}: started{} (attempt {attempt})",
            if *resumed {
                " again after an interruption"
            } else {
                ""
            }
        ),
        Progress::AgentStarted {
            issue,
            agent,
            mode,
            attempt,
        } => format!("#{issue}: agent {agent} working, {mode}, attempt {attempt}"),
        Progress::AttemptFailed {
            issue,
            attempt,
            reason,
            retrying,
        } => format!(
            "#{issue}: attempt {attempt} failed: {reason}{}",
            if *retrying { "; retrying" } else { "" }
        ),
        Progress::Finished(r) => result_line(ui, r),
        Progress::RateLimited {
            issue,
            agent,
            retry_after_ms,
            workers,
        } => rate_limited_line(*issue, agent, *retry_after_ms, *workers),
        // shown by the live display and the heartbeat, not as lines of their own
        Progress::Phase { .. } | Progress::Notice(_) => return None,
    })
}

/// One line describing how an issue ended.
pub fn result_line(ui: &Ui, r: &IssueResult) -> String {
    let n = r.issue;
    match &r.outcome {
        Outcome::Done {
            commit,
            files_created,
            files_modified,
            tests_passed,
        } => format!(
            "#{n}: {} in commit {} ({} created, {} modified{})",
            ui.paint("DONE", "32"),
            short(commit),
            files_created.len(),
            files_modified.len(),
            tests_passed
                .map(|t| format!("; {t} tests passed"))
                .unwrap_or_default()
        ),
        Outcome::InReview {
            pr,
            branch,
            commit,
            reused,
        } => format!(
            "#{n}: {} in pull request #{pr} ({}branch {branch}, commit {}); DONE once it is merged",
            ui.paint("IN_REVIEW", "35"),
            if *reused { "updated, " } else { "" },
            short(commit)
        ),
        Outcome::AlreadyImplemented {
            check,
            detail,
            commit,
        } => format!(
            "#{n}: already implemented — found by the {check} check ({detail}){}; DONE without calling an agent",
            commit
                .as_deref()
                .map(|c| format!(", commit {}", short(c)))
                .unwrap_or_default()
        ),
        Outcome::Blocked { reason } => format!("#{n}: {}: {reason}", ui.paint("BLOCKED", "31")),
        Outcome::Skipped { reason } => format!("#{n}: SKIPPED: {reason}"),
        Outcome::Stopped { reason } => format!("#{n}: stopped, back to READY: {reason}"),
        Outcome::Lost { reason } => format!("#{n}: {reason}"),
        Outcome::Deferred { depends_on, reason } => {
            format!("#{n}: back to BACKLOG, waits for #{depends_on} first: {reason}")
        }
        Outcome::RateLimited {
            agent,
            retry_after_ms,
            workers,
        } => rate_limited_line(n, agent, *retry_after_ms, *workers),
    }
}

/// A rate-limited attempt: the issue is READY again and every worker waits.
fn rate_limited_line(issue: u32, agent: &str, wait_ms: u64, workers: u32) -> String {
    format!(
        "#{issue}: agent {agent} was rate-limited; no retry used, READY again — all workers wait {:.1} s, then {workers} at once",
        wait_ms as f64 / 1000.0
    )
}

fn print_summary(ui: &Ui, report: &RunReport) {
    if let Some(plan) = &report.plan {
        if plan.steps.is_empty() {
            ui.outln(format_args!(
                "dry run: nothing would run ({})",
                report.nothing_to_do.as_deref().unwrap_or("nothing to do")
            ));
        } else {
            ui.outln(format_args!(
                "dry run: would run, in this order (nothing is written):"
            ));
            for s in &plan.steps {
                let after = if s.after.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", after {}",
                        s.after
                            .iter()
                            .map(|d| format!("#{d}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                let budget = match (s.worst_case_usd, s.spent_usd) {
                    (Some(w), Some(spent)) => format!(
                        ", spent ${spent:.2}, at most ${w:.2} more in {} attempt(s)",
                        s.attempts_left.unwrap_or(0)
                    ),
                    _ => String::new(),
                };
                ui.outln(format_args!(
                    "  #{:<4} {}  [{} {}, attempt {}{}{}{budget}]",
                    s.issue,
                    s.title,
                    s.mode,
                    s.agent,
                    s.attempt,
                    if s.resumed { ", resumed" } else { "" },
                    after
                ));
            }
            if let Some(w) = plan.worst_case_usd {
                ui.outln(format_args!(
                    "  worst case under the budgets: ${w:.2} (if each agent stops at the remaining budget, as Claude Code does with --max-budget-usd)"
                ));
            }
        }
        if !plan.in_progress.is_empty() {
            ui.outln(format_args!(
                "  in progress now (another run, or one that crashed and will be resumed): {}",
                plan.in_progress
                    .iter()
                    .map(|n| format!("#{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        return;
    }
    if let Some(why) = &report.nothing_to_do {
        ui.outln(format_args!("nothing to do: {why}"));
        return;
    }
    let count = |f: fn(&Outcome) -> bool| report.results.iter().filter(|r| f(&r.outcome)).count();
    let done = count(|o| matches!(o, Outcome::Done { .. }));
    let dup = count(|o| matches!(o, Outcome::AlreadyImplemented { .. }));
    let review = count(|o| matches!(o, Outcome::InReview { .. }));
    let blocked = count(|o| matches!(o, Outcome::Blocked { .. }));
    let other = report.results.len() - done - dup - blocked - review;
    let cost: f64 = report.results.iter().filter_map(|r| r.cost_usd).sum();
    let mut parts = vec![format!("{done} implemented")];
    if review > 0 {
        parts.push(format!("{review} in review (pull requests opened)"));
    }
    if dup > 0 {
        parts.push(format!("{dup} already implemented"));
    }
    if blocked > 0 {
        parts.push(format!("{blocked} blocked"));
    }
    if other > 0 {
        parts.push(format!("{other} stopped or skipped"));
    }
    let unknown = report
        .results
        .iter()
        .filter(|r| {
            r.cost_usd.is_none()
                && matches!(r.outcome, Outcome::Done { .. } | Outcome::Blocked { .. })
        })
        .count();
    let known = report.results.iter().any(|r| r.cost_usd.is_some());
    let plural = if unknown == 1 { "" } else { "s" };
    let shown = crate::core::audit::usd(Some(cost));
    match (known, unknown) {
        (true, 0) => parts.push(format!("cost {shown}")),
        (true, n) => parts.push(format!("cost {shown} + unknown for {n} issue{plural}")),
        (false, n) if n > 0 => parts.push("cost unknown".into()),
        _ => {}
    }
    ui.outln(format_args!("run {}: {}", report.feature, parts.join(", ")));
    let blocked: Vec<u32> = report
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Blocked { .. }))
        .map(|r| r.issue)
        .collect();
    if !blocked.is_empty() {
        let f = &report.feature;
        ui.outln(format_args!(
            "next: see why with `swarm-attack audit {f}`, fix the cause, then {} and `swarm-attack run {f}`",
            blocked
                .iter()
                .map(|n| format!("`swarm-attack unblock {f} --issue {n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}
