//! The supersession gate (SPEC §12): open pull requests that link an issue stop its
//! dispatch. One listing of the repository's open pull requests per call, conditional on
//! the ETag of the last one (`.swarm/cache/github/open-pulls.json`): GitHub's `304` reuses
//! the cached list (and costs no rate limit). Which issue a pull request links is decided
//! in `core::pull_link`.
//!
//! With no GitHub configured there is nothing to ask and nothing stops dispatch. When
//! GitHub does not answer, the gate says so in a warning and lets dispatch go on: git
//! history (SPEC §3) still decides what is done, and landing never duplicates a commit.

use crate::app::project::Project;
use crate::app::sync::build_rule;
use crate::core::pull_link;
use crate::core::pull_link::OpenPull;
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::github::api::{Api, Fetched};
use crate::io::github::cache::{self, CachedPull};
use crate::io::github::client::Client;
use crate::io::github::settings;
use std::collections::BTreeMap;

/// Issue → the open pull request linking it, and a warning when GitHub could not be asked.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OpenPullLinks {
    pub links: BTreeMap<u32, u64>,
    pub warning: Option<String>,
}

/// Looks up the open pull requests that link issues of `state`'s feature.
pub fn open_pull_links(project: &Project, state: &FeatureState) -> CmdResult<OpenPullLinks> {
    let Ok(settings) = settings::resolve(&project.config, &project.root)? else {
        return Ok(OpenPullLinks::default());
    };
    let repo = settings.repo.clone();
    let source = settings.token.source;
    let path = cache::open_pulls_file(&project.paths.cache_dir());
    let cached = cache::load_open_pulls(&path, &settings.repo, &settings.api_url);
    let client = Client::new(settings).map_err(|e| CommandError::internal(e.message))?;
    let mut api = Api::new(client);
    let rule = build_rule(project, state)?;
    let listed = match api.list_open_pulls(cached.etag.as_deref()) {
        Ok(Fetched::NotModified) => Ok(cached.pulls.iter().map(open_pull).collect()),
        Ok(Fetched::Fresh((pulls, etag))) => {
            let now = cache::OpenPullsCache {
                etag,
                pulls: pulls.iter().map(cached_pull).collect(),
                ..cached
            };
            // losing the cache costs a full listing next time, never correctness
            let _ = cache::save_open_pulls(&path, &now);
            Ok(pulls)
        }
        Err(e) => Err(e),
    };
    match listed {
        Ok(pulls) => Ok(OpenPullLinks {
            links: pull_link::linked_issues(&rule, &pulls),
            warning: None,
        }),
        Err(e) => Ok(OpenPullLinks {
            links: BTreeMap::new(),
            warning: Some(format!(
                "open pull requests were not checked: {}",
                e.sentence(&repo, source, "the open pull requests", false)
            )),
        }),
    }
}

fn open_pull(c: &CachedPull) -> OpenPull {
    OpenPull {
        number: c.number,
        head_ref: c.head_ref.clone(),
        title: c.title.clone(),
        body: c.body.clone(),
    }
}

fn cached_pull(p: &OpenPull) -> CachedPull {
    CachedPull {
        number: p.number,
        head_ref: p.head_ref.clone(),
        title: p.title.clone(),
        body: p.body.clone(),
    }
}
