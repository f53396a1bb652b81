//! Git sync (docs/git-sync.md "The four rules"): before `greenlight`, `status`, `run` and the
//! Action do anything, the state is brought in line with the commits on the configured refs.

use crate::core::events::Event;
use crate::core::evidence::{self, EvidenceRule};
use crate::core::feature_id::FeatureId;
use crate::core::ledger;
use crate::core::state::{FeatureState, Task};
use crate::error::{CmdResult, CommandError};
use crate::io::history::{self, PendingCache};
use crate::io::state_store::StateId;
use crate::project::{FeatureTxn, Project};
use std::path::PathBuf;

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SyncReport {
    /// Tasks that became DONE from git evidence.
    pub synced_issues: Vec<u32>,
    /// DONE tasks that lost all evidence to reverts and returned to READY.
    pub reverted_issues: Vec<u32>,
    pub commits_scanned: u64,
    pub head: Option<String>,
    /// Set when the repository is a shallow clone (history incomplete).
    pub shallow: bool,
    /// Warnings for the user (e.g. the shallow clone notice).
    pub warnings: Vec<String>,
    /// Whether the whole history was read (no cache, changed rule, rewritten history).
    pub full_rescan: bool,
    /// The history cache to write when the transaction commits (`FeatureTxn::commit`).
    pub history_cache: Option<PendingCache>,
}

/// The history cache file of a feature.
pub(crate) fn history_cache_path(project: &Project, feature: &FeatureId) -> PathBuf {
    project
        .paths
        .cache_dir()
        .join("history")
        .join(format!("{feature}.json"))
}

/// The shallow-clone warning.
pub(crate) fn shallow_warning(root: &std::path::Path) -> String {
    format!(
        "{} is a shallow clone: the git history is incomplete, so issues implemented in commits that are not there are not seen as DONE; run `git fetch --unshallow` (in GitHub Actions, check out with `fetch-depth: 0`)",
        root.display()
    )
}

/// The DONE tasks whose missing summaries a command fills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Summaries {
    /// The ones linked to a GitHub issue (their status comment shows them): every sync.
    Linked,
    /// All of them (a prompt shows them): `prompt` and `run`'s claim.
    All,
}

impl Summaries {
    fn wants(self, task: &Task) -> bool {
        self == Summaries::All || task.github_issue.is_some()
    }
}

/// Begins a transaction on an existing feature (exit 2 when it has no state) and syncs it
/// from git: the start of every command that reads or changes a feature.
pub(crate) fn open_synced<'p>(
    project: &'p Project,
    feature: &FeatureId,
) -> CmdResult<(FeatureTxn<'p>, SyncReport)> {
    open_synced_for(project, feature, Summaries::Linked)
}

/// [`open_synced`], filling in the summaries `wanted` (built before the feature lock is
/// taken when they may ask `llm.command`, see [`prepare_summaries`]).
pub(crate) fn open_synced_for<'p>(
    project: &'p Project,
    feature: &FeatureId,
    wanted: Summaries,
) -> CmdResult<(FeatureTxn<'p>, SyncReport)> {
    let prepared = prepare_summaries(project, feature, wanted)?;
    let mut txn = project.begin(feature)?;
    let report = sync_only(&mut txn)?;
    if wanted == Summaries::All || txn.project().config.coordination.auto_sync_from_git {
        crate::summary::apply(project, feature, &prepared, txn.state_mut(), |t| {
            wanted.wants(t)
        });
    }
    Ok((txn, report))
}

/// The summaries `wanted` of `feature` as its next sync will leave it, built with no feature
/// lock held (nothing when they cannot ask `llm.command`: they are then built from the
/// commits under the lock). A look at the state synced in memory under the lock, released
/// before any summary is built; nothing is written.
pub(crate) fn prepare_summaries(
    project: &Project,
    feature: &FeatureId,
    wanted: Summaries,
) -> CmdResult<crate::summary::Prepared> {
    if !crate::summary::asks_llm(project) || !project.paths.state_file(feature).exists() {
        return Ok(Default::default());
    }
    let state = {
        let Ok(mut peek) = project.begin(feature) else {
            return Ok(Default::default());
        };
        sync_only(&mut peek)?;
        peek.into_state()
    };
    Ok(crate::summary::prepare(project, feature, &state, |t| {
        wanted.wants(t)
    }))
}

/// Syncs an open transaction from git when `coordination.auto_sync_from_git` is on (else
/// only readiness is recomputed), then fills in the missing semantic summaries of the DONE
/// tasks linked to a GitHub issue (their status comment shows them; the others are built
/// when a prompt needs them, see [`crate::summary`]) from `prepared`, made by
/// [`prepare_summaries`] before the transaction began. The history cache is written when
/// the transaction commits.
pub(crate) fn sync_txn(
    txn: &mut FeatureTxn<'_>,
    prepared: &crate::summary::Prepared,
) -> CmdResult<SyncReport> {
    let report = sync_only(txn)?;
    if txn.project().config.coordination.auto_sync_from_git {
        let (project, feature) = (txn.project(), txn.feature().clone());
        crate::summary::apply(project, &feature, prepared, txn.state_mut(), |t| {
            Summaries::Linked.wants(t)
        });
    }
    Ok(report)
}

/// [`sync_txn`] without the summaries.
fn sync_only(txn: &mut FeatureTxn<'_>) -> CmdResult<SyncReport> {
    if !txn.project().config.coordination.auto_sync_from_git {
        crate::core::readiness::recompute(txn.state_mut());
        return Ok(Default::default());
    }
    // the file's identity stands for the state only while nothing changed it in memory
    // (e.g. `greenlight` merges issues.json before syncing)
    let loaded = if txn.changed() {
        None
    } else {
        txn.loaded_id().copied()
    };
    let (project, feature) = (txn.project(), txn.feature().clone());
    let (state, events) = txn.state_and_events();
    let mut report = sync_feature(project, &feature, state, loaded.as_ref(), events)?;
    txn.set_history_cache(report.history_cache.take());
    Ok(report)
}

/// The rule for one feature: its links (rule 3) come from the tasks' `github_issue`.
pub(crate) fn build_rule(project: &Project, state: &FeatureState) -> CmdResult<EvidenceRule> {
    let done_patterns =
        evidence::compile_patterns(&project.config.git.done_patterns).map_err(|e| {
            CommandError::input(format!(
                "{}: git.done_patterns[{}] {}",
                project.config_path.display(),
                e.index,
                e.message
            ))
            .with_hint(
                "fix or remove the pattern; it is a regex with named groups `feature` and `issue`",
            )
        })?;
    let links: std::collections::BTreeMap<u32, u64> = state
        .tasks
        .iter()
        .filter_map(|t| Some((t.issue_number, t.github_issue?)))
        .collect();
    // `owner/repo#G` needs this repository's name only when a task is linked
    let repo = if links.is_empty() {
        None
    } else {
        crate::io::repo_id::resolve(&project.config, &project.root)
    };
    Ok(EvidenceRule {
        feature: state.feature_id.clone(),
        links,
        repo,
        done_patterns,
    })
}

/// Syncs `state` from git history: tasks with active evidence become DONE (evidence and
/// commit recorded), DONE tasks whose evidence was all reverted return to READY (event
/// `state_reverted`), then readiness is recomputed. Appends the events to emit to `events`
/// (`git_sync` only when commits were scanned or something changed).
///
/// The history cache (what was scanned, per ref) is returned in
/// [`SyncReport::history_cache`] and written when the feature transaction commits, so a
/// dry run writes nothing.
///
/// `loaded` is the identity of the state file `state` was loaded from, still unchanged:
/// when the history cache names that file as in line with the history and no new commit
/// carries evidence or a revert, the ledger is neither read nor applied (it would change
/// nothing). Called with the feature lock held (by [`sync_only`], in a transaction).
fn sync_feature(
    project: &Project,
    feature: &FeatureId,
    state: &mut FeatureState,
    loaded: Option<&StateId>,
    events: &mut Vec<Event>,
) -> CmdResult<SyncReport> {
    let rule = build_rule(project, state)?;
    tracing::debug!(
        "git sync of `{}`: refs {:?}, done patterns {:?}, linked issues {:?}",
        state.feature_id,
        project.config.git.sync_refs,
        project.config.git.done_patterns,
        rule.links
    );
    let cache_path = history_cache_path(project, feature);
    let cached = history::load_cache(&cache_path);
    let outcome = history::scan(
        &project.root,
        &project.config.git.sync_refs,
        &rule,
        cached,
        loaded,
    )?;

    let applied = match &outcome.ledger {
        Some(l) => ledger::apply(state, &l.by_issue()),
        // the state is one a sync left in line with this evidence: nothing to apply
        None => Default::default(),
    };
    // always: readiness also follows `git.stack`, which is in neither the state file nor
    // the rule (and it is cheap)
    crate::core::readiness::recompute(state);

    let mut warnings = outcome.warnings;
    if outcome.shallow {
        warnings.push(shallow_warning(&project.root));
    }
    let report = SyncReport {
        synced_issues: applied.synced.clone(),
        reverted_issues: applied.reverted.iter().map(|(n, _)| *n).collect(),
        commits_scanned: outcome.commits_scanned,
        head: outcome.head,
        shallow: outcome.shallow,
        warnings,
        full_rescan: outcome.full_rescan,
        history_cache: outcome.cache.map(|cache| PendingCache {
            path: cache_path,
            cache,
        }),
    };
    tracing::info!(
        "git sync of `{}`: {} commit(s) scanned{}, head {}; DONE from git: {:?}; reverted: {:?}",
        state.feature_id,
        report.commits_scanned,
        if report.full_rescan {
            " (whole history)"
        } else {
            " (since the cached tips)"
        },
        report.head.as_deref().unwrap_or("none"),
        report.synced_issues,
        report.reverted_issues
    );
    for (issue, commit) in &applied.reverted {
        events.push(Event::StateReverted {
            issue: *issue,
            commit: commit.clone(),
        });
    }
    if report.commits_scanned > 0
        || !report.synced_issues.is_empty()
        || !report.reverted_issues.is_empty()
    {
        events.push(Event::GitSync {
            synced_issues: report.synced_issues.clone(),
            reverted_issues: report.reverted_issues.clone(),
            commits_scanned: report.commits_scanned,
            head: report.head.clone(),
        });
    }
    Ok(report)
}
