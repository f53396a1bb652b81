//! `swarm-attack report <feature> [--out FILE] [--open]`: writes one self-contained HTML
//! report of the feature (timeline, dependency graph, attempts, costs, totals) and prints
//! its path. The model and the page are `core::report`; `app::report` builds and writes.

use crate::app::report as report_app;
use crate::cli::GlobalArgs;
use crate::core::feature_id::FeatureId;
use crate::error::CmdResult;
use crate::io::ui::Ui;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ReportArgs {
    pub feature: FeatureId,
    /// Write the report here (default: .swarm/reports/FEATURE.html).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Open the report in the browser afterwards ($BROWSER, else xdg-open / open).
    #[arg(long)]
    pub open: bool,
}

pub fn report(g: &GlobalArgs, ui: &Ui, a: ReportArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    let (path, report) = report_app::write(&project, &a.feature, a.out.as_deref())?;
    ui.outln(format_args!("{}", path.display()));
    if !g.quiet {
        ui.errln(format_args!(
            "report of `{}`: {} issues, {} attempts, {} agent runs, cost {}",
            report.feature,
            report.totals.issues,
            report.totals.attempts,
            report.totals.agent_runs,
            crate::core::audit::total_cost_text(
                report.totals.cost_usd,
                report.totals.cost_unknown_attempts,
                crate::core::report::cost_text
            )
        ));
    }
    if a.open
        && let Err(e) = crate::io::browser::open(&path)
    {
        ui.warn(format_args!(
            "could not open the report in a browser ({e}); open {} yourself",
            path.display()
        ));
    }
    Ok(0)
}
