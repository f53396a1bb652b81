//! The GitHub Action use case (docs/action.md "What each event does"): reads the triggering event,
//! decides whether to act (senders, trust), updates the feature state, mirrors it to GitHub, and
//! reports (step summary, outputs).
//!
//! In a workflow the checkout has no `.swarm/` (the tool never commits it), so the Action
//! rebuilds what it needs each run: tasks for the triggering issue from the event's snapshot,
//! and on `push`/`workflow_dispatch` the open issues carrying the trigger label; git history
//! then decides what is DONE, exactly as locally.

mod comment;
mod issue;
pub mod triggered;

use crate::core::action::{
    self, ActionEvent, IssueSnapshot, SenderVerdict, Trigger, Trust, permission_grants_write,
};
use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::stage::Stage;
use crate::core::state::Task;
use crate::error::{CmdResult, CommandError};
use crate::io::ui::Ui;
use crate::project::{FeatureTxn, Project};
use comment::on_comment;
use issue::on_issue;
use serde_json::Value;
use std::collections::BTreeSet;

/// What the Action needs from GitHub. Implemented by the GitHub adapter; tests use the
/// fake server through it.
pub trait GithubPort {
    /// The `permission` of `user` on the repository (`admin`, `maintain`, `write`, `triage`,
    /// `read`, `none`).
    fn permission(&self, user: &str) -> CmdResult<String>;
    /// Open issues carrying `label`.
    fn labeled_issues(&self, label: &str) -> CmdResult<Vec<IssueSnapshot>>;
    /// Brings labels, status comments and open/closed of the feature's linked tasks in line
    /// with the state (only the given GitHub issues when `only` is not empty).
    fn sync(&self, project: &Project, feature: &FeatureId, only: &[u64]) -> CmdResult<()>;
}

/// The runner's environment.
#[derive(Debug, Clone, Default)]
pub struct ActionEnv {
    pub event_name: String,
    pub event_path: Option<std::path::PathBuf>,
}

impl ActionEnv {
    pub fn from_env() -> Self {
        ActionEnv {
            event_name: crate::io::env::var("GITHUB_EVENT_NAME").unwrap_or_default(),
            event_path: crate::io::env::var_os("GITHUB_EVENT_PATH")
                .filter(|p| !p.is_empty())
                .map(Into::into),
        }
    }
}

/// One line of the report, per issue touched.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct IssueReport {
    pub feature: FeatureId,
    pub github_issue: u64,
    pub stage: String,
    pub note: String,
}

/// What the Action did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ActionOutcome {
    /// Where its notes are shown as they are taken.
    #[serde(skip)]
    pub ui: Ui,
    pub event: String,
    pub handled: bool,
    pub notes: Vec<String>,
    pub issues: Vec<IssueReport>,
    pub issues_done: Vec<u64>,
    pub issues_blocked: Vec<u64>,
    /// Issues the Action wants implemented (only with run-agents).
    pub to_run: Vec<(FeatureId, u32)>,
}

impl ActionOutcome {
    fn note(&mut self, n: impl Into<String>) {
        let n = n.into();
        self.ui.info(&n);
        self.notes.push(n);
    }

    /// The Markdown step summary.
    pub fn summary_markdown(&self) -> String {
        let mut md = format!(
            "## swarm-attack\n\nEvent: `{}` — {}\n\n",
            self.event,
            if self.handled {
                "handled"
            } else {
                "not handled"
            }
        );
        for n in &self.notes {
            md.push_str(&format!("- {}\n", n.replace('\n', " ")));
        }
        if !self.issues.is_empty() {
            md.push_str("\n| issue | feature | stage | note |\n|---|---|---|---|\n");
            for i in &self.issues {
                md.push_str(&format!(
                    "| #{} | {} | {} | {} |\n",
                    i.github_issue,
                    i.feature,
                    i.stage,
                    i.note.replace('|', "\\|")
                ));
            }
        }
        md
    }
}

/// Reads the event payload named by `GITHUB_EVENT_PATH`.
pub fn read_event(env: &ActionEnv) -> CmdResult<ActionEvent> {
    if env.event_name.is_empty() {
        return Err(CommandError::input(
            "GITHUB_EVENT_NAME is not set; `swarm-attack action` runs inside a GitHub Actions workflow",
        ));
    }
    let payload: Value = match &env.event_path {
        None => Value::Null,
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                CommandError::input(format!(
                    "cannot read the event payload {} (GITHUB_EVENT_PATH): {e}",
                    p.display()
                ))
            })?;
            serde_json::from_str(&text).map_err(|e| {
                CommandError::input(format!(
                    "the event payload {} (GITHUB_EVENT_PATH) is not valid JSON: line {}, column {}",
                    p.display(),
                    e.line(),
                    e.column()
                ))
            })?
        }
    };
    let shown = env
        .event_path
        .as_ref()
        .map(|p| format!(" {} (GITHUB_EVENT_PATH)", p.display()))
        .unwrap_or_default();
    if env.event_path.is_some() && !payload.is_object() {
        return Err(CommandError::input(format!(
            "the `{}` event payload{shown} must be a JSON object, found {}",
            env.event_name,
            match payload {
                Value::Array(_) => "a list",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            }
        )));
    }
    action::parse_event(&env.event_name, &payload).map_err(|e| {
        CommandError::input(format!(
            "the `{}` event payload{shown} cannot be used: {e}",
            env.event_name
        ))
    })
}

/// Whether the repository is a shallow clone.
pub fn is_shallow(project: &Project) -> bool {
    crate::io::history::is_shallow(&project.root)
}

/// Handles one event. `run_agents` only marks issues to run in `outcome.to_run`.
pub fn handle(
    project: &Project,
    event: &ActionEvent,
    gh: &dyn GithubPort,
    run_agents: bool,
) -> CmdResult<ActionOutcome> {
    let mut out = ActionOutcome {
        ui: project.ui.clone(),
        event: describe(event),
        ..Default::default()
    };
    let gcfg = &project.config.github;
    let ignored = match action::check_sender(&event.sender, &gcfg.bot_login, &gcfg.allowed_bots) {
        SenderVerdict::Allowed => None,
        SenderVerdict::OwnBot => Some("is the tool's own bot"),
        SenderVerdict::UnlistedBot => Some("is a bot not listed in github.allowed_bots"),
    };
    if let Some(why) = ignored {
        out.note(format!(
            "ignored: the sender `{}` {why}",
            event.sender.login
        ));
        log_received(project, event, &default_feature(project, event), false)?;
        return Ok(out);
    }
    if !matches!(event.trigger, Trigger::Other { .. }) && is_shallow(project) {
        return Err(CommandError::work(
            "the checkout is shallow, so the git history is incomplete and implemented issues cannot be recognised",
        )
        .with_hint("set `fetch-depth: 0` on actions/checkout"));
    }
    match &event.trigger {
        Trigger::Issue { action, issue, .. } => {
            on_issue(project, event, action, issue, gh, run_agents, &mut out)?
        }
        Trigger::Comment {
            action,
            issue,
            body,
            author,
            author_association,
        } => on_comment(
            project,
            event,
            action,
            issue,
            body,
            author,
            author_association,
            gh,
            run_agents,
            &mut out,
        )?,
        Trigger::Push { git_ref, .. } => {
            let base = format!("refs/heads/{}", project.config.git.base_branch);
            if *git_ref == base {
                reconcile_all(project, gh, &mut out)?;
                out.handled = true;
            } else {
                out.note(format!(
                    "push to `{git_ref}` is not the base branch `{base}`; nothing to do"
                ));
            }
            log_received(project, event, &gcfg.default_feature, out.handled)?;
        }
        Trigger::WorkflowDispatch => {
            reconcile_all(project, gh, &mut out)?;
            out.handled = true;
            log_received(project, event, &gcfg.default_feature, true)?;
        }
        Trigger::Other { name } => {
            out.note(format!(
                "the `{name}` event is not one swarm-attack handles; nothing to do"
            ));
        }
    }
    Ok(out)
}

fn describe(e: &ActionEvent) -> String {
    match (e.action(), e.issue_number()) {
        (Some(a), Some(n)) => format!("{}.{a} #{n} by @{}", e.name, e.sender.login),
        (Some(a), None) => format!("{}.{a} by @{}", e.name, e.sender.login),
        _ => format!("{} by @{}", e.name, e.sender.login),
    }
}

fn default_feature(project: &Project, event: &ActionEvent) -> String {
    match &event.trigger {
        Trigger::Issue { issue, .. } | Trigger::Comment { issue, .. } => {
            action::feature_from_labels(&issue.labels, &project.config.github.default_feature)
        }
        _ => project.config.github.default_feature.clone(),
    }
}

/// Logs the event in the log of the feature it names (`named`, from the event's labels or
/// the config: not logged when it is not a valid feature id).
fn log_received(
    project: &Project,
    event: &ActionEvent,
    named: &str,
    handled: bool,
) -> CmdResult<()> {
    let Ok(feature) = FeatureId::parse(named) else {
        return Ok(());
    };
    let mut txn = project.begin_or_new(&feature)?;
    if txn.is_new() {
        // do not create a state just to log an ignored event
        return txn.commit_events_only_with(vec![received(event, handled)]);
    }
    txn.push_event(received(event, handled));
    txn.commit().map(|_| ())
}

/// Begins the transaction of the feature an event names (exit 2 when `named` is not a
/// valid feature id), with the summaries its sync fills in built before the feature lock
/// is taken.
fn begin_named<'p>(
    project: &'p Project,
    named: &str,
) -> CmdResult<(FeatureId, crate::summary::Prepared, FeatureTxn<'p>)> {
    let feature = FeatureId::parse(named)?;
    let prepared =
        crate::sync::prepare_summaries(project, &feature, crate::sync::Summaries::Linked)?;
    let txn = project.begin_or_new(&feature)?;
    Ok((feature, prepared, txn))
}

fn received(event: &ActionEvent, handled: bool) -> Event {
    Event::ActionReceived {
        event_name: event.name.clone(),
        action: event.action().map(str::to_string),
        issue: event.issue_number(),
        sender: Some(event.sender.login.clone()),
        association: event.association().map(str::to_string),
        handled,
    }
}

fn is_trusted(gh: &dyn GithubPort, user: &str, association: &str) -> CmdResult<(bool, String)> {
    match action::trust_from_association(association) {
        Trust::Trusted => Ok((true, association.to_string())),
        Trust::CheckPermission => {
            let p = gh.permission(user)?;
            Ok((
                permission_grants_write(&p),
                format!("{association}, permission {p}"),
            ))
        }
    }
}

/// Creates or refreshes the task for a GitHub issue from the event's snapshot, keeping its
/// progress. Returns the issue number inside the feature.
fn upsert_task(txn: &mut FeatureTxn<'_>, issue: &IssueSnapshot, refresh_body: bool) -> u32 {
    let number = u32::try_from(issue.number).unwrap_or(u32::MAX);
    let known: BTreeSet<u32> = txn.state().tasks.iter().map(|t| t.issue_number).collect();
    let deps: Vec<u32> = action::dependencies_from_body(&issue.body, issue.number)
        .into_iter()
        .filter_map(|d| u32::try_from(d).ok())
        .filter(|d| known.contains(d))
        .collect();
    let exists = txn.state().task(number).is_some();
    if !exists {
        let needs_info = crate::core::github_status::NEEDS_INFO_LABEL.name;
        let mut t = if issue.labels.iter().any(|l| l == "swarm:blocked") {
            Task::new_blocked(
                number,
                issue.title.clone(),
                "marked blocked on GitHub".into(),
            )
        } else if issue.labels.iter().any(|l| l == needs_info) {
            // held by the specify gate in an earlier run: a writer's edit scores it again
            Task::new_blocked(
                number,
                issue.title.clone(),
                format!("needs info: marked `{needs_info}` on GitHub"),
            )
        } else {
            Task::new(number, issue.title.clone())
        };
        t.github_issue = Some(issue.number);
        txn.state_mut().tasks.push(t);
    }
    if let Some(t) = txn.state_mut().task_mut(number) {
        t.github_issue = Some(issue.number);
        t.labels = issue
            .labels
            .iter()
            .filter(|l| !l.starts_with("swarm"))
            .cloned()
            .collect();
        if refresh_body || !exists {
            t.title = issue.title.clone();
            t.dependencies = deps;
            t.github_body = Some(issue.body.clone());
            t.github_body_sha256 = Some(sha256_hex(issue.body.as_bytes()));
            t.extra
                .insert("github_author".into(), Value::String(issue.author.clone()));
            t.extra.insert(
                "github_author_association".into(),
                Value::String(issue.author_association.clone()),
            );
        }
    }
    number
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn report(
    out: &mut ActionOutcome,
    feature: &FeatureId,
    txn: &FeatureTxn<'_>,
    number: u32,
    note: &str,
) {
    if let Some(t) = txn.state().task(number) {
        out.issues.push(IssueReport {
            feature: feature.clone(),
            github_issue: t.github_issue.unwrap_or(u64::from(number)),
            stage: t.stage().to_string(),
            note: note.to_string(),
        });
    }
}

fn collect_outputs(out: &mut ActionOutcome, txn: &FeatureTxn<'_>) {
    for t in &txn.state().tasks {
        let Some(g) = t.github_issue else { continue };
        match t.stage() {
            Stage::Done => out.issues_done.push(g),
            Stage::Blocked => out.issues_blocked.push(g),
            _ => {}
        }
    }
    out.issues_done.sort_unstable();
    out.issues_done.dedup();
    out.issues_blocked.sort_unstable();
    out.issues_blocked.dedup();
}

/// `push` to the base branch and `workflow_dispatch`: every feature (state files, and the open
/// issues carrying the trigger label) is synced from git and mirrored to GitHub.
fn reconcile_all(project: &Project, gh: &dyn GithubPort, out: &mut ActionOutcome) -> CmdResult<()> {
    let gcfg = &project.config.github;
    let mut by_feature: std::collections::BTreeMap<FeatureId, Vec<IssueSnapshot>> =
        Default::default();
    for f in project.features()? {
        by_feature.entry(f).or_default();
    }
    for issue in gh.labeled_issues(&gcfg.trigger_label)? {
        if issue.is_pull_request {
            continue;
        }
        let named = action::feature_from_labels(&issue.labels, &gcfg.default_feature);
        if let Ok(f) = FeatureId::parse(&named) {
            by_feature.entry(f).or_default().push(issue);
        }
    }
    for (feature, issues) in by_feature {
        // the summaries the sync fills in, built before the feature lock is taken
        let prepared =
            crate::sync::prepare_summaries(project, &feature, crate::sync::Summaries::Linked)?;
        let mut txn = project.begin_or_new(&feature)?;
        for issue in &issues {
            upsert_task(&mut txn, issue, false);
        }
        let before: BTreeSet<u32> = txn
            .state()
            .tasks
            .iter()
            .filter(|t| t.stage() == &Stage::Done)
            .map(|t| t.issue_number)
            .collect();
        crate::sync::sync_txn(&mut txn, &prepared)?;
        let numbers: Vec<u32> = txn.state().tasks.iter().map(|t| t.issue_number).collect();
        for n in numbers {
            let newly = !before.contains(&n)
                && txn
                    .state()
                    .task(n)
                    .is_some_and(|t| t.stage() == &Stage::Done);
            if newly {
                report(out, &feature, &txn, n, "done (implementing commit found)");
            }
        }
        collect_outputs(out, &txn);
        txn.commit()?;
        gh.sync(project, &feature, &[])?;
    }
    Ok(())
}
