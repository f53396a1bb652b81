//! Printing set-up: the command's [`Ui`] from the global options (colour only on a TTY, never with
//! `--no-color` or `NO_COLOR`), and errors as one sentence.

use crate::cli::GlobalArgs;
use crate::error::CommandError;
use crate::io::ui::{Ui, UiOptions};

/// Sets up printing from the global options: the command's [`Ui`], and the log filter.
pub fn init(g: &GlobalArgs) -> Ui {
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
    Ui::terminal(ui_options(g))
}

/// The printing options of the global options.
pub fn ui_options(g: &GlobalArgs) -> UiOptions {
    UiOptions {
        quiet: g.quiet,
        verbose: g.verbose,
        no_color: g.no_color,
    }
}

/// Prints an error as one sentence, with `verbose` (`-v`) its causes under it (one
/// `  caused by: …` line each), and its hint. Control and direction-changing characters
/// (often echoed from arguments or files) are shown escaped (`\n`, `\u{202e}`), so an
/// error can never rewrite the terminal or hide text.
pub fn print_error(ui: &Ui, e: &CommandError, verbose: bool) {
    ui.errln(format_args!("error: {}", escape_controls(&e.message)));
    if verbose {
        for cause in e.causes() {
            ui.errln(format_args!("  caused by: {}", escape_controls(&cause)));
        }
    }
    if let Some(h) = &e.hint {
        ui.errln(format_args!("hint: {}", escape_controls(h)));
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
