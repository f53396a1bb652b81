//! Recording outcomes (docs/learning.md "Outcomes"): when a feature transaction appends the event
//! that ends an issue (`issue_done`, a `git_sync` that made it DONE, `issue_blocked`,
//! `issue_skipped`) or undoes it (`state_reverted`), one record per issue is appended to
//! `.swarm/outcomes.jsonl`, built from the issue's audit — the one event fold — of the feature's
//! log. Learning ([`stats`]) reads that file back. A leaf of `app`: it uses only adapters and the
//! core, so the feature transaction can call it.

use crate::core::audit::{Auditor, IssueAudit};
use crate::core::config::Config;
use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::outcomes::{self, OutcomeRecord, OutcomeResult, Stats};
use crate::core::state::{FeatureState, Task};
use crate::io::paths::Paths;
use crate::io::ui::Ui;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The issues `events` ended (or undid), in order.
pub(crate) fn ended(events: &[Event]) -> Vec<(u32, OutcomeResult)> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::IssueDone { issue, .. } => out.push((*issue, OutcomeResult::Done)),
            Event::IssueBlocked { issue, .. } => out.push((*issue, OutcomeResult::Blocked)),
            Event::IssueSkipped { issue, .. } => out.push((*issue, OutcomeResult::Skipped)),
            Event::StateReverted { issue, .. } => out.push((*issue, OutcomeResult::Reverted)),
            Event::GitSync { synced_issues, .. } => {
                out.extend(synced_issues.iter().map(|n| (*n, OutcomeResult::Done)))
            }
            _ => {}
        }
    }
    out
}

/// The audit of `issues` from the feature's log: only the lines that may concern them are
/// parsed ([`crate::core::log_issues`]), found through the process's index of the log
/// ([`crate::io::event_index`]: each call reads what was appended since the last one).
pub(crate) fn audit_issues(
    events_file: &Path,
    feature: &FeatureId,
    issues: &BTreeSet<u32>,
) -> BTreeMap<u32, IssueAudit> {
    let (lines, _) = crate::io::event_index::issue_lines(events_file, issues);
    let mut auditor = Auditor::new(feature);
    for line in &lines {
        if let Ok(serde_json::Value::Object(m)) = serde_json::from_str(line) {
            auditor.push(&m);
        }
    }
    auditor
        .finish()
        .issues
        .into_iter()
        .filter_map(|a| {
            let n = u32::try_from(a.issue).ok()?;
            issues.contains(&n).then_some((n, a))
        })
        .collect()
}

/// The class of `task` under `config` (the Action's trigger label is no class).
pub(crate) fn class_of(config: &Config, task: &Task) -> String {
    outcomes::class_of(task, &[config.github.trigger_label.as_str()])
}

/// Appends the outcome records of the issues `events` ended. Best effort: a failure to
/// write is a warning, never the transaction's failure (the log keeps the facts).
pub(crate) fn record(
    ui: &Ui,
    paths: &Paths,
    config: &Config,
    feature: &FeatureId,
    state: &FeatureState,
    events: &[Event],
    ts: &str,
) {
    let ended = ended(events);
    if ended.is_empty() {
        return;
    }
    let issues: BTreeSet<u32> = ended.iter().map(|(n, _)| *n).collect();
    let audits = audit_issues(&paths.events_file(feature), feature, &issues);
    let records: Vec<OutcomeRecord> = ended
        .iter()
        .map(|(n, result)| {
            let fallback = Task::new(*n, "");
            let task = state.task(*n).unwrap_or(&fallback);
            outcomes::record_of(
                ts,
                feature,
                task,
                class_of(config, task),
                audits.get(n),
                *result,
            )
        })
        .collect();
    let path = paths.outcomes_file();
    if let Err(e) = crate::io::jsonl::append_outcomes(&path, &records) {
        ui.warn(format_args!(
            "could not record the outcome in {}: {e}",
            paths.display(&path)
        ));
    }
}

/// The statistics learning reads from `.swarm/outcomes.jsonl`.
pub(crate) fn stats(paths: &Paths) -> Stats {
    Stats::fold(&crate::io::jsonl::load_outcomes(&paths.outcomes_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_issue_is_audited_from_its_own_lines_and_the_syncs_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("f.jsonl");
        let f = crate::fid("feat");
        let lines = [
            r#"{"ts":"2026-01-01T00:00:00Z","event":"issue_started","issue":22,"attempt":1}"#,
            r#"{"ts":"2026-01-01T00:00:01Z","event":"issue_started","issue":2,"attempt":1}"#,
            r#"{"ts":"2026-01-01T00:00:02Z","event":"git_sync","synced_issues":[22],"reverted_issues":[]}"#,
        ];
        std::fs::write(&log, format!("{}\n", lines.join("\n"))).unwrap();
        let two = audit_issues(&log, &f, &BTreeSet::from([2]));
        assert_eq!(two.len(), 1);
        assert_eq!(
            two[&2].outcome,
            crate::core::audit::IssueOutcome::InProgress
        );
        // appended later: a sync that names it ends it (read from the appended bytes)
        let sync = r#"{"ts":"2026-01-01T00:00:03Z","event":"git_sync","synced_issues":[2],"reverted_issues":[]}"#;
        let mut text = std::fs::read_to_string(&log).unwrap();
        text.push_str(sync);
        text.push('\n');
        std::fs::write(&log, text).unwrap();
        let two = audit_issues(&log, &f, &BTreeSet::from([2]));
        assert_eq!(two[&2].outcome, crate::core::audit::IssueOutcome::Done);
        let both = audit_issues(&log, &f, &BTreeSet::from([2, 22]));
        assert_eq!(both.len(), 2);
        assert_eq!(both[&22].outcome, crate::core::audit::IssueOutcome::Done);
    }
}
