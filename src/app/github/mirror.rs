//! The GitHub mirror: the finish hook ([`crate::app::project::FinishHook`]) that runs after a
//! transaction marked with [`FeatureTxn::mirror_after_commit`] has committed and released
//! the feature lock (greenlight, unblock, a run claiming a linked issue, the end of a run).
//! It is the only place the automatic sync starts from.
//!
//! The mirror never fails the calling command: without a token or repository it gives one
//! notice; failures are warnings and wait in the outbox. It sends nothing when
//! `coordination.github_sync_enabled` is off, or when no task is linked to a GitHub issue
//! and the outbox is empty.
//!
//! [`FeatureTxn::mirror_after_commit`]: crate::app::project::FeatureTxn::mirror_after_commit

use crate::app::github::report::GithubSyncReport;
use crate::app::github::session::Session;
use crate::app::project::Project;
use crate::core::feature_id::FeatureId;
use crate::error::CmdResult;
use crate::io::github::settings;
use crate::io::{notice, state_store};
use std::sync::atomic::{AtomicBool, Ordering};

static SKIPPED_NOTICE: AtomicBool = AtomicBool::new(false);

fn notice_once(msg: &str) {
    if !SKIPPED_NOTICE.swap(true, Ordering::Relaxed) {
        notice::info(msg);
    }
}

/// The finish hook: mirrors `feature` to GitHub (see the module docs).
pub fn mirror(project: &Project, feature: &FeatureId) {
    let _ = mirror_report(project, feature);
}

/// [`mirror`], returning what the sync did (None: nothing was sent or it failed).
pub fn mirror_report(project: &Project, feature: &FeatureId) -> Option<GithubSyncReport> {
    if !project.config.coordination.github_sync_enabled {
        return None;
    }
    // nothing to mirror without a state; the state (large for big features) is read only
    // once the GitHub settings are known to be there
    if !project.paths.state_file(feature).exists() {
        return None;
    }
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
            notice_once(&format!("GitHub sync skipped: {}", e));
            return None;
        }
    };
    let state = state_store::load(&project.paths.state_file(feature)).ok()??;
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
