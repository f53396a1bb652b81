//! The report use case (`swarm-attack report`, the Action, `demo`): streams the feature's
//! event log into the core's [`ReportBuilder`] (memory bounded, no lock), completes it with
//! the state and the repository's URL, and writes the HTML page atomically.

use crate::core::feature_id::FeatureId;
use crate::core::report::{Report, ReportBuilder, render_html};
use crate::error::{CmdResult, CommandError};
use crate::io::event_reader::LogReader;
use crate::io::{atomic, repo_id};
use crate::project::Project;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Where the report of `feature` goes by default: `.swarm/reports/<feature>.html`.
pub(crate) fn default_path(project: &Project, feature: &FeatureId) -> PathBuf {
    project
        .paths
        .swarm_dir
        .join("reports")
        .join(format!("{feature}.html"))
}

/// Reads the log (streaming) and the state, and builds the model.
pub(crate) fn build(project: &Project, feature: &FeatureId) -> CmdResult<Report> {
    // a state file that cannot be read is an error naming it (exit 2), as for `status`
    let state = project.load_state(feature)?;
    let path = project.paths.events_file(feature);
    let shown = project.paths.display(&path);
    let mut builder = ReportBuilder::new(feature);
    let mut reader = LogReader::new(&path, Default::default(), &project.ui);
    let existed = {
        let mut sink = |_no: u64, line: &[u8], _: Option<&crate::core::record::Record>| {
            if let Ok(rec) = serde_json::from_slice::<Map<String, Value>>(line) {
                builder.push(&rec);
            }
            Ok(())
        };
        reader.read_all(&mut sink).map_err(|e| {
            CommandError::internal(format!("could not read the event log {shown}: {e}"))
        })?
    };
    if !existed && state.is_none() {
        return Err(CommandError::input(format!(
            "feature `{feature}` has no events and no state (neither {shown} nor its state file exists); run `swarm-attack init {feature}` first"
        )));
    }
    if !existed {
        project.ui.info(format_args!(
            "no events for feature `{feature}` yet ({shown} does not exist)"
        ));
    }
    let repo_url = repo_id::resolve(&project.config, &project.root).map(|r| {
        let server = crate::io::env::var("GITHUB_SERVER_URL")
            .ok()
            .filter(|s| s.starts_with("https://") || s.starts_with("http://"))
            .unwrap_or_else(|| "https://github.com".into());
        format!("{}/{r}", server.trim_end_matches('/'))
    });
    let mut report = builder.finish(state.as_ref(), repo_url.as_deref());
    report.learned = crate::core::report::learning::rows(&crate::outcomes::stats(&project.paths));
    let limits = project.config.budgets;
    if limits != Default::default() {
        report.limits = Some(limits);
    }
    Ok(report)
}

/// Builds the report of `feature` and writes it to `out` (default `default_path`),
/// creating the folder. Returns the path written and the model.
pub fn write(
    project: &Project,
    feature: &FeatureId,
    out: Option<&Path>,
) -> CmdResult<(PathBuf, Report)> {
    let report = build(project, feature)?;
    let path = match out {
        Some(p) if p.is_relative() => std::env::current_dir().unwrap_or_default().join(p),
        Some(p) => p.to_path_buf(),
        None => default_path(project, feature),
    };
    let html = render_html(&report);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| {
            CommandError::input(format!(
                "cannot create the folder {} for the report: {e}",
                dir.display()
            ))
        })?;
    }
    atomic::write_atomic(&path, html.as_bytes()).map_err(|e| {
        CommandError::input(format!("cannot write the report {}: {e}", path.display()))
    })?;
    Ok((path, report))
}

/// For the Action: writes the report of `feature` to its default path and returns that
/// path with the step-summary Markdown (compact SVG timeline and the totals table).
pub fn for_step_summary(project: &Project, feature: &FeatureId) -> CmdResult<(PathBuf, String)> {
    let (path, report) = write(project, feature, None)?;
    let shown = project.paths.display(&path);
    let md = crate::core::report::summary_markdown(&report, &shown);
    Ok((path, md))
}
