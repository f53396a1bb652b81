//! One GitHub sync or publish run against one repository: the outbox replayed first, the
//! four labels ensured, every linked issue reconciled (see [`github_reconcile`]), and at the
//! end the cache, the outbox and the events persisted.
//!
//! Request economy: the cache remembers each issue's status comment id, labels, ETag and what
//! was last written, so a sync with nothing to change sends one conditional read per linked
//! issue (GitHub answers `304`) and no write, and a transition costs at most three requests
//! (read, comment edit, one issue update carrying labels and state together).
//!
//! [`github_reconcile`]: crate::github::reconcile

use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::github_plan::plan_labels;
use crate::core::github_status::{Desired, label_spec};
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::github::report::{GithubSyncReport, PlannedRequest};
use crate::io::clock;
use crate::io::file_error::FileError;
use crate::io::github::api::{Api, LabelInfo};
use crate::io::github::cache::{self, SyncCache};
use crate::io::github::client::Client;
use crate::io::github::errors::{FailureKind, GithubError};
use crate::io::github::outbox::{self, OutboxEntry};
use crate::io::github::settings::{self, Settings};
use crate::io::lock::FeatureLock;
use crate::project::Project;
use std::collections::BTreeSet;

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
    feature: &FeatureId,
    dry_run: bool,
) -> CmdResult<FeatureState> {
    let (txn, _) = crate::sync::open_synced(project, feature)?;
    let state = txn.state().clone();
    if dry_run {
        drop(txn);
    } else {
        txn.commit()?;
    }
    Ok(state)
}

/// What a failed request was about.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// `issue`, `labels` or `publish` (the outbox target).
    pub kind: &'static str,
    pub issue: Option<u32>,
    pub github_issue: Option<u64>,
    /// The object, for the sentence ("GitHub issue #4 (issue 2 of `auth`)", "label ...").
    pub what: &'a str,
}

/// One sync or publish run against one repository.
pub struct Session<'p> {
    pub project: &'p Project,
    pub feature: FeatureId,
    pub api: Api,
    pub dry_run: bool,
    pub(crate) cache: SyncCache,
    cache_before: SyncCache,
    /// The outbox as loaded (replayed first).
    pending: Vec<OutboxEntry>,
    /// New failures.
    failed: Vec<OutboxEntry>,
    /// Keys of pending entries that are done.
    done_keys: BTreeSet<(String, Option<u32>, Option<u64>)>,
    pub events: Vec<Event>,
    pub report: GithubSyncReport,
    pub(crate) labels_ready: bool,
    pub(crate) recheck_labels: bool,
    /// Only these GitHub issues (and outbox targets) are synced; empty: all.
    pub only: BTreeSet<u64>,
    _lock: Option<FeatureLock>,
}

impl<'p> Session<'p> {
    pub fn open(
        project: &'p Project,
        feature: &FeatureId,
        settings: Settings,
        dry_run: bool,
    ) -> CmdResult<Session<'p>> {
        let lock = if dry_run {
            None
        } else {
            Some(FeatureLock::acquire(
                &project.ui,
                &project.paths.github_lock_file(feature),
                feature,
                std::time::Duration::from_secs(project.config.sessions.lock_timeout_seconds),
            )?)
        };
        let repo = settings.repo.clone();
        let cache_path = cache::cache_file(&project.paths.cache_dir(), feature);
        let cache = cache::load(&cache_path, &repo, &settings.api_url);
        let (pending, warnings) = outbox::load(&project.paths.outbox_file(feature));
        for w in warnings {
            project.ui.warn(&w);
        }
        let client = Client::new(settings)?;
        Ok(Session {
            project,
            feature: feature.clone(),
            api: Api::new(client),
            dry_run,
            labels_ready: cache.labels_ok,
            cache_before: cache.clone(),
            cache,
            pending,
            failed: Vec::new(),
            done_keys: BTreeSet::new(),
            events: Vec::new(),
            report: GithubSyncReport {
                feature: feature.clone(),
                repo,
                dry_run,
                issues: Vec::new(),
                planned: Vec::new(),
                replayed: 0,
                outbox: Vec::new(),
                errors: Vec::new(),
                reads: 0,
                writes: 0,
                linked: Vec::new(),
            },
            recheck_labels: false,
            only: BTreeSet::new(),
            _lock: lock,
        })
    }

    /// Whether the four labels are known to exist with their colours.
    pub fn labels_ready(&self) -> bool {
        self.labels_ready
    }

    pub(crate) fn token_var(&self) -> &'static str {
        self.api.client.settings.token.source
    }

    /// How many outbox entries were loaded (replayed first).
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Pending outbox entries of one target kind.
    pub fn pending_of(&self, target: &str) -> Vec<OutboxEntry> {
        self.pending
            .iter()
            .filter(|e| e.target == target)
            .cloned()
            .collect()
    }

    pub fn mark_done(&mut self, target: &str, issue: Option<u32>, github_issue: Option<u64>) {
        self.done_keys
            .insert((target.to_string(), issue, github_issue));
    }

    /// Records a failure: fatal ones (the token does not work here) become the command's
    /// error; transient ones go to the outbox; the rest are reported as sentences.
    pub fn failure(
        &mut self,
        t: Target<'_>,
        op: &str,
        write: bool,
        e: &GithubError,
    ) -> CmdResult<()> {
        let Target {
            kind: target,
            issue,
            github_issue,
            what,
        } = t;
        let repo = self.api.repo().to_string();
        let mut sentence = e.sentence(&repo, self.token_var(), what, write);
        if e.kind == FailureKind::NotFound
            && target == "issue"
            && let Some(n) = issue
        {
            sentence.push_str(&format!(
                ": check the `github_issue` of issue {n} in {}",
                self.project
                    .paths
                    .display(&self.project.paths.issues_file(&self.feature))
            ));
        }
        if let (Some(n), Some(g)) = (issue, github_issue) {
            self.events.push(Event::GithubSync {
                issue: n,
                github_issue: g,
                action: op.to_string(),
                success: false,
            });
        }
        self.events.push(Event::GithubError {
            issue,
            op: op.to_string(),
            status: e.status,
            message: sentence.clone(),
        });
        let repo_missing = e.kind == FailureKind::NotFound && target == "labels";
        // every failed write waits in the outbox with its reason (403 included), so
        // `github sync` can say what waits and why; transient failures of reads too
        if e.is_transient() || write {
            let previous = self
                .pending
                .iter()
                .find(|p| p.key() == (target.to_string(), issue, github_issue))
                .cloned();
            self.failed.push(OutboxEntry {
                ts: previous
                    .as_ref()
                    .map(|p| p.ts.clone())
                    .unwrap_or_else(clock::now_rfc3339),
                target: target.to_string(),
                issue,
                github_issue,
                op: op.to_string(),
                request: e.request.clone(),
                status: e.status,
                error: sentence.clone(),
                attempts: previous.map_or(1, |p| p.attempts + 1),
            });
        }
        if e.is_fatal() || repo_missing {
            let msg = if repo_missing {
                format!(
                    "repository {repo} was not found ({}), or the token in {} cannot see it",
                    e.status.map(|s| s.to_string()).unwrap_or_default(),
                    self.token_var()
                )
            } else {
                sentence
            };
            return Err(CommandError::from(e.clone()).with_message(msg));
        }
        if !e.is_transient() {
            self.report.errors.push(sentence);
        }
        Ok(())
    }

    pub(crate) fn plan(
        &mut self,
        req: &crate::io::github::client::Request,
        d: Option<&Desired>,
        action: &str,
    ) {
        self.report.planned.push(PlannedRequest {
            method: req.method.to_string(),
            path: req.path.clone(),
            issue: d.map(|d| d.issue),
            github_issue: d.map(|d| d.github_issue),
            action: action.to_string(),
        });
    }

    pub(crate) fn check_colours(&mut self, labels: &[LabelInfo]) {
        for l in labels {
            if let Some(spec) = label_spec(&l.name)
                && !l.color.eq_ignore_ascii_case(spec.color)
            {
                self.recheck_labels = true;
            }
        }
    }

    /// Makes sure the four labels exist with their colours (before their first use).
    pub fn ensure_labels(&mut self, force: bool) -> CmdResult<()> {
        if self.labels_ready && !force {
            return Ok(());
        }
        let existing = match self.api.list_labels() {
            Ok(l) => l,
            Err(e) => {
                self.labels_ready = false;
                return self.failure(
                    Target {
                        kind: "labels",
                        issue: None,
                        github_issue: None,
                        what: "the labels",
                    },
                    "labels_listed",
                    false,
                    &e,
                );
            }
        };
        let pairs: Vec<(String, String)> =
            existing.into_iter().map(|l| (l.name, l.color)).collect();
        let ops = plan_labels(&pairs, &extra_labels(&self.project.config));
        if self.dry_run {
            for op in &ops {
                let req = self.api.label_request(op);
                self.plan(&req, None, "label");
            }
            self.labels_ready = true;
            return Ok(());
        }
        for op in &ops {
            if let Err(e) = self.api.ensure_label(op) {
                self.labels_ready = false;
                let name = match op {
                    crate::core::github_plan::LabelOp::Create(s)
                    | crate::core::github_plan::LabelOp::Recolor(s) => s.name,
                };
                return self.failure(
                    Target {
                        kind: "labels",
                        issue: None,
                        github_issue: None,
                        what: &format!("label `{name}`"),
                    },
                    "label_created",
                    true,
                    &e,
                );
            }
        }
        self.labels_ready = true;
        self.cache.labels_ok = true;
        self.mark_done("labels", None, None);
        Ok(())
    }

    /// Persists the cache, the outbox and the events (not in a dry run) and returns the
    /// report, or the fatal error.
    pub fn finish(mut self, result: CmdResult<()>) -> CmdResult<GithubSyncReport> {
        let (reads, writes) = self.api.client.counts();
        self.report.reads = reads;
        self.report.writes = writes;
        let failed_keys: BTreeSet<_> = self.failed.iter().map(OutboxEntry::key).collect();
        let mut left: Vec<OutboxEntry> = Vec::new();
        for e in &self.pending {
            let k = e.key();
            if self.done_keys.contains(&k) && !failed_keys.contains(&k) {
                self.report.replayed += 1;
            } else if !failed_keys.contains(&k) {
                left.push(e.clone());
            }
        }
        left.extend(self.failed.iter().cloned());
        self.report.outbox = left;
        if !self.dry_run {
            let outbox_path = self.project.paths.outbox_file(&self.feature);
            outbox::save(&outbox_path, &self.report.outbox)
                .map_err(FileError::at("write", &outbox_path))?;
            let cache_path = cache::cache_file(&self.project.paths.cache_dir(), &self.feature);
            cache::save_if_changed(&cache_path, &self.cache_before, &self.cache)
                .map_err(FileError::at("write", &cache_path))?;
            if !self.events.is_empty() {
                let mut txn = self.project.begin(&self.feature)?;
                *txn.events_mut() = std::mem::take(&mut self.events);
                txn.commit_events_only()?;
            }
        }
        result?;
        Ok(self.report)
    }
}

/// The labels besides the four that this configuration uses (created before their first
/// use): `swarm:in-review` when anything lands through pull requests (`git.landing: pr`, or
/// `gates.risk.landing: pr` with risk routing on), `swarm:needs-info` with the specify gate.
fn extra_labels(config: &crate::io::config::Config) -> Vec<crate::core::github_status::LabelSpec> {
    use crate::core::config::Landing;
    use crate::core::github_status::{IN_REVIEW_LABEL, NEEDS_INFO_LABEL};
    let mut out = Vec::new();
    let risk = &config.gates.risk;
    if config.git.landing == Landing::Pr || (risk.enabled && risk.landing == Landing::Pr) {
        out.push(IN_REVIEW_LABEL);
    }
    if config.gates.specify.enabled {
        out.push(NEEDS_INFO_LABEL);
    }
    out
}
