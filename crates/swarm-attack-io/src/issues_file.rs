//! Reading `specs/<feature>/issues.json` with errors that name the file, line, issue and field.

use crate::core::issue_warnings;
use crate::core::issues::{IssuesDoc, parse_issues};
use crate::ui::Ui;
use std::path::Path;

/// Why an issues file could not be used; `shown` is the path as shown to the user.
#[derive(Debug, thiserror::Error)]
pub enum IssuesFileError {
    #[error("{shown} does not exist")]
    Missing {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {shown}: {source}")]
    Unreadable {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    /// Not JSON: serde's reason without its position, then the position.
    #[error("{shown} is not valid JSON: {reason} at line {line}, column {column}")]
    NotJson {
        shown: String,
        reason: String,
        line: usize,
        column: usize,
        #[source]
        source: serde_json::Error,
    },
    /// JSON that is not a valid issues document (the message names the issue and field).
    #[error("{shown}: {message}")]
    Invalid { shown: String, message: String },
}

/// Loads and validates issues.json; `shown` is the path as shown to the user.
pub fn load(ui: &Ui, path: &Path, shown: &str) -> Result<IssuesDoc, IssuesFileError> {
    let bytes = std::fs::read(path).map_err(|source| {
        let shown = shown.to_string();
        if source.kind() == std::io::ErrorKind::NotFound {
            IssuesFileError::Missing { shown, source }
        } else {
            IssuesFileError::Unreadable { shown, source }
        }
    })?;
    // a byte-order mark (left by some Windows editors) is not part of the JSON
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        let msg = e.to_string();
        let reason = msg
            .find(" at line ")
            .map_or(msg.as_str(), |i| &msg[..i])
            .to_string();
        IssuesFileError::NotJson {
            shown: shown.to_string(),
            reason,
            line: e.line(),
            column: e.column(),
            source: e,
        }
    })?;
    let doc = parse_issues(&value).map_err(|e| IssuesFileError::Invalid {
        shown: shown.to_string(),
        message: e.message,
    })?;
    for w in issue_warnings::warnings(&doc) {
        let msg = format!("{shown}: {w}");
        ui.warn_once(&msg, &msg);
    }
    Ok(doc)
}
