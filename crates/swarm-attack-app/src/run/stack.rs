//! Stacked dependents (`git.stack: true`, docs/github.md "Pull requests"): a dependent of an
//! IN_REVIEW issue starts from that issue's `swarm/<feature>/issue-<N>` branch (fetched from
//! `git.remote`), and its pull request is based on that branch while the dependency's pull request
//! is still unmerged. Which dependency that is is decided in `core::readiness::stacked_on`; a
//! merged dependency's stacked pull requests are retargeted to `git.base_branch` by the reconcile
//! (`app::pull_reconcile`).
//!
//! DONE still comes only from the git rule (docs/git-sync.md) on the base branch: a stacked commit
//! counts once its merge is there.

use crate::core::pull_link;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::github::settings;
use crate::run::RunContext;
use crate::run::claim::Claim;

/// The unmerged dependency a claimed issue starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StackBase {
    pub dependency: u32,
    /// `swarm/<feature>/issue-<dependency>`.
    pub branch: String,
    /// The commit that branch pointed to when fetched.
    pub commit: String,
}

/// With `git.stack`, the IN_REVIEW dependency `claim` starts from, its branch fetched from
/// `git.remote`; `None` without stack or when every dependency is DONE.
pub(crate) fn base_for(ctx: &RunContext<'_>, claim: &Claim) -> CmdResult<Option<StackBase>> {
    let Some(dependency) = readiness::stacked_on(&claim.state, &claim.task) else {
        return Ok(None);
    };
    let project = ctx.project;
    let branch = pull_link::branch_name(&ctx.feature, dependency);
    let into = format!("refs/swarm-stack/{}/issue-{}", ctx.feature, claim.issue);
    // the token authenticates to GitHub; a remote that needs none (a path) works without
    let (token, server) = match settings::resolve(&project.config, &project.root)? {
        Ok(s) => (
            Some(s.token.expose().to_string()),
            settings::web_base(&s.api_url),
        ),
        Err(_) => (None, String::new()),
    };
    let remote = &project.config.git.remote;
    let commit = crate::io::git::push::fetch_branch(
        &project.root,
        remote,
        &branch,
        &into,
        token.as_deref(),
        &server,
    )
    .map_err(|e| {
        let mut message = e.message();
        if let Some(t) = token.as_deref().filter(|t| !t.is_empty()) {
            message = message.replace(t, crate::core::secrets::MASK);
        }
        CommandError::work(format!(
            "issue {} is stacked on issue {dependency} (git.stack), but its branch `{branch}` could not be fetched from `{remote}`: {message}",
            claim.issue
        ))
        .with_hint(format!(
            "if issue {dependency}'s pull request was merged, pull the base branch (`git pull`) so the merge is seen"
        ))
    })?;
    Ok(Some(StackBase {
        dependency,
        branch,
        commit,
    }))
}

/// The branch `claim`'s pull request is based on: a stacked issue's dependency's branch
/// while that pull request is unmerged (in `now`, the state at landing), else
/// `git.base_branch` (a stacked commit sits on top of the dependency's, which the base
/// branch then has).
pub(crate) fn pull_base(ctx: &RunContext<'_>, claim: &Claim, now: &FeatureState) -> String {
    let base = ctx.project.config.git.base_branch.clone();
    let Some(dependency) = readiness::stacked_on(&claim.state, &claim.task) else {
        return base;
    };
    match now.task(dependency) {
        Some(t)
            if t.stage() != &Stage::Done && t.pull_request_state.as_deref() != Some("merged") =>
        {
            pull_link::branch_name(&ctx.feature, dependency)
        }
        _ => base,
    }
}
