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

/// Whether a log line may be about one of `issues` (`"issue":N` not followed by a digit),
/// or is a `git_sync` (which names issues in lists).
fn may_concern(line: &str, needles: &[String]) -> bool {
    if line.contains("\"git_sync\"") {
        return true;
    }
    needles.iter().any(|n| {
        line.match_indices(n.as_str()).any(|(i, _)| {
            !line[i + n.len()..]
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_digit())
        })
    })
}

/// The audit of `issues` from the feature's log (only the lines that may concern them are
/// parsed).
pub(crate) fn audit_issues(
    events_file: &Path,
    feature: &FeatureId,
    issues: &BTreeSet<u32>,
) -> BTreeMap<u32, IssueAudit> {
    let Ok(text) = std::fs::read_to_string(events_file) else {
        return BTreeMap::new();
    };
    let needles: Vec<String> = issues
        .iter()
        .flat_map(|n| [format!("\"issue\":{n}"), format!("\"issue\": {n}")])
        .collect();
    let mut auditor = Auditor::new(feature);
    for line in text.lines().filter(|l| may_concern(l, &needles)) {
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
    fn a_line_concerns_an_issue_only_by_its_exact_number() {
        let needles = vec!["\"issue\":2".to_string()];
        assert!(may_concern("{\"event\":\"x\",\"issue\":2}", &needles));
        assert!(may_concern(
            "{\"event\":\"x\",\"issue\":2,\"a\":1}",
            &needles
        ));
        assert!(!may_concern("{\"event\":\"x\",\"issue\":22}", &needles));
        assert!(may_concern(
            "{\"event\":\"git_sync\",\"synced_issues\":[5]}",
            &needles
        ));
    }
}
