//! Processes seen through `/proc` (Linux): a marker unique to one test, and whether a
//! process is alive (not a zombie).

use std::sync::atomic::{AtomicU32, Ordering};

/// A marker no other process carries: a tiny extra duration for `sleep` (GNU and busybox
/// `sleep` add up their arguments) when put in an argv, unique to this test process and
/// call; also usable as an environment value.
pub fn unique_marker() -> String {
    static N: AtomicU32 = AtomicU32::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "0.00{}{}{:09}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst),
        nanos
    )
}

/// Whether process `pid` exists and is not a zombie.
pub fn is_live(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| Some(s.rsplit_once(')')?.1.split_whitespace().next()? != "Z"))
        .unwrap_or(false)
}
