//! `greenlight <feature>`: git sync, then merge issues.json into the state keeping every
//! task's progress; reports the plan. Idempotent.

use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::greenlight::{self, MergeReport};
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::io::issues_file;
use crate::plan::{self, PlannedIssue};
use crate::project::Project;
use crate::sync::SyncReport;

#[derive(Debug)]
pub struct GreenlightOutcome {
    pub merge: MergeReport,
    pub sync: SyncReport,
    pub state: FeatureState,
    /// Whether the state file was (or, in a dry run, would be) written.
    pub changed: bool,
    pub dry_run: bool,
    /// The coordination decision of every READY task.
    pub plan: Vec<PlannedIssue>,
}

pub fn greenlight(
    project: &Project,
    feature: &FeatureId,
    dry_run: bool,
) -> CmdResult<GreenlightOutcome> {
    let issues_path = project.paths.issues_file(feature);
    let doc = issues_file::load(
        &project.ui,
        &issues_path,
        &project.paths.display(&issues_path),
    )?;
    if let Some(id) = doc
        .feature_id
        .as_deref()
        .filter(|id| *id != feature.as_str())
    {
        project.ui.warn(format_args!(
            "{}: `feature_id` is `{id}` but the file belongs to feature `{feature}` (its folder); using `{feature}`",
            project.paths.display(&issues_path)
        ));
    }
    // the summaries the sync fills in, built before the feature lock is taken
    let prepared =
        crate::sync::prepare_summaries(project, feature, crate::sync::Summaries::Linked)?;
    let mut txn = project.begin_or_new(feature)?;
    let merge = greenlight::merge(txn.state_mut(), &doc.issues);

    let sync = crate::sync::sync_txn(&mut txn, &prepared)?;
    if txn.state().first_greenlight_commit().is_none() {
        // the `files` check counts only changes after this commit
        // (docs/run.md "The flow of one issue", duplicate detection)
        let head = sync.head.clone().or_else(|| {
            let (git, _) =
                crate::io::git::Git::open(&project.root, crate::io::git::Hooks::Off, &project.ui)
                    .ok()?;
            git.head(&project.root).ok().flatten()
        });
        if let Some(head) = head {
            txn.state_mut().record_first_greenlight(&head);
        }
    }
    let changed = txn.changed();
    tracing::info!(
        "greenlight `{feature}`: {} issue(s) in {}; added {:?}, kept {:?}, missing {:?}",
        doc.issues.len(),
        project.paths.display(&issues_path),
        merge.added,
        merge.kept,
        merge.missing
    );
    if changed {
        txn.push_event(Event::Greenlight {
            added: merge.added.clone(),
            kept: merge.kept.clone(),
            ready: ready_of(txn.state()),
        });
    }
    let mut state = txn.state().clone();
    if dry_run {
        drop(txn);
    } else {
        txn.commit()?;
        // the specify gate: a held issue whose text changed is scored again
        // (docs/gates.md "The specify gate")
        let notices = crate::gates::rescore_changed(project, feature)?;
        if !notices.is_empty() {
            for n in &notices {
                project.ui.info(n);
            }
            if let Some(s) = project.load_state(feature)? {
                state = s;
            }
        }
    }
    // Decided outside the lock (the llm source may take a while); `agents_selected` only for
    // decisions that differ from the last logged one, so a repeated greenlight appends
    // nothing. A dry run writes nothing.
    let plan = plan::decide_ready(project, feature, &state);
    if !dry_run {
        // the last transaction of a greenlight: mirrored to GitHub once committed
        plan::emit(
            project,
            feature,
            &plan::changed_since_last(project, feature, &plan),
            true,
        )?;
    }
    Ok(GreenlightOutcome {
        merge,
        sync,
        state,
        changed,
        dry_run,
        plan,
    })
}

fn ready_of(state: &FeatureState) -> Vec<u32> {
    state
        .tasks
        .iter()
        .filter(|t| t.stage() == &crate::core::stage::Stage::Ready)
        .map(|t| t.issue_number)
        .collect()
}
