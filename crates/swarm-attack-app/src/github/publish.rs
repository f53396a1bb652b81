//! `github publish <feature>`: creates a GitHub issue for every task that has none, and
//! records its number in the state (`github_issue`). Idempotent: each issue body carries the
//! hidden marker `<!-- swarm-attack:task <feature>#<N> -->`, and publish looks for it (in
//! open and closed issues) before creating, and again after a failed create, so an issue
//! that GitHub created behind a 502 is found, never created twice.

use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::github_status::task_marker;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::github::report::GithubSyncReport;
use crate::github::session::{Session, Target, settings_or_exit, synced_state};
use crate::io::github::api::IssueInfo;
use crate::io::github::errors::{FailureKind, GithubError};
use crate::project::Project;
use std::collections::BTreeMap;

/// `github publish <feature>`: publish, record, then sync the linked issues (labels and
/// status comments) when `coordination.github_sync_enabled`.
pub fn publish(project: &Project, feature: &FeatureId) -> CmdResult<GithubSyncReport> {
    let settings = settings_or_exit(project)?;
    let state = synced_state(project, feature, false)?;
    let mut session = Session::open(project, feature, settings, false)?;
    let result = (|| -> CmdResult<()> {
        if !session.pending_of("labels").is_empty() {
            session.ensure_labels(true)?;
        }
        let missing: Vec<u32> = state
            .tasks
            .iter()
            .filter(|t| t.github_issue.is_none() && !t.missing_from_issues)
            .map(|t| t.issue_number)
            .collect();
        let state = publish_tasks(&mut session, state, &missing)?;
        if project.config.coordination.github_sync_enabled {
            session.sync_issues(&state)?;
        }
        Ok(())
    })();
    session.finish(result)
}

/// The body of the issue created for a task: its body from issues.json and the marker.
fn issue_body(state: &FeatureState, n: u32) -> String {
    let task = state.task(n);
    let body = task
        .and_then(|t| t.body.as_deref())
        .unwrap_or("")
        .trim_end();
    let marker = task_marker(&state.feature_id, n);
    if body.is_empty() {
        format!(
            "Issue {n} of feature `{}` (swarm-attack).\n\n{marker}\n",
            state.feature_id
        )
    } else {
        format!("{body}\n\n{marker}\n")
    }
}

/// Creates (or finds) the issues of `tasks`, records the links in the state under the
/// feature lock, and returns the updated state.
pub(crate) fn publish_tasks(
    session: &mut Session<'_>,
    state: FeatureState,
    tasks: &[u32],
) -> CmdResult<FeatureState> {
    if tasks.is_empty() {
        return Ok(state);
    }
    session.ensure_labels(false)?;
    let feature = session.feature.clone();
    let existing = match session.api.list_issues(None) {
        Ok(list) => list,
        Err(e) => {
            for n in tasks {
                session.failure(
                    Target {
                        kind: "publish",
                        issue: Some(*n),
                        github_issue: None,
                        what: "the repository's issues",
                    },
                    "published",
                    false,
                    &e,
                )?;
            }
            return Ok(state);
        }
    };
    let mut by_marker = markers(&feature, &existing);
    let mut links: Vec<(u32, u64, bool)> = Vec::new();
    for &n in tasks {
        if let Some(g) = by_marker.get(&n) {
            links.push((n, *g, false));
            session.mark_done("publish", Some(n), None);
            continue;
        }
        let task = state.task(n);
        let title = task
            .map(|t| t.title.trim())
            .filter(|t| !t.is_empty())
            .map(String::from)
            .unwrap_or_else(|| format!("{feature}: issue {n}"));
        let label = task
            .and_then(crate::core::github_status::task_label)
            .filter(|_| session.labels_ready())
            .map(|l| vec![l.to_string()])
            .unwrap_or_default();
        let body = session
            .api
            .client
            .settings
            .token
            .redact(&issue_body(&state, n));
        match create_issue(session, &feature, n, &title, &body, &label, &mut by_marker) {
            Ok((g, created)) => {
                links.push((n, g, created));
                session.mark_done("publish", Some(n), None);
            }
            Err(e) => {
                session.failure(
                    Target {
                        kind: "publish",
                        issue: Some(n),
                        github_issue: None,
                        what: &format!("a new issue for issue {n} of `{feature}`"),
                    },
                    "published",
                    true,
                    &e,
                )?;
            }
        }
    }
    record_links(session, state, &links)
}

fn markers(feature: &FeatureId, issues: &[IssueInfo]) -> BTreeMap<u32, u64> {
    let prefix = format!("<!-- swarm-attack:task {feature}#");
    let mut out = BTreeMap::new();
    // oldest first, so the first issue ever created for a task wins
    for i in issues.iter().rev() {
        let mut rest = i.body.as_str();
        while let Some(pos) = rest.find(&prefix) {
            rest = &rest[pos + prefix.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if rest[digits.len()..].starts_with(" -->")
                && let Ok(n) = digits.parse::<u32>()
            {
                out.entry(n).or_insert(i.number);
            }
        }
    }
    out
}

/// Creates one issue; after a failure that may have been applied it looks for the marker
/// (issues updated in the last ten minutes) before trying again.
fn create_issue(
    session: &mut Session<'_>,
    feature: &FeatureId,
    n: u32,
    title: &str,
    body: &str,
    labels: &[String],
    by_marker: &mut BTreeMap<u32, u64>,
) -> Result<(u64, bool), GithubError> {
    let since = time::OffsetDateTime::now_utc() - time::Duration::minutes(10);
    let since = crate::io::clock::format(since);
    let since = format!("{}Z", &since[..19]);
    let mut last = None;
    for _ in 0..3 {
        match session.api.create_issue(title, body, labels) {
            Ok(info) => return Ok((info.number, true)),
            Err(e) if e.maybe_applied => {
                last = Some(e);
                let recent = session.api.list_issues(Some(&since))?;
                by_marker.extend(markers(feature, &recent));
                if let Some(g) = by_marker.get(&n) {
                    return Ok((*g, true));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| GithubError {
        kind: FailureKind::Server,
        status: None,
        message: "the issue could not be created".into(),
        code: None,
        maybe_applied: true,
        request: String::new(),
    }))
}

/// Writes the links into the state (a task linked meanwhile keeps its link) with their
/// events, under the feature lock.
fn record_links(
    session: &mut Session<'_>,
    _state: FeatureState,
    links: &[(u32, u64, bool)],
) -> CmdResult<FeatureState> {
    let mut txn = session.project.begin(&session.feature)?;
    for (n, g, created) in links {
        let Some(task) = txn.state_mut().task_mut(*n) else {
            continue;
        };
        match task.github_issue {
            None => {
                task.github_issue = Some(*g);
                txn.push_event(Event::GithubSync {
                    issue: *n,
                    github_issue: *g,
                    action: if *created { "published" } else { "linked" }.into(),
                    success: true,
                });
                session.report.linked.push((*n, *g, *created));
            }
            Some(other) if other != *g => session.project.ui.warn(format_args!(
                "issue {n} of `{}` was linked to #{other} meanwhile; #{g} is left as it is",
                session.feature
            )),
            Some(_) => {}
        }
    }
    txn.events_mut().append(&mut session.events);
    let state = txn.state().clone();
    txn.commit()?;
    Ok(state)
}
