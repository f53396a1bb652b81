//! `matrix <feature> [--max N]` (docs/cli.md "matrix"): after a git sync, the issues a runner may
//! take now (READY, not manual, no open pull request linking them) as a GitHub Actions matrix. In a
//! workflow (`GITHUB_OUTPUT` set) the matrix is also written there as `matrix`.

use crate::core::feature_id::FeatureId;
use crate::core::matrix;
use crate::error::{CmdResult, CommandError};
use crate::io::gh_actions;
use crate::project::Project;
use crate::pull_gate::open_pull_links;
use crate::status::status_one;
use serde_json::Value;

/// The matrix and what was left out because a pull request is open.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixOutcome {
    pub matrix: Value,
    /// Issue → open pull request: not in the matrix for that reason.
    pub held_by_pull: Vec<(u32, u64)>,
    pub warnings: Vec<String>,
}

pub fn matrix(
    project: &Project,
    feature: &FeatureId,
    max: Option<usize>,
) -> CmdResult<MatrixOutcome> {
    let status = status_one(project, feature)?;
    let mut warnings = status.sync.warnings.clone();
    let gate = open_pull_links(project, &status.state)?;
    warnings.extend(gate.warning.clone());
    let issues = matrix::dispatchable_issues(&status.state, &gate.links);
    let doc = matrix::matrix_json(&status.state, &issues, max);
    let held_by_pull = matrix::dispatchable_issues(&status.state, &Default::default())
        .into_iter()
        .filter_map(|n| gate.links.get(&n).map(|pr| (n, *pr)))
        .collect();
    gh_actions::write_outputs(&[("matrix", doc.to_string())]).map_err(|e| {
        CommandError::internal(format!("cannot write the matrix to GITHUB_OUTPUT: {e}"))
    })?;
    Ok(MatrixOutcome {
        matrix: doc,
        held_by_pull,
        warnings,
    })
}
