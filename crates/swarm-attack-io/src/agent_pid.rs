//! The agent's process id and start time, saved in its attempt folder (`agent.pid`) when it
//! starts, so a later `run` can tell whether an earlier agent on the same issue is still
//! alive (its `run` was killed) and stop it before starting another: a resumed `run` never
//! runs two agents on one issue.

use std::path::Path;
use std::time::{Duration, Instant};

const FILE: &str = "agent.pid";

/// Saves `pid` (the agent's supervisor or group leader) with its start time.
pub fn record(attempt_dir: &Path, pid: u32) {
    let start = start_time(pid).unwrap_or(0);
    let _ = std::fs::create_dir_all(attempt_dir);
    let _ = std::fs::write(attempt_dir.join(FILE), format!("{pid} {start}\n"));
}

fn start_time(pid: u32) -> Option<u64> {
    crate::contain::tree::stat(pid)
        .filter(|s| s.state != 'Z')
        .map(|s| s.start)
}

/// The recorded agents under `issue_dir` (`attempt-*/agent.pid`) that are still running:
/// same pid and same start time.
pub fn alive(issue_dir: &Path) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir(issue_dir) else {
        return Vec::new();
    };
    dir.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join(FILE)).ok())
        .filter_map(|text| {
            let mut it = text.split_whitespace();
            let pid: u32 = it.next()?.parse().ok()?;
            let start: u64 = it.next()?.parse().ok()?;
            (pid != std::process::id() && start != 0 && start_time(pid) == Some(start))
                .then_some(pid)
        })
        .collect()
}

/// Stops every still-running earlier agent of the issue (SIGTERM, so a supervisor kills its
/// tree; then SIGKILL to its group and descendants). Returns the pids that survived.
pub fn stop_leftovers(issue_dir: &Path) -> Vec<u32> {
    let pids = alive(issue_dir);
    if pids.is_empty() {
        return pids;
    }
    for pid in &pids {
        if let Ok(p) = i32::try_from(*pid) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(p),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
    let gone = |limit: Duration| {
        let t = Instant::now();
        loop {
            let left = alive(issue_dir);
            if left.is_empty() || t.elapsed() >= limit {
                return left;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let left = gone(Duration::from_secs(3));
    for pid in &left {
        crate::contain::kill_tree(*pid);
    }
    gone(Duration::from_secs(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_recorded_agent_is_found_and_stopped_and_a_stale_record_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = crate::contain::direct("sleep", &["30".to_string()])
            .spawn()
            .unwrap();
        record(&dir.path().join("attempt-1"), child.id());
        // a record whose start time does not match (pid reused) is not that agent
        std::fs::create_dir_all(dir.path().join("attempt-2")).unwrap();
        std::fs::write(
            dir.path().join("attempt-2").join(FILE),
            format!("{} 1\n", std::process::id()),
        )
        .unwrap();
        assert_eq!(alive(dir.path()), vec![child.id()]);
        // reap in the background, as the dead run's parent would not
        let waiter = std::thread::spawn(move || child.wait());
        assert!(stop_leftovers(dir.path()).is_empty());
        assert!(waiter.join().unwrap().is_ok());
        assert!(alive(dir.path()).is_empty());
    }
}
