//! The shared JSON-lines files of learning (docs/learning.md "Outcomes"): `.swarm/outcomes.jsonl`
//! (append-only, one `write` per record, shared by every feature) and the lessons file
//! (appended to, and replaced atomically under its lock when a lesson is renewed or
//! forgotten). Every line written is masked ([`crate::secrets::mask`]). Readers skip a
//! line they cannot read (a torn last line left by a crash).

use crate::core::lessons::Lesson;
use crate::core::outcomes::{OutcomeRecord, parse_records};
use crate::file_error::FileError;
use crate::lock::{FeatureLock, LockError};
use crate::ui::Ui;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

/// Appends one line to `path` with a single `write` (O_APPEND), after a newline when the file
/// does not end with one (a torn line left by a crash is closed, never glued to).
pub fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)?;
    let len = f.metadata()?.len();
    let mut text = String::new();
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        if last[0] != b'\n' {
            text.push('\n');
        }
    }
    text.push_str(&crate::secrets::mask(line.trim_end_matches('\n')));
    text.push('\n');
    f.write_all(text.as_bytes())
}

/// Appends outcome records to `.swarm/outcomes.jsonl` (one write each).
pub fn append_outcomes(path: &Path, records: &[OutcomeRecord]) -> std::io::Result<()> {
    for r in records {
        let line = serde_json::to_string(r).map_err(std::io::Error::other)?;
        append_line(path, &line)?;
    }
    Ok(())
}

/// The outcome records of `path`, in order (a missing file: none).
pub fn load_outcomes(path: &Path) -> Vec<OutcomeRecord> {
    std::fs::read_to_string(path)
        .map(|t| parse_records(&t))
        .unwrap_or_default()
}

/// The lessons of `path`, in order (a missing file: none; unreadable lines skipped).
pub fn load_lessons(path: &Path) -> Vec<Lesson> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<Lesson>(l).ok())
        .collect()
}

/// Why the lessons file was not changed.
#[derive(Debug, thiserror::Error)]
pub enum LessonsFileError {
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A bug: a lesson that cannot be written as JSON.
    #[error("a lesson did not serialise: {0}")]
    Serialize(#[source] serde_json::Error),
    #[error(transparent)]
    File(#[from] FileError),
}

/// Changes the lessons file under its lock: `change` gets the lessons and says whether it
/// changed them; the file is then replaced atomically. Returns what `change` returned.
pub fn update_lessons<T>(
    ui: &Ui,
    path: &Path,
    lock: &Path,
    timeout: Duration,
    change: impl FnOnce(&mut Vec<Lesson>) -> (bool, T),
) -> Result<T, LessonsFileError> {
    let _held = FeatureLock::acquire_named(ui, lock, "lessons", timeout)?;
    let mut lessons = load_lessons(path);
    let (changed, out) = change(&mut lessons);
    if changed {
        let mut text = String::new();
        for l in &lessons {
            let line = serde_json::to_string(l).map_err(LessonsFileError::Serialize)?;
            text.push_str(&line);
            text.push('\n');
        }
        crate::atomic::write_atomic(path, text.as_bytes()).map_err(FileError::at("write", path))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_closed_before_the_next_record() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("o.jsonl");
        std::fs::write(&p, "{\"torn\":").unwrap();
        append_line(&p, "{\"a\":1}").unwrap();
        append_line(&p, "{\"b\":2}\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "{\"torn\":\n{\"a\":1}\n{\"b\":2}\n"
        );
    }
}
