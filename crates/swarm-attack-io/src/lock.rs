//! The per-feature exclusive lock (docs/state.md "Files"): an OS file lock (`flock`) on a lock file
//! that is never renamed or deleted, so a crashed holder releases it with its process. The holder
//! writes who it is into the file, so a waiter that times out can name it.

use crate::core::feature_id::FeatureId;
use crate::file_error::FileError;
use crate::ui::Ui;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a feature lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file could not be created, opened or locked.
    #[error(transparent)]
    File(#[from] FileError),
    /// Another process held the lock for the whole wait.
    #[error("feature `{feature}` is locked by another process ({holder}); waited {waited_secs} s for {}", path.display())]
    Held {
        feature: String,
        holder: String,
        waited_secs: u64,
        path: PathBuf,
    },
}

/// A held feature lock; released on drop.
#[derive(Debug)]
pub struct FeatureLock {
    file: File,
    path: PathBuf,
}

impl FeatureLock {
    /// Acquires the lock at `path`, waiting up to `timeout`; then fails with exit 3 naming
    /// the holder.
    pub fn acquire(
        ui: &Ui,
        path: &Path,
        feature: &FeatureId,
        timeout: Duration,
    ) -> Result<FeatureLock, LockError> {
        Self::acquire_named(ui, path, feature, timeout)
    }

    /// [`FeatureLock::acquire`] of a lock that is not a feature's (e.g. the lessons file's),
    /// named `feature` in the messages.
    pub fn acquire_named(
        ui: &Ui,
        path: &Path,
        feature: &str,
        timeout: Duration,
    ) -> Result<FeatureLock, LockError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(FileError::at("create", dir))?;
        }
        let open = || {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(FileError::at("open lock file", path))
        };
        let file = open()?;
        let file = match file.try_lock() {
            Ok(()) => file,
            Err(TryLockError::Error(e)) => return Err(FileError::new("lock", path, e).into()),
            Err(TryLockError::WouldBlock) => {
                // Wait in the kernel's queue (a polling loop can be starved by a holder
                // that re-takes the lock quickly). The waiting thread owns its own open
                // file; if we give up first, it releases the lock as soon as it gets it.
                drop(file);
                let waiter = open()?;
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let got = waiter.lock().map(|()| waiter);
                    // If nobody listens any more, `got` is dropped here: the lock is released.
                    let _ = tx.send(got);
                });
                // Say who holds it once the wait is noticeable (1 s), then keep waiting.
                let first = timeout.min(Duration::from_secs(1));
                let got = match rx.recv_timeout(first) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) if timeout > first => {
                        ui.info(format_args!(
                            "waiting for the lock on feature `{feature}` held by {} (up to {} s)…",
                            read_holder(path),
                            timeout.as_secs()
                        ));
                        rx.recv_timeout(timeout - first)
                    }
                    other => other,
                };
                match got {
                    Ok(Ok(f)) => f,
                    Ok(Err(e)) => return Err(FileError::new("lock", path, e).into()),
                    Err(_) => {
                        return Err(LockError::Held {
                            feature: feature.to_string(),
                            holder: read_holder(path),
                            waited_secs: timeout.as_secs(),
                            path: path.to_path_buf(),
                        });
                    }
                }
            }
        };
        let mut lock = FeatureLock {
            file,
            path: path.to_path_buf(),
        };
        lock.write_holder();
        Ok(lock)
    }

    fn write_holder(&mut self) {
        let args: Vec<String> = std::env::args().collect();
        let who = format!(
            "pid {} `{}` since {}",
            std::process::id(),
            args.join(" "),
            crate::clock::now_rfc3339()
        );
        // Best effort: the lock is the flock, the text only names the holder.
        let _ = self.file.set_len(0);
        let _ = self.file.seek(SeekFrom::Start(0));
        let _ = self.file.write_all(who.as_bytes());
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FeatureLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

fn read_holder(path: &Path) -> String {
    let mut s = String::new();
    if let Ok(mut f) = File::open(path) {
        let _ = f.read_to_string(&mut s);
    }
    let s = s.trim();
    if s.is_empty() {
        "holder unknown".to_string()
    } else {
        s.to_string()
    }
}
