//! The state store: `.swarm/state/<feature>.json`, read with exact errors and written
//! atomically, only when something changed. Callers hold the feature lock.

use crate::core::state::FeatureState;
use crate::error::{CmdResult, CommandError};
use crate::io::atomic::write_atomic;
use crate::io::lock::FeatureLock;
use std::path::Path;

/// Loads a state file; `Ok(None)` when it does not exist. Invalid JSON is an error naming
/// file, line and column (the file is never touched).
pub fn load(path: &Path) -> CmdResult<Option<FeatureState>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CommandError::io("read", path, &e)),
    };
    let state: FeatureState = serde_json::from_slice(&bytes).map_err(|e| {
        CommandError::input(format!(
            "{} is not a valid state file: {} at line {}, column {}",
            path.display(),
            strip_position(&e.to_string()),
            e.line(),
            e.column()
        ))
        .with_hint("fix or restore the file by hand; swarm-attack never overwrites a state file it cannot read")
    })?;
    Ok(Some(state))
}

fn strip_position(msg: &str) -> &str {
    msg.find(" at line ").map_or(msg, |i| &msg[..i])
}

/// Serialises a state the way it is stored (pretty JSON, trailing newline).
pub fn to_bytes(state: &FeatureState) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(state).unwrap_or_default();
    out.push(b'\n');
    out
}

/// Writes `state` atomically. The lock proves the caller holds the feature.
pub fn save(_lock: &FeatureLock, path: &Path, state: &FeatureState) -> CmdResult<()> {
    write_atomic(path, &to_bytes(state)).map_err(|e| CommandError::io("write", path, &e))
}

/// Writes `new` only when it differs from `old` (ignoring `updated_at`), stamping
/// `updated_at = now`. Returns whether it wrote.
pub fn save_if_changed(
    lock: &FeatureLock,
    path: &Path,
    old: Option<&FeatureState>,
    new: &mut FeatureState,
    now: &str,
) -> CmdResult<bool> {
    if let Some(old) = old
        && !old.differs_from(new)
    {
        return Ok(false);
    }
    new.updated_at = now.to_string();
    save(lock, path, new)?;
    Ok(true)
}
