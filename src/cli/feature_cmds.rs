//! `init`, `greenlight`, `status`, `unblock`: printing of the feature commands.

use crate::app::{greenlight, init as init_app, status as status_app, unblock as unblock_app};
use crate::cli::GlobalArgs;
use crate::core::budget::{Limits, SpendView};
use crate::core::feature_id::FeatureId;
use crate::core::gates;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::io::ui::Ui;
use serde::Serialize;
use serde_json::json;

pub fn init(g: &GlobalArgs, ui: &Ui, feature: &FeatureId, as_json: bool) -> CmdResult<u8> {
    let project = g.open(ui)?;
    let r = init_app::init(&project, feature)?;
    if as_json {
        ui.json(&serde_json::to_value(&r).unwrap_or_default());
    } else {
        print_init(ui, &r);
    }
    Ok(0)
}

fn print_init(ui: &Ui, r: &init_app::InitReport) {
    if let Some(start) = &r.started_in {
        ui.outln(format_args!(
            "initialising at the project root {} (found above {start})",
            r.root
        ));
    }
    let made = |b: bool| if b { "created" } else { "exists" };
    let template = if r.issues_file_created {
        " (a template with one example issue)"
    } else {
        ""
    };
    ui.outln(format_args!(
        "{}: {}{template}",
        r.issues_file,
        made(r.issues_file_created)
    ));
    ui.outln(format_args!(
        "{}: {} ({} tasks)",
        r.state_file,
        made(r.state_created),
        r.tasks
    ));
    if r.config_created {
        let tests = match &r.detected_tests {
            Some(t) => format!("tests: `{}`, detected from {}", t.command, t.from),
            None => "no test command detected".to_string(),
        };
        let agents = if r.agents_found.is_empty() {
            "no agent CLI found on PATH".to_string()
        } else {
            format!("agents: {}", r.agents_found.join(", "))
        };
        ui.outln(format_args!(
            "{}: created ({tests}; {agents})",
            r.config_file
        ));
    }
    if r.gitignore_created {
        ui.outln(format_args!(
            ".swarm/.gitignore: created (.swarm/ ignores itself)"
        ));
    }
    if !(r.issues_file_created || r.state_created || r.config_created) {
        return;
    }
    ui.outln(format_args!("next steps:"));
    let mut step = 0;
    let mut say = |s: String| {
        step += 1;
        ui.outln(format_args!("  {step}. {s}"));
    };
    if r.config_created && (r.detected_tests.is_none() || r.agents_found.is_empty()) {
        say(format!(
            "edit {}: set tests.command and the agents (see the comments in it)",
            r.config_file
        ));
    } else {
        say(format!(
            "check {}: the test command and the agents",
            r.config_file
        ));
    }
    say(format!("write the feature's issues in {}", r.issues_file));
    say(format!(
        "commit {} and {}, then: swarm-attack greenlight {}",
        r.config_file, r.issues_file, r.feature
    ));
    say(format!("swarm-attack run {}", r.feature));
}

pub fn greenlight(
    g: &GlobalArgs,
    ui: &Ui,
    feature: &FeatureId,
    dry_run: bool,
    as_json: bool,
) -> CmdResult<u8> {
    let project = g.open(ui)?;
    crate::app::setup::warn_missing_project_file(&project);
    let o = greenlight::greenlight(&project, feature, dry_run)?;
    for w in &o.sync.warnings {
        ui.warn(w);
    }
    for m in &o.merge.missing {
        ui.warn(format_args!(
            "issue {m} is in the state but no longer in issues.json; kept as it is"
        ));
    }
    if as_json {
        ui.json(&json!({
            "feature": feature,
            "dry_run": dry_run,
            "changed": o.changed,
            "added": o.merge.added,
            "kept": o.merge.kept,
            "missing": o.merge.missing,
            "ready": o.merge.ready,
            "sync": sync_json(&o.sync),
            "tasks": tasks_json(&o.state),
            "plan": crate::cli::plan::decisions_json(&o.plan),
        }));
        return Ok(0);
    }
    let verb = if dry_run { "would add" } else { "added" };
    ui.outln(format_args!(
        "greenlight {feature}: {verb} {}, kept {}, {} ready{}",
        o.merge.added.len(),
        o.merge.kept.len(),
        o.state
            .tasks
            .iter()
            .filter(|t| t.stage() == &Stage::Ready)
            .count(),
        if o.changed { "" } else { " (no change)" }
    ));
    print_tasks(ui, &o.state);
    if !o.plan.is_empty() {
        ui.outln(format_args!("plan:"));
        crate::cli::plan::print_planned(ui, &o.plan);
    }
    Ok(0)
}

pub fn status(
    g: &GlobalArgs,
    ui: &Ui,
    feature: Option<&FeatureId>,
    as_json: bool,
) -> CmdResult<u8> {
    let project = g.open(ui)?;
    match feature {
        Some(f) => {
            let s = status_app::status_one(&project, f)?;
            for w in &s.sync.warnings {
                ui.warn(w);
            }
            let limits = &project.config.budgets;
            if as_json {
                ui.json(&feature_json(&s.state, &s.sync, limits));
            } else {
                ui.outln(format_args!("feature {f} ({})", s.state.phase));
                print_tasks_with(ui, &s.state, &s.interrupted);
                print_spend(ui, &s.state, limits);
            }
            // the command ends here: freeing a big state allocation by allocation costs
            // more (a tenth of a warm `status` at 1,500 tasks × 13 evidence records) than
            // the process's exit returning its memory at once
            std::mem::forget(s);
        }
        None => {
            let results = status_app::status_all(&project)?;
            let mut all = Vec::new();
            let mut broken = Vec::new();
            for (f, r) in results {
                match r {
                    Ok(s) => all.push(s),
                    Err(e) => broken.push((f, e)),
                }
            }
            if as_json {
                let list: Vec<_> = all
                    .iter()
                    .map(|s| {
                        serde_json::to_value(feature_json(
                            &s.state,
                            &s.sync,
                            &project.config.budgets,
                        ))
                        .unwrap_or_default()
                    })
                    .collect();
                let errors: Vec<_> = broken
                    .iter()
                    .map(|(f, e)| json!({"feature": f, "error": e.to_string()}))
                    .collect();
                ui.json(&json!({ "features": list, "errors": errors }));
            } else if all.is_empty() && broken.is_empty() {
                ui.outln(format_args!(
                    "no features yet (run `swarm-attack init <feature>`)"
                ));
            } else {
                for s in &all {
                    let spend =
                        SpendView::feature(s.state.ledger.as_ref(), &project.config.budgets)
                            .map(|v| format!("; {}", v.line()))
                            .unwrap_or_default();
                    ui.outln(format_args!(
                        "{:<24} {:<20} {}{spend}",
                        s.state.feature_id,
                        s.state.phase.to_string(),
                        counts(&s.state)
                    ));
                }
                for (f, _) in &broken {
                    ui.outln(format_args!(
                        "{f:<24} {:<20} (see the error below)",
                        "UNREADABLE"
                    ));
                }
            }
            if !broken.is_empty() {
                for (_, e) in &broken {
                    crate::cli::output::print_error(ui, e, g.verbose > 0);
                }
                return Ok(broken
                    .iter()
                    .map(|(_, e)| e.kind.exit_code())
                    .max()
                    .unwrap_or(2));
            }
        }
    }
    Ok(0)
}

pub fn unblock(
    g: &GlobalArgs,
    ui: &Ui,
    feature: &FeatureId,
    issue: u32,
    budget: Option<&str>,
    as_json: bool,
) -> CmdResult<u8> {
    let raise = budget
        .map(unblock_app::parse_raise)
        .transpose()
        .map_err(|e| crate::error::CommandError::input(format!("--budget: {e}")))?;
    let project = g.open(ui)?;
    let r = unblock_app::unblock(&project, feature, issue, raise)?;
    if as_json {
        ui.json(&serde_json::to_value(&r).unwrap_or_default());
    } else {
        if let Some(usd) = r.budget_raised_usd {
            ui.outln(format_args!(
                "issue {}: budget raised by ${usd:.2}",
                r.issue
            ));
        }
        ui.outln(format_args!("issue {}: {} → {}", r.issue, r.from, r.to));
    }
    Ok(0)
}

fn counts(state: &FeatureState) -> String {
    let mut parts = Vec::new();
    for st in Stage::KNOWN {
        let n = state.tasks.iter().filter(|t| t.stage() == st).count();
        if n > 0 {
            parts.push(format!("{} {}", n, st.as_str().to_lowercase()));
        }
    }
    if parts.is_empty() {
        "no tasks".into()
    } else {
        parts.join(", ")
    }
}

fn stage_colour(stage: &Stage) -> &'static str {
    match stage {
        Stage::Done => "32",
        Stage::Ready => "36",
        Stage::InProgress | Stage::Interrupted => "33",
        Stage::Blocked => "31",
        _ => "2",
    }
}

/// Prints one line per task: number, stage, title, and why (evidence, waiting on, reason).
pub fn print_tasks(ui: &Ui, state: &FeatureState) {
    print_tasks_with(ui, state, &[]);
}

/// [`print_tasks`], marking the IN_PROGRESS tasks in `interrupted` (their run is gone).
pub fn print_tasks_with(ui: &Ui, state: &FeatureState, interrupted: &[u32]) {
    use std::fmt::Write as _;
    let stages = readiness::Stages::of(state);
    // the lines are collected and printed at once: stdout is line-buffered, so printing
    // them one by one made one `write` per task (docs/performance.md, issue 32)
    let mut out = String::new();
    for t in &state.tasks {
        let stage = format!("{:<12}", t.stage().as_str());
        let mut why = String::new();
        if let Some(e) = t.evidence.first() {
            why = format!("evidence: {}", e.source);
            if let Some(c) = &e.commit {
                why.push_str(&format!(" {}", &c[..c.len().min(10)]));
            }
        } else if interrupted.contains(&t.issue_number) {
            why = "interrupted: will resume (its run is gone; the next `run` picks it up)".into();
        } else if t.is_manual() && t.stage() != &Stage::Done {
            why = "manual: waiting for a person".into();
        } else if t.stage() == &Stage::Backlog {
            let w: Vec<String> = stages
                .waiting_on(t)
                .iter()
                .map(|(n, s)| format!("#{n} ({s})"))
                .collect();
            if !w.is_empty() {
                why = format!("waiting on {}", w.join(", "));
            }
        } else if let Some(r) = &t.blocked_reason {
            why = format!("reason: {r}");
        }
        if let Some(r) = t
            .specify
            .as_ref()
            .filter(|_| !gates::specify::is_needs_info(t))
        {
            // the specify gate's score (a held task's reason already names it)
            let score = format!("specify {}", r.summary_line());
            why = if why.is_empty() {
                score
            } else {
                format!("{why}; {score}")
            };
        }
        if t.missing_from_issues {
            why.push_str(if why.is_empty() {
                "not in issues.json"
            } else {
                "; not in issues.json"
            });
        }
        let _ = write!(
            out,
            "  #{:<4} {} {}",
            t.issue_number,
            ui.paint(&stage, stage_colour(t.stage())),
            t.title
        );
        if !why.is_empty() {
            let _ = write!(out, "  [{why}]");
        }
        out.push('\n');
        if let Some(h) = t.handoff.as_ref().filter(|_| t.stage() == &Stage::Done) {
            for (what, items) in [
                ("decision", &h.decisions),
                ("open question", &h.open_questions),
                ("risk", &h.risks),
            ] {
                for i in items {
                    let _ = writeln!(out, "        {what}: {i}");
                }
            }
        }
    }
    ui.out(out);
}

pub fn sync_json(s: &crate::app::sync::SyncReport) -> serde_json::Value {
    json!({
        "synced_issues": s.synced_issues,
        "reverted_issues": s.reverted_issues,
        "commits_scanned": s.commits_scanned,
        "head": s.head,
        "shallow": s.shallow,
    })
}

pub fn tasks_json(state: &FeatureState) -> serde_json::Value {
    serde_json::to_value(task_views(state)).unwrap_or_default()
}

/// One task of `status --json` / `greenlight --json`, serialised straight from the state
/// (no intermediate JSON tree: at 20,000 tasks building one cost most of the command).
#[derive(Serialize)]
struct TaskView<'a> {
    issue: u32,
    title: &'a str,
    stage: Stage,
    dependencies: &'a [u32],
    waiting_on: Vec<u32>,
    github_issue: Option<u64>,
    commit: &'a Option<String>,
    evidence: &'a [crate::core::state::EvidenceRecord],
    blocked_reason: &'a Option<String>,
    retries: u32,
    summary: Option<&'a str>,
    /// The handoff the issue's agent left (docs/learning.md "Handoffs"); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    handoff: Option<&'a crate::core::handoff::Handoff>,
    missing_from_issues: bool,
    /// The specify gate's kept score (docs/gates.md "The specify gate"), when the issue was scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    specify: Option<&'a gates::specify::SpecifyRecord>,
    /// `status --json` only: `null` when the issue has no limit and nothing was spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    budget: Option<Option<SpendView>>,
}

fn task_views(state: &FeatureState) -> Vec<TaskView<'_>> {
    let stages = readiness::Stages::of(state);
    state
        .tasks
        .iter()
        .map(|t| {
            // what a task still waits on: nothing once it is DONE (or otherwise past waiting)
            let waiting: Vec<u32> = if matches!(t.stage(), Stage::Backlog | Stage::Ready) {
                stages.waiting_on(t).iter().map(|(n, _)| *n).collect()
            } else {
                Vec::new()
            };
            TaskView {
                issue: t.issue_number,
                title: &t.title,
                stage: t.stage().clone(),
                dependencies: &t.dependencies,
                waiting_on: waiting,
                github_issue: t.github_issue,
                commit: &t.commit,
                evidence: &t.evidence,
                blocked_reason: &t.blocked_reason,
                retries: t.retries,
                summary: t.summary(),
                handoff: t.handoff.as_ref(),
                missing_from_issues: t.missing_from_issues,
                specify: t.specify.as_ref(),
                budget: None,
            }
        })
        .collect()
}

/// `status --json` of one feature: the tasks each with `budget` (spent and limits, `null`
/// when the issue has no limit and nothing was spent), and the feature's `budget`.
#[derive(Serialize)]
struct FeatureView<'a> {
    feature: &'a str,
    phase: &'a crate::core::stage::Phase,
    tasks: Vec<TaskView<'a>>,
    sync: serde_json::Value,
    budget: Option<SpendView>,
}

fn feature_json<'a>(
    state: &'a FeatureState,
    sync: &crate::app::sync::SyncReport,
    limits: &Limits,
) -> FeatureView<'a> {
    let ledger = state.ledger.as_ref();
    let mut tasks = task_views(state);
    for (t, v) in state.tasks.iter().zip(&mut tasks) {
        v.budget = Some(SpendView::issue(ledger, limits, t.issue_number));
    }
    FeatureView {
        feature: &state.feature_id,
        phase: &state.phase,
        tasks,
        sync: sync_json(sync),
        budget: SpendView::feature(ledger, limits),
    }
}

/// `status`: what the ledger holds as spent, for the feature and each issue with a limit
/// or a spend, against the limits.
fn print_spend(ui: &Ui, state: &FeatureState, limits: &Limits) {
    let ledger = state.ledger.as_ref();
    let issues: Vec<(u32, SpendView)> = state
        .tasks
        .iter()
        .filter_map(|t| {
            SpendView::issue(ledger, limits, t.issue_number).map(|v| (t.issue_number, v))
        })
        .collect();
    let feature = SpendView::feature(ledger, limits);
    if feature.is_none() && issues.is_empty() {
        return;
    }
    let feature = feature.unwrap_or_else(|| SpendView::feature_of(ledger, limits));
    ui.outln(format_args!("budget: feature {}", feature.line()));
    for (n, v) in issues {
        ui.outln(format_args!("  #{n:<4} {}", v.line()));
    }
}
