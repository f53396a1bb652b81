//! Printing: errors, warnings, JSON documents, colour only on a TTY (and never with
//! `--no-color` or `NO_COLOR`).

use crate::cli::GlobalArgs;
use crate::error::CommandError;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

static COLOR: AtomicBool = AtomicBool::new(false);

/// Sets up printing from the global options.
pub fn init(g: &GlobalArgs) {
    crate::io::notice::set_quiet(g.quiet);
    let no_color = g.no_color || crate::io::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    COLOR.store(
        !no_color && std::io::stdout().is_terminal(),
        Ordering::Relaxed,
    );
    let level = match (g.quiet, g.verbose) {
        (true, _) => "error",
        (_, 0) => "warn",
        (_, 1) => "info",
        _ => "debug",
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new(format!(
            "swarm_attack={level}"
        )))
        .try_init();
}

/// Whether stdout gets colours.
pub fn color() -> bool {
    COLOR.load(Ordering::Relaxed)
}

/// Wraps `text` in an ANSI colour when colours are on (`code` like "32" green, "31" red).
pub fn paint(text: &str, code: &str) -> String {
    if color() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Prints an error as one sentence, with `verbose` (`-v`) its causes under it (one
/// `  caused by: …` line each), and its hint. Control and direction-changing characters
/// (often echoed from arguments or files) are shown escaped (`\n`, `\u{202e}`), so an
/// error can never rewrite the terminal or hide text.
pub fn print_error(e: &CommandError, verbose: bool) {
    crate::errln!("error: {}", escape_controls(&e.message));
    if verbose {
        for cause in e.causes() {
            crate::errln!("  caused by: {}", escape_controls(&cause));
        }
    }
    if let Some(h) = &e.hint {
        crate::errln!("hint: {}", escape_controls(h));
    }
}

/// `text` with control characters (newlines included) and Unicode direction and
/// invisible formatting characters escaped as `\n`, `\t`, `\u{202e}`, ...
pub fn escape_controls(text: &str) -> String {
    let invisible = |c: char| matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{061c}' | '\u{feff}');
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Prints one JSON document on stdout.
pub fn print_json(value: &serde_json::Value) {
    print_json_of(value)
}

/// [`print_json`] of anything serialisable (no intermediate JSON tree).
pub fn print_json_of<T: serde::Serialize + ?Sized>(value: &T) {
    // what `outln!` does, without copying the document once more through `format!`
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    crate::io::secrets::print_out(&crate::io::secrets::mask(&text), true);
}
