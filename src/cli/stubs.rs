//! Argument definitions and entry points of the commands whose implementations live in their
//! own files as they land. Each entry point moves to its own file when it is built.

use crate::cli::{GlobalArgs, JsonFlag, not_built};
use crate::error::CmdResult;
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct RunArgs {
    pub feature: String,
    /// Only this issue.
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    /// Implement at most K issues.
    #[arg(long, value_name = "K")]
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
pub struct PromptArgs {
    pub feature: String,
    #[arg(long, value_name = "N")]
    pub issue: u32,
    /// The agent to build the prompt for (default: the coordination winner).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    pub feature: String,
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct EventsArgs {
    pub feature: String,
    #[arg(long, value_name = "N")]
    pub issue: Option<u32>,
    /// Only events with this name (repeatable).
    #[arg(long = "event", value_name = "NAME")]
    pub event: Vec<String>,
    /// RFC 3339 time or a relative age like `2h`, `30m`, `7d`.
    #[arg(long, value_name = "T")]
    pub since: Option<String>,
    #[arg(long, value_name = "T")]
    pub until: Option<String>,
    /// Only the last N matching events.
    #[arg(short = 'n', value_name = "N")]
    pub last: Option<usize>,
    /// Keep printing new events as they are appended (Ctrl-C to stop).
    #[arg(long)]
    pub follow: bool,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    pub feature: String,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Subcommand)]
pub enum GithubCommand {
    /// Bring labels and status comments in line with the state; replay the outbox.
    Sync {
        feature: String,
        /// Print the planned requests without sending any write.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Create GitHub issues for tasks that have none (idempotent).
    Publish {
        feature: String,
        #[command(flatten)]
        json: JsonFlag,
    },
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

pub fn prompt(_g: &GlobalArgs, _a: PromptArgs) -> CmdResult<u8> {
    Err(not_built("prompt"))
}
pub fn plan(_g: &GlobalArgs, _a: PlanArgs) -> CmdResult<u8> {
    Err(not_built("plan"))
}
pub fn events(_g: &GlobalArgs, _a: EventsArgs) -> CmdResult<u8> {
    Err(not_built("events"))
}
pub fn audit(_g: &GlobalArgs, _a: AuditArgs) -> CmdResult<u8> {
    Err(not_built("audit"))
}
pub fn github(_g: &GlobalArgs, _c: GithubCommand) -> CmdResult<u8> {
    Err(not_built("github"))
}
pub fn action(_g: &GlobalArgs, _a: ActionArgs) -> CmdResult<u8> {
    Err(not_built("action"))
}
