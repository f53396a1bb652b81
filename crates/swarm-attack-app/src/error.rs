//! The one command error: a kind that decides the exit code, a message (one sentence naming
//! the file, field or issue), an optional hint, and the error that caused it.
//!
//! Adapters (`crate::io`) return their own error values; the `From` conversions below
//! decide, once per adapter error, the kind (so the exit code) and the hint. `-v` prints
//! the cause chain under the message (see `crate::cli::output::print_error`).

use crate::core::transition::NotAllowed;
use crate::io::agent::AgentError;
use crate::io::config::ConfigError;
use crate::io::event_log::EventLogError;
use crate::io::file_error::FileError;
use crate::io::git::GitError;
use crate::io::git::locks::LockHeld;
use crate::io::github::client::ClientBuildError;
use crate::io::github::errors::GithubError;
use crate::io::github::settings::SettingsError;
use crate::io::history::HistoryError;
use crate::io::issues_file::IssuesFileError;
use crate::io::jsonl::LessonsFileError;
use crate::io::llm::LlmError;
use crate::io::lock::LockError;
use crate::io::process::SpawnError;
use crate::io::run_lock::RunLockError;
use crate::io::state_store::StateStoreError;
use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// What kind of failure this is; decides the exit code (docs/cli.md "Exit codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The work failed (e.g. an issue ended BLOCKED, a GitHub write failed): exit 1.
    Work,
    /// Bad usage, bad config or bad input: exit 2.
    Input,
    /// The feature is locked by another process: exit 3.
    Locked,
    /// A bug or an unexpected environment failure: exit 1.
    Internal,
}

impl ErrorKind {
    /// The process exit code for this kind.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Work | ErrorKind::Internal => 1,
            ErrorKind::Input => 2,
            ErrorKind::Locked => 3,
        }
    }
}

/// An error that reaches the user: kind, message, optional hint, optional cause.
#[derive(Debug, Clone)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
    pub hint: Option<String>,
    /// The error this one was made from (an adapter's error value), with its own causes.
    pub source: Option<Arc<dyn Error + Send + Sync>>,
}

impl CommandError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CommandError {
            kind,
            message: message.into(),
            hint: None,
            source: None,
        }
    }
    /// An error of `kind` whose message is `cause`'s own sentence; `cause` is kept as the
    /// source.
    pub(crate) fn caused_by(kind: ErrorKind, cause: impl Error + Send + Sync + 'static) -> Self {
        CommandError {
            kind,
            message: cause.to_string(),
            hint: None,
            source: Some(Arc::new(cause)),
        }
    }
    /// Bad usage, config or input (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Input, message)
    }
    /// The work failed (exit 1).
    pub fn work(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Work, message)
    }
    /// Unexpected failure (exit 1).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }
    /// Locked by another process (exit 3).
    pub(crate) fn locked(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Locked, message)
    }
    /// Keeps `cause` as this error's source (shown under the message with `-v`).
    pub(crate) fn with_source(mut self, cause: impl Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(cause));
        self
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// The same error (kind, hint, source) told in the caller's words: for a call site
    /// that knows what the adapter does not (which command, which file of the project).
    pub(crate) fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }
    /// A failed GitHub request, told as the one sentence that names the repository, the
    /// object (`what`) and the permission a write needs (docs/github.md); kind and source
    /// from the `From<GithubError>` below.
    pub(crate) fn github(
        e: GithubError,
        repo: &str,
        token_var: &str,
        what: &str,
        write: bool,
    ) -> Self {
        let sentence = e.sentence(repo, token_var, what, write);
        CommandError::from(e).with_message(sentence)
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for CommandError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

impl CommandError {
    /// The causes worth showing under the message (`-v`), outermost first: every error in
    /// the source chain whose text the message (or the cause shown before it) does not
    /// already contain.
    pub fn causes(&self) -> Vec<String> {
        let mut shown: Vec<String> = Vec::new();
        let mut next = Error::source(self);
        while let Some(e) = next {
            let text = e.to_string();
            let said =
                self.message.contains(&text) || shown.last().is_some_and(|s| s.contains(&text));
            if !said && !text.is_empty() {
                shown.push(text);
            }
            next = e.source();
        }
        shown
    }
}

/// Result alias used by app and cli layers.
pub type CmdResult<T> = Result<T, CommandError>;

/// An invalid feature id is the user's input (exit 2), its message unchanged.
impl From<crate::core::feature_id::InvalidFeatureId> for CommandError {
    fn from(e: crate::core::feature_id::InvalidFeatureId) -> Self {
        CommandError::input(e.to_string())
    }
}

// One conversion per adapter error: the kind (exit code) and the hint are decided here.

impl From<FileError> for CommandError {
    fn from(e: FileError) -> Self {
        CommandError::caused_by(ErrorKind::Internal, e)
    }
}

impl From<LockError> for CommandError {
    fn from(e: LockError) -> Self {
        match e {
            LockError::File(f) => f.into(),
            held @ LockError::Held { .. } => CommandError::caused_by(ErrorKind::Locked, held)
                .with_hint(
                    "wait for that process to finish, or raise sessions.lock_timeout_seconds",
                ),
        }
    }
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        let hint = match &e {
            ConfigError::Missing { .. } => Some("check the path given to --config"),
            ConfigError::NoAgents(_) => Some(
                "list at least one agent with a `name` and a `command`, or remove `agents` to use the default `claude` agent",
            ),
            _ => None,
        };
        let kind = match &e {
            // the schema walk accepted it, so this is a bug, not the user's to fix
            ConfigError::Unloadable { .. } => ErrorKind::Internal,
            _ => ErrorKind::Input,
        };
        let err = CommandError::caused_by(kind, e);
        match hint {
            Some(h) => err.with_hint(h),
            None => err,
        }
    }
}

impl From<IssuesFileError> for CommandError {
    fn from(e: IssuesFileError) -> Self {
        let missing = matches!(e, IssuesFileError::Missing { .. });
        let err = CommandError::caused_by(ErrorKind::Input, e);
        if missing {
            err.with_hint("run `swarm-attack init <feature>` or write the file")
        } else {
            err
        }
    }
}

impl From<StateStoreError> for CommandError {
    fn from(e: StateStoreError) -> Self {
        match e {
            StateStoreError::File(f) => f.into(),
            dir @ StateStoreError::IsDirectory(_) => CommandError::caused_by(ErrorKind::Input, dir)
                .with_hint("move the directory away; swarm-attack then rebuilds the state from issues.json and git history"),
            bad @ StateStoreError::Invalid { .. } => CommandError::caused_by(ErrorKind::Input, bad)
                .with_hint("fix or restore the file by hand; swarm-attack never overwrites a state file it cannot read"),
        }
    }
}

impl From<EventLogError> for CommandError {
    fn from(e: EventLogError) -> Self {
        match e {
            EventLogError::File(f) => f.into(),
            dir @ EventLogError::IsDirectory(_) => CommandError::caused_by(ErrorKind::Input, dir)
                .with_hint("move it out of the way; nothing was changed"),
        }
    }
}

impl From<LessonsFileError> for CommandError {
    fn from(e: LessonsFileError) -> Self {
        match e {
            LessonsFileError::Lock(l) => l.into(),
            LessonsFileError::File(f) => f.into(),
            bug @ LessonsFileError::Serialize(_) => {
                CommandError::caused_by(ErrorKind::Internal, bug)
            }
        }
    }
}

impl From<SettingsError> for CommandError {
    fn from(e: SettingsError) -> Self {
        CommandError::caused_by(ErrorKind::Input, e)
            .with_hint("use e.g. https://api.github.com or https://ghe.example.com/api/v3")
    }
}

/// The git history scan of a sync could not run.
impl From<HistoryError> for CommandError {
    fn from(e: HistoryError) -> Self {
        match &e {
            HistoryError::NotARepository(dir) => CommandError::input(format!(
                "{} is not a git repository, so the state cannot be synced from git history",
                dir.display()
            ))
            .with_hint(
                "run `git init` there, or set `coordination.auto_sync_from_git: false` in config.yaml",
            )
            .with_source(e),
            HistoryError::Git { .. } => CommandError::caused_by(ErrorKind::Internal, e),
        }
    }
}

/// This run's liveness lock could not be taken: unexpected (exit 1).
impl From<RunLockError> for CommandError {
    fn from(e: RunLockError) -> Self {
        CommandError::caused_by(ErrorKind::Internal, e)
    }
}

/// The GitHub client could not be built (no request was sent): unexpected (exit 1).
impl From<ClientBuildError> for CommandError {
    fn from(e: ClientBuildError) -> Self {
        CommandError::caused_by(ErrorKind::Internal, e)
    }
}

/// A git command that failed where the caller has nothing to add: unexpected (exit 1).
impl From<GitError> for CommandError {
    fn from(e: GitError) -> Self {
        CommandError::caused_by(ErrorKind::Internal, e)
    }
}

/// A process that could not be started: a program missing from PATH or an empty command is
/// the configuration's (exit 2), anything else (permissions, resources) unexpected (exit 1).
impl From<SpawnError> for CommandError {
    fn from(e: SpawnError) -> Self {
        match e {
            missing @ SpawnError::NotFound { .. } => {
                CommandError::caused_by(ErrorKind::Input, missing)
                    .with_hint("install it, or fix the command in config.yaml")
            }
            empty @ SpawnError::Empty => CommandError::caused_by(ErrorKind::Input, empty),
            other @ SpawnError::Other { .. } => CommandError::caused_by(ErrorKind::Internal, other),
        }
    }
}

/// An agent that could not run at all: a missing command or program is the configuration's
/// (exit 2); a start that failed otherwise is unexpected (exit 1).
impl From<AgentError> for CommandError {
    fn from(e: AgentError) -> Self {
        match e {
            none @ AgentError::NoCommand { .. } => CommandError::caused_by(ErrorKind::Input, none)
                .with_hint("give the agent a `command` in config.yaml"),
            missing @ AgentError::NotFound { .. } => {
                CommandError::caused_by(ErrorKind::Input, missing)
                    .with_hint("install it, or fix agents[].command in config.yaml")
            }
            other @ AgentError::Spawn { .. } => CommandError::caused_by(ErrorKind::Internal, other),
        }
    }
}

/// The LLM helper gave no answer: not configured or not startable is the configuration's
/// (exit 2); a helper that ran and failed or timed out failed the work (exit 1).
impl From<LlmError> for CommandError {
    fn from(e: LlmError) -> Self {
        match e {
            none @ LlmError::NotConfigured => CommandError::caused_by(ErrorKind::Input, none)
                .with_hint("set `llm.command` in config.yaml"),
            spawn @ LlmError::Spawn(_) => CommandError::caused_by(ErrorKind::Input, spawn)
                .with_hint("check `llm.command` in config.yaml"),
            slow @ LlmError::TimedOut(_) => CommandError::caused_by(ErrorKind::Work, slow)
                .with_hint("raise `llm.timeout_seconds` in config.yaml"),
            failed @ LlmError::Failed { .. } => CommandError::caused_by(ErrorKind::Work, failed),
        }
    }
}

/// A failed GitHub request failed the work (exit 1), whatever GitHub answered: its sentence
/// already says what to do (see `CommandError::github` for the one that names the object).
impl From<GithubError> for CommandError {
    fn from(e: GithubError) -> Self {
        CommandError::caused_by(ErrorKind::Work, e)
    }
}

/// A git lock file a running git holds: locked by another process (exit 3).
impl From<LockHeld> for CommandError {
    fn from(e: LockHeld) -> Self {
        CommandError::caused_by(ErrorKind::Locked, e)
            .with_hint("wait for that git command to finish (or stop it), then run again")
    }
}

/// A transition the state machine refused where the caller checked the stage first: a bug.
impl From<NotAllowed> for CommandError {
    fn from(e: NotAllowed) -> Self {
        CommandError::caused_by(ErrorKind::Internal, e)
    }
}

#[cfg(test)]
mod tests;
