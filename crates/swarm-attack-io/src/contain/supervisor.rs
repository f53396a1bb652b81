//! The supervisor (Linux): `swarm-attack` re-executed in a hidden mode between the tool and
//! each agent, test or LLM command. It
//!
//! - makes itself a child subreaper (`PR_SET_CHILD_SUBREAPER`), so every descendant of the
//!   command whose parent dies — including one that called `setsid` to leave the process
//!   group and session — is re-parented to it instead of to init;
//! - asks for SIGTERM when the tool dies (`PR_SET_PDEATHSIG`, also on SIGKILL of the tool),
//!   and starts the command with `PR_SET_PDEATHSIG(SIGKILL)`;
//! - waits on a signalfd for SIGCHLD (the command ended) or SIGTERM/SIGINT/SIGHUP (the tool
//!   stops it: timeout, Ctrl-C, a PARALLEL stop — or the tool died);
//! - then kills every remaining descendant with SIGKILL, walking `/proc` parent links and
//!   reaping, until it has no child left (as a subreaper, a live descendant always has a live
//!   or unreaped ancestor among its children, so "no child" means "no descendant");
//! - and ends like the command: its exit code, or SIGKILL when the command died by a signal.
//!
//! Command line: `swarm-attack __swarm-attack-supervise <tool pid> <program> <args...>`; the
//! tool sets the command's cwd, environment and stdio on the supervisor, which passes them on.
// The supervisor process reports its own usage errors before any of the tool's output
// machinery exists.
#![allow(clippy::print_stderr)]

use nix::errno::Errno;
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::signalfd::SignalFd;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::process::Command;

/// The hidden first argument that selects the supervisor mode.
pub const MODE_ARG: &str = "__swarm-attack-supervise";

/// Runs the supervisor when this process was started as one; never returns then.
pub fn main_if_requested() {
    let mut args = std::env::args_os();
    if args.nth(1).as_deref() != Some(std::ffi::OsStr::new(MODE_ARG)) {
        return;
    }
    let parent: Option<i32> = args.next().and_then(|p| p.to_str()?.parse().ok());
    let argv: Vec<OsString> = args.collect();
    let code = match (parent, argv.split_first()) {
        (Some(parent), Some((program, rest))) => supervise(parent, program, rest),
        _ => {
            eprintln!("swarm-attack: {MODE_ARG} needs <tool pid> <program> [args...]");
            2
        }
    };
    std::process::exit(code);
}

fn supervise(parent: i32, program: &OsString, args: &[OsString]) -> i32 {
    let mut mask = SigSet::empty();
    for s in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
    ] {
        mask.add(s);
    }
    // block first, so nothing is lost between here and the signalfd (a blocked signal stays
    // pending and is read from the fd); the started command gets an empty mask from std
    if mask.thread_block().is_err() {
        return 125;
    }
    let Ok(fd) = SignalFd::new(&mask) else {
        return 125;
    };
    let _ = nix::sys::prctl::set_child_subreaper(true);
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    // the tool may have died before the request took effect
    if nix::unistd::getppid().as_raw() != parent {
        return 125;
    }
    let mut cmd = Command::new(program);
    cmd.args(args);
    super::pdeathsig::kill_with_parent(&mut cmd);
    let child = match cmd.spawn() {
        Ok(c) => Pid::from_raw(c.id() as i32),
        Err(e) => {
            eprintln!(
                "swarm-attack: could not start `{}`: {e}",
                program.to_string_lossy()
            );
            return if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
        }
    };
    let mut status = None;
    loop {
        reap(child, &mut status);
        if status.is_some() {
            break;
        }
        match fd.read_signal() {
            Ok(Some(info)) if info.ssi_signo == Signal::SIGCHLD as u32 => {}
            Ok(Some(_)) => break, // stop requested, or the tool died
            Ok(None) | Err(Errno::EINTR) => {}
            Err(_) => break,
        }
    }
    sweep(child, &mut status);
    match status {
        Some(WaitStatus::Exited(_, code)) => code,
        _ => {
            // died by a signal (or was killed by the sweep): end the same way
            let _ = kill(Pid::this(), Signal::SIGKILL);
            137
        }
    }
}

/// Reaps every child that has ended, keeping the command's own status.
fn reap(child: Pid, status: &mut Option<WaitStatus>) -> bool {
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => return true,
            Ok(ws) => {
                if ws.pid() == Some(child) && status.is_none() {
                    *status = Some(ws);
                }
            }
            Err(Errno::EINTR) => {}
            Err(_) => return false, // ECHILD: no child left
        }
    }
}

/// Kills every descendant until none is left.
fn sweep(child: Pid, status: &mut Option<WaitStatus>) {
    let me = std::process::id();
    // no child left (the usual end: the command left nothing behind) means no descendant
    // left, without reading /proc
    while reap(child, status) {
        for pid in super::tree::descendants(me) {
            let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
