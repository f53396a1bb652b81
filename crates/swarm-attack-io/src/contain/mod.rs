//! Process containment: every agent, test and LLM command the tool starts runs so that ALL
//! its descendants — including those that call `setsid` — die when the command is stopped
//! (timeout, Ctrl-C/SIGTERM, a PARALLEL stop), when it ends, and when the tool itself dies,
//! even by SIGKILL (docs/run.md "Process containment"; measured in docs/performance.md).
//!
//! Linux: the binary starts each contained command under a [`supervisor`] (itself
//! re-executed from `/proc/self/exe` in a hidden mode) that is a child subreaper with a
//! parent-death signal; stopping a command is a SIGTERM to its supervisor, which kills the
//! whole tree. Elsewhere (macOS), and when the code runs outside the `swarm-attack` binary
//! (the library's own tests), the command runs directly in its own process group with a
//! parent-death SIGKILL (Linux), and a stop kills the group and every descendant found in
//! `/proc` (Linux).

mod pdeathsig;
#[cfg(target_os = "linux")]
pub mod supervisor;
pub mod tree;

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use std::collections::BTreeSet;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static SUPERVISOR: AtomicBool = AtomicBool::new(false);
static SUPERVISED: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Called first by the `swarm-attack` binary: runs the supervisor when this process is one
/// (never returns then); otherwise lets contained commands start under a supervisor.
pub fn init_binary() {
    #[cfg(target_os = "linux")]
    {
        supervisor::main_if_requested();
        // `SWARM_ATTACK_CONTAIN=group` (for measurements only: scripts/bench-containment.sh)
        // falls back to the process group, as outside the binary
        let group_only = crate::env::var_os("SWARM_ATTACK_CONTAIN").is_some_and(|v| v == "group");
        SUPERVISOR.store(
            !group_only && std::path::Path::new("/proc/self/exe").exists(),
            Ordering::SeqCst,
        );
    }
}

/// A command for `program` (already resolved) and `args`, contained: under a supervisor
/// when available, else directly in its own process group. Call [`started`] with the
/// spawned child's pid.
pub fn command(program: &str, args: &[String]) -> Command {
    #[cfg(target_os = "linux")]
    if SUPERVISOR.load(Ordering::SeqCst) {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new("/proc/self/exe");
        cmd.arg0("swarm-attack")
            .arg(supervisor::MODE_ARG)
            .arg(std::process::id().to_string())
            .arg(program)
            .args(args)
            .process_group(0);
        // No `pre_exec` hook here, so std starts the supervisor with `posix_spawn` (a vfork:
        // no copy of this process's page tables, whose cost grows with the tool's memory)
        // instead of `fork`. The supervisor asks for its parent-death signal itself and
        // exits at once when the tool (pid in its argv) died before that took effect.
        return cmd;
    }
    direct(program, args)
}

/// A command in its own process group (with a parent-death SIGKILL on Linux), not under a
/// supervisor.
pub fn direct(program: &str, args: &[String]) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(program);
    cmd.args(args).process_group(0);
    #[cfg(target_os = "linux")]
    pdeathsig::kill_with_parent(&mut cmd);
    cmd
}

/// Whether commands from [`command`] run under a supervisor.
pub fn supervised() -> bool {
    SUPERVISOR.load(Ordering::SeqCst)
}

/// Records that the process `pid` came from [`command`] (so [`stop`] knows how to stop it).
pub fn started(pid: u32) {
    if supervised()
        && let Ok(mut s) = SUPERVISED.lock()
    {
        s.insert(pid);
    }
}

/// Forgets a process once it has been reaped.
pub fn reaped(pid: u32) {
    if let Ok(mut s) = SUPERVISED.lock() {
        s.remove(&pid);
    }
}

/// Stops the contained command whose (supervisor or group leader) pid is `pid`, with all
/// its descendants. Does not wait: the caller reaps `pid` (see [`wait_gone`]).
pub fn stop(pid: u32) {
    let Ok(raw) = i32::try_from(pid) else {
        return;
    };
    let is_supervisor = SUPERVISED.lock().is_ok_and(|s| s.contains(&pid));
    if is_supervisor {
        // the supervisor kills the tree, then ends
        let _ = kill(Pid::from_raw(raw), Signal::SIGTERM);
        return;
    }
    kill_tree(pid);
}

/// Kills the process group led by `pid` and (Linux) every descendant of `pid`, without any
/// supervisor's help. Safe while `pid` is unreaped (its pid cannot be reused).
pub fn kill_tree(pid: u32) {
    let Ok(raw) = i32::try_from(pid) else {
        return;
    };
    #[cfg(target_os = "linux")]
    let below = tree::descendants(pid);
    let _ = killpg(Pid::from_raw(raw), Signal::SIGKILL);
    let _ = kill(Pid::from_raw(raw), Signal::SIGKILL);
    #[cfg(target_os = "linux")]
    for p in below {
        if let Ok(p) = i32::try_from(p) {
            let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
        }
    }
}

/// Waits until none of `pids` (children of this process) is still running, up to `limit`;
/// true when they all ended.
pub fn wait_gone(pids: &[u32], limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if pids.iter().all(|p| crate::process::exited_unreaped(*p)) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}
