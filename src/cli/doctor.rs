//! `doctor [<feature>] [--json]`: the preflight checks ([`crate::app::doctor`]), one line
//! each; exit 0 when all pass, 2 otherwise (one line per problem on stderr too).

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
        }));
    } else {
        for c in &r.checks {
            if c.ok {
                println!("{} {}", paint("ok  ", "32"), c.detail);
            } else {
                println!("{} {}", paint("FAIL", "31"), c.detail);
            }
        }
        if problems == 0 {
            println!("doctor: all {} checks passed", r.checks.len());
        } else {
            eprintln!(
                "doctor: {problems} problem{} (see the FAIL lines)",
                if problems == 1 { "" } else { "s" }
            );
        }
    }
    Ok(if problems == 0 { 0 } else { 2 })
}
