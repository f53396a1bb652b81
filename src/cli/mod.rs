//! The command-line surface: clap definitions (one file per command group) and printing.

pub mod action;
pub mod audit;
pub mod completions;
pub mod demo;
pub mod doctor;
pub mod events;
pub mod feature_cmds;
pub mod github;
pub mod help_text;
pub mod lessons;
pub mod matrix;
pub mod output;
pub mod plan;
pub mod progress;
pub mod prompt;
pub mod report;
pub mod run;

use crate::app::project::{Project, ProjectOptions};
use crate::core::feature_id::{FeatureId, InvalidFeatureId};
use crate::error::{CmdResult, ErrorKind};
use crate::io::ui::Ui;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Run a swarm of coding agents over a feature's issues, without ever redoing finished work.
#[derive(Debug, Parser)]
#[command(
    name = "swarm-attack",
    version,
    about,
    max_term_width = 100,
    after_help = help_text::MAIN
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// The project directory (default: the current directory).
    #[arg(short = 'p', long = "project", global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The config file (default: config.yaml in the project directory).
    #[arg(long = "config", global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print less.
    #[arg(short = 'q', long = "quiet", global = true)]
    pub quiet: bool,
    /// Print more (repeat for more).
    #[arg(short = 'v', long = "verbose", global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No colours (also: NO_COLOR set).
    #[arg(long = "no-color", global = true)]
    pub no_color: bool,
}

impl GlobalArgs {
    pub fn project_options(&self) -> ProjectOptions {
        ProjectOptions {
            project_dir: self.project.clone(),
            config_file: self.config.clone(),
        }
    }
    /// Opens the project, printing through `ui`, with the GitHub mirror as its finish hook.
    pub fn open(&self, ui: &Ui) -> CmdResult<Project> {
        Ok(Project::open(&self.project_options(), ui)?
            .with_finish_hook(crate::app::github::mirror::mirror))
    }
}

/// `--json` for read commands.
#[derive(Debug, Args, Clone, Copy)]
pub struct JsonFlag {
    /// Print one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create specs/FEATURE/issues.json (if missing) and the feature state; for a new
    /// project also config.yaml (detected test command, agents on PATH) and .swarm/.gitignore.
    #[command(after_help = help_text::INIT)]
    Init {
        /// The feature id (its folder under specs/, e.g. `auth`).
        feature: FeatureId,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Sync from git, merge issues.json into the state (keeping progress), print the plan.
    #[command(after_help = help_text::GREENLIGHT)]
    Greenlight {
        /// The feature id (its folder under specs/, e.g. `auth`).
        feature: FeatureId,
        /// Show what would change without writing anything.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Sync from git, then show one feature in detail, or all features.
    #[command(after_help = help_text::STATUS)]
    Status {
        /// The feature id (its folder under specs/, e.g. `auth`); all features when omitted.
        feature: Option<FeatureId>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Implement READY issues with the configured agents.
    #[command(after_help = help_text::RUN)]
    Run(run::RunArgs),
    /// Move a BLOCKED, SKIPPED or INTERRUPTED issue back to READY (or BACKLOG).
    Unblock {
        /// The feature id (its folder under specs/, e.g. `auth`).
        feature: FeatureId,
        /// The issue to move back (its number inside the feature).
        #[arg(long, value_name = "N")]
        issue: u32,
        /// Raise this issue's USD budget by this amount (e.g. +2.50), cumulative.
        #[arg(long, value_name = "+USD", allow_hyphen_values = false)]
        budget: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Check the setup: agents (on PATH, `--version`), their credentials, the test
    /// command, the branch, stale git locks. Exit 0 when all pass, 2 otherwise.
    Doctor(doctor::DoctorArgs),
    /// Print the exact coder prompt that `run` would send.
    Prompt(prompt::PromptArgs),
    /// Print the coordination decision per issue.
    Plan(plan::PlanArgs),
    /// Print events from the feature's log, oldest first.
    #[command(after_help = help_text::EVENTS)]
    Events(events::EventsArgs),
    /// Per-issue timeline: attempts, agents, modes, durations, outcome, evidence, cost.
    #[command(after_help = help_text::AUDIT)]
    Audit(audit::AuditArgs),
    /// Write one self-contained HTML report of a feature: timeline, dependencies, attempts, cost.
    Report(report::ReportArgs),
    /// GitHub: sync labels and status comments, publish issues.
    #[command(subcommand)]
    Github(github::GithubCommand),
    /// Print the dispatchable issues as a GitHub Actions matrix (fan-out over runners).
    Matrix(matrix::MatrixArgs),
    /// List, add or forget lessons: verified facts from earlier work shown in prompts.
    Lessons(lessons::LessonsArgs),
    /// The GitHub Action entry point.
    Action(action::ActionArgs),
    /// Build a throw-away example repository and run the main job on it, offline.
    Demo(demo::DemoArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout.
    Man,
    /// Test tool: append events in a loop under the feature lock (docs/events.md).
    #[command(hide = true)]
    DebugAppendEvents(events::DebugAppendArgs),
}

/// Parses arguments, runs, prints the error and maps it to an exit code.
pub fn main_entry() -> ExitCode {
    // `--no-color` (or NO_COLOR) also applies to clap's own output: help and usage errors
    let no_color = std::env::args_os().any(|a| a == "--no-color")
        || crate::io::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut cmd = Cli::command();
    if no_color {
        cmd = cmd.color(clap::ColorChoice::Never);
    }
    let parsed = cmd
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            // an invalid feature id is reported like every other input error
            if let Some(bad) = invalid_feature_id(&e) {
                let ui = Ui::terminal(crate::io::ui::UiOptions {
                    no_color,
                    ..Default::default()
                });
                output::print_error(&ui, &bad.into(), false);
                return ExitCode::from(ErrorKind::Input.exit_code());
            }
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let ui = output::init(&cli.global);
    let verbose = cli.global.verbose > 0;
    match dispatch(cli, &ui) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            output::print_error(&ui, &e, verbose);
            ExitCode::from(e.kind.exit_code())
        }
    }
}

/// The invalid feature id a clap error is about, when it is about one.
fn invalid_feature_id(e: &clap::Error) -> Option<InvalidFeatureId> {
    if e.kind() != clap::error::ErrorKind::ValueValidation {
        return None;
    }
    std::error::Error::source(e)?
        .downcast_ref::<InvalidFeatureId>()
        .cloned()
}

/// Runs one command; returns the exit code for a run that completed (0, or 1 when the work
/// failed but was reported).
pub fn dispatch(cli: Cli, ui: &Ui) -> CmdResult<u8> {
    let g = &cli.global;
    match cli.command {
        Command::Init { feature, json } => feature_cmds::init(g, ui, &feature, json.json),
        Command::Greenlight {
            feature,
            dry_run,
            json,
        } => feature_cmds::greenlight(g, ui, &feature, dry_run, json.json),
        Command::Status { feature, json } => {
            feature_cmds::status(g, ui, feature.as_ref(), json.json)
        }
        Command::Unblock {
            feature,
            issue,
            budget,
            json,
        } => feature_cmds::unblock(g, ui, &feature, issue, budget.as_deref(), json.json),
        Command::Run(a) => run::run(g, ui, a),
        Command::Doctor(a) => doctor::doctor(g, ui, a),
        Command::Prompt(a) => prompt::prompt(g, ui, a),
        Command::Plan(a) => plan::plan(g, ui, a),
        Command::Events(a) => events::events(g, ui, a),
        Command::Audit(a) => audit::audit(g, ui, a),
        Command::Report(a) => report::report(g, ui, a),
        Command::Github(c) => github::github(g, ui, c),
        Command::Matrix(a) => matrix::matrix(g, ui, a),
        Command::Lessons(a) => lessons::lessons(g, ui, a),
        Command::Action(a) => action::run(g, ui, a),
        Command::Demo(a) => demo::demo(g, ui, a),
        Command::Completions { shell } => completions::completions(ui, shell),
        Command::Man => completions::man(ui),
        Command::DebugAppendEvents(a) => events::debug_append(g, ui, a),
    }
}
