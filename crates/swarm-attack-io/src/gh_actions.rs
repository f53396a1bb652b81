//! GitHub Actions runner I/O: the step summary (`GITHUB_STEP_SUMMARY`), outputs
//! (`GITHUB_OUTPUT`) and workflow-command annotations (`::error::`, `::warning::`).

use crate::ui::Ui;
use std::io::Write;
use std::path::Path;

/// Appends Markdown to the step summary file, if `GITHUB_STEP_SUMMARY` is set.
pub fn append_summary(markdown: &str) -> std::io::Result<()> {
    match crate::env::var_os("GITHUB_STEP_SUMMARY") {
        Some(p) if !p.is_empty() => append(Path::new(&p), markdown),
        _ => Ok(()),
    }
}

/// Writes outputs (`key=value`, heredoc syntax for multi-line values) to `GITHUB_OUTPUT`.
pub fn write_outputs(outputs: &[(&str, String)]) -> std::io::Result<()> {
    let Some(p) = crate::env::var_os("GITHUB_OUTPUT").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let mut text = String::new();
    for (k, v) in outputs {
        if v.contains('\n') {
            let delim = format!("SWARM_EOF_{}", std::process::id());
            text.push_str(&format!("{k}<<{delim}\n{v}\n{delim}\n"));
        } else {
            text.push_str(&format!("{k}={v}\n"));
        }
    }
    append(Path::new(&p), &text)
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())
}

/// Escapes a workflow-command message (`%`, CR, LF).
pub fn escape(msg: &str) -> String {
    msg.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Prints an `::error::` annotation on stdout.
pub fn error(ui: &Ui, msg: &str) {
    ui.outln(format_args!("::error::{}", escape(msg)));
}

/// Prints a `::warning::` annotation on stdout.
pub fn warning(ui: &Ui, msg: &str) {
    ui.outln(format_args!("::warning::{}", escape(msg)));
}

/// Prints a `::notice::` annotation on stdout.
pub fn notice(ui: &Ui, msg: &str) {
    ui.outln(format_args!("::notice::{}", escape(msg)));
}

#[cfg(test)]
mod tests {
    #[test]
    fn escaping() {
        assert_eq!(super::escape("50%\nnext\r"), "50%25%0Anext%0D");
    }
}
