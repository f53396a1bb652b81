//! Reconciling the linked issues ([`Session::sync_issues`]), each one with a conditional
//! read, the comments only when needed, the pure diff ([`plan_issue`]), then the writes — a status comment is created only after
//! looking for one created behind an earlier failure, and a vanished one is replaced.

use crate::core::events::Event;
use crate::core::github_plan::{IssueOp, IssueState, IssueView, StatusComment, plan_issue};
use crate::core::github_status::{
    Desired, body_digest, desired_all, is_status_comment, is_swarm_label,
};
use crate::core::stage::Stage;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::github::report::IssueReport;
use crate::github::session::{Session, Target};
use crate::io::github::api::{Api, Fetched};
use crate::io::github::cache::{self, Applied};
use crate::io::github::errors::{FailureKind, GithubError};
use std::collections::BTreeSet;

impl Session<'_> {
    /// Brings every linked issue in line (outbox targets first, read fresh).
    pub(crate) fn sync_issues(&mut self, state: &FeatureState) -> CmdResult<()> {
        let close = self.project.config.github.close_on_done;
        let token = self.api.client.settings.token.clone();
        let mut desired = desired_all(state, close, &self.project.config.budgets);
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
            tracing::info!(
                "GitHub #{} (issue {} of `{}`, {}): {}",
                r.github_issue,
                r.issue,
                self.feature,
                r.stage,
                if r.actions.is_empty() {
                    "unchanged".to_string()
                } else {
                    r.actions.join(", ")
                }
            );
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
    pub(crate) fn reconcile(&mut self, d: &Desired, fresh: bool) -> CmdResult<IssueReport> {
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
        let target = || Target {
            kind: "issue",
            issue: Some(d.issue),
            github_issue: Some(g),
            what: &what,
        };
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
                if let (Some(before), Some(now)) = (entry.comments, info.comments)
                    && now < before
                {
                    // a comment was deleted on GitHub, perhaps the status comment: look again
                    entry.comment_id = None;
                    entry.comment_digest = None;
                }
                entry.comments = info.comments;
                entry.labels = info.label_names();
                entry.open = info.open;
                entry.etag = info.etag;
                entry.seen = true;
            }
            Err(e) => {
                report.ok = false;
                self.failure(target(), "issue_read", false, &e)?;
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
                    self.failure(target(), "comments_read", false, &e)?;
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
                self.failure(target(), op.action(), true, &e)?;
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
                    self.failure(target(), op.action(), true, &e)?;
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
                entry.comments = entry.comments.map(|c| c + 1);
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
                entry.comments = entry.comments.map(|c| c.saturating_sub(1));
            }
            IssueOp::UpdateIssue { labels, state } => {
                let resp = self.api.apply_issue_op(g, op)?;
                let mut info = Api::issue_from(&resp);
                if let Some(want) = labels {
                    let lower = |v: &[String]| -> std::collections::BTreeSet<String> {
                        v.iter().map(|l| l.to_lowercase()).collect()
                    };
                    if lower(want) != lower(&info.label_names()) {
                        // The server did not apply `labels` in the issue update (GitHub
                        // does; some proxies and servers don't): set them with the labels
                        // endpoint instead. Costs nothing on GitHub itself.
                        info.labels = self.api.set_labels(g, want)?;
                    }
                }
                self.check_colours(&info.labels);
                entry.labels = info.label_names();
                entry.open = info.open;
                entry.etag = info.etag;
                entry.seen = true;
                if info.comments.is_some() {
                    entry.comments = info.comments;
                }
                match state {
                    Some(IssueState::Closed) => entry.closed_by_swarm = true,
                    Some(IssueState::Open) => entry.closed_by_swarm = false,
                    None => {}
                }
            }
        }
        Ok(())
    }
}
