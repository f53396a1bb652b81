//! The Action's GitHub port ([`GithubPort`]) over the real client (or offline): permissions, issues
//! carrying the trigger label, and the sync of a feature's linked issues.

use crate::action::GithubPort;
use crate::core::action::IssueSnapshot;
use crate::core::feature_id::FeatureId;
use crate::error::{CmdResult, CommandError};
use crate::github::session::{Session, settings_or_exit};
use crate::io::github::api::Api;
use crate::io::github::client::Client;
use crate::io::github::errors::GithubError;
use crate::io::github::settings::{self, Settings};
use crate::io::state_store;
use crate::io::ui::Ui;
use crate::project::Project;
use std::cell::RefCell;

/// A connected port; build it with [`LiveGithub::connect`].
pub struct LiveGithub {
    settings: Settings,
    ui: Ui,
    api: RefCell<Api>,
}

impl std::fmt::Debug for LiveGithub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveGithub")
            .field("repo", &self.settings.repo)
            .finish_non_exhaustive()
    }
}

impl LiveGithub {
    /// The port, or None when no token or repository is configured.
    pub fn connect(project: &Project) -> CmdResult<Option<LiveGithub>> {
        let Ok(settings) = settings::resolve(&project.config, &project.root)? else {
            return Ok(None);
        };
        let client = Client::new(settings.clone())?;
        Ok(Some(LiveGithub {
            settings,
            ui: project.ui.clone(),
            api: RefCell::new(Api::new(client)),
        }))
    }

    fn error(&self, e: GithubError, what: &str) -> CommandError {
        let s = &self.settings;
        CommandError::github(e, &s.repo, s.token.source, what, false)
    }
}

impl GithubPort for LiveGithub {
    fn permission(&self, user: &str) -> CmdResult<String> {
        match self.api.borrow_mut().permission(user) {
            Ok(p) => Ok(p),
            // GitHub answers 404 for someone who is not a collaborator (or not a user) and 403
            // when the token may not read collaborators: either way, no write access is
            // established, so the command is ignored (fail closed) without failing the job.
            Err(e) if matches!(e.status, Some(403 | 404)) => {
                self.ui.warn(format_args!(
                    "GitHub did not tell the permission of `{user}` ({}): treated as no write access",
                    e.status.unwrap_or_default()
                ));
                Ok("none".into())
            }
            Err(e) => Err(self.error(e, &format!("the permission of `{user}`"))),
        }
    }

    fn labeled_issues(&self, label: &str) -> CmdResult<Vec<IssueSnapshot>> {
        let issues = self
            .api
            .borrow_mut()
            .list_open_issues_labeled(label)
            .map_err(|e| self.error(e, &format!("the issues labeled `{label}`")))?;
        Ok(issues
            .into_iter()
            .map(|i| IssueSnapshot {
                number: i.number,
                labels: i.label_names(),
                title: i.title,
                body: i.body,
                state: if i.open { "open" } else { "closed" }.into(),
                author: i.author,
                author_association: i.author_association,
                is_pull_request: i.is_pull_request,
            })
            .collect())
    }

    /// Syncs the feature's linked issues (only `only` when given); anything left undone is
    /// an error, because an Action's `.swarm/` (and so its outbox) does not outlive the run.
    fn sync(&self, project: &Project, feature: &FeatureId, only: &[u64]) -> CmdResult<()> {
        let Some(state) = state_store::load(&project.paths.state_file(feature))? else {
            return Ok(());
        };
        let settings = settings_or_exit(project)?;
        let mut session = Session::open(project, feature, settings, false)?;
        session.only = only.iter().copied().collect();
        let result = session.run_sync(state);
        let report = session.finish(result)?;
        for e in &report.errors {
            project.ui.warn(e);
        }
        if report.exit_code() != 0 {
            return Err(CommandError::work(format!(
                "GitHub was not fully updated for `{feature}`: {} failure(s), {} operation(s) left undone",
                report.errors.len(),
                report.outbox.len()
            ))
            .with_hint("re-run the workflow, or run `swarm-attack github sync` locally"));
        }
        Ok(())
    }
}

/// Stand-in used when no GitHub client is available: reads nothing, trusts nobody by
/// permission, writes nothing.
pub struct OfflineGithub;

impl GithubPort for OfflineGithub {
    fn permission(&self, _user: &str) -> CmdResult<String> {
        Ok("none".into())
    }
    fn labeled_issues(&self, _label: &str) -> CmdResult<Vec<IssueSnapshot>> {
        Ok(Vec::new())
    }
    fn sync(&self, project: &Project, _feature: &FeatureId, _only: &[u64]) -> CmdResult<()> {
        project.ui.info(
            "GitHub is not configured (no token or repository); labels and comments not updated",
        );
        Ok(())
    }
}

/// The Action's GitHub port: the live client, or [`OfflineGithub`] when no token or
/// repository is configured.
pub fn port(project: &Project) -> CmdResult<Box<dyn GithubPort>> {
    Ok(match LiveGithub::connect(project)? {
        Some(live) => Box::new(live),
        None => Box::new(OfflineGithub),
    })
}
