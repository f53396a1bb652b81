//! What `run` shows while agents work. On a terminal: a live display (indicatif) with one
//! line per issue in flight (agent, phase — agent / tests / landing —, elapsed time) and an
//! overall N/M bar. Otherwise: the progress lines, plus a heartbeat line per issue in flight
//! at most every 30 s (`SWARM_HEARTBEAT_SECONDS` overrides the interval).
//!
//! Lines come out in a consistent order: an issue's start is printed after the DONE line of
//! every dependency still in flight.

use crate::app::run::Progress;
use crate::io::ui::Ui;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The environment variable overriding the heartbeat interval (seconds).
pub const HEARTBEAT_ENV: &str = "SWARM_HEARTBEAT_SECONDS";
const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(30);

struct InFlight {
    title: String,
    agent: Option<String>,
    phase: &'static str,
    since: Instant,
    last_line: Instant,
    bar: Option<ProgressBar>,
}

#[derive(Default)]
struct Shared {
    flight: BTreeMap<u32, InFlight>,
    /// Start lines waiting for a dependency's end line: (issue, its dependencies, line).
    deferred: Vec<(u32, Vec<u32>, String)>,
}

/// The live view of one run.
pub struct RunView {
    shared: Mutex<Shared>,
    multi: Option<MultiProgress>,
    overall: Option<ProgressBar>,
    heartbeat: Duration,
    stop: AtomicBool,
    ui: Ui,
}

impl RunView {
    /// A view for `total` issues, printing through `ui`; live when stdout is a terminal.
    pub fn new(ui: &Ui, total: u64) -> Arc<RunView> {
        let live = ui.stdout_is_terminal();
        let (multi, overall) = if live {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stdout());
            let overall = multi.add(ProgressBar::new(total));
            overall.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} issues done  {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            (Some(multi), Some(overall))
        } else {
            (None, None)
        };
        let heartbeat = crate::io::env::var(HEARTBEAT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .map(Duration::from_secs_f64)
            .unwrap_or(DEFAULT_HEARTBEAT);
        Arc::new(RunView {
            shared: Mutex::new(Shared::default()),
            multi,
            overall,
            heartbeat,
            stop: AtomicBool::new(false),
            ui: ui.clone(),
        })
    }

    /// Starts the heartbeat thread (not on a terminal: the live display shows time there).
    pub fn start_heartbeat(self: &Arc<Self>) -> Option<std::thread::JoinHandle<()>> {
        if self.multi.is_some() {
            return None;
        }
        let view = Arc::clone(self);
        Some(std::thread::spawn(move || {
            let tick = view.heartbeat.min(Duration::from_millis(250));
            while !view.stop.load(Ordering::Relaxed) {
                std::thread::sleep(tick);
                view.beat();
            }
        }))
    }

    /// Stops the heartbeat and clears the live display.
    pub fn finish(&self, heartbeat: Option<std::thread::JoinHandle<()>>) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = heartbeat {
            let _ = h.join();
        }
        if let Some(o) = &self.overall {
            o.finish_and_clear();
        }
        if let Some(m) = &self.multi {
            let _ = m.clear();
        }
    }

    fn line(&self, text: &str) {
        match &self.multi {
            Some(m) => {
                let _ = m.println(crate::io::secrets::mask(text));
            }
            None => self.ui.outln(format_args!("{text}")),
        }
    }

    fn beat(&self) {
        let mut s = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let mut lines = Vec::new();
        for (issue, f) in s.flight.iter_mut() {
            if now.duration_since(f.last_line) >= self.heartbeat {
                f.last_line = now;
                lines.push(format!(
                    "#{issue}: still working — {}, {} phase, {} elapsed",
                    f.agent
                        .as_deref()
                        .map(|a| format!("agent {a}"))
                        .unwrap_or_else(|| "preparing".into()),
                    f.phase,
                    elapsed(now.duration_since(f.since))
                ));
            }
        }
        drop(s);
        for l in lines {
            self.line(&l);
        }
    }

    fn refresh(&self, issue: u32, f: &InFlight) {
        if let Some(bar) = &f.bar {
            bar.set_message(format!(
                "#{issue} {} — {} — {}",
                f.title,
                f.agent.as_deref().unwrap_or("preparing"),
                f.phase
            ));
        }
    }

    /// Shows one progress step; `text` is its line (None: nothing to print).
    pub fn show(&self, p: &Progress, text: Option<String>) {
        let mut s = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        match p {
            Progress::Claimed {
                issue,
                title,
                dependencies,
                ..
            } => {
                let bar = self.multi.as_ref().map(|m| {
                    let b = m.insert_before(
                        self.overall.as_ref().unwrap_or(&ProgressBar::hidden()),
                        ProgressBar::new_spinner(),
                    );
                    b.set_style(
                        ProgressStyle::with_template("{spinner} {msg}  {elapsed}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    b.enable_steady_tick(Duration::from_millis(200));
                    b
                });
                let f = InFlight {
                    title: title.clone(),
                    agent: None,
                    phase: "agent",
                    since: now,
                    last_line: now,
                    bar,
                };
                self.refresh(*issue, &f);
                s.flight.insert(*issue, f);
                let waiting: Vec<u32> = dependencies
                    .iter()
                    .copied()
                    .filter(|d| s.flight.contains_key(d))
                    .collect();
                if !waiting.is_empty() {
                    if let Some(t) = text {
                        s.deferred.push((*issue, waiting, t));
                    }
                    return;
                }
            }
            Progress::AgentStarted { issue, agent, .. } => {
                if let Some(f) = s.flight.get_mut(issue) {
                    f.agent = Some(agent.clone());
                    f.phase = "agent";
                    f.last_line = now;
                }
                if let Some(f) = s.flight.get(issue) {
                    self.refresh(*issue, f);
                }
            }
            Progress::Phase { issue, phase } => {
                if let Some(f) = s.flight.get_mut(issue) {
                    f.phase = phase;
                }
                if let Some(f) = s.flight.get(issue) {
                    self.refresh(*issue, f);
                }
            }
            Progress::RateLimited { issue, .. } => {
                // READY again: its line goes; a later claim shows it anew
                if let Some(f) = s.flight.remove(issue)
                    && let Some(b) = f.bar
                {
                    b.finish_and_clear();
                }
            }
            Progress::Finished(r) => {
                if let Some(f) = s.flight.remove(&r.issue)
                    && let Some(b) = f.bar
                {
                    b.finish_and_clear();
                }
                if let Some(o) = &self.overall {
                    o.inc(1);
                }
                if let Some(t) = text {
                    self.line(&t);
                }
                // start lines that waited for this issue
                let mut ready = Vec::new();
                s.deferred.retain_mut(|(n, deps, line)| {
                    deps.retain(|d| *d != r.issue);
                    if deps.is_empty() {
                        ready.push((*n, std::mem::take(line)));
                        false
                    } else {
                        true
                    }
                });
                drop(s);
                for (_, l) in ready {
                    self.line(&l);
                }
                return;
            }
            _ => {
                if let Some(issue) = issue_of(p)
                    && let Some(f) = s.flight.get_mut(&issue)
                {
                    f.last_line = now;
                }
            }
        }
        drop(s);
        if let Some(t) = text {
            self.line(&t);
        }
    }
}

fn issue_of(p: &Progress) -> Option<u32> {
    match p {
        Progress::Recovered { issue, .. } | Progress::AttemptFailed { issue, .. } => Some(*issue),
        _ => None,
    }
}

/// `1m05s`, `42s`.
pub fn elapsed(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_reads_as_minutes_and_seconds() {
        assert_eq!(elapsed(Duration::from_secs(42)), "42s");
        assert_eq!(elapsed(Duration::from_secs(65)), "1m05s");
    }
}
