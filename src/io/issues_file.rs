//! Reading `specs/<feature>/issues.json` with errors that name the file, line, issue and field.

use crate::core::issue_warnings;
use crate::core::issues::{IssuesDoc, parse_issues};
use crate::error::{CmdResult, CommandError};
use crate::io::ui::Ui;
use std::path::Path;

/// Loads and validates issues.json; `shown` is the path as shown to the user.
pub fn load(ui: &Ui, path: &Path, shown: &str) -> CmdResult<IssuesDoc> {
    let bytes = std::fs::read(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            CommandError::input(format!("{shown} does not exist"))
                .with_hint("run `swarm-attack init <feature>` or write the file")
        } else {
            CommandError::input(format!("cannot read {shown}: {e}"))
        }
    })?;
    // a byte-order mark (left by some Windows editors) is not part of the JSON
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        let msg = e.to_string();
        let msg = msg
            .find(" at line ")
            .map_or(msg.as_str(), |i| &msg[..i])
            .to_string();
        CommandError::input(format!(
            "{shown} is not valid JSON: {msg} at line {}, column {}",
            e.line(),
            e.column()
        ))
    })?;
    let doc =
        parse_issues(&value).map_err(|e| CommandError::input(format!("{shown}: {}", e.message)))?;
    for w in issue_warnings::warnings(&doc) {
        let msg = format!("{shown}: {w}");
        ui.warn_once(&msg, &msg);
    }
    Ok(doc)
}
