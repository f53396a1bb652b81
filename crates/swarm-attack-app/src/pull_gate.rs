//! The supersession gate (docs/github.md "Pull requests"): open pull requests that link an issue
//! stop its dispatch. One listing of the repository's open pull requests per call, conditional on
//! the ETag of the last one (`.swarm/cache/github/open-pulls.json`): GitHub's `304` reuses the
//! cached list (and costs no rate limit). The commits of each open pull request are read once per
//! head commit (`GET …/pulls/{n}/commits`) and kept in the same cache. Which issue a pull request
//! links is decided in `core::pull_link`.
//!
//! With no GitHub configured there is nothing to ask and nothing stops dispatch. When
//! GitHub does not answer, the gate says so in a warning and lets dispatch go on: git
//! history (docs/git-sync.md "The four rules") still decides what is done, and landing never
//! duplicates a commit.

use crate::core::pull_link;
use crate::core::pull_link::OpenPull;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::io::github::api::{Api, Fetched};
use crate::io::github::cache::{self, CachedPull};
use crate::io::github::client::Client;
use crate::io::github::settings;
use crate::project::Project;
use crate::sync::build_rule;
use std::collections::BTreeMap;

/// Issue → the open pull request linking it, and a warning when GitHub could not be asked.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct OpenPullLinks {
    pub links: BTreeMap<u32, u64>,
    pub warning: Option<String>,
}

/// Looks up the open pull requests that link issues of `state`'s feature.
pub(crate) fn open_pull_links(project: &Project, state: &FeatureState) -> CmdResult<OpenPullLinks> {
    let Ok(settings) = settings::resolve(&project.config, &project.root)? else {
        return Ok(OpenPullLinks::default());
    };
    let repo = settings.repo.clone();
    let source = settings.token.source;
    let path = cache::open_pulls_file(&project.paths.cache_dir());
    let cached = cache::load_open_pulls(&path, &settings.repo, &settings.api_url);
    let client = Client::new(settings)?;
    let mut api = Api::new(client);
    let rule = build_rule(project, state)?;
    let listed = match api.list_open_pulls(cached.etag.as_deref()) {
        Ok(Fetched::NotModified) => Ok((cached.pulls.clone(), cached.etag.clone(), false)),
        Ok(Fetched::Fresh((pulls, etag))) => Ok((
            pulls
                .iter()
                .map(|p| cached_pull(p, &cached.pulls))
                .collect(),
            etag,
            true,
        )),
        Err(e) => Err(e),
    };
    let (mut pulls, etag, mut changed) = match listed {
        Ok(l) => l,
        Err(e) => {
            return Ok(OpenPullLinks {
                links: BTreeMap::new(),
                warning: Some(format!(
                    "open pull requests were not checked: {}",
                    e.sentence(&repo, source, "the open pull requests", false)
                )),
            });
        }
    };
    // the commits of each open pull request (docs/github.md "Pull requests"), read again only when
    // its head moved: one request per new head, none while nothing changed
    let mut warning = None;
    for p in pulls.iter_mut().filter(|p| p.commits.is_none()) {
        match api.pull_commit_messages(p.number) {
            Ok(messages) => {
                p.commits = Some(messages);
                changed = true;
            }
            Err(e) => {
                warning.get_or_insert_with(|| {
                    format!(
                        "the commits of pull request #{} were not checked: {}",
                        p.number,
                        e.sentence(&repo, source, "the pull request's commits", false)
                    )
                });
            }
        }
    }
    if changed {
        let now = cache::OpenPullsCache {
            etag,
            pulls: pulls.clone(),
            ..cached
        };
        // losing the cache costs a full listing next time, never correctness
        let _ = cache::save_open_pulls(&path, &now);
    }
    let pulls: Vec<OpenPull> = pulls.iter().map(open_pull).collect();
    Ok(OpenPullLinks {
        links: pull_link::linked_issues(&rule, &pulls),
        warning,
    })
}

fn open_pull(c: &CachedPull) -> OpenPull {
    OpenPull {
        number: c.number,
        head_ref: c.head_ref.clone(),
        title: c.title.clone(),
        body: c.body.clone(),
        head_sha: c.head_sha.clone(),
        commits: c.commits.clone().unwrap_or_default(),
    }
}

/// A listed pull request as cached, with the commits already read at the same head.
fn cached_pull(p: &OpenPull, before: &[CachedPull]) -> CachedPull {
    let commits = before
        .iter()
        .find(|c| c.number == p.number && !p.head_sha.is_empty() && c.head_sha == p.head_sha)
        .and_then(|c| c.commits.clone());
    CachedPull {
        number: p.number,
        head_ref: p.head_ref.clone(),
        title: p.title.clone(),
        body: p.body.clone(),
        head_sha: p.head_sha.clone(),
        commits,
    }
}
