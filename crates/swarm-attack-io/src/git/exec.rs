//! The only place the tool starts `git`. Every git command gets the same environment
//! policy:
//!
//! - variables that would point git at another repository, index or work tree
//!   (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, ...) and inherited `git -c` settings
//!   (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`) are removed;
//! - every secret variable ([`crate::core::secrets::SECRET_ENV_VARS`]) is removed: git gets a
//!   token only to push, and then only through `GIT_CONFIG_*` (see [`super::push`]);
//! - no prompt (`GIT_TERMINAL_PROMPT=0`), no editor (`GIT_EDITOR=true`), no fsmonitor hook,
//!   no automatic maintenance after the tool's commits and merges (`maintenance.auto=false`:
//!   one process less per commit; the user's own next git command runs it);
//! - repository hooks are off (`core.hooksPath=/dev/null`, a path under which no hook can
//!   exist) unless `git.run_hooks: true`.
//!
//! Each command runs in its own process group (see [`crate::process`]): if `run` is
//! killed, a git command it started still finishes, so a kill never leaves a half-done
//! checkout or a stale `index.lock` behind.

use crate::process::{self, ProcessSpec};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long one git command may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(600);

/// Variables removed from every git command's environment: they would point git at another
/// repository, index or work tree, or carry settings from a caller.
pub const GIT_ENV_REMOVED: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_NAMESPACE",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
];

/// Whether the repository's hooks run during the tool's own git commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Hooks {
    /// `core.hooksPath=/dev/null`: no hook runs (the default).
    #[default]
    Off,
    /// The repository's hooks run (`git.run_hooks: true`).
    On,
}

impl Hooks {
    /// `git.run_hooks` as a policy.
    pub fn from_config(run_hooks: bool) -> Hooks {
        if run_hooks { Hooks::On } else { Hooks::Off }
    }
}

/// A failed git command.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GitError {
    /// git could not be started (not installed, ...).
    #[error("git could not be started: {0}")]
    Spawn(String),
    /// git did not finish in time (it was killed).
    #[error("`git {args}` timed out after {secs} s in {dir}")]
    TimedOut {
        args: String,
        dir: String,
        secs: u64,
    },
    /// git ran and failed: its arguments, where, its message and exit code.
    #[error("`git {args}` failed in {dir}: {message}")]
    Failed {
        args: String,
        dir: String,
        message: String,
        code: Option<i32>,
    },
}

impl GitError {
    /// git's own message (or what went wrong), without the command.
    pub fn message(&self) -> String {
        match self {
            GitError::Spawn(m) => m.clone(),
            GitError::TimedOut { secs, .. } => format!("timed out after {secs} s"),
            GitError::Failed { message, .. } => message.clone(),
        }
    }

    pub(super) fn failed(dir: &Path, args: &[&str], message: impl Into<String>) -> GitError {
        GitError::Failed {
            args: args.join(" "),
            dir: dir.display().to_string(),
            message: message.into(),
            code: None,
        }
    }
}

/// One git command: where, the arguments, its input, hooks policy, extra environment.
#[derive(Debug, Clone, Copy)]
pub(super) struct Invocation<'a> {
    pub dir: &'a Path,
    /// Options before the subcommand (e.g. `-c user.name=...`).
    pub options: &'a [String],
    pub args: &'a [&'a str],
    pub stdin: &'a [u8],
    pub hooks: Hooks,
    /// Extra variables (only [`super::push`] sets any: the `GIT_CONFIG_*` credentials).
    pub env: &'a [(String, String)],
}

impl<'a> Invocation<'a> {
    pub fn new(dir: &'a Path, args: &'a [&'a str]) -> Invocation<'a> {
        Invocation {
            dir,
            options: &[],
            args,
            stdin: b"",
            hooks: Hooks::Off,
            env: &[],
        }
    }
}

/// The command for `inv` with the environment policy applied (the one `Command::new("git")`).
fn command(inv: &Invocation<'_>) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(inv.dir);
    for k in GIT_ENV_REMOVED {
        cmd.env_remove(k);
    }
    for k in crate::core::secrets::SECRET_ENV_VARS {
        cmd.env_remove(k);
    }
    cmd.env_remove(crate::secrets::SECRETS_FD_VAR);
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .args(["-c", "core.fsmonitor=false", "-c", "maintenance.auto=false"]);
    if inv.hooks == Hooks::Off {
        cmd.args(["-c", "core.hooksPath=/dev/null"]);
    }
    cmd.args(inv.options).args(inv.args);
    for (k, v) in inv.env {
        cmd.env(k, v);
    }
    cmd
}

/// Runs `inv` to completion in its own process group; returns stdout (untrimmed).
/// `on_spawn` gets git's pid once it started.
pub(super) fn run(inv: &Invocation<'_>, on_spawn: impl FnOnce(u32)) -> Result<String, GitError> {
    tracing::debug!(
        "running `git {}` in {}",
        crate::secrets::mask(&inv.args.join(" ")),
        inv.dir.display()
    );
    let spec = ProcessSpec {
        stdin: inv.stdin,
        timeout: GIT_TIMEOUT,
        ..Default::default()
    };
    let out = process::run_command(command(inv), &spec, on_spawn)
        .map_err(|e| GitError::Spawn(e.to_string()))?;
    if out.timed_out {
        return Err(GitError::TimedOut {
            args: inv.args.join(" "),
            dir: inv.dir.display().to_string(),
            secs: GIT_TIMEOUT.as_secs(),
        });
    }
    if !out.success() {
        let mut message = out.stderr_text().trim().to_string();
        if message.is_empty() {
            message = out.stdout_text().trim().to_string();
        }
        if message.is_empty() {
            message = format!("exit code {:?}", out.exit_code);
        }
        return Err(GitError::Failed {
            args: inv.args.join(" "),
            dir: inv.dir.display().to_string(),
            message,
            code: out.exit_code,
        });
    }
    Ok(out.stdout_text())
}

/// Runs a read-only `git <args>` in `dir` (hooks off, paths unquoted, stderr dropped);
/// returns at most `cap` bytes of stdout and whether there was more, or `None` when git
/// fails.
pub(super) fn read_capped(dir: &Path, args: &[&str], cap: usize) -> Option<(Vec<u8>, bool)> {
    let options = ["-c".to_string(), "core.quotepath=off".to_string()];
    let inv = Invocation {
        options: &options,
        ..Invocation::new(dir, args)
    };
    let mut cmd = command(&inv);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut out = Vec::new();
    let mut stdout = child.stdout.take()?;
    let read = (&mut stdout).take(cap as u64 + 1).read_to_end(&mut out);
    let capped = out.len() > cap;
    if capped {
        out.truncate(cap);
        let _ = child.kill();
    }
    drop(stdout);
    let status = child.wait().ok()?;
    if read.is_err() || (!capped && !status.success()) {
        return None;
    }
    Some((out, capped))
}

#[cfg(any(test, feature = "test-support"))]
pub mod testing {
    //! Raw git for unit tests that build a repository (never used by the tool itself).

    use super::*;

    /// Runs `git <args>` in `dir` with a fixed identity; panics on failure; trimmed stdout.
    pub fn git(dir: &Path, args: &[&str]) -> String {
        let options = [
            "-c".to_string(),
            "user.name=T".to_string(),
            "-c".to_string(),
            "user.email=t@example.com".to_string(),
        ];
        let inv = Invocation {
            options: &options,
            ..Invocation::new(dir, args)
        };
        match run(&inv, |_| {}) {
            Ok(s) => s.trim().to_string(),
            Err(e) => panic!("{e}"),
        }
    }
}
