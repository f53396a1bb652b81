//! Where `audit` keeps the issues' timelines and finished attempts while it streams the log:
//! each issue's items are encoded ([`super::codec`]) into a small buffer that goes to an
//! anonymous temporary file when full, so memory is bounded by the number of issues, not by
//! the number of records.

use super::codec::{self, Item};
use crate::core::audit::{Attempt, Entry};
use std::collections::HashMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

/// A buffer this large goes to the file.
const FLUSH_AT: usize = 8 * 1024;
/// All buffers together at most this large (then they all go to the file).
const ALL_BUFFERS: usize = 16 * 1024 * 1024;

#[derive(Default)]
struct Timeline {
    /// (offset, length) of the chunks already in the file, in order.
    chunks: Vec<(u64, u32)>,
    buf: Vec<u8>,
}

/// One issue's stored attempts and timeline entries, each in order.
pub type Stored = (Vec<Attempt>, Vec<Entry>);

/// The stored items of all issues.
#[derive(Default)]
pub struct AuditStore {
    file: Option<File>,
    end: u64,
    buffered: usize,
    issues: HashMap<u64, Timeline>,
}

impl AuditStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entry to the end of `issue`'s timeline.
    pub fn push(&mut self, issue: u64, entry: &Entry) -> std::io::Result<()> {
        self.put(issue, |buf| codec::put_entry(buf, entry))
    }

    /// Adds a finished attempt to the end of `issue`'s attempts.
    pub fn push_attempt(&mut self, issue: u64, attempt: &Attempt) -> std::io::Result<()> {
        self.put(issue, |buf| codec::put_attempt(buf, attempt))
    }

    fn put(&mut self, issue: u64, encode: impl FnOnce(&mut Vec<u8>)) -> std::io::Result<()> {
        let t = self.issues.entry(issue).or_default();
        let before = t.buf.len();
        encode(&mut t.buf);
        self.buffered += t.buf.len() - before;
        if t.buf.len() >= FLUSH_AT {
            self.flush(issue)?;
        }
        if self.buffered > ALL_BUFFERS {
            let all: Vec<u64> = self.issues.keys().copied().collect();
            for n in all {
                self.flush(n)?;
            }
        }
        Ok(())
    }

    fn flush(&mut self, issue: u64) -> std::io::Result<()> {
        let Some(t) = self.issues.get_mut(&issue) else {
            return Ok(());
        };
        if t.buf.is_empty() {
            return Ok(());
        }
        if self.file.is_none() {
            self.file = Some(tempfile::tempfile()?);
        }
        let file = self.file.as_mut().expect("just made");
        file.seek(SeekFrom::Start(self.end))?;
        file.write_all(&t.buf)?;
        t.chunks.push((self.end, t.buf.len() as u32));
        self.end += t.buf.len() as u64;
        self.buffered -= t.buf.len();
        t.buf.clear();
        t.buf.shrink_to(FLUSH_AT);
        Ok(())
    }

    /// `issue`'s stored attempts and timeline, each in order (and forgets them).
    pub fn take(&mut self, issue: u64) -> std::io::Result<Stored> {
        let Some(t) = self.issues.remove(&issue) else {
            return Ok(Default::default());
        };
        self.buffered -= t.buf.len();
        let mut out = (Vec::new(), Vec::new());
        let mut raw = Vec::new();
        for (offset, len) in &t.chunks {
            raw.resize(*len as usize, 0);
            if let Some(file) = &self.file {
                file.read_exact_at(&mut raw, *offset)?;
            }
            decode_all(&raw, &mut out)?;
        }
        decode_all(&t.buf, &mut out)?;
        Ok(out)
    }
}

fn decode_all(mut data: &[u8], out: &mut Stored) -> std::io::Result<()> {
    while !data.is_empty() {
        match codec::get(&mut data) {
            Some(Item::Attempt(a)) => out.0.push(a),
            Some(Item::Entry(e)) => out.1.push(e),
            None => {
                return Err(std::io::Error::other(
                    "the audit's temporary timeline file is damaged",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timelines_come_back_in_order_across_buffers_and_the_file() {
        let mut store = AuditStore::new();
        let entry = |i: u64| Entry {
            ts: (!i.is_multiple_of(3)).then(|| format!("2026-01-01T00:00:{:02}Z", i % 60)),
            seq: (!i.is_multiple_of(5)).then_some(i),
            event: format!("ev{}", i % 7),
            detail: "é".repeat((i % 50) as usize),
        };
        for i in 0..20_000u64 {
            store.push(i % 7, &entry(i)).unwrap();
        }
        for issue in 0..7u64 {
            let want: Vec<Entry> = (0..20_000u64)
                .filter(|i| i % 7 == issue)
                .map(entry)
                .collect();
            assert_eq!(store.take(issue).unwrap().1, want);
        }
        assert!(store.take(99).unwrap().1.is_empty());
    }
}
