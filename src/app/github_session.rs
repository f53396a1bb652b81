//! One GitHub sync or publish run against one repository: the outbox replayed first, the
//! four labels ensured, every linked issue reconciled (see [`github_reconcile`]), and at the
//! end the cache, the outbox and the events persisted.
//!
//! Request economy: the cache remembers each issue's status comment id, labels, ETag and what
//! was last written, so a sync with nothing to change sends one conditional read per linked
//! issue (GitHub answers `304`) and no write, and a transition costs at most three requests
//! (read, comment edit, one issue update carrying labels and state together).
//!
//! [`github_reconcile`]: crate::app::github_reconcile

use crate::app::github_sync::{GithubSyncReport, PlannedRequest};
use crate::app::project::Project;
use crate::core::events::Event;
use crate::core::github_plan::plan_labels;
use crate::core::github_status::{Desired, desired_all, label_spec};
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::github::api::{Api, LabelInfo};
use crate::io::github::cache::{self, SyncCache};
use crate::io::github::client::Client;
use crate::io::github::errors::{FailureKind, GithubError};
use crate::io::github::outbox::{self, OutboxEntry};
use crate::io::github::settings::Settings;
use crate::io::lock::FeatureLock;
use crate::io::{clock, notice};
use std::collections::BTreeSet;

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
    pub feature: String,
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
        feature: &str,
        settings: Settings,
        dry_run: bool,
    ) -> CmdResult<Session<'p>> {
        let lock = if dry_run {
            None
        } else {
            Some(FeatureLock::acquire(
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
            notice::warn(&w);
        }
        let client = Client::new(settings).map_err(|e| CommandError::internal(e.message))?;
        Ok(Session {
            project,
            feature: feature.to_string(),
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
                feature: feature.to_string(),
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
            return Err(CommandError::work(msg));
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
        let extra: &[crate::core::github_status::LabelSpec] =
            if self.project.config.git.landing == crate::core::config::Landing::Pr {
                &[crate::core::github_status::IN_REVIEW_LABEL]
            } else {
                &[]
            };
        let ops = plan_labels(&pairs, extra);
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

    /// The sync: outbox first (labels, tasks to publish, issues), then every linked issue.
    pub fn run_sync(&mut self, mut state: FeatureState) -> CmdResult<()> {
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
            state = crate::app::github_publish::publish_tasks(self, state, &to_publish)?;
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

    /// Brings every linked issue in line (outbox targets first, read fresh).
    pub fn sync_issues(&mut self, state: &FeatureState) -> CmdResult<()> {
        let close = self.project.config.github.close_on_done;
        let token = self.api.client.settings.token.clone();
        let mut desired = desired_all(state, close);
        for d in &mut desired {
            d.body = token.redact(&d.body);
        }
        let replay: BTreeSet<u64> = self
            .pending_of("issue")
            .iter()
            .filter_map(|e| e.github_issue)
            .collect();
        // entries whose issue is no longer linked are dropped
        for e in self.pending_of("issue") {
            if !e
                .github_issue
                .is_some_and(|g| desired.iter().any(|d| d.github_issue == g))
            {
                self.mark_done("issue", e.issue, e.github_issue);
            }
        }
        if !self.only.is_empty() {
            desired.retain(|d| {
                self.only.contains(&d.github_issue) || replay.contains(&d.github_issue)
            });
        }
        if desired.is_empty() {
            return Ok(());
        }
        self.ensure_labels(false)?;
        desired.sort_by_key(|d| !replay.contains(&d.github_issue));
        for d in &desired {
            let fresh = replay.contains(&d.github_issue);
            let mut r = self.reconcile(d, fresh)?;
            r.replayed = fresh;
            self.report.issues.push(r);
        }
        if self.recheck_labels && !self.dry_run {
            self.ensure_labels(true)?;
        }
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
                .map_err(|e| CommandError::io("write", &outbox_path, &e))?;
            let cache_path = cache::cache_file(&self.project.paths.cache_dir(), &self.feature);
            cache::save_if_changed(&cache_path, &self.cache_before, &self.cache)
                .map_err(|e| CommandError::io("write", &cache_path, &e))?;
            if !self.events.is_empty() {
                let mut txn = self.project.begin(&self.feature)?;
                txn.events = std::mem::take(&mut self.events);
                txn.commit_events_only()?;
            }
        }
        result?;
        Ok(self.report)
    }
}
