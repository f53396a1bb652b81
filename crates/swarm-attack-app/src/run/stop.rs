//! Stopping one candidate of a two-agent run (PARALLEL join `first`: the other candidate
//! passed). The candidate's agent and test processes register here when they start; a
//! stop kills their process groups (now, or at once when they register later) and the
//! attempt returns [`crate::run::attempt::AttemptResult::Stopped`] at its next step
//! instead of verifying or committing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A stop switch for one candidate.
#[derive(Debug, Default)]
pub(crate) struct Stop {
    stopped: AtomicBool,
    pids: Mutex<Vec<u32>>,
}

impl Stop {
    pub(crate) fn new() -> Self {
        Stop::default()
    }

    /// A process group (its leader's pid) started for the candidate.
    pub(crate) fn register(&self, pid: u32) {
        if let Ok(mut p) = self.pids.lock() {
            p.push(pid);
        }
        if self.is_stopped() {
            crate::io::process::stop_tree(pid);
        }
    }

    /// The process ended.
    pub(crate) fn unregister(&self, pid: u32) {
        if let Ok(mut p) = self.pids.lock() {
            p.retain(|x| *x != pid);
        }
    }

    /// Stops the candidate: kills its registered process groups.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let pids: Vec<u32> = self.pids.lock().map(|p| p.clone()).unwrap_or_default();
        for pid in pids {
            crate::io::process::stop_tree(pid);
        }
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_kills_registered_and_later_groups() {
        use std::os::unix::process::CommandExt;
        let spawn = || {
            std::process::Command::new("sleep")
                .arg("30")
                .process_group(0)
                .spawn()
                .unwrap()
        };
        let stop = Stop::new();
        let mut a = spawn();
        stop.register(a.id());
        assert!(!stop.is_stopped());
        stop.stop();
        assert!(stop.is_stopped());
        assert!(a.wait().unwrap().code().is_none(), "killed by a signal");
        let mut b = spawn();
        stop.register(b.id());
        assert!(b.wait().unwrap().code().is_none(), "killed on registration");
    }
}
