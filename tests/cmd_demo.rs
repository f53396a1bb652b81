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

#[test]
fn snapshot_demo() {
    let env = TestEnv::empty().fixed_clock();
    let dir = env.tmp.path().join("demo");
    let mut r = env.run(&["demo", "--dir", dir.to_str().unwrap()]);
    r.stdout = workers_in_issue_order(&r.stdout);
    // With two workers, whether the second claim's git sync already sees the first landing
    // (and so appends a `git_sync` record) depends on timing: 3 or 4 `git_sync` events, so
    // 33 or 34 in all. Every other record is exact (the timelines below).
    r.stdout = event_count_normalised(&r.stdout);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
== swarm-attack demo ==
building a throw-away repository in [TMP]/demo
  CLAUDE.md, config.yaml, specs/greeter/issues.json (4 issues: #2 and #3 need #1, #4 needs #2 and #3)
  tools/demo-agent.sh — a DEMONSTRATION agent (a small sh script standing in for a real coding agent)
  tools/run-tests.sh — the test command
  history: issue #1 is already implemented in commit [SHA]

$ swarm-attack greenlight greeter
greenlight greeter: added 4, 2 ready
  #1    DONE         Greeting function  [evidence: subject [SHA]]
  #2    READY        Farewell function
  #3    READY        Shout function
  #4    BACKLOG      Command-line entry point  [waiting on #2 (READY), #3 (READY)]

$ swarm-attack run greeter --workers 2
run: landing on branch main (2 workers)
#2 Farewell function: started (attempt 1)
#2: agent demo-agent working, SOLO (demo-agent), attempt 1
#2: DONE in commit [SHA] (2 created, 0 modified; 2 tests passed)
#3 Shout function: started (attempt 1)
#3: agent demo-agent working, SOLO (demo-agent), attempt 1
#3: DONE in commit [SHA] (2 created, 0 modified; 2 tests passed)
#4 Command-line entry point: started (attempt 1)
#4: agent demo-agent working, SOLO (demo-agent), attempt 1
#4: DONE in commit [SHA] (2 created, 0 modified; 4 tests passed)
run greeter: 3 implemented, cost $0.00

$ swarm-attack status greeter
feature greeter (COMPLETE)
  #1    DONE         Greeting function  [evidence: subject [SHA]]
  #2    DONE         Farewell function  [evidence: subject [SHA]]
  #3    DONE         Shout function  [evidence: subject [SHA]]
  #4    DONE         Command-line entry point  [evidence: subject [SHA]]

$ swarm-attack audit greeter
audit greeter: [33-34] events, 1 sessions, 2026-01-02T03:04:05.000Z → 2026-01-02T03:04:05.000Z ([DURATION])
issues: 4 (4 done, 0 blocked, 0 skipped, 0 in progress, 0 ready, 0 not started); attempts 3 (0 retries); agent runs 3 ([DURATION]); cost $0.00

#1 Greeting function  DONE  0 attempts, git history (head [SHA])
    2026-01-02T03:04:05.000Z  git_sync                 DONE: its commit was found in git history

#2 Farewell function  DONE  1 attempt, SOLO (demo-agent), [DURATION], cost $0.00, commit [SHA]
  attempt 1 SOLO: done in [DURATION]; demo-agent exit 0 [DURATION] cost $0.00; tests passed (2)
    output of demo-agent: .swarm/runs/greeter/issue-2/attempt-1/agent.stdout
    2026-01-02T03:04:05.000Z  issue_started            attempt 1 started
    2026-01-02T03:04:05.000Z  agents_selected          SOLO — winner demo-agent (one eligible agent (demo-agent 0.87) → SOLO demo-agent)
    2026-01-02T03:04:05.000Z  context_injected         prompt 2045 bytes, CLAUDE.md yes, 1 summaries
    2026-01-02T03:04:05.000Z  agent_started            demo-agent started (primary)
    2026-01-02T03:04:05.000Z  agent_finished           demo-agent exited 0 after [DURATION], $0.00
    2026-01-02T03:04:05.000Z  implementation_complete  created: lib/farewell.sh, tests/test_farewell.sh; modified: -
    2026-01-02T03:04:05.000Z  tests_written            1 tests written to tests/test_farewell.sh
    2026-01-02T03:04:05.000Z  verification_passed      verification passed (2 tests)
    2026-01-02T03:04:05.000Z  issue_done               DONE, commit [SHA]: Issue #2 (Farewell function) was implemented in commit [SHA] "feat(greeter): I…

#3 Shout function  DONE  1 attempt, SOLO (demo-agent), [DURATION], cost $0.00, commit [SHA]
  attempt 1 SOLO: done in [DURATION]; demo-agent exit 0 [DURATION] cost $0.00; tests passed (2)
    output of demo-agent: .swarm/runs/greeter/issue-3/attempt-1/agent.stdout
    2026-01-02T03:04:05.000Z  issue_started            attempt 1 started
    2026-01-02T03:04:05.000Z  agents_selected          SOLO — winner demo-agent (one eligible agent (demo-agent 0.87) → SOLO demo-agent)
    2026-01-02T03:04:05.000Z  context_injected         prompt 2048 bytes, CLAUDE.md yes, 1 summaries
    2026-01-02T03:04:05.000Z  agent_started            demo-agent started (primary)
    2026-01-02T03:04:05.000Z  agent_finished           demo-agent exited 0 after [DURATION], $0.00
    2026-01-02T03:04:05.000Z  implementation_complete  created: lib/shout.sh, tests/test_shout.sh; modified: -
    2026-01-02T03:04:05.000Z  tests_written            1 tests written to tests/test_shout.sh
    2026-01-02T03:04:05.000Z  verification_passed      verification passed (2 tests)
    2026-01-02T03:04:05.000Z  issue_done               DONE, commit [SHA]: Issue #3 (Shout function) was implemented in commit [SHA] "feat(greeter): Impl…

#4 Command-line entry point  DONE  1 attempt, SOLO (demo-agent), [DURATION], cost $0.00, commit [SHA]
  attempt 1 SOLO: done in [DURATION]; demo-agent exit 0 [DURATION] cost $0.00; tests passed (4)
    output of demo-agent: .swarm/runs/greeter/issue-4/attempt-1/agent.stdout
    2026-01-02T03:04:05.000Z  issue_started            attempt 1 started
    2026-01-02T03:04:05.000Z  agents_selected          SOLO — winner demo-agent (one eligible agent (demo-agent 0.87) → SOLO demo-agent)
    2026-01-02T03:04:05.000Z  context_injected         prompt 2619 bytes, CLAUDE.md yes, 3 summaries
    2026-01-02T03:04:05.000Z  agent_started            demo-agent started (primary)
    2026-01-02T03:04:05.000Z  agent_finished           demo-agent exited 0 after [DURATION], $0.00
    2026-01-02T03:04:05.000Z  implementation_complete  created: bin/greeter, tests/test_cli.sh; modified: -
    2026-01-02T03:04:05.000Z  tests_written            1 tests written to tests/test_cli.sh
    2026-01-02T03:04:05.000Z  verification_passed      verification passed (4 tests)
    2026-01-02T03:04:05.000Z  issue_done               DONE, commit [SHA]: Issue #4 (Command-line entry point) was implemented in commit [SHA] "feat(gree…

== what happened ==
issue #1: found already implemented in git (commit [SHA]) — no agent was called for it
issues implemented by the demo agent, verified and committed: #2, #3, #4
all 4 issues DONE: yes; took [DURATION]
look around: cd [TMP]/demo && git log --oneline && cat .swarm/events/greeter.jsonl

$ swarm-attack report greeter
report: [TMP]/demo/.swarm/reports/greeter.html
----- stderr -----
"#);
}

/// The demo runs two workers: their lines in the `run` block interleave as the scheduler
/// runs them, so they are put in issue order (each issue's own lines keep their order).
fn workers_in_issue_order(out: &str) -> String {
    let mut lines: Vec<&str> = out.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.starts_with("$ swarm-attack run "))
    else {
        return out.to_string();
    };
    let end = lines[start..]
        .iter()
        .position(|l| l.is_empty())
        .map_or(lines.len(), |n| start + n);
    let issue = |l: &&str| -> u64 {
        l.strip_prefix('#')
            .and_then(|r| r.split([' ', ':']).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(if l.starts_with("run: ") { 0 } else { u64::MAX })
    };
    lines[start + 1..end].sort_by_key(issue);
    let mut sorted = lines.join("\n");
    sorted.push('\n');
    sorted
}

/// `audit <f>: N events` with N of 33 or 34 (see `snapshot_demo`) → `[33-34] events`.
fn event_count_normalised(stdout: &str) -> String {
    let mut out = String::new();
    for line in stdout.lines() {
        let fixed = ["33", "34"].iter().find_map(|n| {
            line.strip_prefix("audit greeter: ")
                .and_then(|rest| rest.strip_prefix(n))
                .and_then(|rest| rest.strip_prefix(" events,"))
                .map(|rest| format!("audit greeter: [33-34] events,{rest}"))
        });
        out.push_str(fixed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}
