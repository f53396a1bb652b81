//! The event log writer: `.swarm/events/<feature>.jsonl` (SPEC §5). One JSON object per line,
//! one `write` per record, under the feature lock. A torn last line left by a crash is moved
//! aside (to `<file>.torn`) and truncated before the next append.

use crate::core::events::Event;
use crate::error::{CmdResult, CommandError};
use crate::io::lock::FeatureLock;
use serde_json::{Map, Value};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Appends events for one feature.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
    feature: String,
    session: String,
    enabled: bool,
}

impl EventLog {
    pub fn new(path: PathBuf, feature: &str, session: &str, enabled: bool) -> Self {
        EventLog {
            path,
            feature: feature.to_string(),
            session: session.to_string(),
            enabled,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `events` (in order), each stamped with `ts`, `feature`, `session`, `seq`.
    pub fn append(&self, _lock: &FeatureLock, ts: &str, events: &[Event]) -> CmdResult<()> {
        if !self.enabled || events.is_empty() {
            return Ok(());
        }
        let err = |e: std::io::Error| CommandError::io("append to", &self.path, &e);
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(err)?;
        let mut seq = repair_and_last_seq(&mut file, &self.path).map_err(err)?;
        for event in events {
            seq += 1;
            let line = self.record_line(ts, seq, event);
            file.write_all(line.as_bytes()).map_err(err)?;
        }
        file.sync_data().map_err(err)?;
        Ok(())
    }

    fn record_line(&self, ts: &str, seq: u64, event: &Event) -> String {
        let mut rec = Map::new();
        rec.insert("ts".into(), Value::String(ts.to_string()));
        let body = match serde_json::to_value(event) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        rec.insert(
            "event".into(),
            body.get("event").cloned().unwrap_or(Value::Null),
        );
        rec.insert("feature".into(), Value::String(self.feature.clone()));
        rec.insert("session".into(), Value::String(self.session.clone()));
        rec.insert("seq".into(), Value::from(seq));
        for (k, v) in body {
            if k != "event" {
                rec.insert(k, v);
            }
        }
        let mut line = serde_json::to_string(&Value::Object(rec)).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// Moves a torn tail aside and truncates it; returns the last record's `seq` (0 if none).
fn repair_and_last_seq(file: &mut File, path: &Path) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(0);
    }
    // Read backwards in chunks until we have the last complete line.
    let mut chunk = 64 * 1024u64;
    loop {
        let start = len.saturating_sub(chunk);
        let mut buf = Vec::with_capacity((len - start) as usize);
        file.seek(SeekFrom::Start(start))?;
        Read::by_ref(file).take(len - start).read_to_end(&mut buf)?;
        let mut end = buf.len();
        if buf.last() != Some(&b'\n') {
            // torn tail: everything after the last newline
            let cut = buf.iter().rposition(|b| *b == b'\n').map(|i| i + 1);
            match cut {
                Some(i) => {
                    move_aside(path, &buf[i..])?;
                    file.set_len(start + i as u64)?;
                    end = i;
                }
                None if start == 0 => {
                    move_aside(path, &buf)?;
                    file.set_len(0)?;
                    return Ok(0);
                }
                None => {
                    chunk *= 4;
                    continue;
                }
            }
        }
        // find the last non-empty complete line in buf[..end] with a seq
        let body = &buf[..end];
        let mut lines = body.split(|b| *b == b'\n').rev().filter(|l| !l.is_empty());
        for line in lines.by_ref() {
            if let Ok(v) = serde_json::from_slice::<Value>(line)
                && let Some(s) = v.get("seq").and_then(Value::as_u64)
            {
                return Ok(s);
            }
        }
        if start == 0 {
            return Ok(0);
        }
        chunk *= 4;
    }
}

fn move_aside(path: &Path, torn: &[u8]) -> std::io::Result<()> {
    let mut aside = path.as_os_str().to_owned();
    aside.push(".torn");
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(PathBuf::from(aside))?;
    f.write_all(torn)?;
    f.write_all(b"\n")?;
    Ok(())
}
