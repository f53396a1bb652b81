//! The GitHub mirror: the finish hook (`crate::project::FinishHook`) that runs after a
//! transaction marked with [`FeatureTxn::mirror_after_commit`] has committed and released
//! the feature lock (greenlight, unblock, a run claiming a linked issue, the end of a run).
//! It is the only place the automatic sync starts from.
//!
//! The mirror never fails the calling command: without a token or repository it gives one
//! notice; failures are warnings (the hook's error is shown as one by the project) and wait
//! in the outbox. It sends nothing when `coordination.github_sync_enabled` is off, or when
//! no task is linked to a GitHub issue and the outbox is empty.
//!
//! [`FeatureTxn::mirror_after_commit`]: crate::project::FeatureTxn::mirror_after_commit

use crate::core::feature_id::FeatureId;
use crate::error::CmdResult;
use crate::github::report::GithubSyncReport;
use crate::github::session::Session;
use crate::io::github::settings;
use crate::io::state_store;
use crate::io::ui::Ui;
use crate::project::Project;

/// The key of the "GitHub sync skipped" notice, shown once per command.
const SKIPPED_NOTICE: &str = "github-sync-skipped";

/// The finish hook: mirrors `feature` to GitHub (see the module docs). Its error (the
/// state could not be read, the sync could not start) is shown as a warning by the caller.
pub fn mirror(ui: &Ui, project: &Project, feature: &FeatureId) -> CmdResult<()> {
    mirror_report(ui, project, feature).map(|_| ())
}

/// [`mirror`], returning what the sync did (None: nothing was sent).
pub(crate) fn mirror_report(
    ui: &Ui,
    project: &Project,
    feature: &FeatureId,
) -> CmdResult<Option<GithubSyncReport>> {
    if !project.config.coordination.github_sync_enabled {
        return Ok(None);
    }
    // nothing to mirror without a state; the state (large for big features) is read only
    // once the GitHub settings are known to be there
    if !project.paths.state_file(feature).exists() {
        return Ok(None);
    }
    let settings = match settings::resolve(&project.config, &project.root) {
        Ok(Ok(s)) => s,
        Ok(Err(missing)) => {
            ui.info_once(
                SKIPPED_NOTICE,
                format_args!(
                    "GitHub sync skipped: missing {} (turn it off with coordination.github_sync_enabled: false)",
                    missing.join(" and ")
                ),
            );
            return Ok(None);
        }
        Err(e) => {
            ui.info_once(SKIPPED_NOTICE, format_args!("GitHub sync skipped: {}", e));
            return Ok(None);
        }
    };
    let load = || state_store::load(&project.paths.state_file(feature));
    let Some(state) = load()? else {
        return Ok(None);
    };
    let state = match crate::pull_reconcile::reconcile_pulls(project, feature, &settings) {
        Ok(closed) if !closed.is_empty() => match load()? {
            Some(s) => s,
            None => return Ok(None),
        },
        Ok(_) => state,
        Err(e) => {
            ui.warn(format_args!("pull requests not read: {}", e.message));
            state
        }
    };
    let pending = project.paths.outbox_file(feature).exists();
    if !pending && !state.tasks.iter().any(|t| t.github_issue.is_some()) {
        return Ok(None);
    }
    let run = || -> CmdResult<GithubSyncReport> {
        let mut session = Session::open(project, feature, settings, false)?;
        let result = session.run_sync(state);
        session.finish(result)
    };
    let report = run()?;
    for e in &report.errors {
        ui.warn(e);
    }
    if !report.outbox.is_empty() {
        ui.warn(format_args!(
            "{} GitHub operation(s) wait in {} (first: {}); run `swarm-attack github sync {feature}` to retry",
            report.outbox.len(),
            project.paths.display(&project.paths.outbox_file(feature)),
            report.outbox[0].error
        ));
    }
    Ok(Some(report))
}
