//! Duplicate detection before dispatch (docs/run.md "The flow of one issue"): is the issue already
//! implemented?
//!
//! Three checks, each recorded (event `duplicate_detected{issue, git, tests, files}` when
//! one fires; the full result is also saved as `duplicate-check.json` in the attempt
//! folder):
//!
//! - `git`: the checked-out branch has a commit in the tool's own implementing form for
//!   this issue (docs/git-sync.md "The four rules" rules 1–2, reverts honoured). The sync before
//!   the claim already applies the whole git rule (docs/git-sync.md); this check also covers a
//!   commit that landed just before a crash when `auto_sync_from_git` is off.
//! - `files`: the issue lists `files`, every one exists in the fresh worktree (the
//!   branch's content), and at least one was created or changed by a commit after the
//!   feature's first greenlight ([`crate::core::files_rule`]).
//! - `tests`: the issue's `test_file` exists in the worktree and passes (`tests.issue_command`
//!   with `{test_file}` replaced, else `tests.command` + the path).
//!
//! Each check is an object `{"fired": bool, "detail": "..."}`, or `null` when it does not
//! apply (no `files`, no `test_file`) or was not needed (an earlier check fired).

use crate::core::command_line;
use crate::core::commit_message;
use crate::core::files_rule::{self, FilesFinding};
use crate::core::state::{EvidenceRecord, Task};
use crate::error::CmdResult;
use crate::run::RunContext;
use crate::run::verify;
use serde::Serialize;
use std::path::{Component, Path};

/// One check's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Check {
    pub fired: bool,
    pub detail: String,
    /// The commit, for the git check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// All checks for one issue.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct DuplicateReport {
    pub git: Option<Check>,
    pub tests: Option<Check>,
    pub files: Option<Check>,
}

impl DuplicateReport {
    /// The check that fired (`git`, `files`, `tests`) and the evidence to record.
    pub(crate) fn fired(&self) -> Option<(&'static str, EvidenceRecord)> {
        if let Some(c) = self.git.as_ref().filter(|c| c.fired) {
            let source = if c.detail.starts_with("trailers") {
                "trailers"
            } else {
                "subject"
            };
            return Some((
                "git",
                EvidenceRecord {
                    source: source.into(),
                    commit: c.commit.clone(),
                    detail: Some(c.detail.clone()),
                },
            ));
        }
        for (name, c) in [("files", &self.files), ("tests", &self.tests)] {
            if let Some(c) = c.as_ref().filter(|c| c.fired) {
                return Some((
                    name,
                    EvidenceRecord {
                        source: name.into(),
                        commit: None,
                        detail: Some(c.detail.clone()),
                    },
                ));
            }
        }
        None
    }

    pub(crate) fn to_json(c: &Option<Check>) -> serde_json::Value {
        serde_json::to_value(c).unwrap_or(serde_json::Value::Null)
    }
}

/// Runs the checks for `task` against the fresh `worktree`; test output goes to
/// `artifacts/duplicate-tests.log`. `synced`: (the commit the claim's sync read HEAD up
/// to, the worktree's base), when there was such a sync.
pub(crate) fn check(
    ctx: &RunContext<'_>,
    task: &Task,
    since: Option<&str>,
    worktree: &Path,
    artifacts: &Path,
    synced: Option<(&str, &str)>,
) -> CmdResult<DuplicateReport> {
    let mut report = DuplicateReport {
        git: Some(git_check(ctx, task.issue_number, synced)),
        ..Default::default()
    };
    if !task.files.is_empty() {
        let finding = files_finding(ctx, task, since, worktree);
        let (fired, detail) = files_rule::verdict(&task.files, &finding);
        report.files = Some(Check {
            fired,
            detail,
            commit: None,
        });
    }
    let already = report.git.as_ref().is_some_and(|c| c.fired)
        || report.files.as_ref().is_some_and(|c| c.fired);
    if let Some(tf) = task.test_file.as_deref().filter(|_| !already) {
        report.tests = Some(if !safe_exists(worktree, tf) {
            Check {
                fired: false,
                detail: format!("{tf} does not exist"),
                commit: None,
            }
        } else {
            let tests = &ctx.project.config.tests;
            let cmd =
                command_line::with_test_file(&tests.command, tests.issue_command.as_deref(), tf);
            let v = verify::run_command(
                ctx,
                &cmd,
                worktree,
                task.issue_number,
                &artifacts.join("duplicate-tests.log"),
            )?;
            if v.passed && !v.skipped {
                Check {
                    fired: true,
                    detail: format!(
                        "{tf} exists and passes{}",
                        v.counts
                            .passed
                            .map(|p| format!(" ({p} passed)"))
                            .unwrap_or_default()
                    ),
                    commit: None,
                }
            } else {
                Check {
                    fired: false,
                    detail: format!(
                        "{tf} exists but does not pass: {}",
                        v.failure_reason(
                            &tests
                                .issue_command
                                .as_deref()
                                .map(|t| t.replace("{test_file}", tf))
                                .unwrap_or_else(|| format!("{} {tf}", tests.command)),
                            tests.timeout_seconds
                        )
                    ),
                    commit: None,
                }
            }
        });
    }
    let _ = std::fs::create_dir_all(artifacts);
    let _ = crate::io::secrets::write_file(
        artifacts.join("duplicate-check.json"),
        serde_json::to_vec_pretty(&report).unwrap_or_default(),
    );
    Ok(report)
}

/// The files check's finding: which listed files are missing, else which changed after the
/// feature's first greenlight (`since`).
fn files_finding(
    ctx: &RunContext<'_>,
    task: &Task,
    since: Option<&str>,
    worktree: &Path,
) -> FilesFinding {
    let missing: Vec<String> = task
        .files
        .iter()
        .filter(|f| !safe_exists(worktree, f))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return FilesFinding::Missing(missing);
    }
    let Some(base) = since else {
        return FilesFinding::Untouched { base: None };
    };
    match ctx.git.paths_changed_since(worktree, base, &task.files) {
        Ok(changed) if !changed.is_empty() => FilesFinding::Changed(changed),
        _ => FilesFinding::Untouched {
            base: Some(base.to_string()),
        },
    }
}

/// A relative path inside the worktree that exists (absolute paths and `..` never count).
fn safe_exists(root: &Path, rel: &str) -> bool {
    let p = Path::new(rel);
    if rel.is_empty()
        || p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return false;
    }
    root.join(p).exists()
}

/// The git check: an implementing commit for this issue on the checked-out branch.
///
/// With `synced` = (s, base): the claim's sync applied the whole git rule (docs/git-sync.md) to
/// HEAD up to `s` and left the issue undone, so nothing up to `s` has an active implementing
/// commit; only the commits since (`s..base`, landed by other workers meanwhile) are read, instead
/// of grepping the whole history once per issue. A revert among them could restore older evidence,
/// so then the whole branch is read.
fn git_check(ctx: &RunContext<'_>, issue: u32, synced: Option<(&str, &str)>) -> Check {
    let none = || Check {
        fired: false,
        detail: "no implementing commit on the branch".into(),
        commit: None,
    };
    match synced {
        Some((s, base)) if s == base => none(),
        Some((s, base)) => {
            let range = format!("{s}..{base}");
            let reverts_since = ctx
                .git
                .grep_commits(&range, &["This reverts commit"], true)
                .map_or(true, |r| !r.is_empty());
            if reverts_since {
                git_check_in(ctx, issue, "HEAD")
            } else {
                git_check_in(ctx, issue, &range)
            }
        }
        None => git_check_in(ctx, issue, "HEAD"),
    }
}

/// The git check over the commits `rev` names.
fn git_check_in(ctx: &RunContext<'_>, issue: u32, rev: &str) -> Check {
    let needle_subject = format!("implement issue #{issue}");
    let needle_trailer = format!("swarm-issue: {issue}");
    let candidates = match ctx
        .git
        .grep_commits(rev, &[&needle_subject, &needle_trailer], true)
    {
        Ok(c) => c,
        Err(e) => {
            return Check {
                fired: false,
                detail: format!("could not read history: {}", e.message()),
                commit: None,
            };
        }
    };
    let matching: Vec<(String, &'static str)> = candidates
        .iter()
        .filter_map(|(sha, msg)| {
            commit_message::implements(msg, &ctx.feature, issue).map(|how| (sha.clone(), how))
        })
        .collect();
    if matching.is_empty() {
        return Check {
            fired: false,
            detail: "no implementing commit on the branch".into(),
            commit: None,
        };
    }
    let reverts: Vec<(String, String)> = ctx
        .git
        .grep_commits(rev, &["This reverts commit"], true)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(sha, msg)| commit_message::reverted_commit(&msg).map(|t| (sha, t)))
        .collect();
    // oldest first
    for (sha, how) in matching.iter().rev() {
        if commit_message::still_counts(sha, &reverts) {
            return Check {
                fired: true,
                detail: format!("{how}: commit {}", &sha[..sha.len().min(12)]),
                commit: Some(sha.clone()),
            };
        }
    }
    Check {
        fired: false,
        detail: "the implementing commits on the branch were reverted".into(),
        commit: None,
    }
}
