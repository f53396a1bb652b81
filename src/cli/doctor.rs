//! `doctor [<feature>] [--json]`: the preflight checks ([`crate::app::doctor`]), one line
//! each, then the warnings (`warn`: they pass, but may hide a failure); exit 0 when all
//! checks pass, 2 otherwise.

use crate::app::doctor;
use crate::cli::output::{paint, print_json};
use crate::cli::{GlobalArgs, JsonFlag};
use crate::error::CmdResult;
use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Also check that this feature exists.
    pub feature: Option<String>,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn doctor(g: &GlobalArgs, a: DoctorArgs) -> CmdResult<u8> {
    let project = g.open()?;
    let r = doctor::check(&project, a.feature.as_deref());
    let problems = r.problems().count();
    if a.json.json {
        print_json(&json!({
            "ok": r.ok(),
            "problems": problems,
            "checks": r.checks,
            "warnings": r.warnings,
        }));
    } else {
        for c in &r.checks {
            if c.ok {
                crate::outln!("{} {}", paint("ok  ", "32"), c.detail);
            } else {
                crate::outln!("{} {}", paint("FAIL", "31"), c.detail);
            }
        }
        for w in &r.warnings {
            crate::outln!("{} {w}", paint("warn", "33"));
        }
        if problems == 0 {
            crate::outln!("doctor: all {} checks passed", r.checks.len());
        } else {
            crate::errln!(
                "doctor: {problems} problem{} (see the FAIL lines)",
                if problems == 1 { "" } else { "s" }
            );
        }
    }
    Ok(if problems == 0 { 0 } else { 2 })
}
