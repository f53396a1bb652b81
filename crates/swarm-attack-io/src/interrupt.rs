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
use std::sync::{Mutex, Once};

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
pub fn install(ui: &Ui) {
    let ui = ui.clone();
    INSTALL.call_once(move || {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                let _ = ready_tx.send(());
                return;
            };
            let code = rt.block_on(async move {
                use tokio::signal::unix::{SignalKind, signal};
                let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                    signal(SignalKind::hangup()),
                ) else {
                    let _ = ready_tx.send(());
                    return None;
                };
                let _ = ready_tx.send(());
                tokio::select! {
                    _ = int.recv() => Some(130),
                    _ = term.recv() => Some(143),
                    _ = hup.recv() => Some(129),
                }
            });
            if let Some(code) = code {
                let n = kill_all();
                ui.errln(format_args!(
                    "interrupted: stopped {n} running agent/test process group(s); the next `swarm-attack run` resumes the interrupted issues"
                ));
                std::process::exit(code);
            }
        });
        let _ = ready_rx.recv_timeout(std::time::Duration::from_secs(2));
    });
}
