//! Process containment (docs/run.md "Process containment"): after a timeout, a Ctrl-C, a PARALLEL
//! stop and a SIGKILL of `run`, no process the agent started survives — including ones that left
//! its process group and session with `setsid`, and grandchildren. Each test agent starts processes
//! whose argv carries a unique marker; the test then looks for that marker in `/proc/*/cmdline`.
//! `scripts/bench-containment.sh` repeats these scenarios and measures them.

use crate::common::agents::Setup;
use crate::common::modes::{PARALLEL, good, setup};
use crate::common::procs::{is_live, unique_marker as marker};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// Shell lines that start marked processes: one in a new session, one in a new session that
/// starts another new session, a daemon (new session, its parent exits at once, so it is
/// nobody's descendant any more), a grandchild, then touch `$TRACE/agent-started`.
fn spawn_marked(mark: &str) -> String {
    format!(
        "setsid sleep 300 {mark} &\nsetsid sh -c 'setsid sleep 300 {mark} & sleep 300 {mark}' &\nsetsid sh -c 'sleep 300 {mark} &'\nsh -c 'sleep 300 {mark} & wait' &\ntouch \"$TRACE/agent-started\"\n"
    )
}

/// Live processes whose argv carries `mark`.
fn marked(mark: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            is_live(*pid) && String::from_utf8_lossy(&cmd).contains(mark)
        })
        .collect()
}

/// Polls briefly until no marked process is left; the survivors otherwise (killed after).
fn survivors(mark: &str) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let left = marked(mark);
        if left.is_empty() || start.elapsed() > Duration::from_secs(2) {
            for p in &left {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(*p as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for(p: &Path, max: Duration) {
    let start = Instant::now();
    while !p.exists() {
        assert!(start.elapsed() < max, "{} never appeared", p.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A one-issue setup whose first attempt starts the marked processes and then waits; later
/// attempts implement the issue.
fn hanging(feature: &str, mark: &str, extra: &str) -> Setup {
    let agent = format!(
        "cat > /dev/null\nif [ \"$SWARM_ATTEMPT\" = \"1\" ]; then\n{}sleep 300 {mark}\nfi\nmkdir -p checks; echo 'exit 0' > checks/t.sh\n",
        spawn_marked(mark)
    );
    Setup::new(feature, json!([{"order": 1, "title": "A"}]), &agent, extra)
}

#[test]
fn a_timeout_leaves_no_descendant_alive_even_in_a_new_session() {
    let mark = marker();
    let s = hanging("tmo", &mark, "sessions:\n  max_implementation_retries: 0\n");
    let cfg = s
        .env
        .read("config.yaml")
        .replace("timeout_seconds: 30\ntests", "timeout_seconds: 1\ntests");
    s.env.write("config.yaml", &cfg);
    s.env.run(&["run", "tmo"]).code(1);
    assert_eq!(
        s.events_named("tmo", "agent_finished")[0]["timed_out"],
        true
    );
    assert_eq!(survivors(&mark), Vec::<u32>::new());
}

#[test]
fn ctrl_c_and_sigterm_leave_no_descendant_alive() {
    for (sig, code) in [
        (nix::sys::signal::Signal::SIGINT, 130),
        (nix::sys::signal::Signal::SIGTERM, 143),
    ] {
        let mark = marker();
        let s = hanging("intr", &mark, "");
        let child = s
            .env
            .command()
            .args(["run", "intr"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        wait_for(&s.trace.join("agent-started"), Duration::from_secs(20));
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{sig}");
        assert_eq!(survivors(&mark), Vec::<u32>::new(), "{sig}");
    }
}

#[test]
fn sigkill_of_run_leaves_no_descendant_alive_and_the_next_run_starts_one_agent() {
    let mark = marker();
    let s = hanging("kill", &mark, "");
    let mut child = s
        .env
        .command()
        .args(["run", "kill"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&s.trace.join("agent-started"), Duration::from_secs(20));
    // only `run` itself, not its process group
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(survivors(&mark), Vec::<u32>::new());
    s.env.run(&["run", "kill"]).ok();
    assert_eq!(s.task("kill", 1)["stage"], "DONE");
    assert_eq!(s.implementing_commits("kill", 1), 1);
}

#[test]
fn a_parallel_stop_leaves_none_of_the_stopped_agents_descendants_alive() {
    let mark = marker();
    // alpha (primary) starts marked processes and hangs; beta passes first and alpha stops
    let slow = format!(
        "{}sleep 300 {mark}\n{}",
        spawn_marked(&mark),
        good("alpha", 1)
    );
    let s = setup(PARALLEL, &slow, &good("beta", 1), "", "");
    s.env.run(&["run", "shop"]).ok();
    assert!(s.trace.join("agent-started").exists(), "alpha started");
    assert_eq!(survivors(&mark), Vec::<u32>::new());
}

#[test]
fn a_test_command_and_an_agent_that_exit_leave_nothing_running() {
    let mark = marker();
    // the agent leaves a daemon in a new session and exits 0; the test command does too
    let agent = format!(
        "cat > /dev/null\nsetsid sleep 300 {mark} &\nmkdir -p checks; printf 'setsid sleep 300 {mark} &\\nexit 0\\n' > checks/t.sh\n"
    );
    let s = Setup::new("leave", json!([{"order": 1, "title": "A"}]), &agent, "");
    s.env.run(&["run", "leave"]).ok();
    assert_eq!(s.task("leave", 1)["stage"], "DONE");
    assert_eq!(survivors(&mark), Vec::<u32>::new());
}
