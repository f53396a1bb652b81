//! `swarm-attack audit <feature>`: per issue, its timeline, attempts (agents and mode,
//! verification), retries, outcome with commit or evidence, durations and cost; totals for
//! the feature. `--json`: one JSON document. The aggregation is `core::audit`; this file
//! reads the log (streaming, no lock); `table` and `json` print.

mod codec;
mod json;
mod store;
mod table;
#[cfg(test)]
mod tests;

use crate::app::project::Project;
use crate::cli::{GlobalArgs, JsonFlag};
use crate::core::audit::{AuditReport, Auditor};
use crate::core::feature_id::FeatureId;
use crate::core::record::Record;
use crate::error::{CmdResult, CommandError};
use crate::io::event_reader::LogReader;
use crate::io::ui::Ui;
use clap::Args;
use codec::EntryRef;
use std::io::Write;
use store::{AuditStore, Mode};

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: FeatureId,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn audit(g: &GlobalArgs, ui: &Ui, a: AuditArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    project.require_known_feature(&a.feature)?;
    // streamed: the timelines and finished attempts wait in a temporary file, one issue's at
    // a time in memory
    let mode = if a.json.json { Mode::Json } else { Mode::Table };
    let mut store = AuditStore::new(mode, ui);
    let report = read(ui, &project, &a.feature, Some(&mut store))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, ui.out_writer());
    let written = match mode {
        Mode::Json => json::write(&mut out, &report, Some(&mut store)).and_then(|()| writeln!(out)),
        Mode::Table => table::write(ui, &mut out, &report, Some(&mut store)),
    }
    .and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            return Err(CommandError::internal(format!(
                "could not print the audit: {e}"
            )));
        }
    }
    Ok(0)
}

/// Reads the feature's log (streaming, no lock) and aggregates it, with titles from the
/// state when there is one.
pub fn build(project: &Project, feature: &FeatureId) -> CmdResult<AuditReport> {
    read(&project.ui, project, feature, None)
}

/// [`build`]; with `store`, the timelines and the attempts that are not the last of their
/// issue go there instead of into the report.
fn read(
    ui: &Ui,
    project: &Project,
    feature: &FeatureId,
    mut store: Option<&mut AuditStore>,
) -> CmdResult<AuditReport> {
    // Titles from the state, when there is one (read only). A state file that cannot be
    // read is an error naming it (exit 2), as for `status` and `run`: read first, so the
    // log is not read for nothing.
    let titles: std::collections::BTreeMap<u64, String> = project
        .load_state(feature)?
        .map(|s| {
            s.tasks
                .iter()
                .map(|t| (u64::from(t.issue_number), t.title.clone()))
                .collect()
        })
        .unwrap_or_default();
    let path = project.paths.events_file(feature);
    let shown = project.paths.display(&path);
    let mut auditor = if store.is_some() {
        Auditor::spilling(feature)
    } else {
        Auditor::new(feature)
    };
    let mut reader = LogReader::new(&path, Default::default(), ui);
    let existed = {
        let mut sink = |_no: u64, _line: &[u8], rec: Option<&Record>| {
            // a record with a value that cannot be read is skipped, as it always was
            if let Some(rec) = rec {
                auditor.push(rec);
                if let Some(store) = store.as_deref_mut() {
                    for (issue, attempt) in auditor.take_attempts() {
                        store.push_attempt(issue, &attempt)?;
                    }
                    for (issue, e) in auditor.take_entries() {
                        let e = EntryRef::from(e);
                        store.push(*issue, e)?;
                    }
                }
            }
            Ok(())
        };
        reader.read_all(&mut sink).map_err(|e| {
            CommandError::internal(format!("could not read the event log {shown}: {e}"))
        })?
    };
    if !existed {
        ui.info(format_args!(
            "no events for feature `{feature}` yet ({shown} does not exist)"
        ));
    }
    let mut report = auditor.finish();
    for i in &mut report.issues {
        i.title = titles.get(&i.issue).cloned();
    }
    Ok(report)
}

/// A duration for people: `850ms`, `12.5s`, `4m05s`, `2h03m`.
pub fn human_ms(ms: u64) -> String {
    crate::core::report::duration_text(ms)
}

/// The readable audit.
pub fn render(ui: &Ui, out: &mut impl Write, r: &AuditReport) -> std::io::Result<()> {
    table::write(ui, out, r, None)
}
