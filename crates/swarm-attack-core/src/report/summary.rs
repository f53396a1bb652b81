//! The report's short form for a GitHub Actions step summary: a compact SVG timeline (one
//! row per issue, bars only — no text element, so a renderer that drops SVG leaves nothing
//! behind) and the totals table in Markdown.

use super::html::total_rows;
use super::svg::colour;
use super::{IssueReport, Report};
use std::fmt::Write as _;

/// Issues drawn one per row in the compact timeline; the rest share the last row.
const MAX_ROWS: usize = 40;
const WIDTH: u64 = 760;
const ROW: u64 = 10;

/// The compact timeline: one row per issue (attempt spans behind, runs on top), coloured
/// by outcome.
pub fn compact_timeline_svg(report: &Report) -> String {
    let span = report.wall_ms.unwrap_or(0).max(1);
    let x = |ms: u64| (ms.min(span) as f64) * ((WIDTH - 4) as f64) / span as f64 + 2.0;
    let rows = report.issues.len().clamp(1, MAX_ROWS) as u64;
    let height = rows * ROW + 4;
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" data-compact-timeline="1">"#
    );
    let row_of = |k: usize| k.min(MAX_ROWS - 1) as u64;
    for (k, i) in report.issues.iter().enumerate() {
        let y = 2 + row_of(k) * ROW;
        bars(&mut out, i, y, span, &x);
    }
    out.push_str("</svg>");
    out
}

fn bars(out: &mut String, i: &IssueReport, y: u64, span: u64, x: &dyn Fn(u64) -> f64) {
    for a in &i.attempts {
        let end = a.end_ms.unwrap_or(span).max(a.start_ms);
        let _ = write!(
            out,
            r#"<rect x="{:.1}" y="{y}" width="{:.1}" height="{}" fill="{}" data-issue="{}"/>"#,
            x(a.start_ms),
            (x(end) - x(a.start_ms)).max(1.0),
            ROW - 1,
            colour("attempt", a.outcome.as_str()),
            i.issue
        );
        for r in &a.runs {
            let end = r.end_ms.unwrap_or(span).max(r.start_ms);
            let _ = write!(
                out,
                r#"<rect x="{:.1}" y="{}" width="{:.1}" height="{}" fill="{}" data-issue="{}" data-kind="{}"/>"#,
                x(r.start_ms),
                y + 1,
                (x(end) - x(r.start_ms)).max(1.5),
                ROW - 3,
                colour(&r.kind, &r.outcome),
                i.issue,
                match r.kind.as_str() {
                    "agent" => "agent",
                    "test" => "test",
                    "landing" => "landing",
                    _ => "rate_limit",
                }
            );
        }
    }
}

/// The step summary: a heading, the compact timeline and the totals table. `report_path`
/// is where the full report was written (shown as text).
pub fn summary_markdown(report: &Report, report_path: &str) -> String {
    let cell = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('|', "\\|")
            .replace('\n', " ")
    };
    let mut md = format!(
        "### swarm-attack report: {}\n\n{}\n\n| total | value |\n|---|---|\n",
        cell(&report.feature),
        compact_timeline_svg(report)
    );
    for (_, label, shown, _) in total_rows(report) {
        let _ = writeln!(md, "| {} | {} |", cell(label), cell(&shown));
    }
    let _ = writeln!(
        md,
        "\nThe full report (timeline, dependency graph, attempts): `{}` (workflow artifact).",
        cell(report_path)
    );
    md
}
