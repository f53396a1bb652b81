//! `init <feature>`: creates `specs/<feature>/issues.json` (if missing, a template with one
//! example issue) and the state; for a new project also `config.yaml` and
//! `.swarm/.gitignore` (docs/cli.md "init", see [`crate::setup`]).

use crate::core::feature_id::FeatureId;
use crate::core::greenlight;
use crate::error::CmdResult;
use crate::io::file_error::FileError;
use crate::io::{atomic, clock, issues_file};
use crate::project::Project;
use crate::setup::{self, DetectedTests};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct InitReport {
    pub feature: FeatureId,
    pub issues_file: String,
    pub issues_file_created: bool,
    pub state_file: String,
    pub state_created: bool,
    pub tasks: usize,
    /// The project root, and the folder init was started from when the root is above it.
    pub root: String,
    pub started_in: Option<String>,
    /// `config.yaml` written by this init (only when there was none).
    pub config_file: String,
    pub config_created: bool,
    pub detected_tests: Option<DetectedTests>,
    pub agents_found: Vec<String>,
    pub gitignore_created: bool,
}

/// The example issue of a new issues.json (manual, so it is never sent to an agent).
fn example_issue() -> serde_json::Value {
    serde_json::json!({
        "order": 1,
        "title": "Example: replace this issue with your first real one",
        "body": "Describe what to build and how to test it. Issues run in `order`; `dependencies` lists the issues that must be DONE first. This example is `manual`, so no agent ever picks it up.",
        "labels": [],
        "estimated_size": "small",
        "dependencies": [],
        "automation_type": "manual",
    })
}

pub fn init(project: &Project, feature: &FeatureId) -> CmdResult<InitReport> {
    let issues_path = project.paths.issues_file(feature);
    let shown_issues = project.paths.display(&issues_path);
    let mut issues_file_created = false;
    if !issues_path.exists() {
        let doc = serde_json::json!({
            "feature_id": feature,
            "generated_at": clock::now_rfc3339(),
            "issues": [example_issue()],
        });
        let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        bytes.push(b'\n');
        atomic::write_atomic(&issues_path, &bytes).map_err(FileError::at("write", &issues_path))?;
        issues_file_created = true;
    }
    let doc = issues_file::load(&project.ui, &issues_path, &shown_issues)?;
    let mut txn = project.begin_or_new(feature)?;
    let state_created = txn.is_new();
    if state_created {
        greenlight::merge(txn.state_mut(), &doc.issues);
    }
    let tasks = txn.state().tasks.len();
    txn.commit()?;
    let gitignore_created = setup::ensure_swarm_gitignore(&project.paths.swarm_dir)?;
    let default_config = project.root.join("config.yaml");
    let (config_created, detected_tests, agents_found) =
        if project.config_path == default_config && !default_config.exists() {
            let tests = setup::detect_tests(&project.root);
            let agents = setup::agents_on_path();
            let text = setup::config_text(tests.as_ref(), &agents);
            setup::write_if_missing(&default_config, &text)?;
            (
                true,
                tests,
                agents
                    .iter()
                    .map(|p| p.program().unwrap_or(p.as_str()).to_string())
                    .collect(),
            )
        } else {
            (false, None, Vec::new())
        };
    Ok(InitReport {
        feature: feature.clone(),
        issues_file: shown_issues,
        issues_file_created,
        state_file: project.paths.display(&project.paths.state_file(feature)),
        state_created,
        tasks,
        root: project.root.display().to_string(),
        started_in: project
            .found_above
            .as_ref()
            .map(|p| p.display().to_string()),
        config_file: project.paths.display(&project.config_path),
        config_created,
        detected_tests,
        agents_found,
        gitignore_created,
    })
}
