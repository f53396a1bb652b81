//! The project a command works on: its root, configuration and file layout, and the feature
//! transaction (lock → load → change → write only if changed → append events → release the
//! lock → run the finish hook).
//!
//! This is the bottom of `app`: it imports no other `app` module but the leaves `ledger` and
//! `outcomes`. The git sync that most
//! transactions start with is `crate::sync::open_synced`; the finish hook that mirrors
//! a committed feature to GitHub is installed by the caller ([`Project::with_finish_hook`]).

use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::config::{self, Config};
use crate::io::event_log::EventLog;
use crate::io::file_error::FileError;
use crate::io::lock::FeatureLock;
use crate::io::paths::Paths;
use crate::io::project_root::{self, RootReason};
use crate::io::ui::Ui;
use crate::io::{clock, history, state_store};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Where to find the project and its config (the global options).
#[derive(Debug, Clone, Default)]
pub struct ProjectOptions {
    pub project_dir: Option<PathBuf>,
    pub config_file: Option<PathBuf>,
}

/// What runs after a transaction that asked for it ([`FeatureTxn::mirror_after_commit`])
/// has committed and released the feature lock: the GitHub mirror
/// ([`crate::github::mirror::mirror`]). A plain function, so the bottom of `app` does not
/// depend on the GitHub code.
/// Its errors do not fail the command: they are shown as warnings.
pub(crate) type FinishHook = fn(&Ui, &Project, &FeatureId) -> CmdResult<()>;

/// An opened project.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    pub config: Config,
    pub config_path: PathBuf,
    pub paths: Paths,
    /// Runs after a transaction marked for mirroring commits (none: nothing is mirrored).
    pub finish_hook: Option<FinishHook>,
    /// What the command prints through (notices of the use cases, the finish hook's).
    pub ui: Ui,
    /// The folder the command started from, when the root was found above it.
    pub found_above: Option<PathBuf>,
    /// Why the root is where it is.
    pub root_reason: RootReason,
}

impl Project {
    /// Opens the project: resolves the root, loads and validates the config (warnings are
    /// shown through `ui`, which the project keeps).
    pub fn open(opts: &ProjectOptions, ui: &Ui) -> CmdResult<Project> {
        let base = match &opts.project_dir {
            Some(d) => d.clone(),
            None => std::env::current_dir().map_err(|e| {
                CommandError::internal(format!("cannot read the current directory: {e}"))
            })?,
        };
        if !base.is_dir() {
            let what = if base.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            return Err(CommandError::input(format!(
                "project directory {} {what}",
                base.display()
            )));
        }
        let start = base.canonicalize().unwrap_or_else(|_| base.clone());
        let (found, root_reason) = project_root::discover(&start);
        let (base, found_above) = if found == start {
            (base, None)
        } else {
            (found, Some(start))
        };
        let (config_path, must_exist) = match &opts.config_file {
            Some(f) if f.is_absolute() => (f.clone(), true),
            Some(f) => (std::env::current_dir().unwrap_or_default().join(f), true),
            None => (base.join("config.yaml"), false),
        };
        let loaded = config::load(&config_path, must_exist)?;
        for w in &loaded.warnings {
            ui.warn(w);
        }
        let config = loaded.config;
        let root = if config.repo_root == "." || config.repo_root.is_empty() {
            base
        } else {
            config_path
                .parent()
                .unwrap_or(Path::new("."))
                .join(&config.repo_root)
        };
        if !root.is_dir() {
            return Err(CommandError::input(format!(
                "{}: `repo_root` is `{}`, but {} is not a directory",
                config::display_path(&config_path),
                config.repo_root,
                root.display()
            )));
        }
        let paths = Paths::new(&root, &config.specs_dir, &config.swarm_dir);
        Ok(Project {
            root,
            config,
            config_path,
            paths,
            finish_hook: None,
            ui: ui.clone(),
            found_above,
            root_reason,
        })
    }

    /// The project with `hook` run after every transaction marked for mirroring.
    pub fn with_finish_hook(mut self, hook: FinishHook) -> Project {
        self.finish_hook = Some(hook);
        self
    }

    pub fn lock(&self, feature: &FeatureId) -> CmdResult<FeatureLock> {
        Ok(FeatureLock::acquire(
            &self.ui,
            &self.paths.lock_file(feature),
            feature,
            Duration::from_secs(self.config.sessions.lock_timeout_seconds),
        )?)
    }

    pub fn event_log(&self, feature: &FeatureId) -> EventLog {
        EventLog::new(
            self.paths.events_file(feature),
            feature,
            clock::session_id(),
            self.config.coordination.event_logging_enabled,
        )
    }

    /// A log-only transaction: appends `events` under the feature lock without reading the
    /// state (nothing to append: no lock is taken); then, with `mirror`, runs the finish
    /// hook like [`FeatureTxn::commit`] does.
    pub(crate) fn append_events(
        &self,
        feature: &FeatureId,
        events: &[Event],
        mirror: bool,
    ) -> CmdResult<()> {
        if !events.is_empty() && self.config.coordination.event_logging_enabled {
            let lock = self.lock(feature)?;
            self.event_log(feature)
                .append(&self.ui, &lock, &clock::now_rfc3339(), events)?;
        }
        if mirror {
            self.finish(feature);
        }
        Ok(())
    }

    /// Runs the finish hook (the GitHub mirror) for `feature`, with no feature lock held.
    /// Called only when a transaction that asked for it has committed.
    /// Its errors are shown as warnings: the transaction has committed, the command goes on.
    fn finish(&self, feature: &FeatureId) {
        if let Some(hook) = self.finish_hook
            && let Err(e) = hook(&self.ui, self, feature)
        {
            self.ui
                .warn(format_args!("GitHub sync failed: {}", e.message));
        }
    }

    /// Loads a feature's state, warning about unknown stage/phase names.
    pub fn load_state(&self, feature: &FeatureId) -> CmdResult<Option<FeatureState>> {
        Ok(self
            .load_state_identified(feature)?
            .map(|(s, _)| Arc::unwrap_or_clone(s)))
    }

    /// [`Project::load_state`], with the identity of the file's bytes; the state is shared
    /// with the state store's memory of the file.
    fn load_state_identified(
        &self,
        feature: &FeatureId,
    ) -> CmdResult<Option<(Arc<FeatureState>, state_store::StateId)>> {
        let path = self.paths.state_file(feature);
        let mut loaded = state_store::load_shared(&path)?;
        if let Some((s, _)) = loaded.as_mut()
            && s.stack != self.config.git.stack
        {
            Arc::make_mut(s).stack = self.config.git.stack;
        }
        if let Some(w) = loaded.as_ref().and_then(|(s, _)| s.unknown_names_warning()) {
            let shown = self.paths.display(&path);
            self.ui.warn_once(&shown, format_args!("{shown}: {w}"));
        }
        Ok(loaded)
    }

    /// The ids of all features that have a state file, sorted.
    pub(crate) fn features(&self) -> CmdResult<Vec<FeatureId>> {
        let dir = self.paths.state_dir();
        let mut out = Vec::new();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(FileError::new("read", &dir, e).into()),
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if let Some(f) = name.strip_suffix(".json")
                && let Ok(f) = FeatureId::parse(f)
            {
                out.push(f);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Checks that `feature` is known here: it has a state file, an issues.json or an event
    /// log. An unknown one (a typo) is exit 2 naming the nearest known feature.
    pub fn require_known_feature(&self, feature: &FeatureId) -> CmdResult<()> {
        let p = &self.paths;
        if p.state_file(feature).exists()
            || p.issues_file(feature).exists()
            || p.events_file(feature).exists()
        {
            return Ok(());
        }
        let known = self.known_features();
        let hint = match known
            .iter()
            .map(|k| (strsim::levenshtein(k, feature), k))
            .filter(|(d, _)| *d <= 3)
            .min()
        {
            Some((_, k)) => format!("did you mean `{k}`?"),
            None if known.is_empty() => {
                format!("run `swarm-attack init {feature}` to start it")
            }
            None => format!(
                "known features: {}",
                known
                    .iter()
                    .map(FeatureId::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(CommandError::input(format!(
            "feature `{feature}` is unknown: it has no state, issues.json or event log in {}",
            self.root.display()
        ))
        .with_hint(hint))
    }

    /// Every feature with a state file, an issues.json folder or an event log, sorted.
    pub(crate) fn known_features(&self) -> Vec<FeatureId> {
        let mut out = std::collections::BTreeSet::new();
        let mut scan = |dir: &Path, suffix: &str| {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if let Some(f) = name.strip_suffix(suffix)
                    && let Ok(f) = FeatureId::parse(f)
                {
                    out.insert(f);
                }
            }
        };
        scan(&self.paths.state_dir(), ".json");
        scan(&self.paths.swarm_dir.join("events"), ".jsonl");
        scan(&self.paths.specs_dir, "");
        out.into_iter().collect()
    }

    /// Begins a transaction on an existing feature (exit 2 when it has no state).
    pub fn begin(&self, feature: &FeatureId) -> CmdResult<FeatureTxn<'_>> {
        if !self.paths.state_file(feature).exists() {
            return Err(self.no_state(feature));
        }
        let txn = self.begin_or_new(feature)?;
        if txn.old.is_none() {
            return Err(self.no_state(feature));
        }
        Ok(txn)
    }

    fn no_state(&self, feature: &FeatureId) -> CommandError {
        CommandError::input(format!(
            "feature `{feature}` has no state ({} is missing)",
            self.paths.display(&self.paths.state_file(feature))
        ))
        .with_hint(format!("run `swarm-attack greenlight {feature}` first"))
    }

    /// Begins a transaction; a feature with no state starts from an empty one.
    pub(crate) fn begin_or_new(&self, feature: &FeatureId) -> CmdResult<FeatureTxn<'_>> {
        let lock = self.lock(feature)?;
        let (old, loaded_id) = match self.load_state_identified(feature)? {
            Some((s, id)) => (Some(s), Some(id)),
            None => (None, None),
        };
        // the one copy of the state a transaction makes: `old` is shared with the store
        let state = old.as_deref().cloned().unwrap_or_else(|| {
            let mut s = FeatureState::new(feature, &clock::now_rfc3339());
            s.stack = self.config.git.stack;
            s
        });
        Ok(FeatureTxn {
            project: self,
            lock,
            feature: feature.clone(),
            old,
            state,
            events: Vec::new(),
            history_cache: None,
            loaded_id,
            only_synced: false,
            mirror: false,
        })
    }
}

/// A read-modify-write of one feature under its lock.
#[derive(Debug)]
pub struct FeatureTxn<'p> {
    project: &'p Project,
    lock: FeatureLock,
    feature: FeatureId,
    /// The state as loaded (None: new feature).
    old: Option<Arc<FeatureState>>,
    /// The state being changed.
    state: FeatureState,
    /// Events to append when the transaction is committed.
    events: Vec<Event>,
    /// The history cache the sync produced, written on commit (never by a dry run).
    history_cache: Option<history::PendingCache>,
    /// The identity of the state file as loaded (None: new feature).
    loaded_id: Option<state_store::StateId>,
    /// Set by [`FeatureTxn::commit_synced`]: nothing but the sync changed the state.
    only_synced: bool,
    /// Run the project's finish hook (the GitHub mirror) once committed.
    mirror: bool,
}

impl<'p> FeatureTxn<'p> {
    /// The project the transaction is in.
    pub(crate) fn project(&self) -> &'p Project {
        self.project
    }

    /// The feature lock it holds (the proof writers of the feature's files ask for).
    pub fn lock(&self) -> &FeatureLock {
        &self.lock
    }

    pub(crate) fn feature(&self) -> &FeatureId {
        &self.feature
    }

    /// Whether the feature had no state when the transaction began.
    pub(crate) fn is_new(&self) -> bool {
        self.old.is_none()
    }

    /// The state being changed.
    pub(crate) fn state(&self) -> &FeatureState {
        &self.state
    }

    pub(crate) fn state_mut(&mut self) -> &mut FeatureState {
        &mut self.state
    }

    /// The state, given up without committing (a look at the feature under its lock,
    /// released with the transaction).
    pub(crate) fn into_state(self) -> FeatureState {
        self.state
    }

    /// The events appended when the transaction commits.
    pub(crate) fn events(&self) -> &[Event] {
        &self.events
    }

    pub(crate) fn events_mut(&mut self) -> &mut Vec<Event> {
        &mut self.events
    }

    /// Adds an event to append when the transaction commits.
    pub(crate) fn push_event(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Changes task `issue` (when there is one) with `change` and records the events it
    /// returns (a transition's event, or none when the transition is not allowed).
    pub(crate) fn change_task<E: IntoIterator<Item = Event>>(
        &mut self,
        issue: u32,
        change: impl FnOnce(&mut crate::core::state::Task) -> E,
    ) {
        if let Some(t) = self.state.task_mut(issue) {
            self.events.extend(change(t));
        }
    }

    /// The state and the events together (a change of the state that records events).
    pub(crate) fn state_and_events(&mut self) -> (&mut FeatureState, &mut Vec<Event>) {
        (&mut self.state, &mut self.events)
    }

    /// The history cache the sync produced, written on commit.
    pub(crate) fn set_history_cache(&mut self, cache: Option<history::PendingCache>) {
        self.history_cache = cache;
    }

    /// Asks for the project's finish hook (the GitHub mirror) to run once this transaction
    /// has committed and released the feature lock.
    pub fn mirror_after_commit(&mut self) {
        self.mirror = true;
    }

    /// Writes the state if it changed and appends the events. Returns whether the state was
    /// written.
    pub fn commit(self) -> CmdResult<bool> {
        Ok(self.commit_returning()?.0)
    }

    /// [`FeatureTxn::commit`], returning the state as committed too.
    fn commit_returning(mut self) -> CmdResult<(bool, Arc<FeatureState>)> {
        let now = clock::now_rfc3339();
        let path = self.project.paths.state_file(&self.feature);
        // The events first (write-ahead): if the log cannot be written, the state is not
        // changed either, so no transition is ever left without its record. A crash between
        // the two leaves events whose transition the next command redoes (and logs again).
        let events = std::mem::take(&mut self.events);
        self.project.event_log(&self.feature).append(
            &self.project.ui,
            &self.lock,
            &now,
            &events,
        )?;
        // Only a transaction that appended an issue's records folds the log into the ledger:
        // a sync-only command (e.g. a warm `status`) never reads the log. Records
        // appended outside a transaction are folded by the next one, or by the budget gate,
        // which refreshes before it checks.
        if events.iter().any(|e| e.issue().is_some()) {
            crate::ledger::refresh(
                &self.project.paths.events_file(&self.feature),
                &self.project.config,
                &mut self.state,
            );
        }
        // the issues these events ended: their outcome records (learning,
        // docs/learning.md "Outcomes")
        crate::outcomes::record(
            &self.project.ui,
            &self.project.paths,
            &self.project.config,
            &self.feature,
            &self.state,
            &events,
            &now,
        );
        let state = std::mem::replace(&mut self.state, FeatureState::new("", ""));
        let (wrote, state) =
            state_store::save_if_changed(&self.lock, &path, self.old.as_deref(), state, &now)?;
        // the loaded state is dropped before the history cache is written (no two copies)
        self.old = None;
        if let Some(mut pending) = self.history_cache.take() {
            // the state now on disk is in line with the history when only the sync changed
            // it (a sync of it again changes nothing); anything else is synced again
            pending.cache.in_sync = if !self.only_synced {
                None
            } else if wrote {
                state_store::StateId::of_file(&path)
            } else {
                self.loaded_id
            };
            if let Err(e) = history::save_cache(&pending.path, &pending.cache) {
                self.project.ui.warn(format_args!(
                    "could not write the history cache {}: {e} (the next sync reads the whole history again)",
                    pending.path.display()
                ));
            }
        }
        if self.mirror {
            let FeatureTxn {
                project,
                lock,
                feature,
                ..
            } = self;
            drop(lock);
            project.finish(&feature);
            return Ok((wrote, state));
        }
        Ok((wrote, state))
    }

    /// [`FeatureTxn::commit`] of a transaction in which nothing but the git sync changed the
    /// state (e.g. `status`): the history cache then records that the state written is in
    /// line with the history, so the next sync with the same tips and the same state file
    /// skips reading the evidence ledger and applying it.
    /// Returns the state as committed.
    pub(crate) fn commit_synced(mut self) -> CmdResult<FeatureState> {
        self.only_synced = true;
        Ok(Arc::unwrap_or_clone(self.commit_returning()?.1))
    }

    /// The identity of the state file as this transaction loaded it.
    pub(crate) fn loaded_id(&self) -> Option<&state_store::StateId> {
        self.loaded_id.as_ref()
    }

    /// Appends the events only (a dry run or a read that changed nothing in the state).
    pub(crate) fn commit_events_only(mut self) -> CmdResult<()> {
        let now = clock::now_rfc3339();
        let events = std::mem::take(&mut self.events);
        Ok(self.project.event_log(&self.feature).append(
            &self.project.ui,
            &self.lock,
            &now,
            &events,
        )?)
    }

    /// Appends `events` without writing the state (e.g. logging an ignored event for a
    /// feature that has no state yet).
    pub(crate) fn commit_events_only_with(mut self, events: Vec<Event>) -> CmdResult<()> {
        self.events = events;
        self.commit_events_only()
    }

    /// Whether the state changed (ignoring `updated_at`).
    pub(crate) fn changed(&self) -> bool {
        self.old
            .as_ref()
            .is_none_or(|o| o.differs_from(&self.state))
    }
}
