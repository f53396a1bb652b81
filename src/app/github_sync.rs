//! `github sync <feature> [--dry-run]` and the automatic sync after greenlight/run/unblock:
//! brings each linked issue's `swarm:*` label, status comment and open/closed state in line
//! with the state, replaying the outbox first (SPEC §8, §11). The work is done by
//! [`Session`]; see docs/github.md.
//!
//! Locking: the feature lock is held only to read (and git-sync) the state and, at the end,
//! to append the events and record links; never during a network call. A second lock,
//! `.swarm/locks/github/<feature>.lock`, is held for the whole sync so two processes never
//! create the same status comment or issue at once, and guards the cache and the outbox.

use crate::app::github_session::Session;
use crate::app::project::Project;
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::github::outbox::OutboxEntry;
use crate::io::github::settings::{self, Settings};
use crate::io::{notice, state_store};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// What happened to one linked issue.
#[derive(Debug, Clone, Serialize)]
pub struct IssueReport {
    pub issue: u32,
    pub github_issue: u64,
    pub stage: String,
    pub label: Option<String>,
    /// The writes applied (`comment_created`, `comment_updated`, `labels_set`, `closed`, ...).
    pub actions: Vec<String>,
    pub ok: bool,
    /// Whether it was replayed from the outbox.
    pub replayed: bool,
}

/// One request a dry run would send.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedRequest {
    pub method: String,
    pub path: String,
    pub issue: Option<u32>,
    pub github_issue: Option<u64>,
    pub action: String,
}

/// What a `github sync` (or the sync part of `github publish`) did.
#[derive(Debug, Clone, Serialize)]
pub struct GithubSyncReport {
    pub feature: String,
    pub repo: String,
    pub dry_run: bool,
    pub issues: Vec<IssueReport>,
    /// Dry run: the writes it would send.
    pub planned: Vec<PlannedRequest>,
    /// Outbox entries replayed (and done) by this sync.
    pub replayed: usize,
    /// What is left in the outbox.
    pub outbox: Vec<OutboxEntry>,
    /// One sentence per failure that retrying will not fix (404, 422, ...).
    pub errors: Vec<String>,
    pub reads: usize,
    pub writes: usize,
    /// Issues linked by `github publish` in this run: `(issue, github_issue, created)`.
    pub linked: Vec<(u32, u64, bool)>,
}

impl GithubSyncReport {
    /// 0 when everything is on GitHub; 1 when something failed or waits in the outbox.
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.errors.is_empty() || !self.outbox.is_empty())
    }
}

/// Resolves the GitHub settings; exit 2 naming what is missing.
pub fn settings_or_exit(project: &Project) -> CmdResult<Settings> {
    match settings::resolve(&project.config, &project.root)? {
        Ok(s) => Ok(s),
        Err(missing) => Err(CommandError::input(format!(
            "GitHub is not configured: missing {}",
            missing.join(" and ")
        ))),
    }
}

/// Reads and git-syncs the state under the feature lock (released before any request).
pub(crate) fn synced_state(
    project: &Project,
    feature: &str,
    dry_run: bool,
) -> CmdResult<FeatureState> {
    let mut txn = project.begin(feature)?;
    txn.sync()?;
    let state = txn.state.clone();
    if dry_run {
        drop(txn);
    } else {
        txn.commit()?;
    }
    Ok(state)
}

/// `github sync <feature> [--dry-run]`.
pub fn sync(project: &Project, feature: &str, dry_run: bool) -> CmdResult<GithubSyncReport> {
    project.check_feature(feature)?;
    let settings = settings_or_exit(project)?;
    if !dry_run {
        crate::app::pull_reconcile::reconcile_pulls(project, feature, &settings)?;
    }
    let state = synced_state(project, feature, dry_run)?;
    let mut session = Session::open(project, feature, settings, dry_run)?;
    let result = session.run_sync(state);
    session.finish(result)
}

static AUTO_NOTICE: AtomicBool = AtomicBool::new(false);

fn notice_once(msg: &str) {
    if !AUTO_NOTICE.swap(true, Ordering::Relaxed) {
        notice::info(msg);
    }
}

/// The automatic sync after greenlight/run/unblock (when `coordination.github_sync_enabled`).
/// Never fails the calling command: no token or repository gives one notice; failures are
/// warnings and wait in the outbox. Call it with no feature lock held. Sends nothing when
/// no task is linked to a GitHub issue and the outbox is empty.
pub fn auto_sync(project: &Project, feature: &str) -> Option<GithubSyncReport> {
    if !project.config.coordination.github_sync_enabled {
        return None;
    }
    let state = state_store::load(&project.paths.state_file(feature)).ok()??;
    let settings = match settings::resolve(&project.config, &project.root) {
        Ok(Ok(s)) => s,
        Ok(Err(missing)) => {
            notice_once(&format!(
                "GitHub sync skipped: missing {} (turn it off with coordination.github_sync_enabled: false)",
                missing.join(" and ")
            ));
            return None;
        }
        Err(e) => {
            notice_once(&format!("GitHub sync skipped: {}", e.message));
            return None;
        }
    };
    let state = match crate::app::pull_reconcile::reconcile_pulls(project, feature, &settings) {
        Ok(closed) if !closed.is_empty() => {
            state_store::load(&project.paths.state_file(feature)).ok()??
        }
        Ok(_) => state,
        Err(e) => {
            notice::warn(&format!("pull requests not read: {}", e.message));
            state
        }
    };
    let pending = project.paths.outbox_file(feature).exists();
    if !pending && !state.tasks.iter().any(|t| t.github_issue.is_some()) {
        return None;
    }
    let run = || -> CmdResult<GithubSyncReport> {
        let mut session = Session::open(project, feature, settings, false)?;
        let result = session.run_sync(state);
        session.finish(result)
    };
    match run() {
        Ok(report) => {
            for e in &report.errors {
                notice::warn(e);
            }
            if !report.outbox.is_empty() {
                notice::warn(&format!(
                    "{} GitHub operation(s) wait in {} (first: {}); run `swarm-attack github sync {feature}` to retry",
                    report.outbox.len(),
                    project.paths.display(&project.paths.outbox_file(feature)),
                    report.outbox[0].error
                ));
            }
            Some(report)
        }
        Err(e) => {
            notice::warn(&format!("GitHub sync failed: {}", e.message));
            None
        }
    }
}
