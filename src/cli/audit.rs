//! `swarm-attack audit <feature>`: per issue, its timeline, attempts (agents and mode,
//! verification), retries, outcome with commit or evidence, durations and cost; totals for
//! the feature. `--json`: one JSON document. The aggregation is `core::audit`; this file
//! reads the log (streaming, no lock) and prints.

use crate::app::project::Project;
use crate::cli::audit_store::TimelineStore;
use crate::cli::output::paint;
use crate::cli::{GlobalArgs, JsonFlag};
use crate::core::audit::{AuditReport, Auditor, Entry, IssueAudit};
use crate::error::{CmdResult, CommandError};
use crate::io::event_reader::LogReader;
use crate::io::{notice, state_store};
use clap::Args;
use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: String,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn audit(g: &GlobalArgs, a: AuditArgs) -> CmdResult<u8> {
    let project = g.open()?;
    project.require_known_feature(&a.feature)?;
    // streamed: the timelines wait in a temporary file, one issue's at a time in memory
    let mut store = TimelineStore::new();
    let report = read(&project, &a.feature, Some(&mut store))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = if a.json.json {
        let doc = Streamed {
            report: &report,
            store: RefCell::new(&mut store),
        };
        serde_json::to_writer_pretty(&mut out, &doc)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        render_with(&mut out, &report, &mut |i| store.take(i.issue))
    }
    .and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            return Err(CommandError::internal(format!(
                "could not print the audit: {e}"
            )));
        }
    }
    Ok(0)
}

/// Reads the feature's log (streaming, no lock) and aggregates it, with titles from the
/// state when there is one.
pub fn build(project: &Project, feature: &str) -> CmdResult<AuditReport> {
    read(project, feature, None)
}

/// [`build`]; with `store`, the timelines go there instead of into the report.
fn read(
    project: &Project,
    feature: &str,
    mut store: Option<&mut TimelineStore>,
) -> CmdResult<AuditReport> {
    project.check_feature(feature)?;
    let path = project.paths.events_file(feature);
    let shown = project.paths.display(&path);
    let mut auditor = if store.is_some() {
        Auditor::spilling(feature)
    } else {
        Auditor::new(feature)
    };
    let mut reader = LogReader::new(&path, Default::default());
    let existed = {
        let mut sink = |_no: u64, line: &[u8]| {
            if let Ok(rec) = serde_json::from_slice::<Map<String, Value>>(line) {
                auditor.push(&rec);
                if let Some(store) = store.as_deref_mut() {
                    for (issue, entry) in auditor.take_entries() {
                        store.push(issue, &entry)?;
                    }
                }
            }
            Ok(())
        };
        reader.read_all(&mut sink).map_err(|e| {
            CommandError::internal(format!("could not read the event log {shown}: {e}"))
        })?
    };
    if !existed {
        notice::info(&format!(
            "no events for feature `{feature}` yet ({shown} does not exist)"
        ));
    }
    let mut report = auditor.finish();
    // Titles from the state, when there is one (read only; a bad state file is no reason to
    // refuse an audit).
    let titles: std::collections::BTreeMap<u64, String> =
        state_store::load(&project.paths.state_file(feature))
            .ok()
            .flatten()
            .map(|s| {
                s.tasks
                    .iter()
                    .map(|t| (u64::from(t.issue_number), t.title.clone()))
                    .collect()
            })
            .unwrap_or_default();
    for i in &mut report.issues {
        i.title = titles.get(&i.issue).cloned();
    }
    Ok(report)
}

/// The report as `--json` prints it, each issue's timeline taken from the store as the
/// issue is written (the same document as serialising the report with its timelines).
struct Streamed<'a> {
    report: &'a AuditReport,
    store: RefCell<&'a mut TimelineStore>,
}

struct StreamedIssues<'s, 'a>(&'s Streamed<'a>);

impl Serialize for Streamed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.report;
        let mut st = s.serialize_struct("AuditReport", 8)?;
        st.serialize_field("feature", &r.feature)?;
        st.serialize_field("events", &r.events)?;
        st.serialize_field("sessions", &r.sessions)?;
        st.serialize_field("first_ts", &r.first_ts)?;
        st.serialize_field("last_ts", &r.last_ts)?;
        st.serialize_field("duration_ms", &r.duration_ms)?;
        st.serialize_field("totals", &r.totals)?;
        st.serialize_field("issues", &StreamedIssues(self))?;
        st.end()
    }
}

impl Serialize for StreamedIssues<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let issues = &self.0.report.issues;
        let mut seq = s.serialize_seq(Some(issues.len()))?;
        for i in issues {
            let timeline = self
                .0
                .store
                .borrow_mut()
                .take(i.issue)
                .map_err(S::Error::custom)?;
            let full = IssueAudit {
                timeline,
                ..i.clone()
            };
            seq.serialize_element(&full)?;
        }
        seq.end()
    }
}

/// A duration for people: `850ms`, `12.5s`, `4m05s`, `2h03m`.
pub fn human_ms(ms: u64) -> String {
    crate::core::report::duration_text(ms)
}

fn outcome_colour(outcome: &str) -> &'static str {
    match outcome {
        "done" | "passed" => "32",
        "blocked" | "failed" => "31",
        "skipped" | "interrupted" => "33",
        "in_progress" => "36",
        _ => "0",
    }
}

/// The readable audit.
pub fn render(out: &mut impl Write, r: &AuditReport) -> std::io::Result<()> {
    render_with(out, r, &mut |i| Ok(i.timeline.clone()))
}

/// [`render`] with each issue's timeline from `timeline`.
fn render_with(
    out: &mut impl Write,
    r: &AuditReport,
    timeline: &mut dyn FnMut(&IssueAudit) -> std::io::Result<Vec<Entry>>,
) -> std::io::Result<()> {
    let mut o = String::new();
    let t = &r.totals;
    let span = match (&r.first_ts, &r.last_ts) {
        (Some(a), Some(b)) => format!(
            ", {a} → {b}{}",
            r.duration_ms
                .map(|d| format!(" ({})", human_ms(d)))
                .unwrap_or_default()
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        o,
        "{}",
        paint(
            &format!(
                "audit {}: {} events, {} sessions{span}",
                r.feature, r.events, r.sessions
            ),
            "1"
        )
    );
    let _ = writeln!(
        o,
        "issues: {} ({} done, {} blocked, {} skipped, {} in progress, {} ready, {} not started); attempts {} ({} retries); agent runs {} ({}); cost ${:.2}",
        t.issues,
        t.done,
        t.blocked,
        t.skipped,
        t.in_progress,
        t.ready,
        t.not_started,
        t.attempts,
        t.retries,
        t.agent_runs,
        human_ms(t.agent_time_ms),
        t.cost_usd
    );
    out.write_all(o.as_bytes())?;
    for i in &r.issues {
        o.clear();
        o.push('\n');
        render_issue(&mut o, i, &timeline(i)?);
        out.write_all(o.as_bytes())?;
    }
    Ok(())
}

fn render_issue(o: &mut String, i: &IssueAudit, timeline: &[Entry]) {
    let mut head = format!("#{}", i.issue);
    if let Some(t) = &i.title {
        head.push_str(&format!(" {t}"));
    }
    let outcome = i.outcome.to_uppercase();
    let mut facts = vec![format!(
        "{} attempt{}",
        i.attempt_count,
        if i.attempt_count == 1 { "" } else { "s" }
    )];
    if let Some(m) = &i.mode {
        let mut who = i.winner.clone().unwrap_or_default();
        if let Some(r) = &i.runner_up {
            who.push_str(&format!(" + {r}"));
        }
        facts.push(format!("{m} ({who})"));
    } else if !i.agents.is_empty() {
        facts.push(i.agents.join(", "));
    }
    if let Some(d) = i.duration_ms {
        facts.push(human_ms(d));
    }
    if let Some(c) = i.cost_usd {
        facts.push(format!("${c:.2}"));
    }
    if let Some(c) = &i.commit {
        facts.push(format!("commit {}", c.chars().take(12).collect::<String>()));
    }
    if let Some(e) = &i.evidence {
        facts.push(e.clone());
    }
    let _ = writeln!(
        o,
        "{}  {}  {}",
        paint(&head, "1"),
        paint(&outcome, outcome_colour(&i.outcome)),
        facts.join(", ")
    );
    if let Some(r) = &i.reason {
        let _ = writeln!(o, "  reason: {r}");
    }
    for fb in &i.fallbacks {
        let _ = writeln!(o, "  fallback {fb}");
    }
    if let Some(c) = &i.convergence {
        let _ = writeln!(
            o,
            "  candidates: {}",
            crate::core::audit::convergence_text(c)
        );
    }
    for a in &i.attempts {
        let mut line = format!("  attempt {}", a.attempt);
        if let Some(m) = &a.mode {
            line.push_str(&format!(" {m}"));
        }
        line.push_str(&format!(
            ": {}",
            paint(&a.outcome, outcome_colour(&a.outcome))
        ));
        if let Some(d) = a.duration_ms {
            line.push_str(&format!(" in {}", human_ms(d)));
        }
        for run in &a.agents {
            let status = if run.timed_out {
                "timed out".to_string()
            } else {
                match (run.exit_code, run.duration_ms) {
                    (Some(c), _) => format!("exit {c}"),
                    (None, Some(_)) => "killed".to_string(),
                    (None, None) => "running".to_string(),
                }
            };
            line.push_str(&format!("; {} {status}", run.agent));
            if let Some(ms) = run.duration_ms {
                line.push_str(&format!(" {}", human_ms(ms)));
            }
            if let Some(c) = run.cost_usd {
                line.push_str(&format!(" ${c:.2}"));
            }
            if let Some(v) = &run.verification {
                line.push_str(&format!(" tests {v}"));
            }
            if !run.files.is_empty() {
                line.push_str(&format!(" [{}]", run.files.join(", ")));
            }
        }
        match (a.verification.as_deref(), a.tests_passed, a.tests_failed) {
            (Some("passed"), Some(n), _) => line.push_str(&format!("; tests passed ({n})")),
            (Some("failed"), _, Some(n)) => line.push_str(&format!("; tests failed ({n})")),
            (Some(v), _, _) => line.push_str(&format!("; tests {v}")),
            _ => {}
        }
        let _ = writeln!(o, "{line}");
        if let Some(f) = &a.failures {
            let _ = writeln!(o, "    failures: {f}");
        }
        if let Some(f) = &a.fallback {
            let _ = writeln!(o, "    fallback {f}");
        }
    }
    for e in timeline {
        let _ = writeln!(
            o,
            "    {}  {:<23}  {}",
            e.ts.as_deref().unwrap_or("-"),
            e.event,
            e.detail
        );
    }
}

#[cfg(test)]
mod streamed_tests {
    use super::*;

    fn records() -> Vec<Map<String, Value>> {
        let mut out = Vec::new();
        for i in 0..3000u64 {
            let issue = i % 13 + 1;
            let line = match i % 6 {
                0 => {
                    serde_json::json!({"ts": format!("2026-01-01T00:{:02}:00Z", i % 60), "event": "issue_started", "seq": i, "session": format!("s{}", i % 4), "issue": issue, "attempt": i / 13 + 1})
                }
                1 => {
                    serde_json::json!({"ts": "2026-01-01T01:00:00Z", "event": "agent_started", "seq": i, "issue": issue, "agent": "claude", "role": "coder"})
                }
                2 => {
                    serde_json::json!({"ts": "2026-01-01T01:00:05Z", "event": "agent_finished", "seq": i, "issue": issue, "agent": "claude", "exit_code": 0, "duration_ms": 5000, "timed_out": false, "cost_usd": 0.25})
                }
                3 => {
                    serde_json::json!({"ts": "2026-01-01T01:00:09Z", "event": "verification_failed", "issue": issue, "tests_failed": 2, "failures": "a\nb"})
                }
                4 => {
                    serde_json::json!({"event": "git_sync", "synced_issues": [issue], "reverted_issues": [], "commits_scanned": 3, "head": "abcdef1234567890"})
                }
                _ => {
                    serde_json::json!({"ts": "2026-01-01T02:00:00Z", "event": "issue_done", "seq": i, "issue": issue, "commit": "0123456789abcdef", "cost_usd": 1.5, "summary": "did it"})
                }
            };
            out.push(line.as_object().unwrap().clone());
        }
        out
    }

    #[test]
    fn streamed_json_and_table_equal_the_in_memory_report() {
        let recs = records();
        let whole = crate::core::audit::audit("f", &recs);
        let mut auditor = Auditor::spilling("f");
        let mut store = TimelineStore::new();
        for r in &recs {
            auditor.push(r);
            for (issue, e) in auditor.take_entries() {
                store.push(issue, &e).unwrap();
            }
        }
        let lean = auditor.finish();
        assert!(lean.issues.iter().all(|i| i.timeline.is_empty()));
        let doc = Streamed {
            report: &lean,
            store: RefCell::new(&mut store),
        };
        assert_eq!(
            serde_json::to_string_pretty(&doc).unwrap(),
            serde_json::to_string_pretty(&whole).unwrap()
        );

        let mut again = TimelineStore::new();
        let mut auditor = Auditor::spilling("f");
        for r in &recs {
            auditor.push(r);
            for (issue, e) in auditor.take_entries() {
                again.push(issue, &e).unwrap();
            }
        }
        let lean = auditor.finish();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        render(&mut a, &whole).unwrap();
        render_with(&mut b, &lean, &mut |i| again.take(i.issue)).unwrap();
        assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
    }
}
