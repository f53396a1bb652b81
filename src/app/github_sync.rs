//! `github sync <feature> [--dry-run]` and the automatic sync after greenlight/run/unblock:
//! brings each linked issue's `swarm:*` label, status comment and open/closed state in line
//! with the state, replaying the outbox first (SPEC §8, §11).
//!
//! Locking: the feature lock is held only to read (and git-sync) the state and, at the end,
//! to append the events and record links; never during a network call. A second lock,
//! `.swarm/locks/github/<feature>.lock`, is held for the whole sync so two processes never
//! create the same status comment or issue at once, and guards the cache and the outbox.
//!
//! Request economy: the cache remembers each issue's status comment id, labels, ETag and what
//! was last written, so a sync with nothing to change sends one conditional read per linked
//! issue (GitHub answers `304`) and no write, and a transition costs at most three requests
//! (read, comment edit, one issue update carrying labels and state together).

use crate::app::project::Project;
use crate::core::events::Event;
use crate::core::github_plan::{IssueOp, IssueView, StatusComment, plan_issue, plan_labels};
use crate::core::github_status::{
    Desired, body_digest, desired_all, is_status_comment, is_swarm_label, label_spec,
};
use crate::core::stage::Stage;
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::github::api::{Api, Fetched, LabelInfo};
use crate::io::github::cache::{self, Applied, SyncCache};
use crate::io::github::client::Client;
use crate::io::github::errors::{FailureKind, GithubError};
use crate::io::github::outbox::{self, OutboxEntry};
use crate::io::github::settings::{self, Settings};
use crate::io::lock::FeatureLock;
use crate::io::{clock, notice, state_store};
use serde::Serialize;
use std::collections::BTreeSet;
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
/// warnings and wait in the outbox. Call it with no feature lock held. Does nothing when
/// no task is linked to a GitHub issue and the outbox is empty.
pub fn auto_sync(project: &Project, feature: &str) -> Option<GithubSyncReport> {
    if !project.config.coordination.github_sync_enabled {
        return None;
    }
    let state = state_store::load(&project.paths.state_file(feature)).ok()??;
    let pending = project.paths.outbox_file(feature).exists();
    if !pending && !state.tasks.iter().any(|t| t.github_issue.is_some()) {
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
            notice_once(&format!("GitHub sync skipped: {}", e.message));
            return None;
        }
    };
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

/// What a failed request was about.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    /// `issue`, `labels` or `publish` (the outbox target).
    pub kind: &'static str,
    pub issue: Option<u32>,
    pub github_issue: Option<u64>,
    /// The object, for the sentence ("GitHub issue #4 (issue 2 of `auth`)", "label ...").
    pub what: &'a str,
}

/// One sync or publish run against one repository.
pub(crate) struct Session<'p> {
    pub project: &'p Project,
    pub feature: String,
    pub api: Api,
    pub dry_run: bool,
    cache: SyncCache,
    cache_before: SyncCache,
    /// The outbox as loaded (replayed first).
    pending: Vec<OutboxEntry>,
    /// New failures.
    failed: Vec<OutboxEntry>,
    /// Keys of pending entries that are done.
    done_keys: BTreeSet<(String, Option<u32>, Option<u64>)>,
    pub events: Vec<Event>,
    pub report: GithubSyncReport,
    labels_ready: bool,
    recheck_labels: bool,
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
                &project
                    .paths
                    .swarm_dir
                    .join("locks")
                    .join("github")
                    .join(format!("{feature}.lock")),
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

    fn token_var(&self) -> &'static str {
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
        if e.is_transient() {
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
                error: sentence,
                attempts: previous.map_or(1, |p| p.attempts + 1),
            });
        } else {
            self.report.errors.push(sentence);
        }
        Ok(())
    }

    fn plan(
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

    fn check_colours(&mut self, labels: &[LabelInfo]) {
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
        let ops = plan_labels(&pairs);
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

    fn what(&self, d: &Desired) -> String {
        format!(
            "GitHub issue #{} (issue {} of `{}`)",
            d.github_issue, d.issue, self.feature
        )
    }

    /// Brings one issue in line with `d`. `fresh` ignores what the cache remembers.
    fn reconcile(&mut self, d: &Desired, fresh: bool) -> CmdResult<IssueReport> {
        let g = d.github_issue;
        let mut report = IssueReport {
            issue: d.issue,
            github_issue: g,
            stage: d.stage.to_string(),
            label: d.label.map(String::from),
            actions: Vec::new(),
            ok: true,
            replayed: false,
        };
        let mut entry = if fresh {
            Default::default()
        } else {
            self.cache.issues.get(&g).cloned().unwrap_or_default()
        };
        if fresh && let Some(old) = self.cache.issues.get(&g) {
            entry.closed_by_swarm = old.closed_by_swarm;
        }
        let wanted = Applied {
            label: d.label.map(String::from),
            digest: body_digest(&d.body),
            close: d.close,
        };
        let what = self.what(d);
        let etag = entry.etag.clone().filter(|_| entry.seen);
        match self.api.get_issue(g, etag.as_deref()) {
            Ok(Fetched::NotModified) => {
                if entry.applied.as_ref() == Some(&wanted) {
                    if fresh {
                        self.mark_done("issue", Some(d.issue), Some(g));
                    }
                    return Ok(report);
                }
            }
            Ok(Fetched::Fresh(info)) => {
                self.check_colours(&info.labels);
                entry.labels = info.label_names();
                entry.open = info.open;
                entry.etag = info.etag;
                entry.seen = true;
            }
            Err(e) => {
                report.ok = false;
                self.failure(
                    Target {
                        kind: "issue",
                        issue: Some(d.issue),
                        github_issue: Some(g),
                        what: &what,
                    },
                    "issue_read",
                    false,
                    &e,
                )?;
                return Ok(report);
            }
        }
        if entry.open && d.stage != Stage::Done {
            entry.closed_by_swarm = false;
        }
        let comments = match (entry.comment_id, &entry.comment_digest) {
            (Some(id), Some(digest)) => vec![StatusComment {
                id,
                digest: digest.clone(),
            }],
            _ => match self.status_comments(g) {
                Ok(c) => c,
                Err(e) => {
                    report.ok = false;
                    self.cache.issues.insert(g, entry);
                    self.failure(
                        Target {
                            kind: "issue",
                            issue: Some(d.issue),
                            github_issue: Some(g),
                            what: &what,
                        },
                        "comments_read",
                        false,
                        &e,
                    )?;
                    return Ok(report);
                }
            },
        };
        if let Some(first) = comments.first() {
            entry.comment_id = Some(first.id);
            entry.comment_digest = Some(first.digest.clone());
        }
        let view = IssueView {
            labels: entry.labels.clone(),
            open: entry.open,
            status_comments: comments,
            closed_by_swarm: entry.closed_by_swarm,
        };
        let ops = plan_issue(d, &view);
        if self.dry_run {
            for op in &ops {
                let req = self.api.issue_request(g, op);
                self.plan(&req, Some(d), op.action());
            }
            return Ok(report);
        }
        let mut all_ok = true;
        for op in &ops {
            if let IssueOp::UpdateIssue {
                labels: Some(l), ..
            } = op
                && !self.labels_ready
                && l.iter().any(|x| is_swarm_label(x))
            {
                // never let GitHub auto-create a swarm label without its colour
                let e = GithubError {
                    kind: FailureKind::Deferred,
                    status: None,
                    message: String::new(),
                    code: None,
                    maybe_applied: false,
                    request: self.api.issue_request(g, op).describe(),
                };
                self.failure(
                    Target {
                        kind: "issue",
                        issue: Some(d.issue),
                        github_issue: Some(g),
                        what: &what,
                    },
                    op.action(),
                    true,
                    &e,
                )?;
                all_ok = false;
                break;
            }
            match self.apply(d, op, &mut entry) {
                Ok(()) => {
                    report.actions.push(op.action().to_string());
                    self.events.push(Event::GithubSync {
                        issue: d.issue,
                        github_issue: g,
                        action: op.action().to_string(),
                        success: true,
                    });
                }
                Err(e) => {
                    all_ok = false;
                    self.cache.issues.insert(g, entry.clone());
                    self.failure(
                        Target {
                            kind: "issue",
                            issue: Some(d.issue),
                            github_issue: Some(g),
                            what: &what,
                        },
                        op.action(),
                        true,
                        &e,
                    )?;
                    break;
                }
            }
        }
        report.ok = all_ok;
        entry.applied = all_ok.then_some(wanted);
        if all_ok {
            self.mark_done("issue", Some(d.issue), Some(g));
        }
        self.cache.issues.insert(g, entry);
        Ok(report)
    }

    /// The status comments of an issue, oldest first.
    fn status_comments(&mut self, g: u64) -> Result<Vec<StatusComment>, GithubError> {
        Ok(self
            .api
            .list_comments(g)?
            .into_iter()
            .filter(|c| is_status_comment(&c.body))
            .map(|c| StatusComment {
                id: c.id,
                digest: body_digest(&c.body),
            })
            .collect())
    }

    /// Creates the status comment, looking first for one created behind an earlier failure.
    fn create_comment(&mut self, g: u64, body: &str) -> Result<(u64, String), GithubError> {
        let op = IssueOp::CreateComment {
            body: body.to_string(),
        };
        let mut last = None;
        for _ in 0..3 {
            match self.api.apply_issue_op(g, &op) {
                Ok(resp) => return Ok((resp.body["id"].as_u64().unwrap_or(0), body_digest(body))),
                Err(e) if e.maybe_applied => {
                    last = Some(e);
                    if let Some(c) = self.status_comments(g)?.into_iter().next() {
                        return Ok((c.id, c.digest));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| GithubError {
            kind: FailureKind::Server,
            status: None,
            message: "the comment could not be created".into(),
            code: None,
            maybe_applied: true,
            request: String::new(),
        }))
    }

    fn apply(
        &mut self,
        d: &Desired,
        op: &IssueOp,
        entry: &mut cache::IssueCache,
    ) -> Result<(), GithubError> {
        let g = d.github_issue;
        match op {
            IssueOp::CreateComment { body } => {
                let (id, digest) = self.create_comment(g, body)?;
                entry.comment_id = Some(id);
                entry.comment_digest = Some(digest.clone());
                if digest != body_digest(body) {
                    self.api.apply_issue_op(
                        g,
                        &IssueOp::UpdateComment {
                            comment_id: id,
                            body: body.clone(),
                        },
                    )?;
                    entry.comment_digest = Some(body_digest(body));
                }
            }
            IssueOp::UpdateComment { body, .. } => {
                match self.api.apply_issue_op(g, op) {
                    Ok(_) => {}
                    Err(e) if e.kind == FailureKind::NotFound => {
                        // the comment was deleted: use another status comment, or create one
                        entry.comment_id = None;
                        entry.comment_digest = None;
                        match self.status_comments(g)?.into_iter().next() {
                            Some(c) => {
                                self.api.apply_issue_op(
                                    g,
                                    &IssueOp::UpdateComment {
                                        comment_id: c.id,
                                        body: body.clone(),
                                    },
                                )?;
                                entry.comment_id = Some(c.id);
                            }
                            None => {
                                let (id, _) = self.create_comment(g, body)?;
                                entry.comment_id = Some(id);
                            }
                        }
                    }
                    Err(e) => return Err(e),
                }
                entry.comment_digest = Some(body_digest(body));
            }
            IssueOp::DeleteComment { .. } => {
                self.api.apply_issue_op(g, op)?;
            }
            IssueOp::UpdateIssue { state, .. } => {
                let resp = self.api.apply_issue_op(g, op)?;
                let info = Api::issue_from(&resp);
                self.check_colours(&info.labels);
                entry.labels = info.label_names();
                entry.open = info.open;
                entry.etag = info.etag;
                entry.seen = true;
                match state {
                    Some(crate::core::github_plan::IssueState::Closed) => {
                        entry.closed_by_swarm = true
                    }
                    Some(crate::core::github_plan::IssueState::Open) => {
                        entry.closed_by_swarm = false
                    }
                    None => {}
                }
            }
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
