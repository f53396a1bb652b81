//! `github sync` and `github publish`: arguments and printing.

use crate::app::github::report::GithubSyncReport;
use crate::app::github::{publish as github_publish, sync as github_sync};
use crate::cli::{GlobalArgs, JsonFlag};
use crate::core::feature_id::FeatureId;
use crate::error::CmdResult;
use crate::io::ui::Ui;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum GithubCommand {
    /// Bring labels and status comments in line with the state; replay the outbox.
    Sync {
        /// The feature id (its folder under specs/, e.g. `auth`).
        feature: FeatureId,
        /// Print the planned requests without sending any write.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Create GitHub issues for tasks that have none (idempotent).
    Publish {
        /// The feature id (its folder under specs/, e.g. `auth`).
        feature: FeatureId,
        #[command(flatten)]
        json: JsonFlag,
    },
}

pub fn github(g: &GlobalArgs, ui: &Ui, c: GithubCommand) -> CmdResult<u8> {
    let project = g.open(ui)?;
    match c {
        GithubCommand::Sync {
            feature,
            dry_run,
            json,
        } => {
            let report = github_sync::sync(&project, &feature, dry_run)?;
            print_report(ui, &project, &report, "sync", json.json);
            Ok(report.exit_code())
        }
        GithubCommand::Publish { feature, json } => {
            let report = github_publish::publish(&project, &feature)?;
            print_report(ui, &project, &report, "publish", json.json);
            Ok(report.exit_code())
        }
    }
}

fn print_report(
    ui: &Ui,
    project: &crate::app::project::Project,
    r: &GithubSyncReport,
    verb: &str,
    as_json: bool,
) {
    for e in &r.errors {
        ui.errln(format_args!("error: {e}"));
    }
    if !r.outbox.is_empty() {
        ui.errln(format_args!(
            "error: {} GitHub operation(s) failed and wait in {}; run `swarm-attack github sync {}` again",
            r.outbox.len(),
            project
                .paths
                .display(&project.paths.outbox_file(&r.feature)),
            r.feature
        ));
        for w in &r.outbox {
            let what = match (w.issue, w.github_issue) {
                (Some(n), Some(g)) => format!("issue {n} (GitHub #{g})"),
                (Some(n), None) => format!("issue {n}"),
                _ => w.target.clone(),
            };
            ui.errln(format_args!(
                "  waiting: {} of {what} ({} attempt(s)): {}",
                w.op, w.attempts, w.error
            ));
        }
    }
    if as_json {
        let linked: Vec<_> = r
            .linked
            .iter()
            .map(|(n, g, created)| json!({"issue": n, "github_issue": g, "created": created}))
            .collect();
        ui.json(&json!({
            "feature": r.feature,
            "repo": r.repo,
            "dry_run": r.dry_run,
            "linked": linked,
            "issues": r.issues,
            "planned": r.planned,
            "replayed": r.replayed,
            "outbox": r.outbox,
            "errors": r.errors,
            "requests": {"reads": r.reads, "writes": r.writes},
        }));
        return;
    }
    for (n, g, created) in &r.linked {
        ui.outln(format_args!(
            "  issue {n} → #{g} ({})",
            if *created {
                "created"
            } else {
                "found, already published"
            }
        ));
    }
    if r.dry_run {
        ui.outln(format_args!(
            "github {verb} {} → {} (dry run): {} write(s) planned, none sent",
            r.feature,
            r.repo,
            r.planned.len()
        ));
        for p in &r.planned {
            let target = match (p.issue, p.github_issue) {
                (Some(n), Some(g)) => format!("issue {n} → #{g}: {}", p.action),
                _ => p.action.clone(),
            };
            ui.outln(format_args!("  {} {}  ({target})", p.method, p.path));
        }
        return;
    }
    if r.issues.is_empty() && r.linked.is_empty() && r.outbox.is_empty() && r.replayed == 0 {
        ui.outln(format_args!(
            "github {verb} {} → {}: no task is linked to a GitHub issue (set `github_issue` in issues.json, or run `swarm-attack github publish {}`)",
            r.feature,
            r.repo,
            r.feature
        ));
        return;
    }
    let changed = r.issues.iter().filter(|i| !i.actions.is_empty()).count();
    ui.outln(format_args!(
        "github {verb} {} → {}: {} issue(s) updated, {} unchanged{}; {} read(s), {} write(s)",
        r.feature,
        r.repo,
        changed,
        r.issues.len() - changed,
        if r.replayed > 0 {
            format!(", {} outbox operation(s) replayed", r.replayed)
        } else {
            String::new()
        },
        r.reads,
        r.writes
    ));
    for i in &r.issues {
        ui.outln(format_args!(
            "  issue {:<4} → #{:<6} {:<18} {}",
            i.issue,
            i.github_issue,
            i.label.as_deref().unwrap_or("(no swarm label)"),
            if !i.ok {
                "failed".to_string()
            } else if i.actions.is_empty() {
                "unchanged".to_string()
            } else {
                i.actions.join(", ")
            }
        ));
    }
}
