//! The supersession gate (SPEC §12): open pull requests that link an issue stop its
//! dispatch. One listing of the repository's open pull requests per call; which issue a
//! pull request links is decided in `core::pull_link`.
//!
//! With no GitHub configured there is nothing to ask and nothing stops dispatch. When
//! GitHub does not answer, the gate says so in a warning and lets dispatch go on: git
//! history (SPEC §3) still decides what is done, and landing never duplicates a commit.

use crate::app::project::Project;
use crate::app::sync::build_rule;
use crate::core::pull_link;
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::github::api::Api;
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
    let client = Client::new(settings).map_err(|e| CommandError::internal(e.message))?;
    let mut api = Api::new(client);
    let rule = build_rule(project, state)?;
    match api.list_open_pulls() {
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
