//! `plan <feature> [--issue N] [--json]`: the coordination decision per issue, and the
//! printing of decisions shared with `greenlight`.

use crate::app::plan::{self as plan_app, PlannedIssue};
use crate::cli::{GlobalArgs, JsonFlag};
use crate::core::coordination::{Mode, fmt_h, hundredths};
use crate::core::feature_id::FeatureId;
use crate::error::CmdResult;
use crate::io::ui::Ui;
use clap::Args;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: FeatureId,
    /// Only this issue (any stage); default: every READY issue.
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn plan(g: &GlobalArgs, ui: &Ui, a: PlanArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    let o = plan_app::plan(&project, &a.feature, a.issue)?;
    for w in &o.sync.warnings {
        ui.warn(w);
    }
    if a.json.json {
        let manual: Vec<Value> = o
            .manual
            .iter()
            .map(|(n, t)| json!({"issue": n, "title": t, "waiting_for": "a person"}))
            .collect();
        let mut doc = json!({
            "feature": a.feature,
            "decisions": decisions_json(&o.planned),
        });
        if !manual.is_empty() {
            doc["manual"] = Value::Array(manual);
        }
        if !o.needs_info.is_empty() {
            doc["needs_info"] = Value::Array(
                o.needs_info
                    .iter()
                    .map(|(n, t, line)| json!({"issue": n, "title": t, "specify": line}))
                    .collect(),
            );
        }
        ui.json(&doc);
        return Ok(0);
    }
    let print_manual = || {
        for (n, title) in &o.manual {
            ui.outln(format_args!(
                "  #{n:<4} {} waiting for a person (automation_type: manual)  {}",
                ui.paint(&format!("{:<9}", "MANUAL"), "2"),
                ui.paint(title, "2")
            ));
        }
        for (n, title, line) in &o.needs_info {
            ui.outln(format_args!(
                "  #{n:<4} {} {line}  {}",
                ui.paint(&format!("{:<9}", "NEEDS-INFO"), "34"),
                ui.paint(title, "2")
            ));
        }
    };
    if o.planned.is_empty() {
        ui.outln(format_args!(
            "plan {}: no READY issue for an agent",
            a.feature
        ));
        print_manual();
        return Ok(0);
    }
    ui.outln(format_args!(
        "plan {}: {} issue{}",
        a.feature,
        o.planned.len(),
        if o.planned.len() == 1 { "" } else { "s" }
    ));
    print_planned(ui, &o.planned);
    print_manual();
    Ok(0)
}

/// One decision as JSON: `{issue, title, stage, mode, winner, runner_up, reason, rule,
/// overlap, proposals}`, plus `specify` (the gate on), `risk` (a risky issue) and
/// `candidates` (every agent that runs, in rank order) for PARALLEL and SYNTHESIS.
pub fn decision_json(p: &PlannedIssue) -> Value {
    let d = &p.decision;
    let mut out = json!({
        "issue": p.issue,
        "title": p.title,
        "stage": p.stage,
        "mode": d.mode,
        "winner": d.winner,
        "runner_up": d.runner_up,
        "reason": d.reason,
        "rule": d.rule,
        "overlap": d.overlap,
        "proposals": d.proposals,
    });
    if let Some(v) = &p.specify {
        let r = v.record.as_ref();
        out["specify"] = json!({
            "score": r.and_then(|r| r.score),
            "scores": r.and_then(|r| r.scores),
            "question": r.and_then(|r| r.question.clone()),
            "source": r.map(|r| r.source.clone()),
            "passed": r.map(|r| r.passed),
            "current": v.current,
        });
    }
    if !p.risk.is_empty() {
        out["risk"] = json!({"risky": true, "signals": p.risk});
    }
    if !d.candidates.is_empty() {
        out["candidates"] = json!(d.candidates);
    }
    out
}

pub fn decisions_json(planned: &[PlannedIssue]) -> Value {
    Value::Array(planned.iter().map(decision_json).collect())
}

fn mode_colour(mode: Mode) -> &'static str {
    match mode {
        Mode::Solo => "36",
        Mode::Parallel => "35",
        Mode::Synthesis => "33",
    }
}

/// Prints each decision: the issue, mode and agents, the reason, then the proposals.
pub fn print_planned(ui: &Ui, planned: &[PlannedIssue]) {
    for p in planned {
        let d = &p.decision;
        let agents = match (&d.mode, &d.runner_up) {
            (Mode::Parallel, Some(_)) if d.candidates.len() > 2 => d.candidates.join(" + "),
            (Mode::Parallel, Some(r)) => format!("{} + {r}", d.winner),
            (Mode::Synthesis, Some(r)) => format!("{} then {r}", d.winner),
            _ => d.winner.clone(),
        };
        ui.outln(format_args!(
            "  #{:<4} {} {}  {}",
            p.issue,
            ui.paint(&format!("{:<9}", d.mode.as_str()), mode_colour(d.mode)),
            agents,
            ui.paint(&p.title, "2")
        ));
        ui.outln(format_args!("        {}", d.reason));
        if let Some(v) = &p.specify {
            ui.outln(format_args!("        specify: {}", v.line()));
        }
        if !p.risk.is_empty() {
            ui.outln(format_args!("        risky: {}", p.risk.join("; ")));
        }
        let width = d
            .proposals
            .iter()
            .map(|x| x.agent.chars().count())
            .max()
            .unwrap_or(0);
        for np in &d.proposals {
            let pr = &np.proposal;
            let mut flags = Vec::new();
            if pr.solo_sufficient {
                flags.push("solo-sufficient");
            }
            if pr.builds_on_other {
                flags.push("builds-on-other");
            }
            let covers = if pr.covers.is_empty() {
                String::new()
            } else {
                format!("  covers: {}", pr.covers.join(", "))
            };
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!("  [{}]", flags.join(", "))
            };
            let learned = np
                .learned
                .as_ref()
                .map(|l| {
                    let cost = l
                        .mean_cost
                        .map(|c| format!(", ${c:.4} per success"))
                        .unwrap_or_default();
                    format!(
                        "  learned ({}): n {}, s {}, p {:.2}, w {:.2}, was {}{cost}",
                        l.class,
                        l.n,
                        l.s,
                        l.p,
                        l.w,
                        fmt_h(hundredths(l.confidence_before))
                    )
                })
                .unwrap_or_default();
            ui.outln(format_args!(
                "        {:<width$}  {}  {}{covers}{flags}{learned}",
                np.agent,
                fmt_h(hundredths(pr.confidence)),
                np.source
            ));
        }
    }
}
