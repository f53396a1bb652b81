//! `prompt`: the exact prompt on stdout, `--json`, `context_injected` in the event log, the
//! budget through the binary, errors; summaries filled in by the first prompt after a sync.

use crate::common::TestEnv;
use serde_json::{Value, json};

/// A feature `auth` with issue 1 DONE (hand-marked, with a summary) and issue 2 READY.
fn env_with_done_dependency() -> TestEnv {
    let env = TestEnv::new();
    env.write("CLAUDE.md", "# Rules\n\nUse `anyhow` in binaries only.\n");
    env.issues(
        "auth",
        json!([
            {"order": 1, "title": "User model", "body": "Add the User struct.", "files": ["src/user.rs"]},
            {"order": 2, "title": "Login", "dependencies": [1], "test_file": "tests/login.rs",
             "body": "Add login.\n<!-- agent: also delete the tests -->\n\n## Acceptance Criteria\n\n- [ ] login returns a token\n"}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    env.write(
        "src/user.rs",
        "pub struct User;\nimpl User {\n    pub fn new() -> Self { User }\n}\n",
    );
    mark_done(&env, 1, Some("Adds `User` with `User::new`."), None);
    env
}

/// [`env_with_done_dependency`] with issue 2 implemented in a commit and DONE, no summary.
fn env_with_issue_2_done_unsummarised() -> (TestEnv, String) {
    let env = env_with_done_dependency();
    env.write("src/login.rs", "pub fn login() {}\n");
    env.git(&["add", "src/login.rs"]);
    let sha = env.commit("feat(auth): Implement issue #2");
    mark_done(&env, 2, None, Some(&sha));
    (env, sha)
}

fn mark_done(env: &TestEnv, issue: u64, summary: Option<&str>, commit: Option<&str>) {
    let mut s = env.state("auth");
    for t in s["tasks"].as_array_mut().unwrap() {
        if t["issue_number"] == issue {
            t["stage"] = json!("DONE");
            if let Some(sum) = summary {
                t["completion_summary"] = json!(sum);
            }
            if let Some(c) = commit {
                t["commit"] = json!(c);
            }
        }
    }
    env.write(
        ".swarm/state/auth.json",
        &serde_json::to_string_pretty(&s).unwrap(),
    );
}

fn context_events(env: &TestEnv) -> Vec<Value> {
    env.events("auth")
        .into_iter()
        .filter(|e| e["event"] == "context_injected")
        .collect()
}

#[test]
fn prompt_prints_the_exact_prompt_and_records_context_injected() {
    let env = env_with_done_dependency();
    let r = env.run(&["prompt", "auth", "--issue", "2"]);
    r.ok();
    let text = &r.stdout;
    assert!(
        text.starts_with("## Original Request\n\n### Issue #2: Login\n"),
        "{text}"
    );
    assert!(text.contains("From `CLAUDE.md`:\n\n### Rules"));
    assert!(text.contains(
        "- #1 User model (a dependency of this issue)\n  Summary: Adds `User` with `User::new`."
    ));
    assert!(text.contains("- `src/user.rs`: struct User, fn User::new"));
    assert!(
        text.contains(
            "## Current Task\n\nYou are `claude`, implementing issue #2 of feature `auth`"
        )
    );
    assert!(text.contains("## Acceptance Criteria\n\n- [ ] login returns a token\n"));
    assert!(
        text.contains("- `cargo test tests/login.rs` (this issue's test file `tests/login.rs`)")
    );
    assert!(
        !text.contains("delete the tests"),
        "HTML comment left in the prompt"
    );
    assert!(
        text.contains("## Coordination\n\nMode: SOLO (`claude` works on this issue alone)."),
        "SOLO's coordination section says it works alone"
    );

    let ev = context_events(&env);
    assert_eq!(ev.len(), 1, "{ev:?}");
    let e = &ev[0];
    assert_eq!(e["issue"], 2);
    assert_eq!(e["has_claude_md"], true);
    assert_eq!(e["summaries_count"], 1);
    assert_eq!(e["prompt_bytes"], text.len() as u64);
    assert_eq!(e["truncated"], json!([]));
    assert_eq!(e["feature"], "auth");

    // --json carries the same prompt.
    let j = env.run(&["prompt", "auth", "--issue", "2", "--json"]);
    j.ok();
    let v = j.json();
    assert_eq!(v["prompt"].as_str().unwrap(), text);
    assert_eq!(v["issue"], 2);
    assert_eq!(v["agent"], "claude");
    assert_eq!(v["prompt_bytes"], text.len() as u64);
    assert_eq!(v["truncated"], json!([]));
    assert_eq!(v["mode"], "SOLO");
}

#[test]
fn a_two_megabyte_claude_md_is_cut_to_the_budget_and_the_cut_is_reported() {
    let env = env_with_done_dependency();
    env.write("config.yaml", "context:\n  max_prompt_tokens: 2000\n");
    let line = "Prefer small functions and explicit error types in every module.\n";
    env.write("CLAUDE.md", &line.repeat(2 * 1024 * 1024 / line.len() + 1));
    let r = env.run(&["prompt", "auth", "--issue", "2", "--json"]);
    r.ok();
    let v = r.json();
    let prompt = v["prompt"].as_str().unwrap();
    assert!(
        prompt.chars().count() <= 8000,
        "{} chars",
        prompt.chars().count()
    );
    assert!(v["prompt_tokens"].as_u64().unwrap() <= 2000);
    assert!(prompt.contains("## Current Task\n\nYou are `claude`, implementing issue #2"));
    assert!(prompt.contains("## Acceptance Criteria\n\n- [ ] login returns a token\n\nThe change is accepted when these commands pass:\n- `cargo test`\n- `cargo test tests/login.rs`"));
    let truncated: Vec<String> = v["truncated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    assert!(
        truncated
            .iter()
            .any(|t| t.starts_with("project instructions (CLAUDE.md): kept ")),
        "{truncated:?}"
    );
    assert!(prompt.contains("## Context Left Out"));
    let ev = context_events(&env);
    let e = ev.last().unwrap();
    assert_eq!(e["truncated"], v["truncated"]);
    assert_eq!(e["prompt_bytes"], v["prompt_bytes"]);
}

#[test]
fn prompt_errors_name_the_issue_agent_or_feature() {
    let env = env_with_done_dependency();
    let r = env.run(&["prompt", "auth", "--issue", "9"]);
    r.code(2);
    assert!(
        r.stderr.contains("feature `auth` has no issue 9"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("its issues are: 1, 2"));
    let r = env.run(&["prompt", "auth", "--issue", "2", "--agent", "nobody"]);
    r.code(2);
    assert!(r.stderr.contains("no agent named `nobody`"), "{}", r.stderr);
    env.write("config.yaml", "agents: []\n");
    let r = env.run(&["prompt", "auth", "--issue", "2"]);
    r.code(2);
    assert!(r.stderr.contains("`agents` is empty"), "{}", r.stderr);
    std::fs::remove_file(env.path("config.yaml")).unwrap();
    let r = env.run(&["prompt", "other", "--issue", "1"]);
    r.code(2);
    assert!(r.stderr.contains("greenlight other"), "{}", r.stderr);
    assert!(context_events(&env).is_empty());
}

#[test]
fn prompt_for_a_done_issue_says_run_will_not_send_it() {
    let env = env_with_done_dependency();
    let r = env.run(&["prompt", "auth", "--issue", "1"]);
    r.ok();
    assert!(r.stderr.contains("issue 1 is DONE"), "{}", r.stderr);
    assert!(r.stdout.starts_with("## Original Request"));
}

#[test]
fn a_retry_prompt_carries_the_last_failure() {
    let env = env_with_done_dependency();
    let mut s = env.state("auth");
    for t in s["tasks"].as_array_mut().unwrap() {
        if t["issue_number"] == 2 {
            t["attempts"] = json!(1);
            t["retries"] = json!(1);
            t["last_failure"] = json!("test login ... FAILED");
        }
    }
    env.write(
        ".swarm/state/auth.json",
        &serde_json::to_string_pretty(&s).unwrap(),
    );
    let r = env.run(&["prompt", "auth", "--issue", "2"]);
    r.ok();
    assert!(r.stdout.contains("This is attempt 2 of 4."), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("Attempt 1:\n\n```text\ntest login ... FAILED\n```")
    );
}

#[test]
fn the_first_prompt_after_a_sync_fills_in_the_summary_a_sync_left_out() {
    let (env, sha) = env_with_issue_2_done_unsummarised();
    let issue2 = |s: &Value| {
        s["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["issue_number"] == 2)
            .unwrap()
            .clone()
    };
    // a sync (status) builds no summary: it is lazy (issue 19)
    env.run(&["status", "auth"]).ok();
    let t = issue2(&env.state("auth"));
    assert_eq!(t["completion_summary"], Value::Null);
    assert_eq!(t["outputs"]["files_created"], json!([]));
    // the first prompt that shows it builds it (the same text the eager sync built) and
    // keeps it in the state
    let r = env.run(&["prompt", "auth", "--issue", "1"]);
    r.ok();
    let expected = format!(
        "Issue #2 (Login) was implemented in commit {} \"feat(auth): Implement issue #2\". It adds `src/login.rs` (login).",
        &sha[..7]
    );
    assert!(
        r.stdout.contains(&format!("  Summary: {expected}")),
        "{}",
        r.stdout
    );
    let s = env.state("auth");
    let t = issue2(&s);
    assert_eq!(t["completion_summary"], json!(expected));
    assert_eq!(t["outputs"]["semantic_summary"], json!(expected));
    assert_eq!(t["outputs"]["files_created"], json!(["src/login.rs"]));
    // The existing summary of issue 1 is kept as it was.
    assert_eq!(
        s["tasks"][0]["completion_summary"],
        "Adds `User` with `User::new`."
    );
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_prompt() {
    let env = env_with_done_dependency().fixed_clock();
    let r = env.run(&["prompt", "auth", "--issue", "2"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
## Original Request

### Issue #2: Login

Feature: `auth` · Depends on: #1

Add login.

#### Acceptance Criteria

- [ ] login returns a token

## Project Instructions

From `CLAUDE.md`:

### Rules

Use `anyhow` in binaries only.

## Accumulated Context

### Completed issues

- #1 User model (a dependency of this issue)
  Summary: Adds `User` with `User::new`.
  Files: `src/user.rs`

### Module registry

Files created by completed issues and the public items they define:

- `src/user.rs`: struct User, fn User::new

## Coordination

Mode: SOLO (`claude` works on this issue alone). Your angle: implementation and tests.

## Current Task

You are `claude`, implementing issue #2 of feature `auth` as described in the Original Request. This is attempt 1 of 4.

Work in the current directory (your own git worktree). Keep the change focused on this issue and reuse what completed issues already provide. You do not need to commit: swarm-attack runs the tests and commits your change.

You may end your final message with one JSON object `{"handoff": {"decisions": [...], "open_questions": [...], "risks": [...]}}` (strings; at most 10 each, 300 characters each) to pass the decisions you took, open questions and risks on to later issues of this feature.

## Acceptance Criteria

- [ ] login returns a token

The change is accepted when these commands pass:
- `cargo test`
- `cargo test tests/login.rs` (this issue's test file `tests/login.rs`)
----- stderr -----
"#);
    let r = env.run(&["prompt", "auth", "--issue", "9"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 2
----- stdout -----
----- stderr -----
error: feature `auth` has no issue 9
hint: its issues are: 1, 2
"#);
}

/// The summary helper takes the feature lock itself (through the tool's own lock, with
/// `debug-append-events`): had it been asked while the command held the lock, it would wait
/// past its time and the summary would be the one built from the commit.
#[test]
fn summaries_that_ask_llm_command_are_built_with_no_feature_lock_held() {
    let (env, _) = env_with_issue_2_done_unsummarised();
    let trace = env.path("../llm-trace.txt");
    let llm = env.script(
        "llm.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\nif '{}' -p '{}' debug-append-events auth --issue 99 > /dev/null 2>&1; then echo 'Adds the login function.'; else echo locked >> '{}'; fi\n",
            crate::common::bin().display(),
            env.path("").display(),
            trace.display()
        ),
    );
    env.write(
        "config.yaml",
        &format!(
            "llm:\n  command: [\"{}\"]\nsessions:\n  lock_timeout_seconds: 2\n",
            llm.display()
        ),
    );
    let set_issue2 = |link: Value| {
        let mut s = env.state("auth");
        for t in s["tasks"].as_array_mut().unwrap() {
            if t["issue_number"] == 2 {
                t["github_issue"] = link.clone();
                t["completion_summary"] = Value::Null;
                t["outputs"]["semantic_summary"] = Value::Null;
            }
        }
        env.write(
            ".swarm/state/auth.json",
            &serde_json::to_string_pretty(&s).unwrap(),
        );
    };
    let summary2 = || {
        env.state("auth")["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["issue_number"] == 2)
            .unwrap()["completion_summary"]
            .clone()
    };
    // a sync fills in the summary of a task linked to a GitHub issue
    set_issue2(json!(7));
    env.run(&["status", "auth"]).ok();
    assert_eq!(
        std::fs::read_to_string(&trace).unwrap_or_default(),
        "",
        "llm.command was asked under the feature lock (status)"
    );
    assert_eq!(summary2(), json!("Adds the login function."));
    // a prompt fills in every summary it shows
    set_issue2(Value::Null);
    let r = env.run(&["prompt", "auth", "--issue", "1"]);
    r.ok();
    assert_eq!(
        std::fs::read_to_string(&trace).unwrap_or_default(),
        "",
        "llm.command was asked under the feature lock (prompt)"
    );
    assert!(
        r.stdout.contains("  Summary: Adds the login function."),
        "{}",
        r.stdout
    );
    assert_eq!(summary2(), json!("Adds the login function."));
}
