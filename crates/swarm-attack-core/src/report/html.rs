//! The report page: one self-contained HTML document (inline CSS, JS and SVG; it loads
//! nothing). The model is also embedded as JSON in
//! `<script type="application/json" id="report-data">` for machines; tables carry `data-*`
//! attributes (`data-total`, `data-issue`, `data-attempt`, `data-run`).

use super::escape::{escape_html as esc, json_for_script};
use super::svg::{self, LEGEND, colour};
use super::{
    Attempt, BudgetHit, IssueReport, Limits, Report, cost_text, duration_text, tokens_text,
};
use std::fmt::Write as _;

const CSS: &str = r#"
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#0f172a;background:#fff}
body{margin:0 auto;padding:16px 24px;max-width:1400px}
h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #e2e8f0;padding-bottom:4px}
.meta{color:#475569;font-size:13px}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #e2e8f0;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f8fafc;font-weight:600}
#totals td.v{font-variant-numeric:tabular-nums;text-align:right}
.scroll{overflow-x:auto;border:1px solid #e2e8f0;border-radius:6px;padding:4px}
svg text{font-size:11px;fill:#334155}svg .tick{font-size:10px;fill:#64748b}
svg .nt{font-size:12px;font-weight:600}svg .ns{font-size:10px}
svg .bar:hover,svg .node:hover rect{stroke:#0f172a;stroke-width:1.5}
svg .hl{stroke:#0f172a;stroke-width:2}
.legend{display:flex;flex-wrap:wrap;gap:10px;font-size:12px;margin:6px 0}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend i{display:inline-block;width:14px;height:10px;border-radius:2px}
details.issue{border:1px solid #e2e8f0;border-radius:6px;margin:8px 0;padding:4px 10px}
details.issue>summary{cursor:pointer;font-weight:600}
.o-done,.o-passed{color:#15803d}.o-blocked,.o-failed{color:#b91c1c}.o-in_progress{color:#1d4ed8}
.o-skipped,.o-interrupted{color:#64748b}
.kv{font-size:13px;margin:4px 0}.kv b{font-weight:600}
.fail{color:#b91c1c;white-space:pre-wrap}
code{font-size:12px;background:#f1f5f9;padding:0 3px;border-radius:3px}
"#;

/// The page's script: records script errors on the `<html>` element (`data-js-errors`),
/// reads the data island, checks it against the totals table (`data-check`), and highlights
/// an issue's bars when its band is hovered. Loads nothing.
const JS: &str = r##"
(function(){
  var root=document.documentElement;
  function fail(msg){var n=+(root.getAttribute('data-js-errors')||0)+1;root.setAttribute('data-js-errors',String(n));root.setAttribute('data-js-error',String(msg));}
  window.addEventListener('error',function(e){fail(e.message||'error');});
  window.addEventListener('unhandledrejection',function(e){fail('unhandled rejection');});
  try{
    var data=JSON.parse(document.getElementById('report-data').textContent);
    var runs=0;
    data.issues.forEach(function(i){i.attempts.forEach(function(a){a.runs.forEach(function(r){if(r.kind==='agent'&&r.end_ms!==null){runs++;}});});});
    var cell=document.querySelector('[data-total="agent_runs"]');
    var shown=cell?+cell.getAttribute('data-value'):-1;
    var folded=data.issues.some(function(i){return i.aggregated!==null||i.attempts.some(function(a){return a.more_runs>0;});});
    root.setAttribute('data-check',(folded||runs===shown)?'ok':'mismatch '+runs+' vs '+shown);
    document.querySelectorAll('g.band').forEach(function(g){
      g.addEventListener('mouseenter',function(){g.querySelectorAll('.run').forEach(function(r){r.classList.add('hl');});});
      g.addEventListener('mouseleave',function(){g.querySelectorAll('.run').forEach(function(r){r.classList.remove('hl');});});
    });
    document.querySelectorAll('a[href^="#issue-"]').forEach(function(a){
      a.addEventListener('click',function(){var d=document.getElementById(a.getAttribute('href').slice(1));if(d){d.open=true;}});
    });
    root.setAttribute('data-rendered','1');
  }catch(e){fail(e&&e.message?e.message:String(e));}
})();
"##;

/// Renders the whole page.
pub fn render_html(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let feature = esc(&report.feature);
    let _ = write!(
        out,
        r#"<!DOCTYPE html><html lang="en" data-rendered="0"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"><title>swarm-attack report: {feature}</title><style>{CSS}</style></head><body>"#
    );
    let _ = write!(
        out,
        r#"<header><h1>swarm-attack report: <span id="feature">{feature}</span></h1><p class="meta">Built from {} events in {} session(s){}; {} issues.</p></header>"#,
        report.events,
        report.sessions,
        match (&report.first_ts, &report.last_ts) {
            (Some(a), Some(b)) => format!(", {} → {}", esc(a), esc(b)),
            _ => String::new(),
        },
        report.issues.len()
    );
    totals(&mut out, report);
    out.push_str(r#"<h2>Timeline</h2><div class="legend">"#);
    for (kind, outcome, label) in LEGEND {
        let _ = write!(
            out,
            r#"<span><i style="background:{}"></i>{}</span>"#,
            colour(kind, outcome),
            esc(label)
        );
    }
    out.push_str(r#"</div><div class="scroll" id="timeline">"#);
    svg::timeline(&mut out, report);
    out.push_str(r#"</div><h2>Dependencies</h2><div class="scroll" id="graph">"#);
    svg::graph(&mut out, report);
    out.push_str(r#"</div><h2>Issues</h2><div id="issues">"#);
    let limits = report.limits.unwrap_or_default();
    for i in &report.issues {
        issue(&mut out, i, &limits);
    }
    out.push_str("</div>");
    super::learning::render(&mut out, report);
    let json = serde_json::to_string(report).unwrap_or_else(|_| "null".into());
    let _ = write!(
        out,
        r#"<script type="application/json" id="report-data">{}</script><script>{JS}</script></body></html>"#,
        json_for_script(&json)
    );
    out
}

/// The totals as `(key, label, shown, machine value)` rows.
pub fn total_rows(report: &Report) -> Vec<(&'static str, &'static str, String, String)> {
    let t = &report.totals;
    let opt = |v: Option<u64>| v.map_or("null".to_string(), |v| v.to_string());
    let mut cost = crate::audit::total_cost_text(t.cost_usd, t.cost_unknown_attempts, cost_text);
    let limits = report.limits.unwrap_or_default();
    if let Some(l) = limits.feature_usd {
        let _ = write!(cost, " of ${l:.2} budget");
    }
    let mut tokens_in = tokens_text(t.tokens_in);
    if let Some(l) = limits.feature_tokens {
        let _ = write!(tokens_in, " of {} budget", tokens_text(Some(l)));
    }
    vec![
        (
            "wall_ms",
            "wall time",
            report.wall_ms.map_or("unknown".into(), duration_text),
            opt(report.wall_ms),
        ),
        (
            "agent_time_ms",
            "agent time",
            duration_text(t.agent_time_ms),
            t.agent_time_ms.to_string(),
        ),
        (
            "cost_usd",
            "cost",
            cost,
            t.cost_usd.map_or("null".into(), |c| c.to_string()),
        ),
        (
            "cost_unknown_attempts",
            "attempts of unknown cost",
            t.cost_unknown_attempts.to_string(),
            t.cost_unknown_attempts.to_string(),
        ),
        ("tokens_in", "tokens in", tokens_in, opt(t.tokens_in)),
        (
            "tokens_out",
            "tokens out",
            tokens_text(t.tokens_out),
            opt(t.tokens_out),
        ),
        (
            "tokens_cached",
            "tokens cached",
            tokens_text(t.tokens_cached),
            opt(t.tokens_cached),
        ),
        (
            "issues",
            "issues",
            t.issues.to_string(),
            t.issues.to_string(),
        ),
        ("done", "done", t.done.to_string(), t.done.to_string()),
        (
            "blocked",
            "blocked",
            t.blocked.to_string(),
            t.blocked.to_string(),
        ),
        (
            "attempts",
            "attempts",
            t.attempts.to_string(),
            t.attempts.to_string(),
        ),
        (
            "retries",
            "retries",
            t.retries.to_string(),
            t.retries.to_string(),
        ),
        (
            "agent_runs",
            "agent runs",
            t.agent_runs.to_string(),
            t.agent_runs.to_string(),
        ),
        (
            "test_runs",
            "test runs",
            t.test_runs.to_string(),
            t.test_runs.to_string(),
        ),
        (
            "landings",
            "landings",
            t.landings.to_string(),
            t.landings.to_string(),
        ),
        (
            "rate_limited_ms",
            "time lost to rate limits",
            format!(
                "{} ({} waits)",
                duration_text(t.rate_limited_ms),
                t.rate_limited
            ),
            t.rate_limited_ms.to_string(),
        ),
        (
            "budget_exceeded",
            "budget stops",
            t.budget_exceeded.to_string(),
            t.budget_exceeded.to_string(),
        ),
    ]
}

fn totals(out: &mut String, report: &Report) {
    out.push_str(r#"<h2>Totals</h2><table id="totals"><tbody>"#);
    for (key, label, shown, value) in total_rows(report) {
        let _ = write!(
            out,
            r#"<tr><th>{}</th><td class="v" data-total="{key}" data-value="{}">{}</td></tr>"#,
            esc(label),
            esc(&value),
            esc(&shown)
        );
    }
    for b in &report.budget {
        let _ = write!(
            out,
            r#"<tr><th>feature budget</th><td class="v">{}</td></tr>"#,
            esc(&budget_text(b))
        );
    }
    out.push_str("</tbody></table>");
}

fn budget_text(b: &BudgetHit) -> String {
    let n = |v: Option<f64>| v.map_or("unknown".into(), |v| format!("{v}"));
    format!(
        "{} reached: spent {} of limit {}",
        b.kind,
        n(b.spent),
        n(b.limit)
    )
}

fn link(out: &mut String, label: &str, url: Option<&str>) {
    match url {
        Some(u) if u.starts_with("https://") || u.starts_with("http://") => {
            let _ = write!(
                out,
                r#"<a href="{}" rel="noreferrer">{}</a>"#,
                esc(u),
                esc(label)
            );
        }
        _ => out.push_str(&esc(label)),
    }
}

/// `value` with ` of LIMIT` when a limit is known.
fn against(value: String, limit: Option<String>) -> String {
    match limit {
        Some(l) => format!("{value} of {l}"),
        None => value,
    }
}

fn issue(out: &mut String, i: &IssueReport, limits: &Limits) {
    let _ = write!(
        out,
        r#"<details class="issue" id="issue-{n}" data-issue="{n}" data-outcome="{o}" data-attempts="{ac}"><summary>#{n} {t} — <span class="o-{o}">{o}</span>{st} · {ac} attempt(s) · agent time {at} · cost {c}</summary>"#,
        n = i.issue,
        t = esc(i.title.as_deref().unwrap_or("")),
        o = esc(i.outcome.as_str()),
        st = i
            .stage
            .as_deref()
            .map(|s| format!(" (stage {})", esc(s)))
            .unwrap_or_default(),
        ac = i.attempt_count,
        at = against(
            duration_text(i.agent_time_ms),
            limits.issue_minutes.map(|m| format!("{m} min"))
        ),
        c = esc(&against(
            cost_text(i.cost_usd),
            limits.issue_usd.map(|l| format!("${l:.2}"))
        )),
    );
    out.push_str(r#"<div class="kv">"#);
    let _ = write!(
        out,
        "<b>mode</b> {} · <b>agents</b> {} · <b>retries</b> {} · <b>tokens</b> {} in / {} out / {} cached · <b>turns</b> {}",
        esc(i.mode.as_deref().unwrap_or("-")),
        esc(&if i.agents.is_empty() {
            "-".to_string()
        } else {
            i.agents.join(", ")
        }),
        i.retries,
        against(
            tokens_text(i.tokens_in),
            limits.issue_tokens.map(|l| tokens_text(Some(l)))
        ),
        tokens_text(i.tokens_out),
        tokens_text(i.tokens_cached),
        tokens_text(i.turns),
    );
    if i.llm_calls > 0 {
        let _ = write!(
            out,
            " · <b>LLM calls</b> {} ({})",
            i.llm_calls,
            esc(&cost_text(i.llm_cost_usd))
        );
    }
    if let (Some(s), Some(e)) = (i.start_ms, i.end_ms) {
        let _ = write!(
            out,
            " · <b>duration</b> {}",
            duration_text(e.saturating_sub(s))
        );
    }
    if !i.dependencies.is_empty() {
        let deps: Vec<String> = i.dependencies.iter().map(|d| format!("#{d}")).collect();
        let _ = write!(out, " · <b>needs</b> {}", deps.join(", "));
    }
    out.push_str("</div><div class=\"kv\">");
    if let Some(g) = i.github_issue {
        out.push_str("<b>GitHub</b> ");
        link(out, &format!("issue #{g}"), i.github_url.as_deref());
        out.push(' ');
    }
    if let Some(p) = i.pr {
        out.push_str("<b>PR</b> ");
        link(out, &format!("#{p}"), i.pr_url.as_deref());
        out.push(' ');
    }
    if let Some(c) = &i.commit {
        let _ = write!(out, "<b>commit</b> <code>{}</code> ", esc(c));
    }
    if let Some(e) = &i.evidence {
        let _ = write!(out, "<b>evidence</b> {} ", esc(e));
    }
    out.push_str("</div>");
    if let Some(r) = &i.reason {
        let _ = write!(
            out,
            r#"<div class="kv fail"><b>reason</b> {}</div>"#,
            esc(r)
        );
    }
    if let Some(r) = &i.review {
        let _ = write!(
            out,
            r#"<div class="kv" data-review="{}"><b>review</b> {}"#,
            esc(r),
            esc(r)
        );
        if !i.review_findings.is_empty() {
            out.push_str("<ul>");
            for f in &i.review_findings {
                let _ = write!(out, "<li>{}</li>", esc(f));
            }
            out.push_str("</ul>");
        }
        out.push_str("</div>");
    }
    if let Some(sp) = &i.specify {
        let _ = write!(out, r#"<div class="kv"><b>specify</b> {}</div>"#, esc(sp));
    }
    if !i.risk.is_empty() {
        let _ = write!(
            out,
            r#"<div class="kv"><b>risky</b> {}</div>"#,
            esc(&i.risk.join("; "))
        );
    }
    for b in &i.budget {
        let _ = write!(
            out,
            r#"<div class="kv fail" data-budget="{}"><b>budget</b> {}</div>"#,
            esc(&b.kind),
            esc(&budget_text(b))
        );
    }
    if !i.attempts.is_empty() {
        out.push_str("<table class=\"attempts\"><thead><tr><th>attempt</th><th>mode</th><th>outcome</th><th>duration</th><th>verification</th><th>runs</th><th>failure</th></tr></thead><tbody>");
        for a in &i.attempts {
            attempt(out, i.issue, a);
        }
        out.push_str("</tbody></table>");
    }
    if let Some(score) = i.low_convergence {
        let _ = write!(
            out,
            r#"<div class="kv fail" data-low-convergence="{score:.2}"><b>low convergence</b> the candidates disagreed (mean similarity {score:.2})</div>"#
        );
    }
    if let Some(c) = &i.candidates {
        candidates(out, c);
    }
    if let Some(g) = &i.aggregated {
        let _ = write!(
            out,
            r#"<div class="kv" data-aggregated="{}">…and {}.</div>"#,
            g.attempts,
            esc(&g.describe())
        );
    }
    out.push_str("</details>");
}

/// The candidates of a PARALLEL/SYNTHESIS run side by side: who passed, their sizes, the
/// pairwise similarities, what was chosen and why (`issue_done.convergence`).
fn candidates(out: &mut String, c: &serde_json::Value) {
    use serde_json::Value;
    let Some(cands) = c.get("candidates").and_then(Value::as_array) else {
        return;
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let winner = text(c, "winner");
    let pairs = c
        .get("pairs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let score = |a: &str, b: &str| {
        pairs
            .iter()
            .find(|p| {
                let (x, y) = (text(p, "a"), text(p, "b"));
                (x == a && y == b) || (x == b && y == a)
            })
            .and_then(|p| p.get("score").and_then(Value::as_f64))
    };
    let names: Vec<String> = cands.iter().map(|v| text(v, "agent")).collect();
    out.push_str(r#"<table class="candidates"><thead><tr><th>candidate</th><th>role</th><th>result</th><th>changed lines</th>"#);
    for n in &names {
        let _ = write!(out, "<th>≈ {}</th>", esc(n));
    }
    out.push_str("<th>landed</th></tr></thead><tbody>");
    for (v, me) in cands.iter().zip(&names) {
        let landed = !winner.is_empty() && &winner == me;
        let _ = write!(
            out,
            r#"<tr data-candidate="{a}" data-result="{r}"><td>{a}</td><td>{role}</td><td class="o-{r}">{r}</td><td>{lines}</td>"#,
            a = esc(me),
            role = esc(&text(v, "role")),
            r = esc(&text(v, "result")),
            lines = v
                .get("changed_lines")
                .and_then(Value::as_u64)
                .map_or("-".to_string(), |n| n.to_string()),
        );
        for other in &names {
            let cell = if other == me {
                "—".to_string()
            } else {
                score(me, other).map_or("-".to_string(), |s| format!("{s:.2}"))
            };
            let _ = write!(out, "<td>{}</td>", esc(&cell));
        }
        let _ = write!(out, "<td>{}</td></tr>", if landed { "✔" } else { "" });
    }
    out.push_str("</tbody></table>");
    let mut why = Vec::new();
    if let Some(j) = c.get("join").and_then(Value::as_str) {
        why.push(format!("join {j}"));
    }
    if !winner.is_empty() {
        let by = text(c, "selected_by");
        why.push(if by.is_empty() {
            format!("landed: {winner}")
        } else {
            format!("landed: {winner}, selected by {by}")
        });
    }
    if let Some(s) = c.get("score").and_then(Value::as_f64) {
        why.push(format!("mean similarity {s:.2}"));
    }
    if let Some(q) = crate::audit::quorum_text(c) {
        why.push(q.into());
    }
    let _ = write!(
        out,
        r#"<div class="kv" data-selected-by="{}">{}</div>"#,
        esc(&text(c, "selected_by")),
        esc(&why.join(" · "))
    );
}

fn attempt(out: &mut String, issue: u64, a: &Attempt) {
    let verification = match a.verification.as_deref() {
        Some("passed") => format!(
            "passed{}",
            a.tests_passed
                .map(|n| format!(" ({n} tests)"))
                .unwrap_or_default()
        ),
        Some(v) => format!(
            "{v}{}",
            a.tests_failed
                .map(|n| format!(" ({n} failing)"))
                .unwrap_or_default()
        ),
        None => "-".into(),
    };
    let _ = write!(
        out,
        r#"<tr data-issue="{issue}" data-attempt="{}" data-outcome="{}"><td>{}</td><td>{}</td><td class="o-{}">{}</td><td>{}</td><td>{}</td><td><ul class="runs">"#,
        a.attempt,
        esc(a.outcome.as_str()),
        a.attempt,
        esc(a.mode.as_deref().unwrap_or("-")),
        esc(a.outcome.as_str()),
        esc(a.outcome.as_str()),
        a.end_ms.map_or("running".into(), |e| duration_text(
            e.saturating_sub(a.start_ms)
        )),
        esc(&verification),
    );
    for r in &a.runs {
        let line = svg::run_line(r);
        let _ = write!(
            out,
            r#"<li data-run="{}" data-agent="{}" data-outcome="{}">{}</li>"#,
            esc(&r.kind),
            esc(r.agent.as_deref().unwrap_or("")),
            esc(&r.outcome),
            esc(&line)
        );
    }
    if a.more_runs > 0 {
        let _ = write!(
            out,
            r#"<li data-more-runs="{}">…and {} more runs</li>"#,
            a.more_runs, a.more_runs
        );
    }
    let _ = write!(
        out,
        r#"</ul></td><td class="fail">{}</td></tr>"#,
        esc(a.failure.as_deref().unwrap_or(""))
    );
}
