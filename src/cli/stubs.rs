//! Argument definitions shared by commands (`run`, `action`, `demo`).

use crate::cli::JsonFlag;
use clap::Args;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: String,
    /// Only this issue.
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    /// Implement at most K issues (K ≥ 1).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_issues: Option<u32>,
    /// Run up to W independent issues at once, each in its own worktree.
    #[arg(long, value_name = "W", default_value_t = 1)]
    pub workers: u32,
    /// Print what would run without running it.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct ActionArgs {
    /// Run agents for triggered issues (also: input `run-agents`, `github.run_agents`).
    #[arg(long)]
    pub run_agents: bool,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Build the demo repository here instead of a temp dir (kept afterwards).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}
