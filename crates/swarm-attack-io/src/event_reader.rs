//! The event log reader: streams `.swarm/events/<feature>.jsonl` in big blocks (memory stays
//! flat whatever the file size) and hands the lines that pass a [`Filter`] to a sink.
//!
//! Tolerance: a last line without its newline that is not a complete JSON object (a torn
//! tail left by a crash, or an append in progress) is skipped with a warning naming the
//! line; a line in the middle that is not a JSON object is reported with its line number
//! and the read goes on; original-format lines (`{"ts","event",...}` with no `feature` or
//! `seq`) are records like any other. The reader takes no lock: it never blocks a writer and
//! is never blocked by one; a record is appended with one `write`, so it sees whole records
//! (and at worst a partial last line, which it waits for briefly).
//!
//! With `--issue` or `--event`, lines are first checked with a byte search (see
//! [`Prefilter`]); only lines that can match are parsed. Lines skipped that way are still
//! checked cheaply (`{` ... `}`), so garbage is reported in every mode, but a line that
//! looks like an object and cannot match is not fully parsed.

use crate::core::event_filter::{Filter, Prefilter};
use crate::core::record::{NotARecord, Record};
use crate::ui::Ui;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The read block size.
const BLOCK: usize = 1 << 20;
/// How many bad lines are named one by one before the rest are only counted.
const MAX_NAMED_BAD_LINES: u64 = 20;
/// How long the reader waits for a partial last line to be completed by a writer.
const TAIL_GRACE: Duration = Duration::from_millis(50);

/// Receives each line that passed the filter: its 1-based number, its bytes (without the
/// newline) and the record parsed from them (`None` for the rare record with a value that
/// cannot be read, e.g. a string that is not UTF-8: shown by `events --json`, skipped by
/// the readers of fields). Each line is parsed once.
pub type Sink<'s> = dyn FnMut(u64, &[u8], Option<&Record>) -> std::io::Result<()> + 's;

/// A streaming reader of one event log.
pub struct LogReader {
    path: PathBuf,
    file: Option<File>,
    inode: Option<u64>,
    buf: Vec<u8>,
    /// `buf[start..end]` is read and not yet consumed (an incomplete line).
    start: usize,
    end: usize,
    /// File offset of `buf[end]`.
    offset: u64,
    /// Lines consumed so far.
    line_no: u64,
    filter: Filter,
    prefilter: Option<Prefilter>,
    bad_lines: u64,
    /// Lines that passed the filter.
    matched: u64,
    /// Where the warnings about skipped lines go.
    ui: Ui,
}

impl LogReader {
    /// A reader of `path` (which may not exist yet); warnings about skipped lines are shown
    /// through `ui`.
    pub fn new(path: &Path, filter: Filter, ui: &Ui) -> Self {
        let prefilter = filter.prefilter();
        LogReader {
            path: path.to_path_buf(),
            file: None,
            inode: None,
            buf: vec![0; BLOCK],
            start: 0,
            end: 0,
            offset: 0,
            line_no: 0,
            filter,
            prefilter,
            bad_lines: 0,
            matched: 0,
            ui: ui.clone(),
        }
    }

    /// Lines that were not JSON records (named or counted in warnings).
    pub fn bad_lines(&self) -> u64 {
        self.bad_lines
    }

    /// Lines that passed the filter.
    pub fn matched(&self) -> u64 {
        self.matched
    }

    /// Opens the file if it exists; `false` when it does not.
    fn ensure_open(&mut self) -> std::io::Result<bool> {
        if self.file.is_some() {
            return Ok(true);
        }
        match File::open(&self.path) {
            Ok(f) => {
                self.inode = inode(&f);
                self.file = Some(f);
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Reads the whole log once, as it is now: every complete line, then the last line
    /// (waiting briefly if it is being written). Returns `false` when the file does not
    /// exist.
    pub fn read_all(&mut self, sink: &mut Sink) -> std::io::Result<bool> {
        if !self.ensure_open()? {
            return Ok(false);
        }
        self.drain(sink)?;
        if self.has_partial_line() {
            std::thread::sleep(TAIL_GRACE);
            self.resync_partial()?;
            self.drain(sink)?;
        }
        self.finish_tail(sink)?;
        self.report_bad_lines_total();
        Ok(true)
    }

    /// Reads what is there, then keeps reading new records as they are appended, until
    /// `stop` is set (polled every `poll`). A log that does not exist yet is waited for; a
    /// log whose torn tail is repaired (truncated) or that is replaced is followed.
    pub fn follow(
        &mut self,
        sink: &mut Sink,
        stop: &AtomicBool,
        poll: Duration,
    ) -> std::io::Result<()> {
        loop {
            if self.ensure_open()? {
                self.drain(sink)?;
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            std::thread::sleep(poll);
            self.check_moved()?;
        }
    }

    fn has_partial_line(&self) -> bool {
        !self.buf[self.start..self.end]
            .iter()
            .all(u8::is_ascii_whitespace)
    }

    /// Handles a replaced file (read it from its start) and a partial last line that a
    /// writer moved aside (torn tail repair: truncate, then append): the partial line is
    /// dropped and reading goes on from where it started.
    fn check_moved(&mut self) -> std::io::Result<()> {
        if self.file.is_none() {
            return Ok(());
        }
        let replaced = match std::fs::metadata(&self.path) {
            Ok(m) => inode_of(&m) != self.inode,
            Err(_) => true,
        };
        if replaced {
            self.file = None;
            self.start = 0;
            self.end = 0;
            self.offset = 0;
            self.line_no = 0;
            return Ok(());
        }
        self.resync_partial()
    }

    /// Checks that the partial last line we hold is still in the file; when it is not (the
    /// file was truncated there, and maybe appended to since), drops it and seeks back.
    fn resync_partial(&mut self) -> std::io::Result<()> {
        let Some(file) = &mut self.file else {
            return Ok(());
        };
        let held = &self.buf[self.start..self.end];
        let partial_start = self.offset - held.len() as u64;
        let len = file.metadata()?.len();
        let still_there = len >= self.offset && {
            let mut now = vec![0; held.len()];
            read_at(file, &mut now, partial_start).is_ok() && now == held
        };
        if !still_there {
            let resume = partial_start.min(len);
            file.seek(SeekFrom::Start(resume))?;
            self.start = 0;
            self.end = 0;
            self.offset = resume;
        }
        Ok(())
    }

    /// Reads to the current end of the file, handing every complete line to the filter.
    fn drain(&mut self, sink: &mut Sink) -> std::io::Result<()> {
        loop {
            if self.end == self.buf.len() {
                if self.start == 0 {
                    // One line longer than the buffer: grow it.
                    let n = self.buf.len();
                    self.buf.resize(n * 2, 0);
                } else {
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                }
            }
            let Some(file) = &mut self.file else {
                return Ok(());
            };
            let n = match file.read(&mut self.buf[self.end..]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                return Ok(());
            }
            let scan_from = self.end;
            self.end += n;
            self.offset += n as u64;
            // Complete lines end at the last newline of what we have.
            let Some(last_nl) = memchr::memrchr(b'\n', &self.buf[scan_from..self.end]) else {
                continue;
            };
            let chunk_end = scan_from + last_nl + 1;
            let chunk = &self.buf[self.start..chunk_end];
            let mut ctx = LineCtx {
                path: &self.path,
                filter: &self.filter,
                bad_lines: &mut self.bad_lines,
                matched: &mut self.matched,
                ui: &self.ui,
            };
            self.line_no =
                process_chunk(chunk, self.line_no, self.prefilter.as_ref(), &mut ctx, sink)?;
            self.start = chunk_end;
        }
    }

    /// The bytes after the last newline at the end of a one-shot read: a complete object
    /// (only its newline missing) is a record; anything else is a torn line, skipped.
    fn finish_tail(&mut self, sink: &mut Sink) -> std::io::Result<()> {
        if !self.has_partial_line() {
            return Ok(());
        }
        let no = self.line_no + 1;
        let line = &self.buf[self.start..self.end];
        match parse(line) {
            Ok(rec) => {
                if matches(&self.filter, line, rec.as_ref()) {
                    self.matched += 1;
                    sink(no, line, rec.as_ref())?;
                }
            }
            Err(_) => self.ui.warn(format_args!(
                "{}:{no}: the last line is incomplete (torn by a crash, or still being written); skipped it — the next append moves it aside",
                self.path.display()
            )),
        }
        self.line_no = no;
        self.start = self.end;
        Ok(())
    }

    fn report_bad_lines_total(&self) {
        if self.bad_lines > MAX_NAMED_BAD_LINES {
            self.ui.warn(format_args!(
                "{}: {} lines in all were not JSON records and were skipped",
                self.path.display(),
                self.bad_lines
            ));
        }
    }
}

struct LineCtx<'a> {
    path: &'a Path,
    filter: &'a Filter,
    bad_lines: &'a mut u64,
    matched: &'a mut u64,
    ui: &'a Ui,
}

impl LineCtx<'_> {
    fn bad_line(&mut self, no: u64, why: &str) {
        *self.bad_lines += 1;
        if *self.bad_lines <= MAX_NAMED_BAD_LINES {
            self.ui.warn(format_args!(
                "{}:{no}: not a JSON record ({why}); skipped",
                self.path.display()
            ));
        }
    }

    /// Parses a line that may match; hands it on when it does.
    fn full(&mut self, no: u64, line: &[u8], sink: &mut Sink) -> std::io::Result<()> {
        match parse(line) {
            Ok(rec) => {
                if matches(self.filter, line, rec.as_ref()) {
                    *self.matched += 1;
                    sink(no, line, rec.as_ref())?;
                }
            }
            Err(why) if why == "empty line" => {}
            Err(why) => self.bad_line(no, &why),
        }
        Ok(())
    }

    /// A line the prefilter ruled out: only a cheap shape check.
    fn skipped(&mut self, no: u64, line: &[u8]) {
        let t = line.trim_ascii();
        if t.is_empty() {
            return;
        }
        if t[0] != b'{' || t[t.len() - 1] != b'}' {
            let why = if t[0] != b'{' {
                "not a JSON object"
            } else {
                "unterminated object"
            };
            self.bad_line(no, why);
        }
    }
}

/// Parses a line: a record, a record with a value that cannot be read (`None`), or why it is
/// not a JSON record.
fn parse(line: &[u8]) -> Result<Option<Record<'_>>, String> {
    match Record::parse(line) {
        Ok(rec) => Ok(Some(rec)),
        Err(NotARecord::Unreadable) => Ok(None),
        Err(NotARecord::Bad(why)) => Err(why),
    }
}

/// Whether a parsed line passes the filter (a record with an unreadable value is checked on
/// its head, parsed apart).
fn matches(filter: &Filter, line: &[u8], rec: Option<&Record>) -> bool {
    match rec {
        Some(rec) => filter.matches_record(rec),
        None => crate::core::event_filter::Head::parse(line).is_ok_and(|h| filter.matches(&h)),
    }
}

/// Lines the prefilter ruled out (complete lines): counted, and checked line by line only
/// when they do not all look like objects. Returns the line number of the last one.
fn skip_lines(lines: &[u8], line_no: u64, ctx: &mut LineCtx) -> u64 {
    if let Some(n) = crate::core::line_shape::object_lines(lines) {
        return line_no + n;
    }
    let mut line_no = line_no;
    let mut line_start = 0usize;
    for nl in memchr::memchr_iter(b'\n', lines) {
        line_no += 1;
        ctx.skipped(line_no, &lines[line_start..nl]);
        line_start = nl + 1;
    }
    line_no
}

/// Runs the lines of `chunk` (complete lines, each ending with a newline) through the
/// filter; returns the line number of the last one.
fn process_chunk(
    chunk: &[u8],
    mut line_no: u64,
    prefilter: Option<&Prefilter>,
    ctx: &mut LineCtx,
    sink: &mut Sink,
) -> std::io::Result<u64> {
    match prefilter {
        None => {
            let mut line_start = 0usize;
            for nl in memchr::memchr_iter(b'\n', chunk) {
                line_no += 1;
                ctx.full(line_no, &chunk[line_start..nl], sink)?;
                line_start = nl + 1;
            }
        }
        Some(pre) => {
            // Each line with a hit is parsed; the lines between them are only counted and
            // shape-checked, all at once when they all look like objects.
            let mut pos = 0usize; // where the first line not yet handled starts
            for h in pre.hits(chunk) {
                if h < pos {
                    continue; // another hit in a line already handled
                }
                let start = memchr::memrchr(b'\n', &chunk[pos..h]).map_or(pos, |i| pos + i + 1);
                line_no = skip_lines(&chunk[pos..start], line_no, ctx);
                let end = memchr::memchr(b'\n', &chunk[h..]).map_or(chunk.len(), |i| h + i);
                line_no += 1;
                ctx.full(line_no, &chunk[start..end], sink)?;
                pos = (end + 1).min(chunk.len());
            }
            line_no = skip_lines(&chunk[pos..], line_no, ctx);
        }
    }
    Ok(line_no)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    let n = file.seek_read(buf, offset)?;
    if n == buf.len() {
        Ok(())
    } else {
        Err(std::io::ErrorKind::UnexpectedEof.into())
    }
}

fn inode(f: &File) -> Option<u64> {
    f.metadata().ok().as_ref().and_then(inode_of)
}

#[cfg(unix)]
fn inode_of(m: &std::fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    Some(m.ino())
}

#[cfg(not(unix))]
fn inode_of(_m: &std::fs::Metadata) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests;
