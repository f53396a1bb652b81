//! `matrix <feature> [--max N]`: the dispatchable issues as a GitHub Actions matrix (one
//! JSON document on stdout; also `matrix` in `GITHUB_OUTPUT` in a workflow).

use crate::app::matrix as matrix_app;
use crate::cli::GlobalArgs;
use crate::core::feature_id::FeatureId;
use crate::error::{CmdResult, CommandError};
use crate::io::ui::Ui;
use clap::Args;

#[derive(Debug, Args)]
#[command(
    after_help = "EXAMPLES:\n  swarm-attack matrix auth\n  swarm-attack matrix auth --max 4\n\n\
In a workflow job: `echo` nothing, the command writes `matrix=...` to $GITHUB_OUTPUT;\n\
use it as `strategy: {matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}}`."
)]
pub struct MatrixArgs {
    /// The feature (its id, as in `specs/<feature>/issues.json`).
    pub feature: FeatureId,
    /// At most this many issues (the first ones in dependency order).
    #[arg(long, value_name = "N")]
    pub max: Option<usize>,
    /// Accepted for symmetry with the read commands: the output is always JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn matrix(g: &GlobalArgs, ui: &Ui, a: MatrixArgs) -> CmdResult<u8> {
    if a.max == Some(0) {
        return Err(CommandError::input(
            "--max 0 would give an empty matrix, which GitHub Actions rejects",
        )
        .with_hint("give --max 1 or more, or leave it out"));
    }
    let project = g.open(ui)?;
    let o = matrix_app::matrix(&project, &a.feature, a.max)?;
    for w in &o.warnings {
        ui.warn(w);
    }
    for (issue, pr) in &o.held_by_pull {
        ui.info(format_args!(
            "issue {issue} is left out: pull request #{pr} is open for it"
        ));
    }
    ui.json(&o.matrix);
    Ok(0)
}
