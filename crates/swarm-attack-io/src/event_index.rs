//! A feature's event log indexed by issue, kept for the life of the process: which lines
//! may concern which issue ([`crate::core::log_issues`]). Building an ended issue's outcome
//! record, or finding the lessons its last attempt used, then reads the bytes appended
//! since the last call and the issue's own lines — not the whole log once per issue, which
//! made a long `run` quadratic in its issues (docs/performance.md "`run` per issue after
//! wave 3").
//!
//! The log is append-only. A log that was replaced (another inode), cut shorter, or
//! rewritten under the indexed part (the last indexed bytes differ) is indexed again from
//! its start. A torn last line is not indexed until its newline is written.

use crate::core::log_issues::issues_of_line;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How much of the log is read at once while indexing.
const CHUNK: usize = 4 << 20;
/// How many of the indexed part's last bytes are compared to tell an appended log from a
/// rewritten one.
const TAIL: usize = 64;

/// What is known of one log file.
#[derive(Default)]
struct Index {
    dev: u64,
    ino: u64,
    /// Bytes indexed (whole lines).
    offset: u64,
    /// The indexed part's last bytes (at most [`TAIL`]).
    tail: Vec<u8>,
    /// Per issue, the `(start, length)` of the lines that may concern it, in log order.
    lines: HashMap<u32, Vec<(u64, u32)>>,
}

/// The indexes of this process, by log path.
static INDEXES: Mutex<BTreeMap<PathBuf, Index>> = Mutex::new(BTreeMap::new());

/// What a call read of the log file itself (the issue's lines aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// Where reading started (0: the log was indexed from its start).
    pub from: u64,
    /// Bytes read and indexed.
    pub bytes: u64,
}

/// The lines of the log at `path` that may concern one of `issues`, in log order (each
/// once), and what was read to index it. A missing or unreadable log has no lines.
pub fn issue_lines(path: &Path, issues: &BTreeSet<u32>) -> (Vec<String>, Scan) {
    let none = Scan { from: 0, bytes: 0 };
    let Ok(file) = File::open(path) else {
        return (Vec::new(), none);
    };
    let Ok(meta) = file.metadata() else {
        return (Vec::new(), none);
    };
    let mut all = INDEXES.lock().unwrap_or_else(|e| e.into_inner());
    let idx = all.entry(path.to_path_buf()).or_default();
    if !idx.still_holds(&file, meta.dev(), meta.ino(), meta.len()) {
        *idx = Index {
            dev: meta.dev(),
            ino: meta.ino(),
            ..Index::default()
        };
    }
    let scan = idx.catch_up(&file, meta.len());
    let mut spans: Vec<(u64, u32)> = issues
        .iter()
        .filter_map(|n| idx.lines.get(n))
        .flatten()
        .copied()
        .collect();
    drop(all);
    spans.sort_unstable();
    spans.dedup();
    let lines = spans
        .into_iter()
        .filter_map(|(start, len)| {
            let mut buf = vec![0; len as usize];
            file.read_exact_at(&mut buf, start).ok()?;
            String::from_utf8(buf).ok()
        })
        .collect();
    (lines, scan)
}

impl Index {
    /// Whether the indexed part is still the start of the file.
    fn still_holds(&self, file: &File, dev: u64, ino: u64, len: u64) -> bool {
        if (self.dev, self.ino) != (dev, ino) || len < self.offset {
            return false;
        }
        let mut now = vec![0; self.tail.len()];
        let at = self.offset - self.tail.len() as u64;
        file.read_exact_at(&mut now, at).is_ok() && now == self.tail
    }

    /// Indexes the whole lines between the indexed part and `len`.
    fn catch_up(&mut self, file: &File, len: u64) -> Scan {
        let from = self.offset;
        let mut buf: Vec<u8> = Vec::new();
        // the file position of `buf[0]`
        let mut pos = self.offset;
        let mut read_to = self.offset;
        while read_to < len {
            let want = CHUNK.min((len - read_to) as usize);
            let start = buf.len();
            buf.resize(start + want, 0);
            if file.read_exact_at(&mut buf[start..], read_to).is_err() {
                break;
            }
            read_to += want as u64;
            let Some(last_nl) = memchr::memrchr(b'\n', &buf) else {
                continue;
            };
            let mut line_start = 0;
            for nl in memchr::memchr_iter(b'\n', &buf[..=last_nl]) {
                let line = &buf[line_start..nl];
                if let Ok(text) = std::str::from_utf8(line) {
                    for n in issues_of_line(text) {
                        self.lines
                            .entry(n)
                            .or_default()
                            .push((pos + line_start as u64, line.len() as u32));
                    }
                }
                line_start = nl + 1;
            }
            let done = &buf[..=last_nl];
            let keep = done.len().min(TAIL);
            // the tail of what is indexed so far (a short chunk keeps the older bytes)
            let mut tail = std::mem::take(&mut self.tail);
            tail.extend_from_slice(&done[done.len() - keep..]);
            let cut = tail.len().saturating_sub(TAIL);
            self.tail = tail.split_off(cut);
            pos += (last_nl + 1) as u64;
            self.offset = pos;
            buf.drain(..=last_nl);
        }
        let scan = Scan {
            from,
            bytes: self.offset - from,
        };
        tracing::debug!(
            "event index: {} byte(s) of the log indexed from byte {}",
            scan.bytes,
            scan.from
        );
        scan
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn append(path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn set(ns: &[u32]) -> BTreeSet<u32> {
        ns.iter().copied().collect()
    }

    #[test]
    fn each_call_reads_only_what_was_appended_and_returns_the_issues_lines_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("f.jsonl");
        append(
            &log,
            "{\"event\":\"issue_started\",\"issue\":1}\n{\"event\":\"issue_started\",\"issue\":2}\n",
        );
        let (lines, scan) = issue_lines(&log, &set(&[1]));
        assert_eq!(lines, vec!["{\"event\":\"issue_started\",\"issue\":1}"]);
        assert_eq!(scan.from, 0);
        let first = std::fs::metadata(&log).unwrap().len();
        assert_eq!(scan.bytes, first);
        // a torn line is not read as a record until its newline is there
        append(
            &log,
            "{\"event\":\"git_sync\",\"synced_issues\":[2],\"reverted_issues\":[]}\n{\"event\":\"issue_done\",\"issue\":1",
        );
        let (lines, scan) = issue_lines(&log, &set(&[1, 2]));
        assert_eq!(scan.from, first, "only the appended bytes are read");
        assert_eq!(
            lines,
            vec![
                "{\"event\":\"issue_started\",\"issue\":1}",
                "{\"event\":\"issue_started\",\"issue\":2}",
                "{\"event\":\"git_sync\",\"synced_issues\":[2],\"reverted_issues\":[]}",
            ]
        );
        append(&log, "}\n");
        let (lines, _) = issue_lines(&log, &set(&[1]));
        assert_eq!(
            lines.last().unwrap(),
            "{\"event\":\"issue_done\",\"issue\":1}"
        );
        // nothing new: nothing read
        let (_, scan) = issue_lines(&log, &set(&[1]));
        assert_eq!(scan.bytes, 0);
    }

    #[test]
    fn a_replaced_or_rewritten_log_is_indexed_again() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("f.jsonl");
        append(&log, "{\"event\":\"issue_started\",\"issue\":1}\n");
        assert_eq!(issue_lines(&log, &set(&[1])).0.len(), 1);
        // rewritten in place, longer than before: the indexed part changed
        std::fs::write(
            &log,
            "{\"event\":\"issue_started\",\"issue\":2}\n{\"event\":\"issue_started\",\"issue\":2}\n",
        )
        .unwrap();
        let (lines, scan) = issue_lines(&log, &set(&[1]));
        assert!(lines.is_empty(), "{lines:?}");
        assert_eq!(scan.from, 0);
        assert_eq!(issue_lines(&log, &set(&[2])).0.len(), 2);
        // replaced by another file
        let other = tmp.path().join("g.jsonl");
        std::fs::write(&other, "{\"event\":\"issue_done\",\"issue\":3}\n").unwrap();
        std::fs::rename(&other, &log).unwrap();
        assert_eq!(issue_lines(&log, &set(&[3])).0.len(), 1);
        assert!(issue_lines(&log, &set(&[2])).0.is_empty());
        // cut shorter
        std::fs::OpenOptions::new()
            .write(true)
            .open(&log)
            .unwrap()
            .set_len(0)
            .unwrap();
        assert!(issue_lines(&log, &set(&[3])).0.is_empty());
        // missing
        std::fs::remove_file(&log).unwrap();
        assert!(issue_lines(&log, &set(&[3])).0.is_empty());
    }
}
