//! Landing through a pull request (`git.landing: pr`, docs/github.md "Pull requests"): the verified
//! commit is pushed to `swarm/<feature>/issue-<N>` and one pull request per issue is opened against
//! `git.base_branch` (a stacked dependent's against its dependency's branch, see `run::stack`) — or
//! the open one for that branch is reused and updated, never a second. The task then waits
//! IN_REVIEW; the merge (any method) makes it DONE through the git rule on a later sync, and a pull
//! request closed unmerged returns it to READY (see `app::github` reconcile).
//!
//! The push authenticates like the Action's push (the token through `GIT_CONFIG_*`, never
//! argv). The pull request's title is the rule-1 subject and its body is built in
//! `core::pull_body` (untrusted text neutralised).

use crate::core::pull_body::{self, PullFacts};
use crate::core::pull_link;
use crate::error::{CmdResult, CommandError};
use crate::io::github::api::Api;
use crate::io::github::client::Client;
use crate::io::github::errors::FailureKind;
use crate::io::github::settings;
use crate::run::RunContext;

/// A pull request that carries an issue's commit.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    pub pr: u64,
    pub branch: String,
    pub commit: String,
    /// An open pull request for the branch already existed and was updated.
    pub reused: bool,
}

/// The GitHub settings a `pr` landing needs.
fn github_settings(ctx: &RunContext<'_>) -> CmdResult<settings::Settings> {
    let project = ctx.project;
    match settings::resolve(&project.config, &project.root)? {
        Ok(s) => Ok(s),
        Err(missing) => Err(CommandError::input(format!(
            "git.landing is `pr`, but GitHub is not configured: {} is missing",
            missing.join(" and ")
        ))
        .with_hint("set GITHUB_TOKEN and github.repo (or an origin remote on GitHub), or use git.landing: commit")),
    }
}

/// Posts the review gate's counted findings on pull request `pr` as one review of
/// `commit` (event `COMMENT`, inline comments on their lines), unless the tool already
/// reviewed that commit there (a rerun that reuses the pull request, or a post that failed
/// after GitHub may have applied it). `Ok(false)`: nothing to post, or posted before.
/// Inline comments GitHub refuses (a line outside the diff it shows) → the review again
/// with the findings in its body only.
pub fn post_review(
    ctx: &RunContext<'_>,
    pr: u64,
    commit: &str,
    reviewed: &crate::core::review::Reviewed,
) -> CmdResult<bool> {
    use crate::core::review::pull;
    let Some(review) = pull::review(commit, &reviewed.line, &reviewed.counted()) else {
        return Ok(false);
    };
    let settings = github_settings(ctx)?;
    let (repo, source) = (settings.repo.clone(), settings.token.source);
    let client = Client::new(settings)?;
    let mut api = Api::new(client);
    let what = format!("the reviews of pull request #{pr}");
    let gh_err = |e| CommandError::github(e, &repo, source, &what, true);
    let earlier = api.pull_review_bodies(pr).map_err(gh_err)?;
    if earlier.iter().any(|b| pull::is_review_of(b, commit)) {
        return Ok(false);
    }
    let mut posted = api.comment_review(pr, commit, &review.body, &review.comments);
    if let Err(e) = &posted
        && e.kind == FailureKind::Validation
        && !review.comments.is_empty()
    {
        posted = api.comment_review(pr, commit, &review.body, &[]);
    }
    match posted {
        Ok(()) => Ok(true),
        Err(e) if e.maybe_applied => {
            // the review may be there already: look before posting it again
            let now = api.pull_review_bodies(pr).map_err(gh_err)?;
            if !now.iter().any(|b| pull::is_review_of(b, commit)) {
                api.comment_review(pr, commit, &review.body, &review.comments)
                    .map_err(gh_err)?;
            }
            Ok(true)
        }
        Err(e) => Err(gh_err(e)),
    }
}

/// Pushes `commit` and opens (or reuses) the issue's pull request into `base`.
pub fn open_pull(
    ctx: &RunContext<'_>,
    commit: &str,
    facts: &PullFacts<'_>,
    base: &str,
) -> CmdResult<Opened> {
    let project = ctx.project;
    let settings = github_settings(ctx)?;
    let branch = pull_link::branch_name(&ctx.feature, facts.issue);
    let server = settings::web_base(&settings.api_url);
    crate::io::git::push::push_commit(
        &project.root,
        &project.config.git.remote,
        commit,
        &branch,
        Some(settings.token.expose()),
        &server,
        crate::io::git::Hooks::from_config(project.config.git.run_hooks),
    )
    .map_err(|e| {
        CommandError::work(format!(
            "could not push issue {}'s commit to `{branch}` on `{}`: {}",
            facts.issue,
            project.config.git.remote,
            settings.token.redact(&e.message())
        ))
    })?;
    let repo = settings.repo.clone();
    let source = settings.token.source;
    let client = Client::new(settings)?;
    let mut api = Api::new(client);
    let gh_err = |e, what: &str| CommandError::github(e, &repo, source, what, true);
    let title = pull_body::pull_title(facts);
    let body = pull_body::pull_body(facts);
    let existing = api
        .pulls_for_branch(&branch)
        .map_err(|e| gh_err(e, &format!("the pull requests of `{branch}`")))?;
    if let Some(open) = existing.iter().find(|p| p.state == "open") {
        if open.title != title || open.body != body || open.base_ref != base {
            api.update_pull(open.number, &title, &body, Some(base))
                .map_err(|e| gh_err(e, &format!("pull request #{}", open.number)))?;
        }
        return Ok(Opened {
            pr: open.number,
            branch,
            commit: commit.to_string(),
            reused: true,
        });
    }
    let created = api
        .create_pull(&title, &branch, base, &body)
        .map_err(|e| gh_err(e, &format!("a pull request for `{branch}`")))?;
    // the label shows on the pull request too (best effort: the issue's label is synced)
    let _ = api.set_labels(
        created.number,
        &[crate::core::github_status::IN_REVIEW_LABEL.name.to_string()],
    );
    Ok(Opened {
        pr: created.number,
        branch,
        commit: commit.to_string(),
        reused: false,
    })
}

/// Opens the pull request for a verified attempt and records the task IN_REVIEW (event
/// `pr_opened`). `done` is the task as it would be DONE (summary, files), built before the
/// lock. `None`: another run took the issue over meanwhile.
pub fn finish_in_review(
    ctx: &RunContext<'_>,
    claim: &crate::run::claim::Claim,
    p: &crate::run::attempt::Passed,
    done: &crate::core::state::Task,
    mode: &str,
    low_convergence: Option<f64>,
) -> CmdResult<crate::run::Outcome> {
    use crate::run::{Outcome, record};
    let issue = claim.issue;
    let mut files = p.files_created.clone();
    files.extend(p.files_modified.iter().cloned());
    let risk = crate::gates::risk_of(ctx.project, &claim.task).lines();
    let facts = PullFacts {
        feature: &ctx.feature,
        issue,
        github_issue: claim.task.github_issue,
        summary: done.summary(),
        files: &files,
        tests_passed: p.tests_passed,
        cost_usd: p.cost_usd,
        risk: &risk,
        low_convergence,
        review: p.review.as_ref().map(|r| r.line.as_str()),
    };
    let outcome = record::with_txn(ctx, |txn| {
        txn.events_mut().extend(p.pending_events.iter().cloned());
        if record::owned(txn.state_mut(), issue, &claim.owner).is_none() {
            return Ok(Outcome::Lost {
                reason: "another run took the issue over; this run's work was not pushed".into(),
            });
        }
        let base = crate::run::stack::pull_base(ctx, claim, txn.state());
        let opened = open_pull(ctx, &p.commit, &facts, &base)?;
        let Some(t) = record::owned(txn.state_mut(), issue, &claim.owner) else {
            return Ok(Outcome::Lost {
                reason: "another run took the issue over".into(),
            });
        };
        let opened_event = t.review(opened.pr, opened.branch.clone())?;
        t.last_mode = Some(mode.to_string());
        if p.handoff.is_some() {
            t.handoff = p.handoff.clone();
        }
        t.review = p.review.as_ref().map(|r| r.line.clone());
        t.outputs.files_created = p.files_created.clone();
        t.outputs.semantic_summary = done.outputs.semantic_summary.clone();
        t.completion_summary = done.completion_summary.clone();
        txn.push_event(opened_event);
        Ok(Outcome::InReview {
            pr: opened.pr,
            branch: opened.branch,
            commit: opened.commit,
            reused: opened.reused,
        })
    })?;
    // the review gate's findings as one pull-request review (best effort: the pull request
    // is open either way)
    if let (Outcome::InReview { pr, commit, .. }, Some(r)) = (&outcome, &p.review)
        && ctx.project.config.review.post_to_pr
    {
        match post_review(ctx, *pr, commit, r) {
            Ok(true) => ctx.report(crate::run::Progress::Notice(format!(
                "issue #{issue}: the review's findings were posted on pull request #{pr}"
            ))),
            Ok(false) => {}
            Err(e) => ctx.report(crate::run::Progress::Notice(format!(
                "issue #{issue}: the review's findings could not be posted on pull request #{pr}: {}",
                e.message
            ))),
        }
    }
    Ok(outcome)
}
