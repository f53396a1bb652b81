//! `status [<feature>]`: sync from git first, then report one feature or all.

use crate::core::feature_id::FeatureId;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::project::Project;
use crate::sync::SyncReport;

#[derive(Debug)]
pub struct FeatureStatus {
    pub state: FeatureState,
    pub sync: SyncReport,
    /// IN_PROGRESS tasks whose owner (a run on this host) is gone: the next `run`
    /// resumes them.
    pub interrupted: Vec<u32>,
}

/// The IN_PROGRESS tasks of `state` whose owning run on this host is no longer alive.
pub(crate) fn owners_gone(project: &Project, state: &FeatureState) -> Vec<u32> {
    use crate::core::owner::{Liveness, Owner};
    use crate::core::stage::Stage;
    use crate::io::run_lock;
    let locks = project.paths.locks_dir();
    let host = run_lock::hostname();
    state
        .tasks
        .iter()
        .filter(|t| t.stage() == &Stage::InProgress)
        .filter(|t| match t.owner.as_deref().and_then(Owner::parse) {
            Some(o) => run_lock::liveness(&locks, &o, &host) == Liveness::Dead,
            None => true,
        })
        .map(|t| t.issue_number)
        .collect()
}

/// Syncs and returns the state of one feature (exit 2 if it has none).
pub fn status_one(project: &Project, feature: &FeatureId) -> CmdResult<FeatureStatus> {
    let (txn, sync) = crate::sync::open_synced(project, feature)?;
    tracing::debug!(
        "status of `{feature}`: state read from {}",
        project.paths.display(&project.paths.state_file(feature))
    );
    let mut state = txn.commit_synced()?;
    // the spend shown is the log's: fold what the saved ledger has not seen yet (read only)
    crate::ledger::refresh(
        &project.paths.events_file(feature),
        &project.config,
        &mut state,
    );
    let interrupted = owners_gone(project, &state);
    Ok(FeatureStatus {
        state,
        sync,
        interrupted,
    })
}

/// Syncs every feature that has a state file; one feature's error (e.g. a corrupt state
/// file) does not hide the others.
pub fn status_all(project: &Project) -> CmdResult<Vec<(FeatureId, CmdResult<FeatureStatus>)>> {
    Ok(project
        .features()?
        .into_iter()
        .map(|f| {
            let s = status_one(project, &f);
            (f, s)
        })
        .collect())
}
