//! Liveness of `run` processes: each running `run` holds an exclusive lock on
//! `.swarm/locks/run-<session>.lock` for its whole life. The kernel releases it when the
//! process dies (however it dies), so another run can tell a live owner of an IN_PROGRESS
//! task from a dead one without trusting pids (which are reused).

use crate::core::owner::{Liveness, Owner};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The held liveness lock of this process; released and removed on drop.
#[derive(Debug)]
pub struct RunLock {
    file: File,
    path: PathBuf,
    pub session: String,
}

fn lock_path(locks_dir: &Path, session: &str) -> PathBuf {
    locks_dir.join(format!("run-{session}.lock"))
}

/// Why this run's liveness lock was not taken.
#[derive(Debug, thiserror::Error)]
#[error("could not take this run's liveness lock: {0}")]
pub struct RunLockError(#[source] pub std::io::Error);

impl RunLock {
    /// Takes this process's liveness lock for `session`.
    pub fn acquire(locks_dir: &Path, session: &str) -> Result<RunLock, RunLockError> {
        Self::take(locks_dir, session).map_err(RunLockError)
    }

    fn take(locks_dir: &Path, session: &str) -> std::io::Result<RunLock> {
        std::fs::create_dir_all(locks_dir)?;
        let path = lock_path(locks_dir, session);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        file.try_lock().map_err(|e| match e {
            TryLockError::WouldBlock => {
                std::io::Error::other(format!("{} is held by another process", path.display()))
            }
            TryLockError::Error(e) => e,
        })?;
        Ok(RunLock {
            file,
            path,
            session: session.to_string(),
        })
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Whether the run that wrote `owner` is alive. Another host: unknown. This host: its
/// liveness lock decides (held: alive; free: dead, and the leftover file is removed); an
/// owner without a session (or whose lock file is gone) falls back to the pid.
pub fn liveness(locks_dir: &Path, owner: &Owner, this_host: &str) -> Liveness {
    if owner.host != this_host {
        return Liveness::Unknown;
    }
    if let Some(session) = &owner.session {
        let path = lock_path(locks_dir, session);
        match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(f) => {
                return match f.try_lock() {
                    Ok(()) => {
                        let _ = std::fs::remove_file(&path);
                        let _ = f.unlock();
                        Liveness::Dead
                    }
                    Err(TryLockError::WouldBlock) => Liveness::Alive,
                    Err(TryLockError::Error(_)) => pid_liveness(owner.pid),
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Liveness::Dead,
            Err(_) => {}
        }
    }
    pid_liveness(owner.pid)
}

fn pid_liveness(pid: u32) -> Liveness {
    if process_running(pid) {
        Liveness::Alive
    } else {
        Liveness::Dead
    }
}

/// Whether a process is running (a zombie, where `/proc` shows it, is not).
pub fn process_running(pid: u32) -> bool {
    if !crate::process::is_alive(pid) {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // the state follows the parenthesised command name
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_none_or(|state| state != "Z"),
        Err(_) => true,
    }
}

/// Waits (up to `max`) until the process `pid` is no longer running.
pub fn wait_until_gone(pid: u32, max: std::time::Duration) {
    let start = std::time::Instant::now();
    while process_running(pid) && start.elapsed() < max {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// This machine's host name (for task owners).
pub fn hostname() -> String {
    for p in ["/proc/sys/kernel/hostname", "/etc/hostname"] {
        if let Ok(s) = std::fs::read_to_string(p) {
            let s = s.trim();
            if !s.is_empty() {
                return s.to_string();
            }
        }
    }
    crate::env::var("HOSTNAME")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_lock_is_alive_released_is_dead() {
        let dir = tempfile::tempdir().unwrap();
        let owner = Owner {
            pid: std::process::id(),
            host: "h".into(),
            since: "t".into(),
            session: Some("s1".into()),
        };
        let lock = RunLock::acquire(dir.path(), "s1").unwrap();
        assert_eq!(liveness(dir.path(), &owner, "h"), Liveness::Alive);
        assert_eq!(liveness(dir.path(), &owner, "other"), Liveness::Unknown);
        drop(lock);
        assert_eq!(liveness(dir.path(), &owner, "h"), Liveness::Dead);
        // a leftover file nobody holds (a crashed run) is dead, and cleaned up
        std::fs::write(dir.path().join("run-s2.lock"), "").unwrap();
        let o2 = Owner {
            session: Some("s2".into()),
            ..owner
        };
        assert_eq!(liveness(dir.path(), &o2, "h"), Liveness::Dead);
        assert!(!dir.path().join("run-s2.lock").exists());
    }
}
