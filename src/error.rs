//! The one command error: a kind that decides the exit code, a message (one sentence naming
//! the file, field or issue), and an optional hint.

use std::fmt;

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

/// An error that reaches the user: kind, message, optional hint.
#[derive(Debug, Clone)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
    pub hint: Option<String>,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CommandError {
            kind,
            message: message.into(),
            hint: None,
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
    pub fn locked(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Locked, message)
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// An I/O failure on `path`, phrased as one sentence.
    pub fn io(action: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        Self::internal(format!("could not {action} {}: {err}", path.display()))
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}

/// Result alias used by app and cli layers.
pub type CmdResult<T> = Result<T, CommandError>;

/// An invalid feature id is the user's input (exit 2), its message unchanged.
impl From<crate::core::feature_id::InvalidFeatureId> for CommandError {
    fn from(e: crate::core::feature_id::InvalidFeatureId) -> Self {
        CommandError::input(e.to_string())
    }
}
