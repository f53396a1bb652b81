//! Where `audit` keeps the issues' timelines while it streams the log: each issue's entries
//! are encoded into a small buffer that goes to an anonymous temporary file when full, so
//! memory is bounded by the number of issues, not by the number of records.

use crate::core::audit::Entry;
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

/// The timelines of all issues.
#[derive(Default)]
pub struct TimelineStore {
    file: Option<File>,
    end: u64,
    buffered: usize,
    issues: HashMap<u64, Timeline>,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn take<'a>(data: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if data.len() < n {
        return None;
    }
    let (head, rest) = data.split_at(n);
    *data = rest;
    Some(head)
}

fn get_str(data: &mut &[u8]) -> Option<String> {
    let n = u32::from_le_bytes(take(data, 4)?.try_into().ok()?) as usize;
    Some(String::from_utf8_lossy(take(data, n)?).into_owned())
}

fn encode(out: &mut Vec<u8>, e: &Entry) {
    let flags = u8::from(e.ts.is_some()) | (u8::from(e.seq.is_some()) << 1);
    out.push(flags);
    out.extend_from_slice(&e.seq.unwrap_or(0).to_le_bytes());
    put_str(out, e.ts.as_deref().unwrap_or(""));
    put_str(out, &e.event);
    put_str(out, &e.detail);
}

fn decode(data: &mut &[u8]) -> Option<Entry> {
    let flags = take(data, 1)?[0];
    let seq = u64::from_le_bytes(take(data, 8)?.try_into().ok()?);
    let ts = get_str(data)?;
    Some(Entry {
        ts: (flags & 1 != 0).then_some(ts),
        seq: (flags & 2 != 0).then_some(seq),
        event: get_str(data)?,
        detail: get_str(data)?,
    })
}

impl TimelineStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entry to the end of `issue`'s timeline.
    pub fn push(&mut self, issue: u64, entry: &Entry) -> std::io::Result<()> {
        let t = self.issues.entry(issue).or_default();
        let before = t.buf.len();
        encode(&mut t.buf, entry);
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

    /// `issue`'s timeline, in order (and forgets it).
    pub fn take(&mut self, issue: u64) -> std::io::Result<Vec<Entry>> {
        let Some(t) = self.issues.remove(&issue) else {
            return Ok(Vec::new());
        };
        self.buffered -= t.buf.len();
        let mut out = Vec::new();
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

fn decode_all(mut data: &[u8], out: &mut Vec<Entry>) -> std::io::Result<()> {
    while !data.is_empty() {
        let e = decode(&mut data).ok_or_else(|| {
            std::io::Error::other("the audit's temporary timeline file is damaged")
        })?;
        out.push(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timelines_come_back_in_order_across_buffers_and_the_file() {
        let mut store = TimelineStore::new();
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
            assert_eq!(store.take(issue).unwrap(), want);
        }
        assert!(store.take(99).unwrap().is_empty());
    }
}
