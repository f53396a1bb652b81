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

/// A warning shown at most once per process for the same `key` (e.g. one per file).
pub fn warn_once(key: &str, msg: &str) {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen
        .get_or_insert_with(HashSet::new)
        .insert(key.to_string())
    {
        warn(msg);
    }
}

/// An informational notice on stderr, silenced by `-q`.
pub fn info(msg: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        crate::errln!("{msg}");
    }
}
