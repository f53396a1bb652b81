//! `init <feature>`: creates `specs/<feature>/issues.json` (if missing) and the state.

use crate::app::project::Project;
use crate::core::greenlight;
use crate::error::{CmdResult, CommandError};
use crate::io::{atomic, clock, issues_file};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct InitReport {
    pub feature: String,
    pub issues_file: String,
    pub issues_file_created: bool,
    pub state_file: String,
    pub state_created: bool,
    pub tasks: usize,
}

pub fn init(project: &Project, feature: &str) -> CmdResult<InitReport> {
    project.check_feature(feature)?;
    let issues_path = project.paths.issues_file(feature);
    let shown_issues = project.paths.display(&issues_path);
    let mut issues_file_created = false;
    if !issues_path.exists() {
        let doc = serde_json::json!({
            "feature_id": feature,
            "generated_at": clock::now_rfc3339(),
            "issues": [],
        });
        let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        bytes.push(b'\n');
        atomic::write_atomic(&issues_path, &bytes)
            .map_err(|e| CommandError::io("write", &issues_path, &e))?;
        issues_file_created = true;
    }
    let doc = issues_file::load(&issues_path, &shown_issues)?;
    let mut txn = project.begin_or_new(feature)?;
    let state_created = txn.old.is_none();
    if state_created {
        greenlight::merge(&mut txn.state, &doc.issues);
    }
    let tasks = txn.state.tasks.len();
    txn.commit()?;
    Ok(InitReport {
        feature: feature.to_string(),
        issues_file: shown_issues,
        issues_file_created,
        state_file: project.paths.display(&project.paths.state_file(feature)),
        state_created,
        tasks,
    })
}
