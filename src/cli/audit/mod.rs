//! `swarm-attack audit <feature>`: per issue, its timeline, attempts (agents and mode,
//! verification), retries, outcome with commit or evidence, durations and cost; totals for
//! the feature. `--json`: one JSON document. The aggregation is `core::audit`; this file
//! reads the log (streaming, no lock) and prints.

mod codec;
mod store;
#[cfg(test)]
mod tests;

use crate::app::project::Project;
use crate::cli::output::paint;
use crate::cli::{GlobalArgs, JsonFlag};
use crate::core::audit::{AuditReport, Auditor, Entry, IssueAudit, usd};
use crate::core::record::Record;
use crate::error::{CmdResult, CommandError};
use crate::io::event_reader::LogReader;
use crate::io::{notice, state_store};
use clap::Args;
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write;
use store::{AuditStore, Stored};

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
    // streamed: the timelines and finished attempts wait in a temporary file, one issue's at
    // a time in memory
    let mut store = AuditStore::new();
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

/// [`build`]; with `store`, the timelines and the attempts that are not the last of their
/// issue go there instead of into the report.
fn read(
    project: &Project,
    feature: &str,
    mut store: Option<&mut AuditStore>,
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
        let mut sink = |_no: u64, _line: &[u8], rec: Option<&Record>| {
            // a record with a value that cannot be read is skipped, as it always was
            if let Some(rec) = rec {
                auditor.push(rec);
                if let Some(store) = store.as_deref_mut() {
                    for (issue, attempt) in auditor.take_attempts() {
                        store.push_attempt(issue, &attempt)?;
                    }
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
    store: RefCell<&'a mut AuditStore>,
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
            let stored = self
                .0
                .store
                .borrow_mut()
                .take(i.issue)
                .map_err(S::Error::custom)?;
            seq.serialize_element(&whole(i, stored))?;
        }
        seq.end()
    }
}

/// `issue` with its stored attempts (before the ones it holds) and timeline.
fn whole(issue: &IssueAudit, (mut attempts, timeline): Stored) -> IssueAudit {
    attempts.extend(issue.attempts.iter().cloned());
    IssueAudit {
        attempts,
        timeline,
        ..issue.clone()
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
    render_with(out, r, &mut |i| Ok((Vec::new(), i.timeline.clone())))
}

/// [`render`] with each issue's earlier attempts and timeline from `stored`.
fn render_with(
    out: &mut impl Write,
    r: &AuditReport,
    stored: &mut dyn FnMut(&IssueAudit) -> std::io::Result<Stored>,
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
        "issues: {} ({} done, {} blocked, {} skipped, {} in progress, {} ready, {} not started); attempts {} ({} retries); agent runs {} ({}); cost {}",
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
        total_cost(t)
    );
    out.write_all(o.as_bytes())?;
    for i in &r.issues {
        o.clear();
        o.push('\n');
        let i = whole(i, stored(i)?);
        render_issue(&mut o, &i, &i.timeline);
        out.write_all(o.as_bytes())?;
    }
    Ok(())
}

/// The total cost, saying how many agent runs had an unknown cost.
fn total_cost(t: &crate::core::audit::Totals) -> String {
    match t.cost_unknown_runs {
        0 => usd(Some(t.cost_usd)),
        n if t.cost_usd == 0.0 => format!(
            "unknown ({n} agent run{} reported none)",
            if n == 1 { "" } else { "s" }
        ),
        n => format!(
            "{} + unknown ({n} agent run{} reported none)",
            usd(Some(t.cost_usd)),
            if n == 1 { "" } else { "s" }
        ),
    }
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
    if i.attempt_count > 0 {
        facts.push(format!("cost {}", usd(i.cost_usd)));
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
            if run.duration_ms.is_some() || run.exit_code.is_some() {
                line.push_str(&format!(" cost {}", usd(run.cost_usd)));
                if let (Some(i), Some(o)) = (run.tokens_in, run.tokens_out) {
                    let cached = run
                        .tokens_cached
                        .map(|c| format!(" ({c} cached)"))
                        .unwrap_or_default();
                    line.push_str(&format!(", tokens {i} in{cached} / {o} out"));
                }
                if let Some(k) = &run.error_kind {
                    line.push_str(&format!(", error {k}"));
                }
                if run.permission_denials > 0 {
                    line.push_str(&format!(", {} permission denials", run.permission_denials));
                }
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
        for run in a.agents.iter().filter(|r| r.output.is_some()) {
            let _ = writeln!(
                o,
                "    output of {}: {}",
                run.agent,
                run.output.as_deref().unwrap_or_default()
            );
        }
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
