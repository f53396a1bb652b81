//! Test integrity of one attempt (docs/integrity.md; the rules are
//! [`crate::core::integrity`]): what the attempt did to test files, read from its worktree,
//! and `fail_before` — each test file the attempt created or changed run, with the issue
//! test command (docs/run.md "How `tests.command` is run"), in a scratch worktree at the start
//! commit holding only those files of the attempt.
//!
//! Cost: the static checks start no process when the attempt touched no pre-existing test
//! file (new files are read from disk) and one `git diff` otherwise; `fail_before` adds one
//! test run per new or changed test file, in a worker worktree taken from the run's pool.
//! That scratch tree is handed back reset (in the background) at the attempt's own commit
//! when the attempt passed ([`Checked::hand_back_at`]) — the next issue's usual start
//! commit, so its `fail_before` finds the scratch tree ready and resets nothing on its
//! critical path — and at the start commit (a retry's) otherwise.

use crate::core::command_line;
use crate::core::events::Event;
use crate::core::integrity::{self, BaseRun, ChangeKind, Changed, Report, Subject};
use crate::core::unified_diff;
use crate::error::CmdResult;
use crate::io::git::{Change, ChangeKind as GitKind};
use crate::run::stop::Stop;
use crate::run::worktrees::{self, WorkerTree};
use crate::run::{RunContext, verify};
use std::io::Read;
use std::path::Path;
use std::time::Instant;

/// Each new test file's run on the start commit.
pub(crate) type BaseRuns = Vec<(String, BaseRun)>;

/// The most of a new test file read for its lines.
const READ_CAP: u64 = 1 << 20;

/// Where an attempt works.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'a> {
    pub issue: u32,
    /// The attempt's start commit.
    pub base: &'a str,
    pub worktree: &'a Path,
    /// The attempt's folder.
    pub artifacts: &'a Path,
    pub stop: Option<&'a Stop>,
}

/// What the attempt changed, with the added and removed lines of its test files.
pub(crate) fn changed(
    ctx: &RunContext<'_>,
    worktree: &Path,
    base: &str,
    changes: &[Change],
) -> Vec<Changed> {
    let cfg = &ctx.project.config.verify;
    let modified_tests: Vec<String> = changes
        .iter()
        .filter(|c| c.kind == GitKind::Modified && integrity::is_test_file(cfg, &c.path))
        .map(|c| c.path.clone())
        .collect();
    let diffs = ctx
        .git
        .diff_worktree(worktree, base, &modified_tests)
        .map(|d| unified_diff::parse(&d))
        .unwrap_or_default();
    changes
        .iter()
        .map(|c| {
            let kind = match c.kind {
                GitKind::Created => ChangeKind::Created,
                GitKind::Modified => ChangeKind::Modified,
                GitKind::Deleted => ChangeKind::Deleted,
            };
            let mut out = Changed {
                path: c.path.clone(),
                kind,
                added: Vec::new(),
                removed: Vec::new(),
            };
            if integrity::is_test_file(cfg, &c.path) {
                match kind {
                    ChangeKind::Created => {
                        out.added = read_text(&worktree.join(&c.path))
                            .map(|t| unified_diff::all_added(&c.path, &t).added)
                            .unwrap_or_default();
                    }
                    ChangeKind::Modified => {
                        if let Some(d) = diffs.iter().find(|d| d.path == c.path) {
                            out.added = d.added.clone();
                            out.removed = d.removed.clone();
                        }
                    }
                    ChangeKind::Deleted => {}
                }
            }
            out
        })
        .collect()
}

/// A regular file's text (lossy, capped); `None` for a link, a folder or an error.
fn read_text(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() {
        return None;
    }
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(READ_CAP)
        .read_to_end(&mut buf)
        .ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// Runs each of `tests` (paths in the attempt's worktree) on the start commit with only
/// those files added; the runs' logs are `fail-before-<k>.log` in the attempt folder.
/// Empty when no test command is configured (nothing can be judged). Also returns the
/// scratch worktree the runs used (dropped: reset at the start commit).
pub(crate) fn fail_before<'g>(
    ctx: &'g RunContext<'g>,
    spec: &At<'_>,
    tests: &[String],
) -> CmdResult<(BaseRuns, WorkerTree<'g>)> {
    let scratch = worktrees::take(ctx, spec.issue, spec.base)?;
    for t in tests {
        copy_into(&spec.worktree.join(t), &scratch.path.join(t));
    }
    let cfg = &ctx.project.config.tests;
    let mut runs = Vec::new();
    for (k, t) in tests.iter().enumerate() {
        let cmd = command_line::with_test_file(&cfg.command, cfg.issue_command.as_deref(), t);
        let log = spec.artifacts.join(format!("fail-before-{}.log", k + 1));
        let run =
            verify::run_command_stoppable(ctx, &cmd, &scratch.path, spec.issue, &log, spec.stop);
        let r = match run {
            Ok(v) if v.skipped => return Ok((Vec::new(), scratch)),
            Ok(v) => integrity::classify_base_run(v.passed, v.exit_code, &v.output),
            // the program is missing there: cannot run
            Err(_) => BaseRun::CannotRun,
        };
        runs.push((t.clone(), r));
    }
    Ok((runs, scratch))
}

/// Copies one file of the attempt (a link as a link) into the scratch worktree.
fn copy_into(from: &Path, to: &Path) {
    if let Some(dir) = to.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::remove_file(to);
    match std::fs::symlink_metadata(from) {
        Ok(m) if m.file_type().is_symlink() => {
            if let Ok(target) = std::fs::read_link(from) {
                let _ = std::os::unix::fs::symlink(target, to);
            }
        }
        Ok(_) => {
            let _ = std::fs::copy(from, to);
        }
        Err(_) => {}
    }
}

/// What [`finish_checks`] found.
pub(crate) struct Checked<'g> {
    pub report: Report,
    /// For `tests_written`: the runs on the start commit (`None` when `fail_before` did not
    /// run).
    pub runs: Option<BaseRuns>,
    /// The scratch worktree `fail_before` ran in; dropped, it goes back to the pool reset
    /// at the start commit.
    scratch: Option<WorkerTree<'g>>,
}

impl Checked<'_> {
    /// Hands the scratch worktree back reset (in the background) at `commit`, the
    /// attempt's own commit: where the next issue usually starts.
    pub(crate) fn hand_back_at(&mut self, commit: &str) {
        if let Some(s) = self.scratch.take() {
            s.hand_back_at(commit);
        }
    }
}

/// The whole check of an attempt whose tests passed: the static checks' results
/// (`statics`), then `fail_before` when they passed.
pub(crate) fn finish_checks<'g>(
    ctx: &'g RunContext<'g>,
    spec: &At<'_>,
    subject: &Subject<'_>,
    facts: &[Changed],
    statics: Vec<integrity::CheckResult>,
) -> CmdResult<Checked<'g>> {
    let cfg = &ctx.project.config.verify;
    let mut checks = statics;
    if checks.iter().any(|c| !c.passed) {
        checks.push(integrity::CheckResult::skipped(
            integrity::Check::FailBefore,
            "not run: an earlier check failed",
        ));
        return Ok(Checked {
            report: Report::new(checks, None),
            runs: None,
            scratch: None,
        });
    }
    match integrity::fail_before_plan(cfg, subject, facts) {
        integrity::FailBeforePlan::Skip(why) => {
            checks.push(integrity::CheckResult::skipped(
                integrity::Check::FailBefore,
                &why,
            ));
            Ok(Checked {
                report: Report::new(checks, None),
                runs: None,
                scratch: None,
            })
        }
        integrity::FailBeforePlan::Run(tests) => {
            let t0 = Instant::now();
            let (runs, scratch) = fail_before(ctx, spec, &tests)?;
            let ms = t0.elapsed().as_millis() as u64;
            checks.push(integrity::fail_before_result(&runs));
            let runs = (!runs.is_empty()).then_some(runs);
            Ok(Checked {
                report: Report::new(checks, Some(ms)),
                runs,
                scratch: Some(scratch),
            })
        }
    }
}

/// The `integrity_failed` events of a failed report (one per failing kind).
pub(crate) fn failed_events(report: &Report, issue: u32, attempt: u32, agent: &str) -> Vec<Event> {
    report
        .failures()
        .into_iter()
        .map(|f| Event::IntegrityFailed {
            issue,
            attempt,
            agent: agent.to_string(),
            kind: f.kind.as_str().to_string(),
            paths: f.paths.clone(),
            detail: f.detail.clone(),
        })
        .collect()
}

/// Saves `integrity.json` in the attempt folder.
pub(crate) fn save(artifacts: &Path, report: &Report) {
    let _ = std::fs::create_dir_all(artifacts);
    let _ = crate::io::secrets::write_file(
        artifacts.join("integrity.json"),
        serde_json::to_vec_pretty(report).unwrap_or_default(),
    );
}

/// `tests_written` for the files that count (none: no event).
pub(super) fn tests_written(issue: u32, files: &[String]) -> Vec<Event> {
    match files.first() {
        None => Vec::new(),
        Some(first) => vec![Event::TestsWritten {
            issue,
            count: files.len() as u32,
            path: first.clone(),
        }],
    }
}

/// A failed test-integrity check, for the attempt's failure: `integrity.json` saved, the
/// reason, the guidance fed to the retry, and the events (`before`, e.g.
/// `verification_passed`, then one `integrity_failed` per failing kind).
pub(super) fn failure_parts(
    artifacts: &Path,
    (issue, attempt, agent): (u32, u32, &str),
    report: &Report,
    before: Vec<Event>,
) -> (String, String, Vec<Event>) {
    save(artifacts, report);
    let mut pending = before;
    pending.extend(failed_events(report, issue, attempt, agent));
    (report.reason(), report.feedback(), pending)
}
