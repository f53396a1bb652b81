//! Running external commands (agents, the LLM helper, tests): argv only (never a shell with
//! interpolated text), input on stdin, a timeout that kills the whole process group (for a
//! [`ProcessSpec::contained`] command: its whole process tree, see [`crate::contain`]),
//! output captured.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished (or killed) process did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutcome {
    /// The exit code; `None` when killed by a signal (e.g. on timeout).
    pub exit_code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    pub duration: Duration,
}

impl ProcessOutcome {
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct ProcessSpec<'a> {
    pub argv: &'a [String],
    pub stdin: &'a [u8],
    pub cwd: Option<&'a Path>,
    /// Variables to set.
    pub env: BTreeMap<String, String>,
    /// Variables to remove (e.g. tokens).
    pub env_remove: Vec<String>,
    pub timeout: Duration,
    /// Streams stdout (and stderr) into these files as it arrives, so a huge output is kept
    /// whole on disk without being held in memory.
    pub stdout_to: Option<&'a Path>,
    pub stderr_to: Option<&'a Path>,
    /// Keep at most this many bytes of each stream in memory (the tail); 0 keeps everything.
    pub keep_bytes: usize,
    /// Agents, tests and LLM commands: run contained ([`crate::contain`]), so a stop, a
    /// timeout or the tool's death kills every descendant, `setsid` ones included. git
    /// commands are not (they are short and started often).
    pub contained: bool,
}

/// The variables that carry GitHub tokens; removed from agents' and helpers' environments
/// unless passed through explicitly.
pub use crate::core::secrets::TOKEN_ENV_VARS as TOKEN_VARS;

/// Why a process could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("the command is empty")]
    Empty,
    #[error("`{program}` was not found on PATH")]
    NotFound { program: String },
    #[error("`{program}` could not be started: {source}")]
    Other {
        program: String,
        source: std::io::Error,
    },
}

/// Runs a process to completion (or timeout) in its own process group.
pub fn run(spec: &ProcessSpec<'_>) -> Result<ProcessOutcome, SpawnError> {
    run_with_pid(spec, |_| {})
}

/// Like [`run`], calling `on_spawn(pid)` once the child started (so a caller can record or
/// stop it).
pub fn run_with_pid(
    spec: &ProcessSpec<'_>,
    on_spawn: impl FnOnce(u32),
) -> Result<ProcessOutcome, SpawnError> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(SpawnError::Empty);
    };
    let shown = crate::secrets::mask(&spec.argv.join(" ")).into_owned();
    let cwd = spec
        .cwd
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    tracing::info!("running `{shown}` in {cwd}");
    let cmd = if spec.contained {
        let path_var = spec.env.get("PATH").map(std::ffi::OsStr::new);
        let Some(found) = crate::program_path::find(program, path_var, spec.cwd) else {
            return Err(SpawnError::NotFound {
                program: program.clone(),
            });
        };
        // a bare name runs from where it was found; a path as given (relative to cwd)
        let resolved = if program.contains('/') {
            program.clone()
        } else {
            found.to_string_lossy().into_owned()
        };
        crate::contain::command(&resolved, args)
    } else {
        let mut c = Command::new(program);
        c.args(args);
        c
    };
    run_command(cmd, spec, on_spawn)
}

/// Like [`run_with_pid`] for a command the caller prepared (program, arguments and any
/// environment it needs); `spec.argv` is ignored.
pub fn run_command(
    mut cmd: Command,
    spec: &ProcessSpec<'_>,
    on_spawn: impl FnOnce(u32),
) -> Result<ProcessOutcome, SpawnError> {
    use std::os::unix::process::CommandExt;
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(cwd) = spec.cwd {
        cmd.current_dir(cwd);
        // tools that take their folder from $PWD (OpenCode) must see the folder they run in,
        // never the caller's
        let abs = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        cmd.env("PWD", abs);
    }
    // the number of the (closed) pipe that carried the secrets into this process
    cmd.env_remove(crate::secrets::SECRETS_FD_VAR);
    for k in &spec.env_remove {
        cmd.env_remove(k);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            SpawnError::NotFound {
                program: program.clone(),
            }
        } else {
            SpawnError::Other {
                program: program.clone(),
                source: e,
            }
        }
    })?;
    let pid = child.id();
    if spec.contained {
        crate::contain::started(pid);
    }
    on_spawn(pid);
    let mut stdin = child.stdin.take();
    let input = spec.stdin.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
        drop(stdin);
    });
    let keep = spec.keep_bytes;
    let out = child.stdout.take();
    let err = child.stderr.take();
    let out_file = spec.stdout_to.and_then(|p| std::fs::File::create(p).ok());
    let err_file = spec.stderr_to.and_then(|p| std::fs::File::create(p).ok());
    let out_t = std::thread::spawn(move || drain(out, out_file, keep));
    let err_t = std::thread::spawn(move || drain(err, err_file, keep));
    // a waiter thread blocks until the leader exits (without reaping it): no polling delay
    let (exited_tx, exited_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        wait_exited_unreaped(pid);
        let _ = exited_tx.send(());
    });
    let timed_out = matches!(
        exited_rx.recv_timeout(spec.timeout),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout)
    );
    // The leader has exited (or timed out) but is not reaped yet, so its pid — the group id —
    // cannot have been reused: stop the whole group or tree (timeout, or anything the leader
    // left behind holding the pipes), then reap. A supervisor that does not finish its sweep
    // in time is killed with its group.
    if spec.contained {
        stop_tree(pid);
        if !crate::contain::wait_gone(&[pid], STOP_GRACE) {
            crate::contain::kill_tree(pid);
        }
    } else if let Ok(p) = i32::try_from(pid) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let status = child.wait().ok();
    crate::contain::reaped(pid);
    let _ = writer.join();
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    // what a child printed is kept and quoted masked (a test may print a secret)
    let stdout = crate::secrets::mask_bytes(&stdout).into_owned();
    let stderr = crate::secrets::mask_bytes(&stderr).into_owned();
    for p in [spec.stdout_to, spec.stderr_to].into_iter().flatten() {
        crate::secrets::mask_file(p);
    }
    Ok(ProcessOutcome {
        exit_code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        timed_out,
        duration: start.elapsed(),
    })
}

/// Reads a stream to its end, copying it to `file` and keeping (at most `keep` bytes of) its
/// tail in memory.
fn drain(stream: Option<impl Read>, mut file: Option<std::fs::File>, keep: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let Some(mut stream) = stream else {
        return kept;
    };
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if let Some(f) = file.as_mut()
            && f.write_all(&chunk[..n]).is_err()
        {
            file = None;
        }
        kept.extend_from_slice(&chunk[..n]);
        if keep > 0 && kept.len() > keep.saturating_mul(2) {
            kept.drain(..kept.len() - keep);
        }
    }
    if keep > 0 && kept.len() > keep {
        kept.drain(..kept.len() - keep);
    }
    kept
}

/// Whether the child `pid` has exited, without reaping it (`waitid` with `WNOWAIT`). An
/// error (e.g. already reaped) counts as exited.
pub(crate) fn exited_unreaped(pid: u32) -> bool {
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
    use nix::unistd::Pid;
    let Ok(p) = i32::try_from(pid) else {
        return true;
    };
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    match waitid(Id::Pid(Pid::from_raw(p)), flags) {
        Ok(WaitStatus::StillAlive) => false,
        Ok(_) => true,
        Err(nix::errno::Errno::EINTR) => false,
        Err(_) => true,
    }
}

/// Blocks until the child `pid` has exited, leaving it unreaped (its pid, the group id,
/// cannot be reused before the caller reaps it). Returns at once when it is not (or no
/// longer) a child.
fn wait_exited_unreaped(pid: u32) {
    use nix::sys::wait::{Id, WaitPidFlag, waitid};
    use nix::unistd::Pid;
    let Ok(p) = i32::try_from(pid) else {
        return;
    };
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT;
    while let Err(nix::errno::Errno::EINTR) = waitid(Id::Pid(Pid::from_raw(p)), flags) {}
}

/// How long a stopped supervisor may take to kill its tree before its group is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Stops the process started as `pid` with everything below it: its process group, or for
/// a contained command its whole tree ([`crate::contain::stop`]). Errors are ignored (it
/// may be gone).
pub fn stop_tree(pid: u32) {
    crate::contain::stop(pid);
}

/// Whether a process with `pid` is alive (signal 0).
pub fn is_alive(pid: u32) -> bool {
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    i32::try_from(pid).is_ok_and(|p| kill(Pid::from_raw(p), None).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn stdin_reaches_the_process_and_output_is_captured() {
        let a = argv(&["cat"]);
        let o = run(&ProcessSpec {
            argv: &a,
            stdin: b"hello",
            timeout: Duration::from_secs(10),
            ..Default::default()
        })
        .unwrap();
        assert!(o.success());
        assert_eq!(o.stdout, b"hello");
    }

    #[test]
    fn timeout_kills_the_group() {
        let a = argv(&["sh", "-c", "sleep 30 & sleep 30"]);
        let o = run(&ProcessSpec {
            argv: &a,
            timeout: Duration::from_millis(300),
            ..Default::default()
        })
        .unwrap();
        assert!(o.timed_out);
        assert!(o.duration < Duration::from_secs(10));
    }

    #[test]
    fn missing_program_is_named() {
        let a = argv(&["definitely-not-a-program-xyz"]);
        let e = run(&ProcessSpec {
            argv: &a,
            timeout: Duration::from_secs(1),
            ..Default::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("definitely-not-a-program-xyz"));
    }

    #[test]
    fn output_streams_to_files_and_only_the_tail_stays_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let (o, e) = (dir.path().join("out"), dir.path().join("err"));
        let a = argv(&[
            "sh",
            "-c",
            "i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done; echo oops >&2",
        ]);
        let r = run(&ProcessSpec {
            argv: &a,
            timeout: Duration::from_secs(20),
            stdout_to: Some(&o),
            stderr_to: Some(&e),
            keep_bytes: 100,
            ..Default::default()
        })
        .unwrap();
        let whole = std::fs::read_to_string(&o).unwrap();
        assert!(whole.starts_with("line-0\n") && whole.ends_with("line-1999\n"));
        assert_eq!(r.stdout.len(), 100);
        assert!(whole.ends_with(&r.stdout_text()));
        assert_eq!(std::fs::read_to_string(&e).unwrap(), "oops\n");
    }
}
