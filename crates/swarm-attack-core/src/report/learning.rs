//! The report's learning sections: the outcomes per agent and class (docs/learning.md "Outcomes":
//! outcomes, success rate, mean cost) and the decisions the DONE issues' agents handed off
//! (docs/learning.md "Handoffs").

use super::Report;
use super::escape::escape_html as esc;
use crate::handoff::Handoff;
use crate::outcomes::Stats;
use crate::stage::Stage;
use crate::state::FeatureState;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One agent in one class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedRow {
    pub agent: String,
    pub class: String,
    /// Outcomes counted (done landed, blocked/skipped attempted).
    pub outcomes: u32,
    /// Done and not reverted.
    pub successes: u32,
    pub reverted: u32,
    /// `successes / outcomes`.
    pub success_rate: f64,
    /// The mean cost of the counted outcomes of known cost (`null`: unknown).
    pub mean_cost_usd: Option<f64>,
    /// What the counted outcomes cost per success, failures included (`null`: no success,
    /// or no known cost).
    pub cost_per_success_usd: Option<f64>,
}

/// The rows of `stats`, by agent then class.
pub fn rows(stats: &Stats) -> Vec<LearnedRow> {
    stats
        .by
        .iter()
        .filter(|(_, s)| s.n > 0)
        .map(|((agent, class), s)| LearnedRow {
            agent: agent.clone(),
            class: class.clone(),
            outcomes: s.n,
            successes: s.s,
            reverted: s.reverted,
            success_rate: s.success_rate().unwrap_or(0.0),
            mean_cost_usd: s.mean_cost(),
            cost_per_success_usd: s.cost_per_success(),
        })
        .collect()
}

/// One DONE issue's handoff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRow {
    pub issue: u32,
    pub title: String,
    pub handoff: Handoff,
}

/// The DONE issues' handoffs, highest issue number first.
pub fn decisions(state: Option<&FeatureState>) -> Vec<DecisionRow> {
    let Some(state) = state else {
        return Vec::new();
    };
    let mut out: Vec<DecisionRow> = state
        .tasks
        .iter()
        .filter(|t| t.stage == Stage::Done)
        .filter_map(|t| {
            let h = t.handoff.clone().filter(|h| !h.is_empty())?;
            Some(DecisionRow {
                issue: t.issue_number,
                title: t.title.clone(),
                handoff: h,
            })
        })
        .collect();
    out.sort_by_key(|d| std::cmp::Reverse(d.issue));
    out
}

fn usd(c: Option<f64>) -> String {
    crate::audit::usd(c)
}

/// Renders the sections (nothing when there is nothing to show).
pub fn render(out: &mut String, report: &Report) {
    if !report.learned.is_empty() {
        out.push_str(
            r#"<h2>Learned routing</h2><p class="meta">Outcomes of every feature (<code>.swarm/outcomes.jsonl</code>), per agent and class.</p><table id="learned"><thead><tr><th>agent</th><th>class</th><th>outcomes</th><th>success rate</th><th>mean cost</th><th>cost per success</th></tr></thead><tbody>"#,
        );
        for r in &report.learned {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.0}% ({} of {}{})</td><td>{}</td><td>{}</td></tr>",
                esc(&r.agent),
                esc(&r.class),
                r.outcomes,
                r.success_rate * 100.0,
                r.successes,
                r.outcomes,
                if r.reverted > 0 {
                    format!(", {} reverted", r.reverted)
                } else {
                    String::new()
                },
                esc(&usd(r.mean_cost_usd)),
                esc(&usd(r.cost_per_success_usd))
            );
        }
        out.push_str("</tbody></table>");
    }
    if !report.decisions.is_empty() {
        out.push_str(r#"<h2>Decisions so far</h2><div id="decisions">"#);
        for d in &report.decisions {
            let _ = write!(out, "<h3>#{} {}</h3><ul>", d.issue, esc(&d.title));
            for (what, items) in [
                ("Decision", &d.handoff.decisions),
                ("Open question", &d.handoff.open_questions),
                ("Risk", &d.handoff.risks),
            ] {
                for i in items {
                    let _ = write!(out, "<li><b>{what}:</b> {}</li>", esc(i));
                }
            }
            out.push_str("</ul>");
        }
        out.push_str("</div>");
    }
}
