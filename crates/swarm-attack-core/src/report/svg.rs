//! The report's pictures, as inline SVG: the timeline (worker lanes, then every issue's runs)
//! and the dependency graph. Every bar carries `data-*` attributes (issue, attempt, kind,
//! agent, outcome) and a `<title>` tooltip; every text is escaped.

use super::escape::escape_html as esc;
use super::layout::{MAX_LANES, layers, pack};
use super::{IssueReport, Report, Run, cost_text, duration_text, tokens_text};
use std::fmt::Write as _;

/// Width of the whole timeline picture.
const WIDTH: u64 = 1320;
/// Left column (labels).
const LABEL: u64 = 190;
/// Height of one row.
const ROW: u64 = 16;
/// Gap between issue bands.
const GAP: u64 = 8;

/// The fill colour of a bar of `kind` with `outcome`.
pub fn colour(kind: &str, outcome: &str) -> &'static str {
    match (kind, outcome) {
        ("agent", "ok") => "#3b82f6",
        ("agent", "failed") => "#dc2626",
        ("agent", "timed_out") => "#f97316",
        ("agent", "rate_limited") | ("rate_limit", _) => "#eab308",
        ("agent", "stopped") => "#94a3b8",
        ("test", "passed") => "#16a34a",
        ("test", "failed") => "#f87171",
        ("landing", _) => "#0d9488",
        ("attempt", "done" | "passed") => "#dcfce7",
        ("attempt", "failed" | "blocked") => "#fee2e2",
        ("attempt", "in_progress") => "#dbeafe",
        ("attempt", "aggregated") => "#e9d5ff",
        ("attempt", _) => "#f1f5f9",
        ("lane", "done" | "passed") => "#16a34a",
        ("lane", "failed" | "blocked") => "#dc2626",
        ("lane", "in_progress") => "#3b82f6",
        ("lane", _) => "#94a3b8",
        _ => "#a78bfa",
    }
}

/// The legend entries: (kind, outcome, label).
pub const LEGEND: &[(&str, &str, &str)] = &[
    ("agent", "ok", "agent run (exit 0)"),
    ("agent", "failed", "agent failed"),
    ("agent", "timed_out", "agent timed out"),
    ("agent", "stopped", "agent stopped"),
    ("agent", "running", "still running / unknown end"),
    ("test", "passed", "tests passed"),
    ("test", "failed", "tests failed"),
    ("landing", "done", "landing (commit / PR)"),
    ("rate_limit", "waiting", "rate-limit wait"),
    ("attempt", "aggregated", "aggregated attempts"),
];

/// Maps a time (ms from the first record) to an x coordinate.
struct Scale {
    span: u64,
}

impl Scale {
    fn x(&self, ms: u64) -> f64 {
        LABEL as f64 + (ms.min(self.span) as f64) * ((WIDTH - LABEL - 10) as f64) / self.span as f64
    }
    fn w(&self, start: u64, end: u64) -> f64 {
        (self.x(end) - self.x(start)).max(2.0)
    }
}

/// One line describing a run: kind, agent, role, outcome, duration, exit code, cost,
/// tokens, error kind.
pub fn run_line(r: &Run) -> String {
    let mut t = r.kind.clone();
    if let Some(a) = &r.agent {
        let _ = write!(t, " {a}");
    }
    if let Some(role) = &r.role {
        let _ = write!(t, " ({role})");
    }
    let _ = write!(t, ": {}", r.outcome);
    if let Some(end) = r.end_ms {
        let _ = write!(t, ", {}", duration_text(end.saturating_sub(r.start_ms)));
    }
    if r.kind == "agent" && r.end_ms.is_some() {
        if let Some(c) = r.exit_code {
            let _ = write!(t, ", exit {c}");
        }
        let _ = write!(t, ", cost {}", cost_text(r.cost_usd));
        if r.tokens_in.is_some() || r.tokens_out.is_some() {
            let _ = write!(
                t,
                ", tokens {} in / {} out",
                tokens_text(r.tokens_in),
                tokens_text(r.tokens_out)
            );
        }
        if let Some(k) = &r.error_kind {
            let _ = write!(t, ", error {k}");
        }
    }
    t
}

fn run_title(issue: u64, attempt: u64, r: &Run) -> String {
    let mut t = format!("#{issue} attempt {attempt} — {}", run_line(r));
    if let Some(d) = &r.detail {
        let _ = write!(t, " — {d}");
    }
    t
}

fn axis(out: &mut String, sc: &Scale, y: u64, height: u64) {
    for i in 0..=6u64 {
        let ms = sc.span * i / 6;
        let x = sc.x(ms);
        let anchor = match i {
            0 => "start",
            6 => "end",
            _ => "middle",
        };
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{y}" x2="{x:.1}" y2="{}" stroke="#e2e8f0"/><text x="{x:.1}" y="{}" class="tick" text-anchor="{anchor}">{}</text>"##,
            y + height,
            y.saturating_sub(4),
            esc(&duration_text(ms))
        );
    }
}

/// The timeline: worker lanes, then one band per issue (its runs packed in rows, attempt
/// spans behind them), then feature-wide rate-limit waits.
pub fn timeline(out: &mut String, report: &Report) {
    let sc = Scale {
        span: report.wall_ms.unwrap_or(0).max(1),
    };
    // heights first
    let lanes_h = u64::from(report.lane_count.clamp(1, MAX_LANES)) * ROW;
    let mut bands: Vec<(&IssueReport, Vec<u32>, u32)> = Vec::new();
    for i in &report.issues {
        let spans: Vec<(u64, u64)> = i
            .attempts
            .iter()
            .flat_map(|a| a.runs.iter())
            .map(|r| (r.start_ms, r.end_ms.unwrap_or(sc.span).max(r.start_ms)))
            .collect();
        let (rows, n) = pack(&spans);
        bands.push((i, rows, n.max(1)));
    }
    let loose: Vec<_> = report
        .rate_limits
        .iter()
        .filter(|r| r.issue.is_none())
        .collect();
    let issues_h: u64 = bands.iter().map(|b| u64::from(b.2) * ROW + GAP).sum();
    let rl_h = if loose.is_empty() { 0 } else { ROW + GAP };
    let height = 30 + lanes_h + 28 + issues_h + rl_h + 10;
    let _ = write!(
        out,
        r#"<svg id="timeline-svg" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="timeline">"#
    );
    axis(out, &sc, 20, height - 30);
    // worker lanes
    let mut y = 30;
    let _ = write!(
        out,
        r#"<text x="4" y="{}" class="lbl">worker lanes ({})</text>"#,
        y + ROW - 4,
        report.lane_count
    );
    if report.lane_count > MAX_LANES {
        let _ = write!(
            out,
            r#"<text x="4" y="{}" class="lbl">lanes {}–{} here</text>"#,
            y + u64::from(MAX_LANES) * ROW - 4,
            MAX_LANES,
            report.lane_count
        );
    }
    for l in &report.lanes {
        let ly = y + u64::from(l.lane.min(MAX_LANES - 1)) * ROW;
        let _ = write!(
            out,
            r#"<rect class="bar lane" x="{:.1}" y="{}" width="{:.1}" height="{}" fill="{}" data-issue="{}" data-attempt="{}" data-kind="lane" data-outcome="{}"><title>{}</title></rect>"#,
            sc.x(l.start_ms),
            ly + 2,
            sc.w(l.start_ms, l.end_ms),
            ROW - 4,
            colour("lane", l.outcome.as_str()),
            l.issue,
            l.attempt,
            esc(l.outcome.as_str()),
            esc(&format!(
                "lane {}: #{} attempt {} — {}, {}",
                l.lane + 1,
                l.issue,
                l.attempt,
                l.outcome,
                duration_text(l.end_ms - l.start_ms)
            ))
        );
    }
    y += lanes_h + 28;
    for (i, rows, n) in &bands {
        let band_h = u64::from(*n) * ROW;
        let label = match &i.title {
            Some(t) => format!("#{} {}", i.issue, t),
            None => format!("#{}", i.issue),
        };
        let _ = write!(
            out,
            r##"<g class="band" data-issue="{}"><line x1="0" y1="{}" x2="{WIDTH}" y2="{}" stroke="#f1f5f9"/><a href="#issue-{}"><text x="4" y="{}" class="lbl">{}<title>{}</title></text></a>"##,
            i.issue,
            y - GAP / 2,
            y - GAP / 2,
            i.issue,
            y + ROW - 4,
            esc(&cut(&label, 26)),
            esc(&label)
        );
        for a in &i.attempts {
            let end = a.end_ms.unwrap_or(sc.span).max(a.start_ms);
            let _ = write!(
                out,
                r#"<rect class="attempt" x="{:.1}" y="{y}" width="{:.1}" height="{band_h}" fill="{}" data-issue="{}" data-attempt="{}" data-kind="attempt" data-outcome="{}"><title>{}</title></rect>"#,
                sc.x(a.start_ms),
                sc.w(a.start_ms, end),
                colour("attempt", a.outcome.as_str()),
                i.issue,
                a.attempt,
                esc(a.outcome.as_str()),
                esc(&format!(
                    "#{} attempt {} ({}) — {}",
                    i.issue,
                    a.attempt,
                    a.mode.as_deref().unwrap_or("mode unknown"),
                    a.outcome
                ))
            );
        }
        if let Some(g) = &i.aggregated {
            let _ = write!(
                out,
                r#"<rect class="attempt aggregated" x="{:.1}" y="{y}" width="{:.1}" height="{band_h}" fill="{}" data-issue="{}" data-kind="aggregated" data-attempts="{}"><title>{}</title></rect>"#,
                sc.x(g.start_ms),
                sc.w(g.start_ms, g.end_ms),
                colour("attempt", "aggregated"),
                i.issue,
                g.attempts,
                esc(&format!("#{}: {}", i.issue, g.describe()))
            );
        }
        let mut k = 0;
        for a in &i.attempts {
            for r in &a.runs {
                let row = u64::from(rows[k]);
                k += 1;
                let end = r.end_ms.unwrap_or(sc.span).max(r.start_ms);
                let _ = write!(
                    out,
                    r#"<rect class="bar run" x="{:.1}" y="{}" width="{:.1}" height="{}" rx="2" fill="{}" data-issue="{}" data-attempt="{}" data-kind="{}" data-agent="{}" data-outcome="{}"><title>{}</title></rect>"#,
                    sc.x(r.start_ms),
                    y + row * ROW + 2,
                    sc.w(r.start_ms, end),
                    ROW - 4,
                    colour(&r.kind, &r.outcome),
                    i.issue,
                    a.attempt,
                    esc(&r.kind),
                    esc(r.agent.as_deref().unwrap_or("")),
                    esc(&r.outcome),
                    esc(&run_title(i.issue, a.attempt, r))
                );
            }
        }
        out.push_str("</g>");
        y += band_h + GAP;
    }
    if !loose.is_empty() {
        let _ = write!(
            out,
            r#"<text x="4" y="{}" class="lbl">rate limits</text>"#,
            y + ROW - 4
        );
        for r in loose {
            let _ = write!(
                out,
                r#"<rect class="bar run" x="{:.1}" y="{}" width="{:.1}" height="{}" fill="{}" data-kind="rate_limit"><title>{}</title></rect>"#,
                sc.x(r.start_ms),
                y + 2,
                sc.w(r.start_ms, r.start_ms + r.retry_after_ms),
                ROW - 4,
                colour("rate_limit", "waiting"),
                esc(&format!(
                    "rate limited{}: waited {}",
                    r.agent
                        .as_deref()
                        .map(|a| format!(" ({a})"))
                        .unwrap_or_default(),
                    duration_text(r.retry_after_ms)
                ))
            );
        }
    }
    out.push_str("</svg>");
}

/// At most `n` characters of `s`, with `…` when cut.
pub fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The fill of a dependency-graph node by stage (or outcome when there is no state).
fn stage_colour(stage: &str) -> &'static str {
    match stage {
        "DONE" | "done" => "#bbf7d0",
        "BLOCKED" | "blocked" => "#fecaca",
        "IN_PROGRESS" | "in_progress" | "in_review" | "IN_REVIEW" => "#bfdbfe",
        "READY" | "ready" => "#fef9c3",
        "SKIPPED" | "skipped" | "INTERRUPTED" => "#e5e7eb",
        _ => "#f8fafc",
    }
}

/// The dependency graph: issues in columns by depth, arrows from each dependency.
pub fn graph(out: &mut String, report: &Report) {
    const NODE_W: u64 = 170;
    const NODE_H: u64 = 44;
    const COL: u64 = 220;
    const ROW_H: u64 = 58;
    let layer = layers(&report.issues);
    let mut pos: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
    let mut per_layer: std::collections::BTreeMap<u32, u64> = Default::default();
    for i in &report.issues {
        let l = layer.get(&i.issue).copied().unwrap_or(0);
        let row = per_layer.entry(l).or_insert(0);
        pos.insert(i.issue, (10 + u64::from(l) * COL, 10 + *row * ROW_H));
        *row += 1;
    }
    let w = 20 + per_layer.keys().max().map_or(0, |l| u64::from(*l) + 1) * COL;
    let h = 20 + per_layer.values().max().copied().unwrap_or(0) * ROW_H;
    let _ = write!(
        out,
        r##"<svg id="graph-svg" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="dependency graph"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#64748b"/></marker></defs>"##
    );
    for i in &report.issues {
        let Some(&(x, y)) = pos.get(&i.issue) else {
            continue;
        };
        for d in &i.dependencies {
            if let Some(&(dx, dy)) = pos.get(d) {
                let (x1, y1) = (dx + NODE_W, dy + NODE_H / 2);
                let (x2, y2) = (x, y + NODE_H / 2);
                let mid = (x1 + x2) / 2;
                let _ = write!(
                    out,
                    r##"<path class="edge" data-from="{d}" data-to="{}" d="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}" fill="none" stroke="#64748b" marker-end="url(#arrow)"/>"##,
                    i.issue
                );
            }
        }
    }
    for i in &report.issues {
        let Some(&(x, y)) = pos.get(&i.issue) else {
            continue;
        };
        let stage = i.stage.clone().unwrap_or_else(|| i.outcome.to_string());
        let title = i.title.clone().unwrap_or_default();
        let _ = write!(
            out,
            r##"<a href="#issue-{n}"><g class="node" data-issue="{n}" data-stage="{st}"><rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6" fill="{fill}" stroke="#475569"/><text x="{tx}" y="{ty1}" class="nt">#{n} {t}</text><text x="{tx}" y="{ty2}" class="ns">{st}</text><title>#{n} {full} — {st}</title></g></a>"##,
            n = i.issue,
            st = esc(&stage),
            fill = stage_colour(&stage),
            tx = x + 8,
            ty1 = y + 18,
            ty2 = y + 36,
            t = esc(&cut(&title, 20)),
            full = esc(&title),
        );
    }
    out.push_str("</svg>");
}
