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

/// Prints an error as one sentence, and its hint.
pub fn print_error(e: &CommandError) {
    eprintln!("error: {}", e.message);
    if let Some(h) = &e.hint {
        eprintln!("hint: {h}");
    }
}

/// Prints one JSON document on stdout.
pub fn print_json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}
