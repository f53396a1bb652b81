//! `swarm-attack events <feature>`: prints the feature's event log, oldest first, as a table
//! or (`--json`) as JSONL — each record exactly as it is in the file. Filters: `--issue`,
//! `--event` (repeatable), `--since`/`--until`, `-n` (last N); `--follow` keeps printing
//! new records until Ctrl-C. Reading takes no lock.
//!
//! Also the hidden test tool `debug-append-events` (see docs/events.md).

use crate::cli::GlobalArgs;
use crate::core::audit::describe;
use crate::core::event_filter::{Filter, parse_time_arg};
use crate::core::events::{Event, EventKind};
use crate::core::feature_id::FeatureId;
use crate::core::record::{Field, Fields, Record};
use crate::error::{CmdResult, CommandError};
use crate::io::clock;
use crate::io::event_reader::LogReader;
use crate::io::ui::Ui;
use clap::Args;
use std::collections::VecDeque;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct EventsArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: FeatureId,
    /// Only events of this issue.
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    /// Only events with this name (repeatable).
    #[arg(long = "event", value_name = "NAME")]
    pub event: Vec<String>,
    /// RFC 3339 time or a relative age like `2h`, `30m`, `7d`.
    #[arg(long, value_name = "T")]
    pub since: Option<String>,
    /// Only events up to this time (same forms as --since).
    #[arg(long, value_name = "T")]
    pub until: Option<String>,
    /// Only the last N matching events.
    #[arg(short = 'n', value_name = "N")]
    pub last: Option<usize>,
    /// Keep printing new events as they are appended (Ctrl-C to stop).
    #[arg(long)]
    pub follow: bool,
    /// Print JSONL on stdout: each event as it is logged, one JSON object per line.
    #[arg(long)]
    pub json: bool,
}

/// How often `--follow` looks for new records.
const FOLLOW_POLL: Duration = Duration::from_millis(100);

fn bad_time(option: &str, value: &str) -> CommandError {
    CommandError::input(format!(
        "`{option} {value}` is not a time: use RFC 3339 (2026-01-31T12:00:00Z), a date (2026-01-31) or a relative age like 30m, 2h, 7d"
    ))
}

/// Builds the filter from the options (exit 2 on a bad time).
pub fn filter_from(ui: &Ui, a: &EventsArgs) -> CmdResult<Filter> {
    let now = clock::now();
    let time = |opt: &str, v: &Option<String>| -> CmdResult<_> {
        v.as_deref()
            .map(|s| parse_time_arg(s, now).ok_or_else(|| bad_time(opt, s)))
            .transpose()
    };
    for name in &a.event {
        if !Event::NAMES.contains(&name.as_str()) {
            ui.warn(format_args!(
                "`{name}` is not a known event name (known: {})",
                Event::NAMES.join(", ")
            ));
        }
    }
    Ok(Filter {
        issue: a.issue.map(u64::from),
        events: a.event.clone(),
        since: time("--since", &a.since)?,
        until: time("--until", &a.until)?,
    })
}

pub fn events(g: &GlobalArgs, ui: &Ui, a: EventsArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    if a.follow {
        // following may wait for a feature that has not started yet
    } else {
        project.require_known_feature(&a.feature)?;
    }
    let filter = filter_from(ui, &a)?;
    let path = project.paths.events_file(&a.feature);
    let shown = project.paths.display(&path);
    let mut printer = Printer {
        out: BufWriter::with_capacity(1 << 16, ui.out_writer()),
        json: a.json,
        header_done: false,
        ring: a.last.map(VecDeque::with_capacity),
        limit: a.last.unwrap_or(0),
        ui: ui.clone(),
    };
    let mut reader = LogReader::new(&path, filter, ui);
    let result = if a.follow {
        follow(&mut reader, &mut printer)
    } else {
        let existed = {
            let mut sink =
                |no: u64, line: &[u8], rec: Option<&Record>| printer.record(no, line, rec);
            reader.read_all(&mut sink)
        };
        match existed {
            Ok(false) => {
                ui.info(format_args!(
                    "no events for feature `{}` yet ({shown} does not exist)",
                    a.feature
                ));
                Ok(())
            }
            Ok(true) => printer.flush_ring(),
            Err(e) => Err(e),
        }
        .and_then(|()| printer.out.flush())
    };
    match result {
        Ok(()) => Ok(0),
        // The reader of our output went away (`| head`): that is a normal end.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(CommandError::internal(format!(
            "could not read the event log {shown}: {e}"
        ))),
    }
}

fn follow<W: Write>(reader: &mut LogReader, printer: &mut Printer<W>) -> std::io::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    // SIGINT (Ctrl-C) or SIGTERM ends the follow cleanly, with exit 0
    crate::io::interrupt::flag_on_stop_signals(&stop)?;
    // What is there now (with `-n`, its last N), then every new record as it comes.
    let no_stop = AtomicBool::new(true);
    {
        let mut sink = |no: u64, line: &[u8], rec: Option<&Record>| printer.record(no, line, rec);
        reader.follow(&mut sink, &no_stop, FOLLOW_POLL)?;
    }
    printer.flush_ring()?;
    printer.ring = None;
    printer.out.flush()?;
    let mut sink = |no: u64, line: &[u8], rec: Option<&Record>| {
        printer.record(no, line, rec)?;
        printer.out.flush()
    };
    reader.follow(&mut sink, &stop, FOLLOW_POLL)?;
    printer.out.flush()
}

/// Prints records: JSONL verbatim, or a table row.
struct Printer<W: Write> {
    out: W,
    json: bool,
    header_done: bool,
    /// With `-n`: the last N records seen, printed at the end.
    ring: Option<VecDeque<Vec<u8>>>,
    limit: usize,
    /// Colours of the table.
    ui: Ui,
}

impl<W: Write> Printer<W> {
    fn record(&mut self, _no: u64, line: &[u8], rec: Option<&Record>) -> std::io::Result<()> {
        if let Some(ring) = &mut self.ring {
            if self.limit == 0 {
                return Ok(());
            }
            if ring.len() == self.limit {
                ring.pop_front();
            }
            ring.push_back(line.to_vec());
            return Ok(());
        }
        self.print(line, rec)
    }

    fn flush_ring(&mut self) -> std::io::Result<()> {
        if let Some(ring) = self.ring.take() {
            for line in ring {
                let rec = if self.json {
                    None
                } else {
                    Record::parse(&line).ok()
                };
                self.print(&line, rec.as_ref())?;
            }
            self.ring = Some(VecDeque::new());
        }
        Ok(())
    }

    /// Prints a line: as it is (`--json`), or its record as a table row (a record with a
    /// value that cannot be read has no row).
    fn print(&mut self, line: &[u8], rec: Option<&Record>) -> std::io::Result<()> {
        if self.json {
            self.out.write_all(line)?;
            return self.out.write_all(b"\n");
        }
        let Some(rec) = rec else {
            return Ok(());
        };
        if !self.header_done {
            self.header_done = true;
            let h = format!(
                "{:>6}  {:<24}  {:<23}  {:>5}  DETAIL",
                "SEQ", "TIME", "EVENT", "ISSUE"
            );
            writeln!(self.out, "{}", self.ui.paint(&h, "1"))?;
        }
        write_row(&self.ui, &mut self.out, rec)?;
        self.out.write_all(b"\n")
    }
}

/// One table row: seq, time, event (coloured on a TTY), issue, a readable detail.
pub fn table_row<R: Fields + ?Sized>(ui: &Ui, rec: &R) -> String {
    let mut out = Vec::new();
    let _ = write_row(ui, &mut out, rec);
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` left-aligned in `width` characters, as `{:<width$}` writes it (without the
/// formatting machinery: this runs once per row of a long log).
fn write_left(out: &mut impl Write, text: &str, width: usize) -> std::io::Result<()> {
    out.write_all(text.as_bytes())?;
    write_spaces(out, width.saturating_sub(text.chars().count()))
}

/// ASCII `text` right-aligned in `width` columns, as `{:>width$}` writes it.
fn write_right(out: &mut impl Write, text: &[u8], width: usize) -> std::io::Result<()> {
    write_spaces(out, width.saturating_sub(text.len()))?;
    out.write_all(text)
}

fn write_spaces(out: &mut impl Write, mut n: usize) -> std::io::Result<()> {
    const SPACES: &[u8] = &[b' '; 32];
    while n > 0 {
        let k = n.min(SPACES.len());
        out.write_all(&SPACES[..k])?;
        n -= k;
    }
    Ok(())
}

/// The decimal digits of `n`, written into the end of `buf`.
fn digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// Writes one table row (without its newline) straight to `out`: no intermediate strings
/// but the detail.
pub fn write_row<R: Fields + ?Sized>(
    ui: &Ui,
    out: &mut impl Write,
    rec: &R,
) -> std::io::Result<()> {
    let color = ui.color();
    let event = rec.field("event").and_then(Field::as_str);
    let event = event.as_deref().unwrap_or("?");
    let kind = EventKind::parse(event);
    if color {
        out.write_all(b"\x1b[2m")?;
    }
    match rec.field("seq").and_then(Field::as_u64) {
        Some(seq) => write_right(out, digits(seq, &mut [0; 20]), 6)?,
        None => write_right(out, b"-", 6)?,
    }
    if color {
        out.write_all(b"\x1b[0m")?;
    }
    let ts = rec.field("ts").and_then(Field::as_str);
    out.write_all(b"  ")?;
    write_left(out, ts.as_deref().unwrap_or("-"), 24)?;
    out.write_all(b"  ")?;
    use EventKind as K;
    let colour = match kind {
        Some(K::IssueBlocked | K::VerificationFailed | K::GithubError) => "31",
        Some(K::IssueDone | K::VerificationPassed) => "32",
        Some(K::RetryStarted | K::StateReverted | K::IssueSkipped | K::DuplicateDetected) => "33",
        Some(K::IssueStarted) => "36",
        _ => "",
    };
    if color && !colour.is_empty() {
        write!(out, "\x1b[{colour}m{event:<23}\x1b[0m")?;
    } else {
        write_left(out, event, 23)?;
    }
    match rec
        .field("issue")
        .filter(|f| f.is_number())
        .and_then(Field::text)
    {
        Some(n) if kind != Some(K::ActionReceived) => {
            // `#n` right-aligned in 5 columns
            out.write_all(b"  ")?;
            write_spaces(out, 5usize.saturating_sub(1 + n.len()))?;
            out.write_all(b"#")?;
            out.write_all(n.as_bytes())?;
            out.write_all(b"  ")?;
        }
        _ => out.write_all(b"         ")?,
    }
    let detail = describe(kind, rec);
    if memchr::memchr2(b'\n', b'\r', detail.as_bytes()).is_some() {
        out.write_all(detail.replace(['\n', '\r'], " ").as_bytes())
    } else {
        out.write_all(detail.as_bytes())
    }
}

/// `debug-append-events`: a test tool that appends events in a loop, each under the feature
/// lock like any command (used by the crash and concurrency tests).
#[derive(Debug, Args)]
pub struct DebugAppendArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: FeatureId,
    /// How many events to append (one lock and one append each).
    #[arg(long, default_value_t = 1)]
    pub count: u64,
    /// The issue the events are about.
    #[arg(long, default_value_t = 1)]
    pub issue: u32,
    /// Size of a filler text in each record (makes records span several pages, so a kill
    /// can land in the middle of a write).
    #[arg(long, default_value_t = 0)]
    pub payload_bytes: usize,
    /// Pause between appends, lock released (lets another writer interleave).
    #[arg(long, default_value_t = 0)]
    pub pause_ms: u64,
}

pub fn debug_append(g: &GlobalArgs, ui: &Ui, a: DebugAppendArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    let log = project.event_log(&a.feature);
    for i in 0..a.count {
        let event = if a.payload_bytes > 0 {
            Event::VerificationFailed {
                issue: a.issue,
                tests_failed: Some(i),
                failures: "x".repeat(a.payload_bytes),
                agent: None,
            }
        } else {
            Event::IssueStarted {
                issue: a.issue,
                attempt: u32::try_from(i % 1000).unwrap_or(0) + 1,
            }
        };
        let lock = project.lock(&a.feature)?;
        log.append(ui, &lock, &clock::now_rfc3339(), &[event])?;
        drop(lock);
        if a.pause_ms > 0 {
            std::thread::sleep(Duration::from_millis(a.pause_ms));
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {

    #[test]
    fn write_left_pads_as_the_format_width_does() {
        for text in [
            "",
            "-",
            "issue_done",
            "2026-01-01T00:00:03.014Z",
            "é€😀",
            "a_name_longer_than_the_width_of_23",
        ] {
            for width in [0, 1, 23, 24, 40] {
                let mut out = Vec::new();
                super::write_left(&mut out, text, width).unwrap();
                assert_eq!(String::from_utf8(out).unwrap(), format!("{text:<width$}"));
            }
        }
    }
    use super::*;
    use serde_json::{Map, Value};

    #[test]
    fn numbers_are_right_aligned_as_the_format_width_does() {
        for n in [
            0,
            7,
            42,
            99_999,
            100_000,
            999_999,
            1_000_000,
            12_345_678,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            write_right(&mut out, digits(n, &mut [0; 20]), 6).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), format!("{n:>6}"));
        }
    }

    #[test]
    fn a_row_reads_its_issue_and_seq_as_the_formatting_machinery_did() {
        // seq and issue of every width, and detail texts with line breaks
        for (seq, issue) in [
            ("0", "1"),
            ("123456", "1234"),
            ("1234567", "12345"),
            ("-1", "-3"),
        ] {
            let line = format!(
                r#"{{"ts":"t","event":"issue_done","seq":{seq},"issue":{issue},"summary":"a\r\nb"}}"#
            );
            let rec = Record::parse(line.as_bytes()).unwrap();
            let row = table_row(&Ui::captured(Default::default()), &rec);
            let seq_col = match seq.parse::<u64>() {
                Ok(n) => format!("{n:>6}"),
                Err(_) => format!("{:>6}", "-"),
            };
            let pad = 5usize.saturating_sub(1 + issue.len());
            let issue_col = format!("  {:>pad$}#{issue}  ", "");
            assert_eq!(
                row,
                format!(
                    "{seq_col}  {:<24}  {:<23}{issue_col}DONE: a…",
                    "t", "issue_done"
                )
            );
        }
    }

    #[test]
    fn last_n_keeps_only_the_last_records_in_order() {
        let mut p = Printer {
            out: Vec::new(),
            json: true,
            header_done: false,
            ring: Some(VecDeque::new()),
            limit: 2,
            ui: Ui::captured(Default::default()),
        };
        for l in ["{\"a\":1}", "{\"a\":2}", "{\"a\":3}"] {
            p.record(0, l.as_bytes(), None).unwrap();
        }
        p.flush_ring().unwrap();
        assert_eq!(String::from_utf8(p.out).unwrap(), "{\"a\":2}\n{\"a\":3}\n");
    }

    #[test]
    fn table_rows_name_seq_time_event_issue_and_detail() {
        let rec: Map<String, Value> = serde_json::from_str(
            r#"{"ts":"2026-01-01T00:00:00.000Z","event":"issue_started","feature":"f","session":"s","seq":3,"issue":2,"attempt":1}"#,
        )
        .unwrap();
        let row = table_row(&Ui::captured(Default::default()), &rec);
        assert_eq!(
            row,
            "     3  2026-01-01T00:00:00.000Z  issue_started               #2  attempt 1 started"
        );
    }
}
