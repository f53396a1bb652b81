//! What `run` prints: `--json` per issue, and whole-output snapshots of a dry run, a run, a
//! run with nothing to do and a run whose agent always fails.

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

#[test]
fn run_json_reports_each_issue() {
    let s = Setup::new("js", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let r = s.env.run(&["run", "js", "--json"]);
    r.ok();
    let v = r.json();
    assert_eq!(v["feature"], "js");
    assert_eq!(v["branch"], "main");
    assert_eq!(v["results"][0]["issue"], 1);
    assert_eq!(v["results"][0]["outcome"], "done");
    assert_eq!(v["results"][0]["commit"], s.env.git(&["rev-parse", "HEAD"]));
    let r = s.env.run(&["run", "js", "--json"]);
    r.ok();
    assert!(
        r.json()["nothing_to_do"]
            .as_str()
            .unwrap()
            .contains("1 DONE")
    );
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_run_dry_run_then_run_then_nothing_to_do() {
    let s = Setup::new_in(
        TestEnv::new().fixed_clock(),
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
        GOOD_AGENT,
        "",
    );
    let env = &s.env;
    let r = env.run(&["run", "auth", "--dry-run"]);
    insta::assert_snapshot!(r.snapshot(env), @r#"
exit: 0
----- stdout -----
dry run: would run, in this order (nothing is written):
  #1    a  [SOLO fake, attempt 1]
  #2    b  [SOLO fake, attempt 1, after #1]
----- stderr -----
"#);
    let r = env.run(&["run", "auth"]);
    insta::assert_snapshot!(r.snapshot(env), @r#"
exit: 0
----- stdout -----
run: landing on branch main (1 worker)
#1 a: started (attempt 1)
#1: agent fake working, SOLO (fake), attempt 1
#1: DONE in commit [SHA] (2 created, 0 modified; 1 tests passed)
#2 b: started (attempt 1)
#2: agent fake working, SOLO (fake), attempt 1
#2: DONE in commit [SHA] (2 created, 0 modified; 2 tests passed)
run auth: 2 implemented, cost $0.50
----- stderr -----
"#);
    let r = env.run(&["run", "auth"]);
    insta::assert_snapshot!(r.snapshot(env), @r#"
exit: 0
----- stdout -----
run: landing on branch main (1 worker)
nothing to do: no issue is READY: 2 DONE
----- stderr -----
"#);
}

#[test]
fn snapshot_run_of_an_agent_that_always_fails() {
    let s = Setup::new_in(
        TestEnv::new().fixed_clock(),
        "auth",
        json!([{"order":1,"title":"a"}]),
        "cat > /dev/null\necho 'cannot do it' >&2\nexit 1\n",
        "sessions:\n  max_implementation_retries: 1\n",
    );
    let r = s.env.run(&["run", "auth"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 1
----- stdout -----
run: landing on branch main (1 worker)
#1 a: started (attempt 1)
#1: agent fake working, SOLO (fake), attempt 1
#1: attempt 1 failed: agent `fake` exited with code 1; retrying
#1: agent fake working, SOLO (fake), attempt 2
#1: attempt 2 failed: agent `fake` exited with code 1
#1: BLOCKED: agent `fake` exited with code 1 (attempt 2; 1 retry used of 1)
run auth: 0 implemented, 1 blocked, cost unknown
next: see why with `swarm-attack audit auth`, fix the cause, then `swarm-attack unblock auth --issue 1` and `swarm-attack run auth`
----- stderr -----
"#);
}
