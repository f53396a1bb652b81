//! Output as a value: the [`Ui`] a command prints through. It is built once by the
//! command-line entry from the global options (`-q`, `-v`, `--no-color`, `NO_COLOR`) and
//! handed down as `&Ui` (the project keeps a handle for the use cases and the finish hook).
//!
//! Every byte the tool prints goes through it: the command's output on stdout
//! ([`Ui::out`], [`Ui::outln`], [`Ui::json`]) and notices on stderr ([`Ui::warn`],
//! [`Ui::info`], [`Ui::errln`]). Every text is masked first ([`crate::secrets::mask`]).
//! A stream whose reader went away (`swarm-attack run | head -c 10`) stops the printing,
//! never the work: the first failed write is remembered and later output to that stream is
//! dropped (no panic, unlike `println!`).
//!
//! [`Ui::captured`] builds one that writes into memory instead, so a use case can be run in
//! process and its output read back ([`Ui::captured_out`], [`Ui::captured_err`]).

use crate::secrets;
use std::collections::HashSet;
use std::fmt::Display;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How to print (the global options, without clap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UiOptions {
    /// `-q`: no informational notices (warnings and errors are still shown).
    pub quiet: bool,
    /// `-v` count.
    pub verbose: u8,
    /// `--no-color` (or `NO_COLOR` set): no colours even on a terminal.
    pub no_color: bool,
}

/// Where one stream's bytes go.
enum Sink {
    Stdout,
    Stderr,
    Memory(Mutex<Vec<u8>>),
}

struct Stream {
    sink: Sink,
    /// Set once a write failed (closed pipe): nothing more is written there.
    gone: AtomicBool,
}

impl Stream {
    fn new(sink: Sink) -> Stream {
        Stream {
            sink,
            gone: AtomicBool::new(false),
        }
    }

    /// Writes `text` (and a newline when `line`); on an error marks the stream gone.
    fn write(&self, text: &str, line: bool) {
        if self.gone.load(Ordering::Relaxed) {
            return;
        }
        fn put(mut w: impl Write, text: &str, line: bool) -> std::io::Result<()> {
            w.write_all(text.as_bytes())?;
            if line {
                w.write_all(b"\n")?;
            }
            Ok(())
        }
        let r = match &self.sink {
            Sink::Stdout => put(std::io::stdout().lock(), text, line),
            Sink::Stderr => put(std::io::stderr().lock(), text, line),
            Sink::Memory(buf) => put(
                &mut *buf.lock().unwrap_or_else(|e| e.into_inner()),
                text,
                line,
            ),
        };
        if r.is_err() {
            self.gone.store(true, Ordering::Relaxed);
        }
    }

    fn captured(&self) -> String {
        match &self.sink {
            Sink::Memory(buf) => {
                String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
            }
            _ => String::new(),
        }
    }
}

/// [`Ui::out_writer`]: the process's stdout, or the captured buffer.
pub enum OutWriter<'a> {
    Stdout(std::io::StdoutLock<'static>),
    Memory(&'a Mutex<Vec<u8>>),
}

impl Write for OutWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            OutWriter::Stdout(s) => s.write(buf),
            OutWriter::Memory(m) => {
                m.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            OutWriter::Stdout(s) => s.flush(),
            OutWriter::Memory(_) => Ok(()),
        }
    }
}

struct Inner {
    options: UiOptions,
    color: bool,
    out: Stream,
    err: Stream,
    /// Keys of the notices shown once ([`Ui::warn_once`]).
    seen: Mutex<HashSet<String>>,
}

/// The printer of one command (see the module docs). A cheap handle: clones print to the
/// same streams and share the memory of notices already shown.
#[derive(Clone)]
pub struct Ui {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Ui {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ui")
            .field("options", &self.inner.options)
            .field("color", &self.inner.color)
            .finish_non_exhaustive()
    }
}

impl Default for Ui {
    /// A terminal printer with the default options.
    fn default() -> Ui {
        Ui::terminal(UiOptions::default())
    }
}

impl Ui {
    fn build(options: UiOptions, color: bool, out: Sink, err: Sink) -> Ui {
        Ui {
            inner: Arc::new(Inner {
                options,
                color,
                out: Stream::new(out),
                err: Stream::new(err),
                seen: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// Prints on the process's stdout and stderr; colours when stdout is a terminal and
    /// neither `--no-color` nor `NO_COLOR` asks otherwise.
    pub fn terminal(options: UiOptions) -> Ui {
        let no_color =
            options.no_color || crate::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = !no_color && std::io::stdout().is_terminal();
        Ui::build(options, color, Sink::Stdout, Sink::Stderr)
    }

    /// Prints into memory (no colours): read it back with [`Ui::captured_out`] and
    /// [`Ui::captured_err`].
    pub fn captured(options: UiOptions) -> Ui {
        Ui::build(
            options,
            false,
            Sink::Memory(Mutex::new(Vec::new())),
            Sink::Memory(Mutex::new(Vec::new())),
        )
    }

    /// What was printed on the captured stdout (empty for a terminal printer).
    pub fn captured_out(&self) -> String {
        self.inner.out.captured()
    }

    /// What was printed on the captured stderr (empty for a terminal printer).
    pub fn captured_err(&self) -> String {
        self.inner.err.captured()
    }

    /// The options it was built with.
    pub fn options(&self) -> UiOptions {
        self.inner.options
    }

    /// `-q`.
    pub fn quiet(&self) -> bool {
        self.inner.options.quiet
    }

    /// Whether stdout gets colours.
    pub fn color(&self) -> bool {
        self.inner.color
    }

    /// Whether stdout is a terminal (a live display may be drawn there).
    pub fn stdout_is_terminal(&self) -> bool {
        matches!(self.inner.out.sink, Sink::Stdout) && std::io::stdout().is_terminal()
    }

    /// Wraps `text` in an ANSI colour when colours are on (`code` like "32" green, "31" red).
    pub fn paint(&self, text: &str, code: &str) -> String {
        if self.color() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A writer on stdout for bulk output that is already safe to show (the event log's
    /// records, masked when they were written; generated scripts): not masked, and its
    /// errors are the caller's (a closed pipe ends the output).
    pub fn out_writer(&self) -> OutWriter<'_> {
        match &self.inner.out.sink {
            Sink::Memory(buf) => OutWriter::Memory(buf),
            _ => OutWriter::Stdout(std::io::stdout().lock()),
        }
    }

    /// Prints `text` on stdout, masked, without a newline.
    pub fn out(&self, text: impl Display) {
        self.inner
            .out
            .write(&secrets::mask(&text.to_string()), false);
    }

    /// Prints a line on stdout, masked: the command's output.
    pub fn outln(&self, text: impl Display) {
        self.inner
            .out
            .write(&secrets::mask(&text.to_string()), true);
    }

    /// Prints one JSON document (pretty) on stdout, masked.
    pub fn json<T: serde::Serialize + ?Sized>(&self, value: &T) {
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        self.inner.out.write(&secrets::mask(&text), true);
    }

    /// Prints a line on stderr, masked.
    pub fn errln(&self, text: impl Display) {
        self.inner
            .err
            .write(&secrets::mask(&text.to_string()), true);
    }

    /// A warning on stderr: `warning: <msg>` (shown even with `-q`).
    pub fn warn(&self, msg: impl Display) {
        self.errln(format_args!("warning: {msg}"));
    }

    /// A warning shown at most once by this printer for the same `key` (e.g. one per file).
    pub fn warn_once(&self, key: &str, msg: impl Display) {
        if self.first_time(key) {
            self.warn(msg);
        }
    }

    /// An informational notice on stderr, silenced by `-q`.
    pub fn info(&self, msg: impl Display) {
        if !self.quiet() {
            self.errln(msg);
        }
    }

    /// [`Ui::info`] at most once by this printer for the same `key`.
    pub fn info_once(&self, key: &str, msg: impl Display) {
        if !self.quiet() && self.first_time(key) {
            self.errln(msg);
        }
    }

    fn first_time(&self, key: &str) -> bool {
        self.inner
            .seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_captured_ui_keeps_stdout_and_stderr_apart() {
        let ui = Ui::captured(UiOptions::default());
        ui.outln("one");
        ui.out(format_args!("t{}o", "w"));
        ui.outln("");
        ui.warn("careful");
        ui.info("fyi");
        assert_eq!(ui.captured_out(), "one\ntwo\n");
        assert_eq!(ui.captured_err(), "warning: careful\nfyi\n");
    }

    #[test]
    fn quiet_silences_information_not_warnings() {
        let ui = Ui::captured(UiOptions {
            quiet: true,
            ..UiOptions::default()
        });
        ui.info("fyi");
        ui.info_once("k", "fyi");
        ui.warn("careful");
        assert_eq!(ui.captured_err(), "warning: careful\n");
    }

    #[test]
    fn a_notice_once_is_shown_once_per_key_and_clones_share_the_memory() {
        let ui = Ui::captured(UiOptions::default());
        let clone = ui.clone();
        ui.warn_once("a", "first");
        clone.warn_once("a", "again");
        ui.info_once("b", "other");
        clone.info_once("b", "other again");
        assert_eq!(ui.captured_err(), "warning: first\nother\n");
    }

    #[test]
    fn a_captured_ui_has_no_colours_and_no_terminal() {
        let ui = Ui::captured(UiOptions::default());
        assert!(!ui.color());
        assert!(!ui.stdout_is_terminal());
        assert_eq!(ui.paint("x", "31"), "x");
    }

    #[test]
    fn the_bulk_writer_of_a_captured_ui_writes_into_its_stdout() {
        let ui = Ui::captured(UiOptions::default());
        ui.outln("head");
        write!(ui.out_writer(), "bulk").unwrap();
        assert_eq!(ui.captured_out(), "head\nbulk");
        assert_eq!(ui.captured_err(), "");
    }

    #[test]
    fn json_is_one_pretty_document() {
        let ui = Ui::captured(UiOptions::default());
        ui.json(&serde_json::json!({"a": 1}));
        assert_eq!(ui.captured_out(), "{\n  \"a\": 1\n}\n");
    }
}
