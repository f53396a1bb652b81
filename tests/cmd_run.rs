//! `run` and `demo` against real temp repositories with script agents. Work already done:
//! `cmd_run_already_done.rs`; what `run` prints: `cmd_run_output.rs`.

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

#[test]
fn success_commits_only_the_agents_files_with_trailers() {
    let agent = r#"cat > "$TRACE/stdin.txt"
echo "$#" > "$TRACE/argc.txt"
env | grep -E '^(SWARM_|GITHUB_TOKEN|GH_TOKEN)' | sort > "$TRACE/env.txt"
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks .swarm
echo "login" > src/login.txt
echo "exit 0" > checks/t_login.sh
echo "agent junk" > .swarm/junk.txt
echo '{"result": "ok", "total_cost_usd": 0.25}'
"#;
    let mut s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Login", "body": "Add login.", "github_issue": 42, "test_file": "checks/t_login.sh"}]),
        agent,
        "",
    );
    s.env
        .extra_env
        .push(("GITHUB_TOKEN".into(), "secret-token".into()));
    // the user's own untracked and modified files
    s.env.write("notes.txt", "my notes");
    let before = s.env.git(&["rev-parse", "HEAD"]);
    let r = s.env.run(&["run", "auth"]);
    r.ok();
    assert!(r.stdout.contains("#1: DONE"), "{}", r.stdout);
    // the commit
    let subject = s.env.git(&["log", "-1", "--format=%s"]);
    assert_eq!(subject, "feat(auth): Implement issue #1 (#42)");
    let body = s.env.git(&["log", "-1", "--format=%B"]);
    assert!(
        body.trim_end()
            .ends_with("Swarm-Feature: auth\nSwarm-Issue: 1"),
        "{body}"
    );
    assert_eq!(s.env.git(&["rev-parse", "HEAD~1"]), before);
    let files = s.env.git(&["show", "--name-only", "--format=", "HEAD"]);
    let mut files: Vec<&str> = files.lines().collect();
    files.sort();
    assert_eq!(files, vec!["checks/t_login.sh", "src/login.txt"]);
    // the user's files are untouched and uncommitted; the work is in the user's tree
    assert_eq!(s.env.read("notes.txt"), "my notes");
    let status = s.env.git(&["status", "--porcelain"]);
    assert!(status.contains("?? notes.txt"), "{status}");
    assert!(s.env.path("src/login.txt").exists());
    // state
    let t = s.task("auth", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["commit"], s.env.git(&["rev-parse", "HEAD"]));
    assert_eq!(
        t["outputs"]["files_created"],
        json!(["checks/t_login.sh", "src/login.txt"])
    );
    assert_eq!(t["cost_usd"], 0.25);
    assert!(t.get("owner").is_none());
    // the agent's process: prompt on stdin, not in argv; env; no token
    assert_eq!(
        std::fs::read_to_string(s.trace.join("argc.txt"))
            .unwrap()
            .trim(),
        "0"
    );
    assert!(
        std::fs::read_to_string(s.trace.join("stdin.txt"))
            .unwrap()
            .contains("Login")
    );
    let env_txt = std::fs::read_to_string(s.trace.join("env.txt")).unwrap();
    for want in [
        "SWARM_AGENT=fake",
        "SWARM_ATTEMPT=1",
        "SWARM_FEATURE=auth",
        "SWARM_ISSUE=1",
        "SWARM_ROLE=primary",
    ] {
        assert!(env_txt.contains(want), "{want} missing in {env_txt}");
    }
    assert!(!env_txt.contains("GITHUB_TOKEN"), "{env_txt}");
    // artifacts
    let dir = ".swarm/runs/auth/issue-1/attempt-1";
    assert!(s.env.read(&format!("{dir}/prompt.md")).contains("Login"));
    assert!(
        s.env
            .read(&format!("{dir}/agent.stdout"))
            .contains("total_cost_usd")
    );
    assert!(
        s.env
            .read(&format!("{dir}/tests.log"))
            .contains("1 passed, 0 failed")
    );
    // events
    let names: Vec<String> = s
        .env
        .events("auth")
        .iter()
        .filter(|e| e["issue"] == 1)
        .map(|e| e["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "agents_selected", // from greenlight
            "issue_started",
            "agents_selected",
            "context_injected",
            "agent_started",
            "agent_finished",
            "implementation_complete",
            "tests_written",
            "verification_passed",
            "issue_done"
        ]
    );
    let fin = &s.events_named("auth", "agent_finished")[0];
    assert_eq!(fin["agent"], "fake");
    assert_eq!(fin["exit_code"], 0);
    assert_eq!(fin["cost_usd"], 0.25);
    assert_eq!(fin["timed_out"], false);
    assert_eq!(
        s.events_named("auth", "verification_passed")[0]["tests_passed"],
        1
    );
    let done = &s.events_named("auth", "issue_done")[0];
    assert_eq!(done["commit"], s.env.git(&["rev-parse", "HEAD"]));
    assert!(done["summary"].is_string());
    // no worktree left behind
    assert_eq!(s.env.git(&["worktree", "list"]).lines().count(), 1);
    assert!(
        !s.env
            .read(".swarm/events/auth.jsonl")
            .contains("secret-token")
    );
}

#[test]
fn failing_agent_retries_then_blocks_with_reason_and_exit_1() {
    let agent = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p checks
echo "echo 'assertion failed: widget is broken'; exit 1" > checks/t_widget.sh
"#;
    let s = Setup::new(
        "widget",
        json!([{"order": 1, "title": "Widget"}, {"order": 2, "title": "Uses widget", "dependencies": [1]}]),
        agent,
        "sessions:\n  max_implementation_retries: 2\n",
    );
    let r = s.env.run(&["run", "widget"]);
    r.code(1);
    assert!(r.stdout.contains("BLOCKED"), "{}", r.stdout);
    assert_eq!(s.calls(), vec!["1 1", "1 2", "1 3"]);
    let t = s.task("widget", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert_eq!(t["retries"], 2);
    let reason = t["blocked_reason"].as_str().unwrap();
    assert!(reason.contains("tests failed (1 failed)"), "{reason}");
    assert!(
        t["last_failure"]
            .as_str()
            .unwrap()
            .contains("widget is broken")
    );
    assert_eq!(s.task("widget", 2)["stage"], "BACKLOG");
    let retries: Vec<u64> = s
        .events_named("widget", "retry_started")
        .iter()
        .map(|e| e["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(retries, vec![2, 3]);
    let blocked = s.events_named("widget", "issue_blocked");
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0]["retries"], 2);
    let vf = s.events_named("widget", "verification_failed");
    assert_eq!(vf.len(), 3);
    assert_eq!(vf[0]["tests_failed"], 1);
    assert!(
        vf[0]["failures"]
            .as_str()
            .unwrap()
            .contains("widget is broken")
    );
    // nothing was committed, no worktree left
    assert_eq!(s.env.git(&["log", "--format=%s"]), "chore: initial commit");
    assert_eq!(s.env.git(&["worktree", "list"]).lines().count(), 1);
    for k in 1..=3 {
        assert!(
            s.env
                .path(&format!(".swarm/runs/widget/issue-1/attempt-{k}/tests.log"))
                .exists()
        );
    }
}

#[test]
fn circuit_breaker_stops_the_run_after_consecutive_agent_failures() {
    let agent = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
echo "error: lost the connection to the sandbox" >&2
exit 3
"#;
    // (a crash, class `infra`; "not logged in" would be a `setup` cause: BLOCKED at once)
    let s = Setup::new(
        "cb",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}, {"order": 3, "title": "C"}]),
        agent,
        "sessions:\n  max_implementation_retries: 5\n  max_consecutive_agent_failures: 2\n",
    );
    let r = s.env.run(&["run", "cb"]);
    r.code(1);
    assert!(
        r.stderr.contains("2 consecutive agent failures"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("exited with code 3"), "{}", r.stderr);
    assert_eq!(s.calls(), vec!["1 1", "1 2"]);
    let t = s.task("cb", 1);
    assert_eq!(t["stage"], "READY");
    assert_eq!(t["retries"], 2);
    assert!(
        t["last_failure"]
            .as_str()
            .unwrap()
            .contains("lost the connection")
    );
    assert_eq!(s.task("cb", 2)["stage"], "READY");
    assert_eq!(s.task("cb", 3)["stage"], "READY");
}

#[test]
fn missing_agent_binary_is_a_clear_error_naming_it() {
    let s = Setup::new(
        "nobin",
        json!([{"order": 1, "title": "A"}]),
        GOOD_AGENT,
        "sessions:\n  max_implementation_retries: 0\n",
    );
    let cfg = s.env.read("config.yaml");
    let start = cfg.find("command: [").unwrap();
    let end = cfg[start..].find(']').unwrap() + start + 1;
    let cfg = format!(
        "{}command: [\"no-such-agent-xyz\", \"-p\"]{}",
        &cfg[..start],
        &cfg[end..]
    );
    s.env.write("config.yaml", &cfg);
    // a setup problem: exit 2 before any attempt (preflight), the issue untouched
    let r = s.env.run(&["run", "nobin"]);
    r.code(2);
    assert!(
        r.stderr.contains("`no-such-agent-xyz` was not found"),
        "{}",
        r.stderr
    );
    assert_eq!(s.task("nobin", 1)["stage"], "READY");
    assert!(s.task("nobin", 1)["blocked_reason"].is_null());
}

#[test]
fn agent_that_changes_nothing_is_a_failed_attempt() {
    let s = Setup::new(
        "noop",
        json!([{"order": 1, "title": "A"}]),
        "cat > /dev/null\nmkdir -p .swarm && echo x > .swarm/only-tool-files\n",
        "sessions:\n  max_implementation_retries: 0\n",
    );
    s.env.run(&["run", "noop"]).code(1);
    let reason = s.task("noop", 1)["blocked_reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("changed no file"), "{reason}");
}

#[test]
fn agent_commits_are_folded_into_one_tool_commit() {
    let agent = r#"cat > /dev/null
mkdir -p checks
echo "exit 0" > checks/t.sh
echo a > a.txt
git add a.txt checks/t.sh
git -c user.name=agent -c user.email=agent@x commit -q -m "wip by agent"
echo b > b.txt
"#;
    let s = Setup::new("fold", json!([{"order": 1, "title": "A"}]), agent, "");
    s.env.run(&["run", "fold"]).ok();
    let subjects = s.env.git(&["log", "--format=%s"]);
    assert_eq!(
        subjects.lines().collect::<Vec<_>>(),
        ["feat(fold): Implement issue #1", "chore: initial commit"]
    );
    let files = s.env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["a.txt", "b.txt", "checks/t.sh"]
    );
}

#[test]
fn users_uncommitted_change_in_the_way_blocks_without_losing_it() {
    let agent = r#"cat > /dev/null
mkdir -p checks
echo "exit 0" > checks/t.sh
echo "agent version" > shared.txt
"#;
    let s = Setup::new("dirty", json!([{"order": 1, "title": "A"}]), agent, "");
    s.env.write("shared.txt", "original\n");
    s.env.write("other.txt", "original\n");
    s.env.git(&["add", "shared.txt", "other.txt"]);
    s.env.commit("chore: files");
    s.env.write("shared.txt", "my uncommitted edit\n");
    s.env.write("other.txt", "my other edit\n");
    let r = s.env.run(&["run", "dirty"]);
    r.code(1);
    assert_eq!(s.env.read("shared.txt"), "my uncommitted edit\n");
    assert_eq!(s.env.read("other.txt"), "my other edit\n");
    let reason = s.task("dirty", 1)["blocked_reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("git merge --ff-only refs/swarm/dirty/issue-1"),
        "{reason}"
    );
    // the work is kept, with its trailers, and landing it by hand makes the issue DONE
    let kept = s
        .env
        .git(&["log", "-1", "--format=%B", "refs/swarm/dirty/issue-1"]);
    assert!(kept.contains("Swarm-Issue: 1"));
    s.env.git(&["checkout", "--", "shared.txt"]);
    s.env
        .git(&["merge", "--ff-only", "-q", "refs/swarm/dirty/issue-1"]);
    assert_eq!(s.env.read("other.txt"), "my other edit\n");
    // the git sync sees the landed commit: DONE without unblocking or running again
    s.env.run(&["status", "dirty"]).ok();
    assert_eq!(s.task("dirty", 1)["stage"], "DONE");
    s.env.run(&["run", "dirty"]).ok();
    assert_eq!(s.implementing_commits("dirty", 1), 1);
}

#[test]
fn dry_run_prints_the_order_and_writes_nothing() {
    let s = Setup::new(
        "dry",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B", "dependencies": [1]},
               {"order": 3, "title": "C"}]),
        GOOD_AGENT,
        "",
    );
    // (lock files get their holder's name on every acquisition; they are not state)
    let snapshot = || {
        let mut m = crate::common::snapshot_files(&s.env.root);
        m.retain(|p, _| !p.to_string_lossy().contains("/.swarm/locks/"));
        m
    };
    let before = snapshot();
    let head = s.env.git(&["rev-parse", "HEAD"]);
    let r = s.env.run(&["run", "dry", "--dry-run"]);
    r.ok();
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0].contains("#1"), "{}", r.stdout);
    let two = lines.iter().find(|l| l.contains("#2")).unwrap();
    assert!(two.contains("after #1"), "{two}");
    assert!(lines.iter().any(|l| l.contains("#3")));
    let r = s
        .env
        .run(&["run", "dry", "--dry-run", "--max-issues", "1", "--json"]);
    r.ok();
    assert_eq!(r.json()["plan"]["steps"].as_array().unwrap().len(), 1);
    assert!(before == snapshot(), "a dry run changed files");
    assert_eq!(head, s.env.git(&["rev-parse", "HEAD"]));
    assert!(s.calls().is_empty());
}

#[test]
fn issue_and_max_issues_limit_the_run() {
    let s = Setup::new(
        "lim",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}, {"order": 3, "title": "C"}]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "lim", "--issue", "2"]).ok();
    assert_eq!(s.calls(), vec!["2 1"]);
    s.env.run(&["run", "lim", "--max-issues", "1"]).ok();
    assert_eq!(s.calls(), vec!["2 1", "1 1"]);
    let r = s.env.run(&["run", "lim", "--issue", "9"]);
    r.code(2);
    assert!(r.stderr.contains("no issue 9"), "{}", r.stderr);
}

#[test]
fn workers_run_independent_issues_at_the_same_time() {
    // Each agent waits (up to 10 s) until both have started: only concurrent runs pass.
    let agent = r#"cat > /dev/null
touch "$TRACE/started-$SWARM_ISSUE"
i=0
while [ ! -e "$TRACE/started-1" ] || [ ! -e "$TRACE/started-2" ]; do
  i=$((i + 1)); [ $i -gt 200 ] && exit 1; sleep 0.05
done
mkdir -p checks; echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
"#;
    let s = Setup::new(
        "par",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}, {"order": 3, "title": "C", "dependencies": [1, 2]}]),
        &format!("{agent}echo \"$SWARM_ISSUE\" >> \"$TRACE/calls.log\"\n"),
        "sessions:\n  max_implementation_retries: 0\n",
    );
    let r = s.env.run(&["run", "par", "--workers", "2"]);
    r.ok();
    for n in 1..=3 {
        assert_eq!(s.task("par", n)["stage"], "DONE");
        assert_eq!(s.implementing_commits("par", n as u32), 1);
    }
    // #3 depends on both: it landed last
    assert_eq!(
        s.env.git(&["log", "-1", "--format=%s"]),
        "feat(par): Implement issue #3"
    );
}

#[test]
fn failure_analysis_can_escalate_or_skip() {
    let failing = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p checks; echo "exit 1" > checks/t.sh
"#;
    for (verdict, stage, event) in [
        ("escalate", "BLOCKED", "issue_blocked"),
        ("skip", "SKIPPED", "issue_skipped"),
    ] {
        let s = Setup::new(
            "fa",
            json!([{"order": 1, "title": "A"}]),
            failing,
            "sessions:\n  max_implementation_retries: 3\n",
        );
        let llm = s.env.script(
            "llm.sh",
            &format!(
                "#!/bin/sh\ncat > \"{}/analysis-prompt.txt\"\necho \"$SWARM_PURPOSE\" > \"{}/purpose.txt\"\necho \"{verdict}\"\necho \"the requirement is unclear\"\n",
                s.trace.display(),
                s.trace.display()
            ),
        );
        let cfg = s.env.read("config.yaml");
        s.env.write(
            "config.yaml",
            &format!("{cfg}llm:\n  command: [\"{}\"]\n", llm.display()),
        );
        s.env
            .run(&["run", "fa"])
            .code(if verdict == "escalate" { 1 } else { 0 });
        assert_eq!(
            s.calls(),
            vec!["1 1"],
            "{verdict}: no retry after the verdict"
        );
        let t = s.task("fa", 1);
        assert_eq!(t["stage"], stage);
        let reason = t["blocked_reason"].as_str().unwrap();
        if verdict == "escalate" {
            assert!(
                reason.starts_with("needs a person: the requirement is unclear"),
                "{t}"
            );
        } else {
            assert!(reason.contains("skip"), "{t}");
        }
        // the first-line answer is read through the compatibility path
        // (docs/run.md "After a failure: classes, analysis, fallback")
        let analyzed = s.events_named("fa", "failure_analyzed");
        assert_eq!(analyzed[0]["source"], "llm-text");
        assert_eq!(analyzed[0]["recommendation"], verdict);
        assert_eq!(s.events_named("fa", event).len(), 1);
        assert_eq!(
            std::fs::read_to_string(s.trace.join("purpose.txt"))
                .unwrap()
                .trim(),
            "failure-analysis"
        );
        assert!(
            std::fs::read_to_string(s.trace.join("analysis-prompt.txt"))
                .unwrap()
                .contains("tests failed")
        );
    }
}

#[test]
fn conflicting_parallel_work_is_retried_on_the_new_tip() {
    // Both agents append to the same file at the same time; the second to land conflicts
    // and is retried from a fresh worktree that has the first one's change.
    let agent = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
touch "$TRACE/started-$SWARM_ISSUE"
i=0
while [ "$SWARM_ATTEMPT" = "1" ] && { [ ! -e "$TRACE/started-1" ] || [ ! -e "$TRACE/started-2" ]; }; do
  i=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.05
done
echo "line from issue $SWARM_ISSUE" >> shared.txt
mkdir -p checks; echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
"#;
    let s = Setup::new(
        "conflict",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}]),
        agent,
        "",
    );
    s.env.write("shared.txt", "base\n");
    s.env.git(&["add", "shared.txt"]);
    s.env.commit("chore: shared");
    s.env.run(&["run", "conflict", "--workers", "2"]).ok();
    let shared = s.env.read("shared.txt");
    assert!(
        shared.contains("line from issue 1") && shared.contains("line from issue 2"),
        "{shared}"
    );
    assert_eq!(s.calls().len(), 3, "{:?}", s.calls());
    for n in 1..=2 {
        assert_eq!(s.task("conflict", n)["stage"], "DONE");
        assert_eq!(s.implementing_commits("conflict", n as u32), 1);
    }
}

#[test]
fn a_claim_builds_the_summaries_a_sync_left_out_and_the_prompt_shows_them() {
    let agent = r#"cat > "$TRACE/stdin.txt"
mkdir -p checks
echo "exit 0" > checks/t_two.sh
echo '{"result": "ok"}'
"#;
    let s = Setup::new(
        "lazy",
        json!([{"order": 1, "title": "Model"}, {"order": 2, "title": "Two", "dependencies": [1]}]),
        agent,
        "",
    );
    // issue 1 implemented by hand: the sync finds it DONE and builds no summary
    s.env.write("src/model.rs", "pub struct Model;\n");
    s.env.git(&["add", "src/model.rs"]);
    let sha = s.env.commit("feat(lazy): Implement issue #1");
    s.env.run(&["status", "lazy"]).ok();
    assert_eq!(s.task("lazy", 1)["stage"], "DONE");
    assert!(s.task("lazy", 1)["completion_summary"].is_null());
    // the claim of issue 2 builds it, keeps it in the state, and the prompt shows it
    s.env.run(&["run", "lazy", "--issue", "2"]).ok();
    let expected = format!(
        "Issue #1 (Model) was implemented in commit {} \"feat(lazy): Implement issue #1\". It adds `src/model.rs` (Model).",
        &sha[..7]
    );
    assert_eq!(s.task("lazy", 1)["completion_summary"], json!(expected));
    let prompt = std::fs::read_to_string(s.trace.join("stdin.txt")).unwrap();
    assert!(prompt.contains(&expected), "{prompt}");
}
