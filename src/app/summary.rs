//! Semantic summaries of DONE tasks (SPEC §7.1 accumulated context).
//!
//! (Interface skeleton: the summary builder lands with the context work.)

use crate::app::project::Project;
use crate::core::state::Task;

/// Fills in the task's summary (`completion_summary`, `outputs.semantic_summary`) when it
/// is DONE and has none. Returns whether it changed the task.
pub fn ensure_summary(project: &Project, feature: &str, task: &mut Task) -> bool {
    let _ = (project, feature);
    if task.summary().is_some() || task.stage != crate::core::stage::Stage::Done {
        return false;
    }
    let files = task.outputs.files_created.join(", ");
    let text = if files.is_empty() {
        format!("Implemented issue #{}: {}.", task.issue_number, task.title)
    } else {
        format!(
            "Implemented issue #{}: {} (files: {files}).",
            task.issue_number, task.title
        )
    };
    task.outputs.semantic_summary = Some(text.clone());
    task.completion_summary = Some(text);
    true
}
