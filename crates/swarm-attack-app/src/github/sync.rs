//! `github sync <feature> [--dry-run]`, and the sync the GitHub mirror runs after a
//! transaction: brings each linked issue's `swarm:*` label, status comment and open/closed
//! state in line with the state, replaying the outbox first (docs/github.md "How a sync runs"). See
//! docs/github.md.
//!
//! Locking: the feature lock is held only to read (and git-sync) the state before the first
//! request and, after the last, to append the events (and record links); never during a
//! network call. A second lock, `.swarm/locks/github/<feature>.lock`, is held for the whole
//! sync so two processes never create the same status comment or issue at once, and guards
//! the cache and the outbox.

use crate::core::feature_id::FeatureId;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::github::publish::publish_tasks;
use crate::github::report::GithubSyncReport;
use crate::github::session::{Session, settings_or_exit, synced_state};
use crate::project::Project;

/// `github sync <feature> [--dry-run]`.
pub fn sync(project: &Project, feature: &FeatureId, dry_run: bool) -> CmdResult<GithubSyncReport> {
    let settings = settings_or_exit(project)?;
    if !dry_run {
        crate::pull_reconcile::reconcile_pulls(project, feature, &settings)?;
    }
    let state = synced_state(project, feature, dry_run)?;
    let mut session = Session::open(project, feature, settings, dry_run)?;
    let result = session.run_sync(state);
    session.finish(result)
}

impl Session<'_> {
    /// The sync: outbox first (labels, tasks to publish, issues), then every linked issue.
    pub(crate) fn run_sync(&mut self, mut state: FeatureState) -> CmdResult<()> {
        tracing::info!(
            "GitHub sync of `{}` → {}: {} linked issue(s), {} outbox entr(ies) to replay",
            self.feature,
            self.api.repo(),
            state
                .tasks
                .iter()
                .filter(|t| t.github_issue.is_some())
                .count(),
            self.pending_count()
        );
        if !self.pending_of("labels").is_empty() {
            self.ensure_labels(true)?;
        }
        let to_publish: Vec<u32> = self
            .pending_of("publish")
            .iter()
            .filter_map(|e| e.issue)
            .filter(|n| state.task(*n).is_some_and(|t| t.github_issue.is_none()))
            .collect();
        if !to_publish.is_empty() {
            state = publish_tasks(self, state, &to_publish)?;
        }
        for e in self.pending_of("publish") {
            // linked meanwhile (by hand or by another run): nothing to replay
            if e.issue
                .and_then(|n| state.task(n))
                .is_some_and(|t| t.github_issue.is_some())
            {
                self.mark_done("publish", e.issue, None);
            }
        }
        self.sync_issues(&state)
    }
}
