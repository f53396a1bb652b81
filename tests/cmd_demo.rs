//! `demo`: a throwaway repository, a scripted agent, the whole loop end to end.

use crate::common::TestEnv;
use std::time::{Duration, Instant};

#[test]
fn demo_runs_green_and_shows_git_found_issue_implemented_issues_and_audit() {
    let env = TestEnv::empty();
    let dir = env.tmp.path().join("demo");
    let start = Instant::now();
    let r = env.run(&["demo", "--dir", dir.to_str().unwrap()]);
    r.ok();
    assert!(start.elapsed() < Duration::from_secs(30));
    let out = &r.stdout;
    assert!(
        out.contains("issue #1: found already implemented in git"),
        "{out}"
    );
    assert!(
        out.contains("implemented by the demo agent, verified and committed: #2, #3, #4"),
        "{out}"
    );
    assert!(out.contains("$ swarm-attack audit greeter"), "{out}");
    assert!(out.contains("all 4 issues DONE: yes"), "{out}");
    let audit = out.split("$ swarm-attack audit greeter").nth(1).unwrap();
    assert!(
        audit.contains("#2") && audit.contains("verification_passed"),
        "{audit}"
    );
    assert!(dir.join("tools/demo-agent.sh").exists());
    assert!(
        std::fs::read_to_string(dir.join("tools/demo-agent.sh"))
            .unwrap()
            .contains("DEMONSTRATION AGENT")
    );
    // a non-empty folder is refused
    env.run(&["demo", "--dir", dir.to_str().unwrap()]).code(2);
}
