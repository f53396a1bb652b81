//! `status [<feature>]`: sync from git first, then report one feature or all.

use crate::app::project::Project;
use crate::app::sync::SyncReport;
use crate::core::state::FeatureState;
use crate::error::CmdResult;

#[derive(Debug)]
pub struct FeatureStatus {
    pub state: FeatureState,
    pub sync: SyncReport,
}

/// Syncs and returns the state of one feature (exit 2 if it has none).
pub fn status_one(project: &Project, feature: &str) -> CmdResult<FeatureStatus> {
    let (txn, sync) = crate::app::sync::open_synced(project, feature)?;
    tracing::debug!(
        "status of `{feature}`: state read from {}",
        project.paths.display(&project.paths.state_file(feature))
    );
    let state = txn.state.clone();
    txn.commit()?;
    Ok(FeatureStatus { state, sync })
}

/// Syncs and returns every feature that has a state file.
pub fn status_all(project: &Project) -> CmdResult<Vec<FeatureStatus>> {
    project
        .features()?
        .iter()
        .map(|f| status_one(project, f))
        .collect()
}
