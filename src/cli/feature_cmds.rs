//! `init`, `greenlight`, `status`, `unblock`: printing of the feature commands.

use crate::app::{greenlight, init as init_app, status as status_app, unblock as unblock_app};
use crate::cli::GlobalArgs;
use crate::cli::output::{paint, print_json, print_json_of};
use crate::core::budget::{Limits, SpendView};
use crate::core::feature_id::FeatureId;
use crate::core::gates;
use crate::core::readiness;
use crate::core::stage::Stage;
use crate::core::state::FeatureState;
use crate::error::CmdResult;
use crate::io::notice;
use serde::Serialize;
use serde_json::json;

pub fn init(g: &GlobalArgs, feature: &FeatureId, as_json: bool) -> CmdResult<u8> {
    let project = g.open()?;
    let r = init_app::init(&project, feature)?;
    if as_json {
        print_json(&serde_json::to_value(&r).unwrap_or_default());
    } else {
        print_init(&r);
    }
    Ok(0)
}

fn print_init(r: &init_app::InitReport) {
    if let Some(start) = &r.started_in {
        crate::outln!(
            "initialising at the project root {} (found above {start})",
            r.root
        );
    }
    let made = |b: bool| if b { "created" } else { "exists" };
    let template = if r.issues_file_created {
        " (a template with one example issue)"
    } else {
        ""
    };
    crate::outln!(
        "{}: {}{template}",
        r.issues_file,
        made(r.issues_file_created)
    );
    crate::outln!(
        "{}: {} ({} tasks)",
        r.state_file,
        made(r.state_created),
        r.tasks
    );
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
        crate::outln!("{}: created ({tests}; {agents})", r.config_file);
    }
    if r.gitignore_created {
        crate::outln!(".swarm/.gitignore: created (.swarm/ ignores itself)");
    }
    if !(r.issues_file_created || r.state_created || r.config_created) {
        return;
    }
    crate::outln!("next steps:");
    let mut step = 0;
    let mut say = |s: String| {
        step += 1;
        crate::outln!("  {step}. {s}");
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
    feature: &FeatureId,
    dry_run: bool,
    as_json: bool,
) -> CmdResult<u8> {
    let project = g.open()?;
    crate::app::setup::warn_missing_project_file(&project);
    let o = greenlight::greenlight(&project, feature, dry_run)?;
    for w in &o.sync.warnings {
        notice::warn(w);
    }
    for m in &o.merge.missing {
        notice::warn(&format!(
            "issue {m} is in the state but no longer in issues.json; kept as it is"
        ));
    }
    if as_json {
        print_json(&json!({
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
    crate::outln!(
        "greenlight {feature}: {verb} {}, kept {}, {} ready{}",
        o.merge.added.len(),
        o.merge.kept.len(),
        o.state
            .tasks
            .iter()
            .filter(|t| t.stage() == &Stage::Ready)
            .count(),
        if o.changed { "" } else { " (no change)" }
    );
    print_tasks(&o.state);
    if !o.plan.is_empty() {
        crate::outln!("plan:");
        crate::cli::plan::print_planned(&o.plan);
    }
    Ok(0)
}

pub fn status(g: &GlobalArgs, feature: Option<&FeatureId>, as_json: bool) -> CmdResult<u8> {
    let project = g.open()?;
    match feature {
        Some(f) => {
            let s = status_app::status_one(&project, f)?;
            for w in &s.sync.warnings {
                notice::warn(w);
            }
            let limits = &project.config.budgets;
            if as_json {
                print_json_of(&feature_json(&s.state, &s.sync, limits));
            } else {
                crate::outln!("feature {f} ({})", s.state.phase);
                print_tasks_with(&s.state, &s.interrupted);
                print_spend(&s.state, limits);
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
                print_json(&json!({ "features": list, "errors": errors }));
            } else if all.is_empty() && broken.is_empty() {
                crate::outln!("no features yet (run `swarm-attack init <feature>`)");
            } else {
                for s in &all {
                    let spend =
                        SpendView::feature(s.state.ledger.as_ref(), &project.config.budgets)
                            .map(|v| format!("; {}", v.line()))
                            .unwrap_or_default();
                    crate::outln!(
                        "{:<24} {:<20} {}{spend}",
                        s.state.feature_id,
                        s.state.phase.to_string(),
                        counts(&s.state)
                    );
                }
                for (f, _) in &broken {
                    crate::outln!("{f:<24} {:<20} (see the error below)", "UNREADABLE");
                }
            }
            if !broken.is_empty() {
                for (_, e) in &broken {
                    crate::cli::output::print_error(e, g.verbose > 0);
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
    feature: &FeatureId,
    issue: u32,
    budget: Option<&str>,
    as_json: bool,
) -> CmdResult<u8> {
    let raise = budget
        .map(unblock_app::parse_raise)
        .transpose()
        .map_err(|e| crate::error::CommandError::input(format!("--budget: {e}")))?;
    let project = g.open()?;
    let r = unblock_app::unblock(&project, feature, issue, raise)?;
    if as_json {
        print_json(&serde_json::to_value(&r).unwrap_or_default());
    } else {
        if let Some(usd) = r.budget_raised_usd {
            crate::outln!("issue {}: budget raised by ${usd:.2}", r.issue);
        }
        crate::outln!("issue {}: {} → {}", r.issue, r.from, r.to);
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
pub fn print_tasks(state: &FeatureState) {
    print_tasks_with(state, &[]);
}

/// [`print_tasks`], marking the IN_PROGRESS tasks in `interrupted` (their run is gone).
pub fn print_tasks_with(state: &FeatureState, interrupted: &[u32]) {
    let stages = readiness::Stages::of(state);
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
        crate::outln!(
            "  #{:<4} {} {}{}",
            t.issue_number,
            paint(&stage, stage_colour(t.stage())),
            t.title,
            if why.is_empty() {
                String::new()
            } else {
                format!("  [{why}]")
            }
        );
        if let Some(h) = t.handoff.as_ref().filter(|_| t.stage() == &Stage::Done) {
            for (what, items) in [
                ("decision", &h.decisions),
                ("open question", &h.open_questions),
                ("risk", &h.risks),
            ] {
                for i in items {
                    crate::outln!("        {what}: {i}");
                }
            }
        }
    }
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
fn print_spend(state: &FeatureState, limits: &Limits) {
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
    crate::outln!("budget: feature {}", feature.line());
    for (n, v) in issues {
        crate::outln!("  #{n:<4} {}", v.line());
    }
}
