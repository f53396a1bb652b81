//! `run` against what breaks it from outside (issue 32): a stdout whose reader went away
//! (`run | head -c 10`, a CI log reader that died) stops the printing, never the work; a
//! worker thread that panics ends the run with an error and its issue INTERRUPTED, never
//! a hang; a kill between an agent's end and its recorded result loses none of its cost.

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::env::bin;
use serde_json::json;
use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

/// What a shell pipeline run by [`pipeline`] gave.
struct Piped {
    /// The tool's exit status (`PIPESTATUS[0]`).
    tool: i32,
    /// What the reader (`head`) printed.
    out: String,
    /// The tool's stderr.
    err: String,
}

/// Runs `"$BIN" <args> | <reader>` with bash in `env`'s repository; the tool's stderr is
/// kept. Killed (and failed) after `limit`: a hang is a failure, not a stuck test suite.
fn pipeline(env: &TestEnv, args: &str, reader: &str, limit: Duration) -> Piped {
    let err_file = env.tmp.path().join("tool.err");
    let script =
        format!("\"$BIN\" {args} 2>\"$ERR\" | {reader}; echo \"tool=${{PIPESTATUS[0]}}\" >&2");
    let mut child = env
        .bash()
        .args(["-c", &script])
        .env("BIN", bin())
        .env("ERR", &err_file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            // the whole group: bash, the tool and whatever it started
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            panic!(
                "`swarm-attack {args} | {reader}` still ran after {limit:?} (hung); its stderr:\n{}",
                std::fs::read_to_string(&err_file).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let status = String::from_utf8_lossy(&out.stderr).into_owned();
    let tool = status
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("tool="))
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or_else(|| panic!("no tool status in {status}"));
    Piped {
        tool,
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: std::fs::read_to_string(&err_file).unwrap_or_default(),
    }
}

#[test]
fn run_piped_into_head_ends_by_itself_without_a_panic_and_the_next_run_finishes() {
    // the agent takes a moment: its progress lines come after `head` left
    let s = Setup::new(
        "pipe",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B", "dependencies": [1]}]),
        &format!("sleep 0.3\n{GOOD_AGENT}"),
        "",
    );
    let p = pipeline(&s.env, "run pipe", "head -c 10", Duration::from_secs(120));
    assert_eq!(p.out.len(), 10, "{}", p.out);
    assert!(!p.err.contains("panicked"), "{}", p.err);
    assert_eq!(p.tool, 0, "the work succeeded: {}", p.err);
    // the work was done, nothing left IN_PROGRESS
    assert_eq!(s.env.stage("pipe", 1), "DONE");
    assert_eq!(s.env.stage("pipe", 2), "DONE");
    // and the next run finishes, with nothing to do again
    s.env.run(&["run", "pipe"]).ok();
    assert_eq!(s.calls().len(), 2, "nothing done twice: {:?}", s.calls());
}

#[test]
fn status_piped_into_head_exits_0_or_by_sigpipe_never_with_a_panic() {
    // enough tasks that the output outgrows the pipe's buffer: the writes after `head`
    // left fail
    let issues: Vec<_> = (1..=400)
        .map(|n| json!({"order": n, "title": format!("Issue number {n} with a longer title")}))
        .collect();
    let s = Setup::new("many", json!(issues), GOOD_AGENT, "");
    for args in ["status many", "status many --json", "status"] {
        let p = pipeline(&s.env, args, "head -1", Duration::from_secs(60));
        assert_eq!(p.out.lines().count(), 1, "{args}: {}", p.out);
        assert!(
            p.tool == 0 || p.tool == 141,
            "`{args} | head -1`: exit {} (never 101)\n{}",
            p.tool,
            p.err
        );
        assert!(!p.err.contains("panicked"), "{args}: {}", p.err);
    }
}

#[test]
fn a_worker_that_panics_ends_the_run_with_an_error_and_its_issue_interrupted() {
    let s = Setup::new("boom", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    // the panic is injected by a test hook of debug builds (crates/swarm-attack-io/src/test_hooks.rs)
    let t0 = Instant::now();
    let r: crate::common::env::Run = s
        .env
        .command()
        .args(["run", "boom"])
        .env("SWARM_ATTACK_TEST_PANIC", "worker")
        .output()
        .unwrap()
        .into();
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
    r.code(1);
    assert!(
        r.stderr
            .contains("the worker on issue #1 stopped on an internal error"),
        "{}",
        r.stderr
    );
    assert_eq!(s.env.stage("boom", 1), "INTERRUPTED");
    // without the fault, the next run resumes it
    s.env.run(&["run", "boom"]).ok();
    assert_eq!(s.env.stage("boom", 1), "DONE");
}

#[test]
fn an_agent_run_whose_result_was_not_recorded_before_a_kill_is_in_the_legacy_cost_fields() {
    // the agent reports $0.25; the first verification hangs, and the tool is killed there,
    // after `agent_finished` was logged and before the attempt's result was recorded
    let s = Setup::new("kill", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let flag = s.env.tmp.path().join("slow-tests");
    let runner = s.env.tmp.path().join("runner.sh");
    let slow = s.env.script(
        "slow-runner.sh",
        &format!(
            "#!/bin/sh\nif [ -f '{}' ]; then sleep 60; fi\nexec sh '{}' \"$@\"\n",
            flag.display(),
            runner.display()
        ),
    );
    let cfg = s.env.read("config.yaml").replace(
        &format!("command: \"sh {}\"", runner.display()),
        &format!("command: \"sh {}\"", slow.display()),
    );
    s.env.write("config.yaml", &cfg);
    std::fs::write(&flag, "").unwrap();
    let mut child = s.env.command().args(["run", "kill"]).spawn().unwrap();
    let t0 = Instant::now();
    while !s
        .env
        .events("kill")
        .iter()
        .any(|e| e["event"] == "agent_finished")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the agent never ended"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_file(&flag).unwrap();
    s.env.run(&["run", "kill"]).ok();
    assert_eq!(s.env.stage("kill", 1), "DONE");
    // two agent runs of $0.25: the ledger has both, and so do the state's legacy fields
    let state = s.env.state("kill");
    let cents = |v: &serde_json::Value| (v.as_f64().unwrap_or(-1.0) * 100.0).round() as i64;
    assert_eq!(cents(&state["ledger"]["feature"]["usd"]), 50, "{state:#}");
    assert_eq!(cents(&state["cost_total_usd"]), 50, "{state:#}");
    assert_eq!(cents(&s.task("kill", 1)["cost_usd"]), 50);
    assert_eq!(cents(&state["cost_by_phase"]["IMPLEMENTING"]), 50);
    let done = s
        .events_named("kill", "issue_done")
        .pop()
        .expect("issue_done");
    assert_eq!(cents(&done["cost_usd"]), 50, "{done}");
}

#[test]
fn sigterm_still_ends_a_run_whose_stdout_was_closed() {
    let s = Setup::new(
        "term",
        json!([{"order": 1, "title": "A"}]),
        &format!("sleep 30\n{GOOD_AGENT}"),
        "",
    );
    let mut child = s
        .env
        .command()
        .args(["run", "term"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // read the first bytes, then close the reading end, as `head -c 10` does
    let mut first = [0u8; 10];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let t0 = Instant::now();
    while s.events_named("term", "agent_started").is_empty() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("SIGTERM did not end the run");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("interrupted: stopped 1"), "{err}");
}
