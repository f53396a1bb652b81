//! The event log writer: `.swarm/events/<feature>.jsonl` (docs/events.md "Events"). One JSON object
//! per line, one `write` per record, under the feature lock.
//!
//! Durability rules:
//! - the caller holds the feature lock, so `seq` (last record's `seq` + 1) is per-file and
//!   strictly increasing across processes;
//! - a torn last line left by a crash (bytes after the last newline that are not a complete
//!   JSON object) is moved aside to `<file>.torn` and truncated before the next append; a
//!   complete object that only lacks its newline is kept and the newline added;
//! - each record (with its newline) is written with one `write_all`, then the file is
//!   `fdatasync`ed; a new file's folder is fsynced too;
//! - every secret value (`GITHUB_TOKEN`, `GH_TOKEN`, ... see [`crate::secrets`]) is
//!   masked in every record, as a last line of defence: no event ever contains a secret.

use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::file_error::FileError;
use crate::lock::FeatureLock;
use crate::ui::Ui;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why events were not appended.
#[derive(Debug, thiserror::Error)]
pub enum EventLogError {
    /// The log's path is a folder (nothing was changed).
    #[error("the event log {} is a directory, not a file", .0.display())]
    IsDirectory(PathBuf),
    #[error(transparent)]
    File(#[from] FileError),
}

/// Appends events for one feature.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
    feature: FeatureId,
    session: String,
    enabled: bool,
}

impl EventLog {
    pub fn new(path: PathBuf, feature: &FeatureId, session: &str, enabled: bool) -> Self {
        EventLog {
            path,
            feature: feature.clone(),
            session: session.to_string(),
            enabled,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file torn tails are moved to: `<file>.torn`.
    pub fn torn_path(&self) -> PathBuf {
        torn_path(&self.path)
    }

    /// Appends `events` (in order), each stamped with `ts`, `feature`, `session`, `seq`.
    /// The caller proves it holds the feature lock by passing it. A torn tail moved aside
    /// is reported through `ui`.
    pub fn append(
        &self,
        ui: &Ui,
        _lock: &FeatureLock,
        ts: &str,
        events: &[Event],
    ) -> Result<(), EventLogError> {
        if !self.enabled || events.is_empty() {
            return Ok(());
        }
        let err = |e: std::io::Error| FileError::new("append to", &self.path, e);
        if self.path.is_dir() {
            return Err(EventLogError::IsDirectory(self.path.clone()));
        }
        let mut created = false;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
            created = !self.path.exists();
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(err)?;
        let tail = inspect_tail(&mut file).map_err(err)?;
        if let Some(torn) = &tail.torn {
            move_aside(&self.path, &torn.bytes).map_err(err)?;
            file.set_len(torn.offset).map_err(err)?;
            ui.warn(format_args!(
                "{}: line {} was incomplete (a crash during an append); moved it to {} and truncated it",
                self.path.display(),
                torn.line,
                self.torn_path().display()
            ));
        }
        if tail.needs_newline {
            file.write_all(b"\n").map_err(err)?;
        }
        let mut seq = tail.last_seq;
        for event in events {
            seq += 1;
            let line = self.record_line(ts, seq, event);
            let line = crate::secrets::mask(&line);
            // One write per record: a reader or a crash sees all of it or a torn tail.
            file.write_all(line.as_bytes()).map_err(err)?;
        }
        file.sync_data().map_err(err)?;
        if created && let Some(dir) = self.path.parent() {
            crate::atomic::sync_dir(dir).map_err(err)?;
        }
        Ok(())
    }

    /// The full record for one event, with its newline.
    pub fn record_line(&self, ts: &str, seq: u64, event: &Event) -> String {
        let mut rec = Map::new();
        rec.insert("ts".into(), Value::String(ts.to_string()));
        rec.insert("event".into(), Value::String(event.as_str().to_string()));
        rec.insert("feature".into(), Value::String(self.feature.to_string()));
        rec.insert("session".into(), Value::String(self.session.clone()));
        rec.insert("seq".into(), Value::from(seq));
        if let Ok(Value::Object(body)) = serde_json::to_value(event) {
            for (k, v) in body {
                if k != "event" {
                    rec.insert(k, v);
                }
            }
        }
        let mut line = serde_json::to_string(&Value::Object(rec)).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// `<file>.torn`.
pub fn torn_path(path: &Path) -> PathBuf {
    let mut aside = path.as_os_str().to_owned();
    aside.push(".torn");
    PathBuf::from(aside)
}

/// The end of the file, as the next append needs it.
#[derive(Debug, Default, PartialEq)]
struct Tail {
    /// The last record's `seq` (0 when no record has one).
    last_seq: u64,
    /// The last line is a complete record without its newline.
    needs_newline: bool,
    /// A torn last line to move aside.
    torn: Option<Torn>,
}

#[derive(Debug, PartialEq)]
struct Torn {
    /// Where the torn line starts (the file is truncated there).
    offset: u64,
    /// Its 1-based line number.
    line: u64,
    bytes: Vec<u8>,
}

#[derive(Deserialize)]
struct SeqOnly {
    seq: Option<u64>,
}

fn record_seq(line: &[u8]) -> Option<Option<u64>> {
    let first = line.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    serde_json::from_slice::<SeqOnly>(line).ok().map(|r| r.seq)
}

/// Reads the file backwards (bounded memory: one block plus the line being assembled) to
/// find the torn tail, if any, and the last `seq`.
fn inspect_tail(file: &mut File) -> std::io::Result<Tail> {
    let len = file.metadata()?.len();
    let mut tail = Tail::default();
    if len == 0 {
        return Ok(tail);
    }
    let mut lines = RevLines::new(file, len);
    // The first "line" from the end is what follows the last newline (often empty).
    let Some((offset, last)) = lines.next_line()? else {
        return Ok(tail);
    };
    if !last.iter().all(u8::is_ascii_whitespace) {
        match record_seq(&last) {
            Some(seq) => {
                tail.needs_newline = true;
                if let Some(s) = seq {
                    tail.last_seq = s;
                    return Ok(tail);
                }
            }
            None => {
                let line = count_lines_before(lines.file, offset)? + 1;
                tail.torn = Some(Torn {
                    offset,
                    line,
                    bytes: last,
                });
            }
        }
    }
    while let Some((_, line)) = lines.next_line()? {
        if let Some(Some(s)) = record_seq(&line) {
            tail.last_seq = s;
            break;
        }
    }
    Ok(tail)
}

fn count_lines_before(file: &mut File, offset: u64) -> std::io::Result<u64> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, Read::by_ref(file).take(offset));
    let mut count = 0u64;
    loop {
        let buf = std::io::BufRead::fill_buf(&mut reader)?;
        if buf.is_empty() {
            return Ok(count);
        }
        count += memchr::memchr_iter(b'\n', buf).count() as u64;
        let n = buf.len();
        std::io::BufRead::consume(&mut reader, n);
    }
}

/// Lines of a file from its end: the first is what follows the last newline.
struct RevLines<'f> {
    file: &'f mut File,
    /// Bytes before this offset have not been read yet.
    pos: u64,
    block: Vec<u8>,
    /// `block[..avail]` is read but not yet returned.
    avail: usize,
    done: bool,
}

const REV_BLOCK: usize = 64 * 1024;

impl<'f> RevLines<'f> {
    fn new(file: &'f mut File, len: u64) -> Self {
        RevLines {
            file,
            pos: len,
            block: vec![0; REV_BLOCK],
            avail: 0,
            done: false,
        }
    }

    /// The next line from the end: (its start offset, its bytes without the newline).
    fn next_line(&mut self) -> std::io::Result<Option<(u64, Vec<u8>)>> {
        if self.done {
            return Ok(None);
        }
        let mut parts: Vec<Vec<u8>> = Vec::new();
        loop {
            if self.avail == 0 {
                if self.pos == 0 {
                    self.done = true;
                    return Ok(Some((0, join_rev(parts))));
                }
                let n = (self.pos as usize).min(REV_BLOCK);
                self.pos -= n as u64;
                self.file.seek(SeekFrom::Start(self.pos))?;
                self.file.read_exact(&mut self.block[..n])?;
                self.avail = n;
            }
            match memchr::memrchr(b'\n', &self.block[..self.avail]) {
                Some(i) => {
                    parts.push(self.block[i + 1..self.avail].to_vec());
                    self.avail = i;
                    return Ok(Some((self.pos + i as u64 + 1, join_rev(parts))));
                }
                None => {
                    parts.push(self.block[..self.avail].to_vec());
                    self.avail = 0;
                }
            }
        }
    }
}

fn join_rev(mut parts: Vec<Vec<u8>>) -> Vec<u8> {
    if parts.len() == 1 {
        return parts.pop().unwrap_or_default();
    }
    parts.reverse();
    parts.concat()
}

fn move_aside(path: &Path, torn: &[u8]) -> std::io::Result<()> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(torn_path(path))?;
    let mut rec = torn.to_vec();
    rec.push(b'\n');
    f.write_all(&rec)?;
    f.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fid;
    use std::time::Duration;

    fn ui() -> crate::ui::Ui {
        crate::ui::Ui::captured(Default::default())
    }

    fn setup() -> (tempfile::TempDir, EventLog, FeatureLock) {
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::new(
            dir.path().join("events/f1.jsonl"),
            &fid("f1"),
            "sess-1",
            true,
        );
        let lock = FeatureLock::acquire(
            &ui(),
            &dir.path().join("locks/f1.lock"),
            &fid("f1"),
            Duration::from_secs(5),
        )
        .unwrap();
        (dir, log, lock)
    }

    fn lines(log: &EventLog) -> Vec<Value> {
        std::fs::read_to_string(log.path())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn started(issue: u32) -> Event {
        Event::IssueStarted { issue, attempt: 1 }
    }

    #[test]
    fn records_carry_the_common_fields_first_and_seq_increases() {
        let (_d, log, lock) = setup();
        log.append(
            &ui(),
            &lock,
            "2026-01-01T00:00:00.000Z",
            &[started(1), started(2)],
        )
        .unwrap();
        log.append(&ui(), &lock, "2026-01-01T00:00:01.000Z", &[started(3)])
            .unwrap();
        let text = std::fs::read_to_string(log.path()).unwrap();
        assert!(
            text.starts_with(
                r#"{"ts":"2026-01-01T00:00:00.000Z","event":"issue_started","feature":"f1","session":"sess-1","seq":1,"issue":1,"attempt":1}"#
            ),
            "{text}"
        );
        let seqs: Vec<u64> = lines(&log)
            .iter()
            .map(|v| v["seq"].as_u64().unwrap())
            .collect();
        assert_eq!(seqs, [1, 2, 3]);
    }

    #[test]
    fn a_torn_tail_is_moved_aside_and_truncated_before_the_next_append() {
        let (_d, log, lock) = setup();
        log.append(&ui(), &lock, "t", &[started(1)]).unwrap();
        let mut f = OpenOptions::new().append(true).open(log.path()).unwrap();
        f.write_all(br#"{"ts":"t","event":"issue_sta"#).unwrap();
        let ui = ui();
        log.append(&ui, &lock, "t", &[started(2)]).unwrap();
        // the repair is told through the command's printer
        let told = ui.captured_err();
        assert!(
            told.starts_with("warning: ") && told.contains("was incomplete"),
            "{told}"
        );
        assert_eq!(ui.captured_out(), "");
        let v = lines(&log);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1]["seq"], 2);
        assert_eq!(v[1]["issue"], 2);
        let torn = std::fs::read_to_string(log.torn_path()).unwrap();
        assert_eq!(torn, "{\"ts\":\"t\",\"event\":\"issue_sta\n");
    }

    #[test]
    fn a_torn_first_line_leaves_an_empty_log_then_seq_starts_at_one() {
        let (_d, log, lock) = setup();
        std::fs::create_dir_all(log.path().parent().unwrap()).unwrap();
        std::fs::write(log.path(), b"{\"ts\":").unwrap();
        log.append(&ui(), &lock, "t", &[started(1)]).unwrap();
        let v = lines(&log);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0]["seq"], 1);
    }

    #[test]
    fn a_complete_last_record_missing_its_newline_is_kept() {
        let (_d, log, lock) = setup();
        std::fs::create_dir_all(log.path().parent().unwrap()).unwrap();
        std::fs::write(log.path(), br#"{"ts":"t","event":"issue_started","seq":7}"#).unwrap();
        log.append(&ui(), &lock, "t", &[started(1)]).unwrap();
        let v = lines(&log);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1]["seq"], 8);
        assert!(!log.torn_path().exists());
    }

    #[test]
    fn seq_continues_after_garbage_and_original_format_lines() {
        let (_d, log, lock) = setup();
        std::fs::create_dir_all(log.path().parent().unwrap()).unwrap();
        let mut text = String::new();
        text.push_str(r#"{"ts":"t","event":"issue_started","seq":41}"#);
        text.push('\n');
        text.push_str("garbage that is not json\n");
        text.push_str(r#"{"ts": "2025-01-01T00:00:00Z", "event": "issue_done", "issue": 1}"#);
        text.push_str("\n\n");
        std::fs::write(log.path(), text).unwrap();
        log.append(&ui(), &lock, "t", &[started(1)]).unwrap();
        let last = std::fs::read_to_string(log.path())
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .to_string();
        let v: Value = serde_json::from_str(&last).unwrap();
        assert_eq!(v["seq"], 42);
    }

    #[test]
    fn the_last_seq_is_found_behind_lines_longer_than_a_block() {
        let (_d, log, lock) = setup();
        log.append(&ui(), &lock, "t", &[started(1)]).unwrap();
        let big = Event::VerificationFailed {
            issue: 1,
            tests_failed: Some(1),
            failures: "x".repeat(3 * REV_BLOCK + 17),
            agent: None,
        };
        log.append(&ui(), &lock, "t", &[big]).unwrap();
        let mut f = OpenOptions::new().append(true).open(log.path()).unwrap();
        f.write_all("{\"ts\":\"t\",\"failures\":\"".repeat(5000).as_bytes())
            .unwrap();
        log.append(&ui(), &lock, "t", &[started(2)]).unwrap();
        let v = lines(&log);
        assert_eq!(v.len(), 3);
        assert_eq!(v[2]["seq"], 3);
    }

    #[test]
    fn a_disabled_log_writes_nothing() {
        let (d, _log, lock) = setup();
        let off = EventLog::new(d.path().join("events/off.jsonl"), &fid("off"), "s", false);
        off.append(&ui(), &lock, "t", &[started(1)]).unwrap();
        assert!(!off.path().exists());
    }
}
