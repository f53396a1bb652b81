//! What `run` prints while agents work when stdout is not a terminal: a heartbeat per issue
//! in flight (interval from SWARM_HEARTBEAT_SECONDS), lines in dependency order, and a
//! notice naming the lock holder when a command waits for the feature lock.

use crate::common::TestEnv;
use crate::common::agents::Setup;
use serde_json::json;

/// Sleeps, then does the good agent's work.
const SLOW_AGENT: &str = r#"cat > /dev/null
sleep 1.5
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
echo '{"result": "ok"}'
"#;

#[test]
fn a_heartbeat_line_per_issue_in_flight_when_not_a_terminal() {
    let s = Setup::new(
        "hb",
        json!([{"order": 1, "title": "One"}, {"order": 2, "title": "Two", "dependencies": [1]}]),
        SLOW_AGENT,
        "",
    );
    let out = s
        .env
        .command()
        .env("SWARM_HEARTBEAT_SECONDS", "0.4")
        .args(["run", "hb", "--workers", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let beat = stdout
        .lines()
        .find(|l| l.starts_with("#1: still working"))
        .unwrap_or_else(|| panic!("no heartbeat:\n{stdout}"));
    assert!(
        beat.contains("agent fake") && beat.contains("elapsed"),
        "{beat}"
    );
    // an issue's start comes after its dependency's DONE line
    let pos = |needle: &str| {
        stdout
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}:\n{stdout}"))
    };
    assert!(pos("#1: DONE") < pos("#2 Two: started"), "{stdout}");
    // without the override the interval is 30 s: a short run prints no heartbeat
    let quiet = Setup::new("hb2", json!([{"order": 1, "title": "One"}]), SLOW_AGENT, "");
    let r = quiet.env.run(&["run", "hb2"]);
    r.ok();
    assert!(!r.stdout.contains("still working"), "{}", r.stdout);
}

#[test]
fn a_command_waiting_for_the_lock_says_who_holds_it_after_a_second() {
    let env = TestEnv::new();
    env.issues("lk", json!([{"order": 1, "title": "One"}]));
    env.run(&["greenlight", "lk"]).ok();
    let lock = env.path(".swarm/locks/lk.lock");
    let mut holder = std::process::Command::new("flock")
        .arg(&lock)
        .args(["sleep", "2.5"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let r = env.run(&["status", "lk"]);
    let _ = holder.wait();
    r.ok();
    assert!(
        r.stderr
            .contains("waiting for the lock on feature `lk` held by"),
        "{}",
        r.stderr
    );
}
