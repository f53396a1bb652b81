//! Reading back the pull requests `git.landing: pr` opened (docs/github.md "Pull requests"): the
//! first sync that reads GitHub after one was merged or closed records `pr_closed{issue, pr,
//! merged}`. A merged pull request needs nothing more here — its commit makes the task DONE through
//! the git rule once the merge is in the synced history (merge commit, squash and rebase all keep
//! the rule-1 subject or the trailers). A pull request closed unmerged returns an IN_REVIEW task to
//! READY, with the reason (and the last comment by a user with write access) fed into the next
//! attempt's prompt, and that comment recorded as a `pr_feedback` lesson (docs/learning.md). With
//! `git.stack`, the open pull requests stacked on a merged one's branch are retargeted to
//! `git.base_branch` (GitHub does this by itself only when the merged branch is deleted; a stacked
//! pull request left on a merged branch would merge into that branch, not the base).

use crate::core::commit_message::neutralise;
use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::github_status::is_status_comment;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::error::{CmdResult, CommandError};
use crate::io::github::api::Api;
use crate::io::github::client::Client;
use crate::io::github::settings::Settings;
use crate::project::Project;

/// What a reconcile found, per issue: `(issue, pr, merged)`.
pub type Closed = Vec<(u32, u64, bool)>;

/// Reads every recorded, still-open pull request of `feature` and records the ones that
/// ended. Sends one GET per such pull request (and one comment listing per unmerged close);
/// nothing when no task waits on a pull request.
pub fn reconcile_pulls(
    project: &Project,
    feature: &FeatureId,
    settings: &Settings,
) -> CmdResult<Closed> {
    let waiting: Vec<(u32, u64)> =
        match crate::io::state_store::load(&project.paths.state_file(feature)) {
            Ok(Some(s)) => s
                .tasks
                .iter()
                .filter(|t| t.pull_request_state.is_none())
                .filter_map(|t| Some((t.issue_number, t.pull_request?)))
                .collect(),
            _ => Vec::new(),
        };
    if waiting.is_empty() {
        return Ok(Vec::new());
    }
    let client = Client::new(settings.clone())?;
    let mut api = Api::new(client);
    let mut ended = Vec::new();
    for (issue, pr) in waiting {
        let info = api.get_pull(pr).map_err(|e| {
            let what = format!("pull request #{pr}");
            CommandError::github(e, &settings.repo, settings.token.source, &what, false)
        })?;
        if info.state != "closed" {
            continue;
        }
        let comments = if info.merged {
            Vec::new()
        } else {
            api.list_comments(pr).unwrap_or_default()
        };
        // the last comment by a user with write access: fed to the next attempt, and a
        // `pr_feedback` lesson (docs/learning.md "Lessons"); a comment by anyone else is neither
        let writer = if info.merged {
            None
        } else {
            writer_feedback(&mut api, &comments, &project.config.github.bot_login)
        };
        let reviewer = writer.as_ref().map(|(_, body)| neutralise(body));
        let feedback = writer.filter(|_| project.config.lessons.enabled);
        if info.merged && project.config.git.stack {
            retarget_stacked(
                &mut api,
                settings,
                &info.head_ref,
                &project.config.git.base_branch,
            )?;
        }
        ended.push((issue, pr, info.merged, reviewer, feedback));
    }
    if ended.is_empty() {
        return Ok(Vec::new());
    }
    let mut txn = project.begin(feature)?;
    let mut out = Vec::new();
    let mut lessons = Vec::new();
    for (issue, pr, merged, reviewer, feedback) in ended {
        let Some(t) = txn.state_mut().task_mut(issue) else {
            continue;
        };
        if t.pull_request != Some(pr) || t.pull_request_state.is_some() {
            continue;
        }
        if let Some((author, body)) = feedback {
            lessons.push((t.clone(), pr, author, body));
        }
        t.pull_request_state = Some(if merged { "merged" } else { "closed" }.into());
        if !merged && t.stage() == &Stage::InReview {
            let mut reason = format!("pull request #{pr} was closed without merging");
            if let Some(r) = reviewer {
                reason.push_str(&format!("; the reviewer's last comment:\n{r}"));
            }
            let _ = t.close_review(reason);
        }
        txn.push_event(Event::PrClosed { issue, pr, merged });
        out.push((issue, pr, merged));
    }
    readiness::recompute(txn.state_mut());
    txn.commit()?;
    for (task, pr, author, body) in lessons {
        match crate::lessons::pr_feedback(project, feature, &task, pr, &author, &body) {
            Ok(l) => tracing::info!("pull request #{pr}: lesson {} recorded (pr_feedback)", l.id),
            Err(e) => project.ui.warn(format_args!(
                "pull request #{pr}: the reviewer's comment was not recorded as a lesson: {}",
                e.message
            )),
        }
    }
    Ok(out)
}

/// The last comment (author, text) on a closed pull request written by a user with write
/// access: `author_association` OWNER, MEMBER or COLLABORATOR, or else a permission of
/// write, maintain or admin (docs/action.md "What each event does"). The tool's own comments
/// (status comments, its bot) are not feedback; a comment whose author's access cannot be read is
/// never trusted.
fn writer_feedback(
    api: &mut Api,
    comments: &[crate::io::github::api::CommentInfo],
    bot_login: &str,
) -> Option<(String, String)> {
    use crate::core::prompt::sanitize::is_trusted_association;
    for c in comments.iter().rev() {
        if is_status_comment(&c.body)
            || c.body.trim().is_empty()
            || c.author.is_empty()
            || c.author.eq_ignore_ascii_case(bot_login)
        {
            continue;
        }
        let writer = is_trusted_association(&c.association)
            || api
                .permission(&c.author)
                .is_ok_and(|p| crate::core::action::permission_grants_write(&p));
        if writer {
            return Some((c.author.clone(), c.body.trim().to_string()));
        }
    }
    None
}

/// Retargets the open pull requests based on `merged_branch` to `base` (before the merge is
/// recorded, so a failure is retried by the next sync).
fn retarget_stacked(
    api: &mut Api,
    settings: &Settings,
    merged_branch: &str,
    base: &str,
) -> CmdResult<()> {
    let err =
        |e, what: &str| CommandError::github(e, &settings.repo, settings.token.source, what, true);
    let stacked = api
        .open_pulls_into(merged_branch)
        .map_err(|e| err(e, &format!("the pull requests based on `{merged_branch}`")))?;
    for p in stacked.iter().filter(|p| p.base_ref != base) {
        api.retarget_pull(p.number, base)
            .map_err(|e| err(e, &format!("pull request #{}", p.number)))?;
    }
    Ok(())
}
