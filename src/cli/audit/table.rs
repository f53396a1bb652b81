//! The readable audit: the feature's totals, then per issue its head, attempts and timeline.
//! The stored (spilled) attempts come back as the lines [`attempt`] wrote when they were
//! stored; the timeline entries are written straight from the store's stream.

use super::codec::{Decoder, EntryRef};
use super::human_ms;
use super::store::AuditStore;
use crate::cli::output::paint;
use crate::core::audit::{Attempt, AuditReport, IssueAudit, usd};
use std::fmt::Write as _;
use std::io::Write;

/// Output is handed to the writer in pieces about this large.
const PIECE: usize = 1 << 16;

fn outcome_colour(outcome: &str) -> &'static str {
    match outcome {
        "done" | "passed" => "32",
        "blocked" | "failed" => "31",
        "skipped" | "interrupted" => "33",
        "in_progress" => "36",
        _ => "0",
    }
}

/// The table: the report's issues, each with its stored attempts and timeline (from `store`,
/// before the ones the report holds).
pub fn write(
    out: &mut dyn Write,
    r: &AuditReport,
    mut store: Option<&mut AuditStore>,
) -> std::io::Result<()> {
    let mut o = String::new();
    totals(&mut o, r);
    out.write_all(o.as_bytes())?;
    for i in &r.issues {
        o.clear();
        o.push('\n');
        head(&mut o, i);
        let stored = store.as_deref_mut().map(|s| (s.take(i.issue), s));
        if let Some((taken, s)) = &stored {
            out.write_all(o.as_bytes())?;
            o.clear();
            s.read::<std::io::Error>(&taken.attempts, &mut |chunk| out.write_all(chunk))?;
        }
        for a in &i.attempts {
            attempt(&mut o, a);
        }
        if let Some((taken, s)) = &stored {
            let mut dec = Decoder::default();
            s.read::<std::io::Error>(&taken.timeline, &mut |chunk| {
                dec.each::<std::io::Error>(chunk, &mut |e| {
                    entry(&mut o, e);
                    if o.len() >= PIECE {
                        out.write_all(o.as_bytes())?;
                        o.clear();
                    }
                    Ok(())
                })
            })?;
        }
        for e in &i.timeline {
            entry(&mut o, EntryRef::from(e));
        }
        out.write_all(o.as_bytes())?;
    }
    Ok(())
}

/// The two lines of the feature's totals.
fn totals(o: &mut String, r: &AuditReport) {
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
}

/// The total cost, saying how many attempts had an unknown cost
/// (docs/budgets.md "Where the spend is shown").
fn total_cost(t: &crate::core::audit::Totals) -> String {
    crate::core::audit::total_cost_text(t.cost_usd, t.cost_unknown_attempts, usd)
}

/// An issue's first lines: number, title, outcome and facts; reason, fallbacks, candidates.
fn head(o: &mut String, i: &IssueAudit) {
    let mut head = format!("#{}", i.issue);
    if let Some(t) = &i.title {
        head.push_str(&format!(" {t}"));
    }
    let outcome = i.outcome.as_str().to_uppercase();
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
        paint(&outcome, outcome_colour(i.outcome.as_str())),
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
}

/// An attempt's lines.
pub fn attempt(o: &mut String, a: &Attempt) {
    let _ = write!(o, "  attempt {}", a.attempt);
    if let Some(m) = &a.mode {
        o.push(' ');
        o.push_str(m);
    }
    o.push_str(": ");
    o.push_str(&paint(
        a.outcome.as_str(),
        outcome_colour(a.outcome.as_str()),
    ));
    if let Some(d) = a.duration_ms {
        o.push_str(" in ");
        o.push_str(&human_ms(d));
    }
    for run in &a.agents {
        o.push_str("; ");
        o.push_str(&run.agent);
        o.push(' ');
        if run.timed_out {
            o.push_str("timed out");
        } else {
            match (run.exit_code, run.duration_ms) {
                (Some(c), _) => {
                    let _ = write!(o, "exit {c}");
                }
                (None, Some(_)) => o.push_str("killed"),
                (None, None) => o.push_str("running"),
            }
        }
        if let Some(ms) = run.duration_ms {
            o.push(' ');
            o.push_str(&human_ms(ms));
        }
        if run.duration_ms.is_some() || run.exit_code.is_some() {
            o.push_str(" cost ");
            o.push_str(&usd(run.cost_usd));
            if let (Some(i), Some(out)) = (run.tokens_in, run.tokens_out) {
                let _ = write!(o, ", tokens {i} in");
                if let Some(c) = run.tokens_cached {
                    let _ = write!(o, " ({c} cached)");
                }
                let _ = write!(o, " / {out} out");
            }
            if let Some(k) = &run.error_kind {
                o.push_str(", error ");
                o.push_str(k);
            }
            if run.permission_denials > 0 {
                let _ = write!(o, ", {} permission denials", run.permission_denials);
            }
        }
        if let Some(v) = &run.verification {
            o.push_str(" tests ");
            o.push_str(v);
        }
        if !run.files.is_empty() {
            o.push_str(" [");
            o.push_str(&run.files.join(", "));
            o.push(']');
        }
    }
    match (a.verification.as_deref(), a.tests_passed, a.tests_failed) {
        (Some("passed"), Some(n), _) => {
            let _ = write!(o, "; tests passed ({n})");
        }
        (Some("failed"), _, Some(n)) => {
            let _ = write!(o, "; tests failed ({n})");
        }
        (Some(v), _, _) => {
            o.push_str("; tests ");
            o.push_str(v);
        }
        _ => {}
    }
    o.push('\n');
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

/// A timeline line: `    <ts>  <event padded to 23 characters>  <detail>`.
fn entry(o: &mut String, e: EntryRef<'_>) {
    o.push_str("    ");
    o.push_str(e.ts.unwrap_or("-"));
    o.push_str("  ");
    o.push_str(e.event);
    let width = e.event.chars().count();
    for _ in width..23 {
        o.push(' ');
    }
    o.push_str("  ");
    o.push_str(e.detail);
    o.push('\n');
}
