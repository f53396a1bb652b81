//! Verification: `tests.command` run in the issue's worktree with `tests.timeout_seconds`
//! (the whole process group is killed on timeout). How the command string is run (argv or
//! `sh -c`) is [`crate::core::command_line`]'s rule. The result is read from the counts
//! when the output format is known (cargo test, pytest, `N passed, N failed`), else from the
//! exit code; the output is saved in the attempt folder.

use crate::core::command_line::{self, CommandLine};
use crate::core::test_report::{self, TestCounts};
use crate::error::{CmdResult, CommandError};
use crate::io::interrupt;
use crate::io::process::{self, ProcessSpec, SpawnError, TOKEN_VARS};
use crate::run::RunContext;
use crate::run::stop::Stop;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// A test run's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub passed: bool,
    pub counts: TestCounts,
    pub timed_out: bool,
    pub exit_code: Option<i32>,
    /// stdout then stderr.
    pub output: String,
    /// No test command is configured (nothing was run).
    pub skipped: bool,
}

impl Verification {
    /// One sentence on why it failed, naming the test command and ending with the last
    /// lines of its output.
    pub fn failure_reason(&self, command: &str, timeout_s: u64) -> String {
        let why = if self.timed_out {
            format!("the tests (`{command}`) timed out after {timeout_s} s")
        } else {
            match (self.counts.failed, self.exit_code) {
                (Some(f), _) if f > 0 => format!("tests failed ({f} failed) in `{command}`"),
                (_, Some(c)) => format!("the test command `{command}` exited with code {c}"),
                _ => format!("the test command `{command}` was killed by a signal"),
            }
        };
        match last_lines(&self.output, 3) {
            Some(tail) => format!("{why}; its last lines: {tail}"),
            None => format!("{why} (no output)"),
        }
    }
}

/// The last `n` non-empty lines of `output`, each cut to 160 characters, joined by " | ".
fn last_lines(output: &str, n: usize) -> Option<String> {
    let lines: Vec<String> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .rev()
        .take(n)
        .map(|l| l.chars().take(160).collect())
        .collect();
    (!lines.is_empty()).then(|| lines.into_iter().rev().collect::<Vec<_>>().join(" | "))
}

/// Runs `cmd` in `cwd`; the output goes to `log`. `Err` when the program cannot start.
pub fn run_command(
    ctx: &RunContext<'_>,
    cmd: &CommandLine,
    cwd: &Path,
    issue: u32,
    log: &Path,
) -> CmdResult<Verification> {
    run_command_stoppable(ctx, cmd, cwd, issue, log, None)
}

/// Like [`run_command`]; the test process registers with `stop` (a two-agent run's loser is
/// stopped while its tests run).
pub fn run_command_stoppable(
    ctx: &RunContext<'_>,
    cmd: &CommandLine,
    cwd: &Path,
    issue: u32,
    log: &Path,
    stop: Option<&Stop>,
) -> CmdResult<Verification> {
    if cmd.is_empty() {
        return Ok(Verification {
            passed: true,
            counts: TestCounts::default(),
            timed_out: false,
            exit_code: None,
            output: String::new(),
            skipped: true,
        });
    }
    let argv = cmd.to_argv();
    let mut env = BTreeMap::new();
    env.insert("SWARM_FEATURE".to_string(), ctx.feature.to_string());
    env.insert("SWARM_ISSUE".to_string(), issue.to_string());
    let spec = ProcessSpec {
        argv: &argv,
        stdin: b"",
        cwd: Some(cwd),
        env,
        env_remove: TOKEN_VARS.iter().map(|s| s.to_string()).collect(),
        timeout: Duration::from_secs(ctx.project.config.tests.timeout_seconds.max(1)),
        // the summary lines are at the end: keep the last 8 MiB of a huge output
        keep_bytes: 8 << 20,
        contained: true,
        ..Default::default()
    };
    let mut pid = None;
    let out = process::run_with_pid(&spec, |p| {
        interrupt::track(p);
        if let Some(s) = stop {
            s.register(p);
        }
        pid = Some(p);
    });
    if let Some(p) = pid {
        interrupt::untrack(p);
        if let Some(s) = stop {
            s.unregister(p);
        }
    }
    let out = out.map_err(|e| match &e {
        SpawnError::NotFound { program } => {
            let message = format!(
                "the test command's program `{program}` was not found (tests.command in {})",
                ctx.project.config_path.display()
            );
            CommandError::from(e)
                .with_message(message)
                .with_hint("install it, or fix tests.command")
        }
        other => {
            let message = format!("the test command could not start: {other}");
            CommandError::from(e).with_message(message)
        }
    })?;
    let mut output = out.stdout_text();
    let err = out.stderr_text();
    if !err.is_empty() {
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(&err);
    }
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = crate::io::secrets::write_file(log, output.as_bytes());
    let counts = test_report::parse_counts(&output);
    Ok(Verification {
        passed: test_report::passed(out.success(), &counts),
        counts,
        timed_out: out.timed_out,
        exit_code: out.exit_code,
        output,
        skipped: false,
    })
}

/// Runs `tests.command` in the worktree.
pub fn verify(
    ctx: &RunContext<'_>,
    worktree: &Path,
    issue: u32,
    log: &Path,
) -> CmdResult<Verification> {
    verify_stoppable(ctx, worktree, issue, log, None)
}

/// Like [`verify`], stoppable (see [`run_command_stoppable`]).
pub fn verify_stoppable(
    ctx: &RunContext<'_>,
    worktree: &Path,
    issue: u32,
    log: &Path,
    stop: Option<&Stop>,
) -> CmdResult<Verification> {
    let cmd = command_line::parse(&ctx.project.config.tests.command);
    run_command_stoppable(ctx, &cmd, worktree, issue, log, stop)
}

/// Fails early (before any agent runs) when `tests.command`'s program is a bare name that
/// is not on PATH.
pub fn check_test_command(project: &crate::project::Project) -> CmdResult<()> {
    let cmd = command_line::parse(&project.config.tests.command);
    let CommandLine::Argv(argv) = cmd else {
        return Ok(());
    };
    let Some(program) = argv.first() else {
        return Ok(());
    };
    if program.contains('/') || on_path(program) {
        return Ok(());
    }
    Err(CommandError::input(format!(
        "the test command's program `{program}` was not found on PATH (tests.command in {})",
        project.config_path.display()
    ))
    .with_hint("install it, or set tests.command to the command that runs your tests"))
}

/// Whether a bare program name is found on PATH.
pub fn on_path(program: &str) -> bool {
    crate::io::program_path::find(program, None, None).is_some()
}

#[cfg(test)]
mod failure_reason_tests {
    use super::*;

    #[test]
    fn names_the_command_and_the_last_lines() {
        let v = Verification {
            passed: false,
            counts: TestCounts::default(),
            timed_out: false,
            exit_code: Some(101),
            output: "compiling\n\nerror: could not find `Cargo.toml`\n".into(),
            skipped: false,
        };
        let r = v.failure_reason("cargo test", 600);
        assert_eq!(
            r,
            "the test command `cargo test` exited with code 101; its last lines: compiling | error: could not find `Cargo.toml`"
        );
    }
}
