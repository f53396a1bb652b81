//! `audit <feature>`'s use case: reads the feature's event log (streaming, no lock) and
//! aggregates it with [`crate::core::audit`].

use crate::app::project::Project;
use crate::core::audit::{AuditReport, Auditor};
use crate::error::{CmdResult, CommandError};
use crate::io::event_reader::LogReader;
use crate::io::{notice, state_store};
use serde_json::{Map, Value};

/// Reads the feature's log (streaming, no lock) and aggregates it, with titles from the
/// state when there is one.
pub fn build(project: &Project, feature: &str) -> CmdResult<AuditReport> {
    project.check_feature(feature)?;
    let path = project.paths.events_file(feature);
    let shown = project.paths.display(&path);
    let mut auditor = Auditor::new(feature);
    let mut reader = LogReader::new(&path, Default::default());
    let existed = {
        let mut sink = |_no: u64, line: &[u8]| {
            if let Ok(rec) = serde_json::from_slice::<Map<String, Value>>(line) {
                auditor.push(&rec);
            }
            Ok(())
        };
        reader.read_all(&mut sink).map_err(|e| {
            CommandError::internal(format!("could not read the event log {shown}: {e}"))
        })?
    };
    if !existed {
        notice::info(&format!(
            "no events for feature `{feature}` yet ({shown} does not exist)"
        ));
    }
    let mut report = auditor.finish();
    // Titles from the state, when there is one (read only; a bad state file is no reason to
    // refuse an audit).
    let titles: std::collections::BTreeMap<u64, String> =
        state_store::load(&project.paths.state_file(feature))
            .ok()
            .flatten()
            .map(|s| {
                s.tasks
                    .iter()
                    .map(|t| (u64::from(t.issue_number), t.title.clone()))
                    .collect()
            })
            .unwrap_or_default();
    for i in &mut report.issues {
        i.title = titles.get(&i.issue).cloned();
    }
    Ok(report)
}
