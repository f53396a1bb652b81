//! Where `audit` keeps the issues' timelines and finished attempts while it streams the log.
//! Each issue has two streams: its finished attempts, already written as they will be
//! printed (table lines or `--json` items, [`Mode`]), and its timeline entries, encoded
//! compactly ([`super::codec`]). A stream's bytes wait in a small buffer that goes to an
//! anonymous temporary file when full, so memory is bounded by the number of issues, not by
//! the number of records; they come back chunk by chunk while the issue is printed.

use super::codec::{Encoder, EntryRef};
use crate::core::audit::Attempt;
use crate::io::ui::Ui;
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// A buffer this large goes to the file.
const FLUSH_AT: usize = 8 * 1024;
/// All buffers together at most this large (then they all go to the file).
const ALL_BUFFERS: usize = 16 * 1024 * 1024;

/// How the stored attempts are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// As the table's lines.
    Table,
    /// As items of the `--json` document's `attempts` list, each after a comma.
    Json,
}

/// One stream of bytes.
#[derive(Debug, Default)]
pub struct Stream {
    /// (offset, length) of the chunks already in the file, in order.
    chunks: Vec<(u64, u32)>,
    buf: Vec<u8>,
}

impl Stream {
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty() && self.buf.is_empty()
    }
}

/// One issue's streams.
#[derive(Debug, Default)]
pub struct Stored {
    pub attempts: Stream,
    pub timeline: Stream,
    encoder: Encoder,
}

/// The stored items of all issues.
pub struct AuditStore {
    mode: Mode,
    file: Option<File>,
    end: u64,
    buffered: usize,
    /// [`ALL_BUFFERS`] (smaller in tests).
    all_buffers: usize,
    issues: HashMap<u64, Stored>,
    /// A scratch buffer for rendering an attempt.
    text: String,
    /// Colours of the table.
    ui: Ui,
}

impl AuditStore {
    pub fn new(mode: Mode, ui: &Ui) -> Self {
        AuditStore {
            ui: ui.clone(),
            mode,
            file: None,
            end: 0,
            buffered: 0,
            all_buffers: ALL_BUFFERS,
            issues: HashMap::new(),
            text: String::new(),
        }
    }

    /// Adds an entry to the end of `issue`'s timeline.
    pub fn push(&mut self, issue: u64, entry: EntryRef<'_>) -> std::io::Result<()> {
        let s = self.issues.entry(issue).or_default();
        let before = s.timeline.buf.len();
        s.encoder.put(&mut s.timeline.buf, entry);
        self.buffered += s.timeline.buf.len() - before;
        self.after_put(issue, false)
    }

    /// Adds a finished attempt to the end of `issue`'s attempts, written as it will be
    /// printed.
    pub fn push_attempt(&mut self, issue: u64, attempt: &Attempt) -> std::io::Result<()> {
        let s = self.issues.entry(issue).or_default();
        let before = s.attempts.buf.len();
        match self.mode {
            Mode::Table => {
                self.text.clear();
                super::table::attempt(&self.ui, &mut self.text, attempt);
                s.attempts.buf.extend_from_slice(self.text.as_bytes());
            }
            Mode::Json => {
                s.attempts.buf.push(b',');
                super::json::attempt_item(&mut s.attempts.buf, attempt)?;
            }
        }
        self.buffered += s.attempts.buf.len() - before;
        self.after_put(issue, true)
    }

    fn after_put(&mut self, issue: u64, attempts: bool) -> std::io::Result<()> {
        let s = self.issues.get_mut(&issue).expect("just added");
        let stream = if attempts {
            &mut s.attempts
        } else {
            &mut s.timeline
        };
        if stream.buf.len() >= FLUSH_AT {
            self.buffered -= stream.buf.len();
            flush(&mut self.file, &mut self.end, stream)?;
        }
        if self.buffered > self.all_buffers {
            // and their memory is given back (many issues, each with a buffer's capacity)
            for s in self.issues.values_mut() {
                for stream in [&mut s.attempts, &mut s.timeline] {
                    flush(&mut self.file, &mut self.end, stream)?;
                    stream.buf = Vec::new();
                }
            }
            self.buffered = 0;
        }
        Ok(())
    }

    /// Whether some chunks went to the temporary file.
    #[cfg(test)]
    pub fn went_to_file(&self) -> bool {
        self.file.is_some()
    }

    /// `issue`'s streams (and forgets them).
    pub fn take(&mut self, issue: u64) -> Stored {
        let s = self.issues.remove(&issue).unwrap_or_default();
        self.buffered -= s.attempts.buf.len() + s.timeline.buf.len();
        s
    }

    /// Hands `stream`'s chunks to `f`, in order (each chunk holds whole items).
    pub fn read<E: From<std::io::Error>>(
        &self,
        stream: &Stream,
        f: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut raw = Vec::new();
        for (offset, len) in &stream.chunks {
            raw.resize(*len as usize, 0);
            let file = self.file.as_ref().ok_or_else(|| {
                std::io::Error::other("the audit's temporary timeline file is missing")
            })?;
            file.read_exact_at(&mut raw, *offset)?;
            f(&raw)?;
        }
        if !stream.buf.is_empty() {
            f(&stream.buf)?;
        }
        Ok(())
    }
}

fn flush(file: &mut Option<File>, end: &mut u64, s: &mut Stream) -> std::io::Result<()> {
    if s.buf.is_empty() {
        return Ok(());
    }
    if file.is_none() {
        *file = Some(tempfile::tempfile()?);
    }
    let f = file.as_mut().expect("just made");
    f.write_all_at(&s.buf, *end)?;
    s.chunks.push((*end, s.buf.len() as u32));
    *end += s.buf.len() as u64;
    s.buf.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::codec::Decoder;
    use super::*;

    #[test]
    fn timelines_come_back_in_order_across_buffers_and_the_file() {
        come_back_in_order(7, usize::MAX);
        // many issues: all buffers go to the file now and then, and give their memory back
        come_back_in_order(400, 64 * 1024);
    }

    fn come_back_in_order(issues: u64, all_buffers: usize) {
        let mut store = AuditStore::new(Mode::Table, &Ui::captured(Default::default()));
        store.all_buffers = all_buffers;
        let entry = |i: u64| {
            (
                (!i.is_multiple_of(3)).then(|| format!("2026-01-01T00:00:{:02}Z", i % 60)),
                (!i.is_multiple_of(5)).then_some(i),
                format!("ev{}", i % 7),
                "é".repeat((i % 50) as usize),
            )
        };
        for i in 0..40_000u64 {
            let (ts, seq, event, detail) = entry(i);
            let e = EntryRef {
                ts: ts.as_deref(),
                seq,
                event: &event,
                detail: &detail,
            };
            store.push(i % issues, e).unwrap();
            assert!(store.buffered <= all_buffers);
        }
        assert!(store.file.is_some(), "some chunks went to the file");
        if all_buffers < usize::MAX {
            let held: usize = store
                .issues
                .values()
                .map(|s| s.timeline.buf.capacity())
                .sum();
            assert!(held <= 3 * all_buffers, "{held} bytes held");
        }
        for issue in 0..issues {
            let want: Vec<_> = (0..40_000u64)
                .filter(|i| i % issues == issue)
                .map(entry)
                .collect();
            let s = store.take(issue);
            assert!(s.timeline.chunks.len() > 1);
            let mut got = Vec::new();
            let mut dec = Decoder::default();
            store
                .read::<std::io::Error>(&s.timeline, &mut |chunk| {
                    dec.each::<std::io::Error>(chunk, &mut |e| {
                        got.push((
                            e.ts.map(str::to_string),
                            e.seq,
                            e.event.to_string(),
                            e.detail.to_string(),
                        ));
                        Ok(())
                    })
                })
                .unwrap();
            assert_eq!(got, want);
        }
        assert!(store.take(99).timeline.is_empty());
    }
}
