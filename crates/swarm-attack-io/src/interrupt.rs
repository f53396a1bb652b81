//! Stopping child processes when `run` is interrupted. Agents and test commands run in
//! their own process groups (so a timeout can kill the whole group), which also means a
//! Ctrl-C at the terminal does not reach them: on SIGINT, SIGTERM or SIGHUP, `run` kills
//! the groups it registered here and exits (130 / 143 / 129). The task stays IN_PROGRESS
//! with a dead owner and the next `run` retries it from a clean worktree.
//!
//! git commands are deliberately not registered: they are short and are left to finish, so
//! an interrupt never leaves a half-done checkout behind.

use crate::ui::Ui;
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Once};

static CHILDREN: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
static INSTALL: Once = Once::new();

/// Registers a running child process group (its leader's pid).
pub fn track(pid: u32) {
    if let Ok(mut c) = CHILDREN.lock() {
        c.insert(pid);
    }
}

/// Forgets a child that finished.
pub fn untrack(pid: u32) {
    if let Ok(mut c) = CHILDREN.lock() {
        c.remove(&pid);
    }
}

/// Stops every registered child (its whole tree) and waits (briefly) until they ended.
pub fn kill_all() -> usize {
    let pids: Vec<u32> = CHILDREN
        .lock()
        .map(|c| c.iter().copied().collect())
        .unwrap_or_default();
    for pid in &pids {
        crate::process::stop_tree(*pid);
    }
    // let each supervisor finish killing its tree before this process exits
    crate::contain::wait_gone(&pids, std::time::Duration::from_secs(3));
    pids.len()
}

/// Installs the signal handlers (once per process); the interruption is told through `ui`.
/// The handlers are in place when this returns.
pub fn install(ui: &Ui) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let ui = ui.clone();
    INSTALL.call_once(move || {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            let Some(sig) = signals.forever().next() else {
                return;
            };
            let code = match sig {
                SIGINT => 130,
                SIGTERM => 143,
                _ => 129,
            };
            let n = kill_all();
            ui.errln(format_args!(
                "interrupted: stopped {n} running agent/test process group(s); the next `swarm-attack run` resumes the interrupted issues"
            ));
            std::process::exit(code);
        });
    });
}

/// Sets `stop` on SIGINT or SIGTERM instead of dying (a command that ends cleanly when asked,
/// like `events --follow`). The handlers are in place when this returns.
pub fn flag_on_stop_signals(stop: &Arc<AtomicBool>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    signal_hook::flag::register(SIGINT, Arc::clone(stop))?;
    signal_hook::flag::register(SIGTERM, Arc::clone(stop))?;
    Ok(())
}
