//! `doctor [<feature>] [--json]`: the preflight checks ([`crate::app::doctor`]), one line
//! each, then the warnings (`warn`: they pass, but may hide a failure); exit 0 when all
//! checks pass, 2 otherwise.

use crate::app::doctor;
use crate::cli::{GlobalArgs, JsonFlag};
use crate::error::CmdResult;
use crate::io::ui::Ui;
use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Also check that this feature exists.
    pub feature: Option<String>,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn doctor(g: &GlobalArgs, ui: &Ui, a: DoctorArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    let r = doctor::check(&project, a.feature.as_deref());
    let problems = r.problems().count();
    if a.json.json {
        ui.json(&json!({
            "ok": r.ok(),
            "problems": problems,
            "checks": r.checks,
            "warnings": r.warnings,
        }));
    } else {
        for c in &r.checks {
            if c.ok {
                ui.outln(format_args!("{} {}", ui.paint("ok  ", "32"), c.detail));
            } else {
                ui.outln(format_args!("{} {}", ui.paint("FAIL", "31"), c.detail));
            }
        }
        for w in &r.warnings {
            ui.outln(format_args!("{} {w}", ui.paint("warn", "33")));
        }
        if problems == 0 {
            ui.outln(format_args!("doctor: all {} checks passed", r.checks.len()));
        } else {
            ui.errln(format_args!(
                "doctor: {problems} problem{} (see the FAIL lines)",
                if problems == 1 { "" } else { "s" }
            ));
        }
    }
    Ok(if problems == 0 { 0 } else { 2 })
}
