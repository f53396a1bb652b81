//! Black-box acceptance tests of the event log (docs/events.md), `run` (docs/run.md: attempts,
//! its commit, the issue's test file, the summaries of DONE issues), written from the
//! contract's sentences only. The agents `run` starts: `cmd_run_spec_agents.rs`; the prompt:
//! `cmd_run_spec_prompt.rs`; `plan`'s filter: `cmd_plan_spec.rs`.

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::{Value, json};

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`: RFC 3339 in UTC with `Z`.
fn is_rfc3339_utc_z(ts: &str) -> bool {
    let b = ts.as_bytes();
    if b.len() < 20 || !ts.ends_with('Z') {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| r.into_iter().all(|i| b[i].is_ascii_digit());
    let fixed = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    let rest = &ts[19..ts.len() - 1];
    let frac_ok = rest.is_empty()
        || (rest.starts_with('.')
            && rest.len() > 1
            && rest[1..].bytes().all(|c| c.is_ascii_digit()));
    fixed && frac_ok
}

/// The fields docs/events.md "Events" names for each event (besides the common ones).
fn spec_fields(name: &str) -> &'static [&'static str] {
    match name {
        "git_sync" => &[
            "synced_issues",
            "reverted_issues",
            "commits_scanned",
            "head",
        ],
        "greenlight" => &["added", "kept", "ready"],
        "duplicate_detected" => &["issue", "git", "tests", "files"],
        "agents_selected" => &[
            "issue",
            "mode",
            "winner",
            "runner_up",
            "reason",
            "proposals",
        ],
        "context_injected" => &[
            "issue",
            "has_claude_md",
            "summaries_count",
            "prompt_bytes",
            "truncated",
        ],
        "issue_started" | "retry_started" => &["issue", "attempt"],
        "agent_started" => &["issue", "agent", "role"],
        "agent_finished" => &[
            "issue",
            "agent",
            "exit_code",
            "duration_ms",
            "timed_out",
            "cost_usd",
        ],
        "tests_written" => &["issue", "count", "path"],
        "implementation_complete" => &["issue", "files_created", "files_modified"],
        "verification_passed" => &["issue", "tests_passed"],
        "verification_failed" => &["issue", "tests_failed", "failures"],
        "issue_blocked" => &["issue", "reason", "retries"],
        "issue_done" => &["issue", "commit", "cost_usd", "summary"],
        "issue_skipped" => &["issue", "blocking_issue"],
        "issue_unblocked" => &["issue"],
        "state_reverted" => &["issue", "commit"],
        // docs/run.md "After a failure: classes, analysis, fallback"
        "failure_analyzed" => &[
            "issue",
            "attempt",
            "class",
            "kind",
            "diagnosis",
            "recommendation",
            "source",
            "reason",
            "evidence",
        ],
        "dependency_added" => &["issue", "depends_on", "reason"],
        "agent_fallback" => &["issue", "attempt", "from", "to", "reason"],
        other => panic!("event `{other}` is not an event name of docs/events.md"),
    }
}

fn agent_calls(s: &Setup) -> Vec<String> {
    s.calls()
}

// ---------------------------------------------------------------------------------------
// events (docs/events.md "Events")

/// An agent that fails its first attempt of issue 1 and passes otherwise; issue 3 always
/// fails (it ends BLOCKED).
const MIXED_AGENT: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE attempt $SWARM_ATTEMPT" > "src/$SWARM_ISSUE.txt"
if [ "$SWARM_ISSUE" = 3 ] || { [ "$SWARM_ISSUE" = 1 ] && [ "$SWARM_ATTEMPT" = 1 ]; }; then
  echo "echo 'boom in issue $SWARM_ISSUE'; exit 1" > "checks/t_$SWARM_ISSUE.sh"
else
  echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
fi
echo '{"cost_usd": 0.5}'
"#;

#[test]
fn every_event_carries_the_common_fields_and_the_spec_fields_of_its_name() {
    let s = Setup::new(
        "ev",
        json!([
            {"order": 1, "title": "One", "test_file": "checks/t_1.sh"},
            {"order": 2, "title": "Two", "dependencies": [1], "test_file": "checks/t_2.sh"},
            {"order": 3, "title": "Three"},
            {"order": 4, "title": "Four", "files": ["lib/four.txt"]}
        ]),
        MIXED_AGENT,
        "sessions:\n  max_implementation_retries: 1\n",
    );
    s.env.write("lib/four.txt", "four");
    s.env.git(&["add", "lib"]);
    s.env.commit("chore: four exists");
    s.env.run(&["run", "ev"]).code(1);
    assert_eq!(s.task("ev", 1)["stage"], "DONE");
    assert_eq!(s.task("ev", 2)["stage"], "DONE");
    assert_eq!(s.task("ev", 3)["stage"], "BLOCKED");
    assert_eq!(s.task("ev", 4)["stage"], "DONE");
    s.env.run(&["unblock", "ev", "--issue", "3"]).ok();
    // a revert of issue 2's commit sends it back to READY (state_reverted)
    let c2 = s.task("ev", 2)["commit"].as_str().unwrap().to_string();
    s.env.git(&["revert", "--no-edit", &c2]);
    s.env.run(&["status", "ev"]).ok();
    assert_eq!(s.task("ev", 2)["stage"], "READY");

    let raw = s.env.read(".swarm/events/ev.jsonl");
    assert!(raw.ends_with('\n'));
    let events = s.env.events("ev");
    assert_eq!(events.len(), raw.lines().count());
    let mut seen = std::collections::BTreeSet::new();
    let mut last_seq: Option<u64> = None;
    for e in &events {
        let name = e["event"].as_str().unwrap_or_else(|| panic!("{e}"));
        let ts = e["ts"].as_str().unwrap_or_else(|| panic!("no ts: {e}"));
        assert!(is_rfc3339_utc_z(ts), "ts `{ts}` is not RFC 3339 UTC with Z");
        assert_eq!(e["feature"], "ev", "{e}");
        assert!(e["session"].as_str().is_some_and(|s| !s.is_empty()), "{e}");
        let seq = e["seq"].as_u64().unwrap_or_else(|| panic!("no seq: {e}"));
        if let Some(l) = last_seq {
            assert!(seq > l, "seq {seq} after {l}");
        }
        last_seq = Some(seq);
        for f in spec_fields(name) {
            assert!(e.get(*f).is_some(), "`{name}` lacks `{f}`: {e}");
        }
        if spec_fields(name).contains(&"issue") {
            assert!(e["issue"].is_u64(), "{e}");
        }
        seen.insert(name.to_string());
    }
    for want in [
        "git_sync",
        "greenlight",
        "duplicate_detected",
        "agents_selected",
        "context_injected",
        "issue_started",
        "agent_started",
        "agent_finished",
        "tests_written",
        "implementation_complete",
        "verification_passed",
        "verification_failed",
        "retry_started",
        "issue_blocked",
        "issue_done",
        "issue_unblocked",
        "state_reverted",
    ] {
        assert!(seen.contains(want), "no `{want}` event in {seen:?}");
    }
    let named = |n: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == n).collect() };
    // values
    let reverted = named("state_reverted");
    assert_eq!(reverted[0]["issue"], 2);
    // the commit involved: the reverted one or the revert
    let head = s.env.git(&["rev-parse", "HEAD"]);
    assert!(
        reverted[0]["commit"] == c2.as_str() || reverted[0]["commit"] == head.as_str(),
        "{}",
        reverted[0]
    );
    assert_eq!(named("issue_unblocked")[0]["issue"], 3);
    let blocked = named("issue_blocked");
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0]["issue"], 3);
    assert_eq!(blocked[0]["retries"], 1);
    assert!(!blocked[0]["reason"].as_str().unwrap().is_empty());
    let dup = named("duplicate_detected");
    assert_eq!(dup.len(), 1);
    assert_eq!(dup[0]["issue"], 4);
    let started = named("agent_started");
    assert!(
        started
            .iter()
            .all(|e| e["role"] == "primary" && e["agent"] == "fake")
    );
    let finished = named("agent_finished");
    assert!(
        finished
            .iter()
            .all(|e| e["cost_usd"] == 0.5 && e["timed_out"] == false)
    );
    assert!(finished.iter().all(|e| e["duration_ms"].is_u64()));
    let retries: Vec<(u64, u64)> = named("retry_started")
        .iter()
        .map(|e| (e["issue"].as_u64().unwrap(), e["attempt"].as_u64().unwrap()))
        .collect();
    assert_eq!(retries, vec![(1, 2), (3, 2)]);
    let attempts: Vec<u64> = named("issue_started")
        .iter()
        .map(|e| e["attempt"].as_u64().unwrap())
        .collect();
    assert!(attempts.iter().all(|&a| a == 1), "{attempts:?}");
    let done1 = named("issue_done")
        .into_iter()
        .find(|e| e["issue"] == 1)
        .unwrap();
    // the issue's cost is what its attempts cost (two attempts of 0.5)
    assert_eq!(done1["cost_usd"], 1.0);
    assert!(done1["commit"].as_str().unwrap().len() >= 7);
    let ic = named("implementation_complete");
    assert!(ic.iter().any(|e| {
        e["files_created"]
            .as_array()
            .unwrap()
            .contains(&json!("src/1.txt"))
    }));
    let tw = named("tests_written");
    assert!(tw.iter().all(|e| e["count"].as_u64().unwrap() >= 1));

    // `events --json` prints the same records, JSONL, oldest first
    let r = s.env.run(&["events", "ev", "--json"]);
    r.ok();
    let lines: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, events);
}

#[test]
fn a_blocked_issue_does_not_stop_a_later_run_from_saying_there_is_nothing_to_do() {
    let s = Setup::new(
        "nothing",
        json!([{"order": 1, "title": "Always fails"}]),
        "cat >/dev/null\nmkdir -p checks\necho 'exit 1' > checks/t.sh\n",
        "sessions:\n  max_implementation_retries: 0\n",
    );
    s.env.run(&["run", "nothing"]).code(1);
    let r = s.env.run(&["run", "nothing"]);
    r.ok();
    assert!(
        r.stdout.to_lowercase().contains("nothing to do"),
        "{}",
        r.stdout
    );
}

// ---------------------------------------------------------------------------------------
// run: attempts, retries, the failure fed back

#[test]
fn default_retries_make_four_attempts_numbered_from_one_with_the_failure_fed_back() {
    let agent = r#"cat > "$TRACE/stdin-$SWARM_ATTEMPT.txt"
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p checks
echo "echo 'assertion failed: attempt $SWARM_ATTEMPT marker'; exit 1" > checks/t.sh
"#;
    // no `sessions` key: max_implementation_retries defaults to 3
    let s = Setup::new("four", json!([{"order": 1, "title": "Hard"}]), agent, "");
    let r = s.env.run(&["run", "four"]);
    r.code(1);
    assert_eq!(agent_calls(&s), vec!["1 1", "1 2", "1 3", "1 4"]);
    let t = s.task("four", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert_eq!(t["retries"], 3);
    assert!(!t["blocked_reason"].as_str().unwrap_or("").is_empty());
    for k in 1..=4 {
        let dir = format!(".swarm/runs/four/issue-1/attempt-{k}");
        assert!(s.env.path(&dir).is_dir(), "{dir} missing");
        assert!(s.env.path(&format!("{dir}/prompt.md")).exists());
    }
    assert!(!s.env.path(".swarm/runs/four/issue-1/attempt-0").exists());
    assert!(!s.env.path(".swarm/runs/four/issue-1/attempt-5").exists());
    // attempt k's prompt carries the failure of attempt k-1
    let stdin2 = std::fs::read_to_string(s.trace.join("stdin-2.txt")).unwrap();
    assert!(stdin2.contains("attempt 1 marker"), "{stdin2}");
    let stdin4 = std::fs::read_to_string(s.trace.join("stdin-4.txt")).unwrap();
    assert!(stdin4.contains("attempt 3 marker"), "{stdin4}");
    let stdin1 = std::fs::read_to_string(s.trace.join("stdin-1.txt")).unwrap();
    assert!(!stdin1.contains("marker"));
    // what was sent is what was saved
    assert_eq!(
        s.env.read(".swarm/runs/four/issue-1/attempt-2/prompt.md"),
        stdin2
    );
    // each context_injected tells the size of the prompt that was sent
    let ctx: Vec<Value> = s.events_named("four", "context_injected");
    assert_eq!(ctx.len(), 4);
    for (k, e) in ctx.iter().enumerate() {
        let sent = s.env.read_bytes(&format!(
            ".swarm/runs/four/issue-1/attempt-{}/prompt.md",
            k + 1
        ));
        assert_eq!(e["prompt_bytes"], sent.len() as u64, "{e}");
        assert_eq!(e["issue"], 1);
    }
    let blocked: Vec<Value> = s.events_named("four", "issue_blocked");
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0]["retries"], 3);
}

// ---------------------------------------------------------------------------------------
// run's commit: only the agent's files

#[test]
fn the_commit_holds_only_the_agents_files_and_the_users_staged_change_stays_staged() {
    let s = Setup::new("only", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    s.env.write("mine.txt", "v1\n");
    s.env.git(&["add", "mine.txt"]);
    s.env.commit("chore: mine");
    s.env.write("mine.txt", "v2 staged\n");
    s.env.git(&["add", "mine.txt"]);
    s.env.run(&["run", "only"]).ok();
    assert_eq!(
        s.env.git(&["log", "-1", "--format=%s"]),
        "feat(only): Implement issue #1"
    );
    let body = s.env.git(&["log", "-1", "--format=%B"]);
    assert!(body.contains("Swarm-Feature: only"), "{body}");
    assert!(body.contains("Swarm-Issue: 1"), "{body}");
    let files = s.env.git(&["show", "--name-only", "--format=", "HEAD"]);
    let mut files: Vec<&str> = files.lines().collect();
    files.sort();
    assert_eq!(files, ["checks/t_1.sh", "src/1.txt"]);
    assert_eq!(s.env.read("mine.txt"), "v2 staged\n");
    let status = s.env.git(&["status", "--porcelain"]);
    assert!(status.lines().any(|l| l == "M  mine.txt"), "{status}");
    // nothing under .swarm/ was ever committed
    let all = s.env.git(&["log", "--name-only", "--format="]);
    assert!(!all.lines().any(|l| l.starts_with(".swarm")), "{all}");
}

// ---------------------------------------------------------------------------------------
// the issue's test file (docs/run.md "How `tests.command` is run")

/// A test command that records its argv (one line per argument) and passes.
const ARGV_RECORDER: &str = "#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done >> \"$(dirname \"$0\")/argv.log\"\necho '---' >> \"$(dirname \"$0\")/argv.log\"\nexit 0\n";

#[test]
fn the_test_file_is_one_more_argument_of_tests_command() {
    let env = TestEnv::new();
    let rec = env.script("bin/rec.sh", ARGV_RECORDER);
    let agent = env.script(
        "bin/agent.sh",
        "#!/bin/sh\ncat >/dev/null\necho x > x.txt\n",
    );
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\nagents:\n  - name: a\n    command: [\"{}\"]\ntests:\n  command: \"sh {} --quiet\"\n",
            agent.display(),
            rec.display()
        ),
    );
    env.issues(
        "tf",
        json!([{"order": 1, "title": "Spaced", "test_file": "checks/my test.sh"}]),
    );
    env.write("checks/my test.sh", "exit 0\n");
    env.git(&["add", "checks"]);
    env.commit("test: spaced");
    env.run(&["greenlight", "tf"]).ok();
    env.run(&["run", "tf"]).ok();
    assert_eq!(env.stage("tf", 1), "DONE");
    let log = std::fs::read_to_string(env.tmp.path().join("bin/argv.log")).unwrap();
    assert!(
        log.contains("arg:--quiet\narg:checks/my test.sh\n---"),
        "the test file was not passed as one more argument:\n{log}"
    );
    assert!(
        !env.path("x.txt").exists(),
        "the agent ran for a passing test file"
    );
}

#[test]
fn tests_issue_command_replaces_the_test_file_placeholder() {
    let env = TestEnv::new();
    let rec = env.script("bin/rec.sh", ARGV_RECORDER);
    let agent = env.script(
        "bin/agent.sh",
        "#!/bin/sh\ncat >/dev/null\necho x > x.txt\n",
    );
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\nagents:\n  - name: a\n    command: [\"{}\"]\ntests:\n  command: \"sh {rec} --all\"\n  issue_command: \"sh {rec} --only {{test_file}} --fast\"\n",
            agent.display(),
            rec = rec.display()
        ),
    );
    env.issues(
        "ic",
        json!([{"order": 1, "title": "Checked", "test_file": "checks/t1.sh"}]),
    );
    env.write("checks/t1.sh", "exit 0\n");
    env.git(&["add", "checks"]);
    env.commit("test: t1");
    env.run(&["greenlight", "ic"]).ok();
    // the prompt names the issue's test command
    let p = env.run(&["prompt", "ic", "--issue", "1"]);
    p.ok();
    assert!(
        p.stdout.contains("--only checks/t1.sh --fast"),
        "{}",
        p.stdout
    );
    env.run(&["run", "ic"]).ok();
    assert_eq!(env.stage("ic", 1), "DONE");
    let log = std::fs::read_to_string(env.tmp.path().join("bin/argv.log")).unwrap();
    assert!(
        log.contains("arg:--only\narg:checks/t1.sh\narg:--fast\n---"),
        "{log}"
    );
    assert!(!log.contains("arg:--all\narg:checks/t1.sh"), "{log}");
    assert!(!env.path("x.txt").exists());
}

#[test]
fn each_done_summary_names_the_commit_that_landed_even_when_it_was_replayed() {
    // Both agents wait until both have started, so the second to land is replayed onto the
    // first one's commit.
    let agent = r#"cat > /dev/null
touch "$TRACE/started-$SWARM_ISSUE"
i=0
while [ ! -e "$TRACE/started-1" ] || [ ! -e "$TRACE/started-2" ]; do
  i=$((i + 1)); [ $i -gt 200 ] && exit 1; sleep 0.05
done
mkdir -p checks; echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
"#;
    let s = Setup::new(
        "sumsha",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}]),
        agent,
        "sessions:\n  max_implementation_retries: 0\n",
    );
    s.env.run(&["run", "sumsha", "--workers", "2"]).ok();
    for n in 1..=2 {
        let t = s.task("sumsha", n);
        assert_eq!(t["stage"], "DONE");
        let commit = t["commit"].as_str().unwrap();
        let summary = t["completion_summary"].as_str().unwrap();
        assert!(
            summary.contains(&commit[..7]),
            "issue {n}: the summary does not name {commit}: {summary}"
        );
        let done = s
            .events_named("sumsha", "issue_done")
            .into_iter()
            .find(|e| e["issue"] == n)
            .unwrap();
        assert_eq!(done["summary"], summary);
    }
}

#[test]
fn a_run_done_summary_names_the_public_items_the_agent_added() {
    let agent = r#"cat > /dev/null
mkdir -p src checks
printf 'pub fn login() {}\npub struct Session;\n' > src/login.rs
echo "exit 0" > checks/t.sh
"#;
    let s = Setup::new("syms", json!([{"order": 1, "title": "Login"}]), agent, "");
    s.env.run(&["run", "syms"]).ok();
    let t = s.task("syms", 1);
    let summary = t["completion_summary"].as_str().unwrap();
    assert!(
        summary.contains("login") && summary.contains("Session"),
        "{summary}"
    );
    let classes = t["outputs"]["classes_defined"]["src/login.rs"].to_string();
    assert!(classes.contains("Session"), "{}", t["outputs"]);
}
