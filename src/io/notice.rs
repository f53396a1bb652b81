//! Notices for the user on stderr (warnings and information that is not the command's output).

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences `info` notices (`-q`); warnings are always shown.
pub fn set_quiet(q: bool) {
    QUIET.store(q, Ordering::Relaxed);
}

/// A warning on stderr: `warning: <msg>`.
pub fn warn(msg: &str) {
    crate::errln!("warning: {msg}");
}

/// An informational notice on stderr, silenced by `-q`.
pub fn info(msg: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        crate::errln!("{msg}");
    }
}
