//! `run` with the REAL Claude Code and Codex CLIs and their presets, against the fake model
//! server (tests/common/fake_model). These tests never skip: when the CLIs cannot be
//! installed (node and npm are needed) they fail and say why.

use crate::common::TestEnv;
use crate::common::fake_model::{self, FakeModel};
use crate::common::real_clis::{ADD_PY, SUB_PY, python_project, python_rules};

/// The subjects of the commits on `main`, newest first.
fn subjects(env: &TestEnv) -> Vec<String> {
    env.git(&["log", "--format=%s"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// Runs the 2-issue project to the end and checks both issues are DONE with one implementing
/// commit each and the files the model wrote.
fn both_issues_done(env: &TestEnv) {
    env.run(&["greenlight", "calc"]).ok();
    let run = env.run(&["run", "calc"]);
    run.ok();
    assert_eq!(env.stage("calc", 1), "DONE", "{}", run.stderr);
    assert_eq!(env.stage("calc", 2), "DONE", "{}", run.stderr);
    let subjects = subjects(env);
    for n in [1, 2] {
        let needle = format!("Implement issue #{n}");
        let count = subjects.iter().filter(|s| s.contains(&needle)).count();
        assert_eq!(count, 1, "one implementing commit for #{n}: {subjects:?}");
    }
    assert_eq!(env.git(&["show", "HEAD~1:calc/add.py"]), ADD_PY.trim_end());
    assert_eq!(env.git(&["show", "HEAD:calc/sub.py"]), SUB_PY.trim_end());
}

/// Runs the 2-issue project with the agent `agent_yaml` to the end (both issues DONE, one
/// commit each), and checks that each issue's prompt reached the model byte for byte.
fn done_with(agent_yaml: &str) -> (FakeModel, TestEnv) {
    let model = FakeModel::start(python_rules());
    let env = python_project(&model, &format!("{agent_yaml}\n    timeout_seconds: 300"));
    both_issues_done(&env);
    for n in [1, 2] {
        let prompt = env.read(&format!(".swarm/runs/calc/issue-{n}/attempt-1/prompt.md"));
        assert!(
            model.received_prompt(&prompt),
            "the prompt of #{n} did not reach the model byte for byte; user texts: {:#?}",
            model.all_user_texts()
        );
    }
    (model, env)
}

/// The `agent_finished` events.
fn finished(env: &TestEnv) -> Vec<serde_json::Value> {
    env.events("calc")
        .into_iter()
        .filter(|e| e["event"] == "agent_finished")
        .collect()
}

#[test]
fn claude_code_preset_gets_both_issues_done_and_reports_its_cost() {
    let (_model, env) = done_with("  - name: claude\n    preset: claude-code");
    // Claude's own total_cost_usd lands in agent_finished and audit
    let stdout = env.read(".swarm/runs/calc/issue-1/attempt-1/agent.stdout");
    let result: serde_json::Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap_or_else(|| panic!("no result line in Claude's stream-json:\n{stdout}"));
    let cost = result["total_cost_usd"].as_f64().unwrap();
    assert!(cost > 0.0, "{result}");
    let fin = finished(&env);
    assert_eq!(fin.len(), 2, "{fin:#?}");
    assert_eq!(fin[0]["cost_usd"].as_f64(), Some(cost), "{:#?}", fin[0]);
    assert_eq!(fin[0]["session_id"], result["session_id"]);
    assert!(fin[0]["tokens_in"].as_u64().unwrap() > 0, "{:#?}", fin[0]);
    assert_eq!(fin[0]["error_kind"], serde_json::Value::Null);
    assert_eq!(fin[0]["permission_denials"], 0);
    let audit = env.run(&["audit", "calc", "--json"]);
    audit.ok();
    let a = audit.json();
    let run = &a["issues"][0]["attempts"][0]["agents"][0];
    assert_eq!(run["cost_usd"].as_f64(), Some(cost), "{run:#}");
    assert_eq!(a["totals"]["cost_unknown_runs"], 0);
    let text = env.run(&["audit", "calc"]);
    assert!(
        text.stdout
            .contains("output of claude: .swarm/runs/calc/issue-1/attempt-1/agent.stdout"),
        "{}",
        text.stdout
    );
}

#[test]
fn codex_preset_gets_both_issues_done_with_tokens_and_unknown_cost() {
    let (_model, env) = done_with("  - name: codex\n    preset: codex");
    let fin = finished(&env);
    assert_eq!(fin.len(), 2, "{fin:#?}");
    for f in &fin {
        // two model calls per run (tool call, then the answer), each as the fake reports
        assert_eq!(f["tokens_in"], 2 * fake_model::USAGE_IN, "{f:#}");
        assert_eq!(f["tokens_cached"], 2 * fake_model::USAGE_CACHED, "{f:#}");
        assert_eq!(f["tokens_out"], 2 * fake_model::USAGE_OUT, "{f:#}");
        assert!(f["cost_usd"].is_null(), "{f:#}");
        assert!(f["session_id"].is_string(), "{f:#}");
    }
    let audit = env.run(&["audit", "calc"]);
    audit.ok();
    assert!(audit.stdout.contains("cost unknown"), "{}", audit.stdout);
    assert!(!audit.stdout.contains("$0.00"), "{}", audit.stdout);
    // docs/budgets.md "Where the spend is shown": the total is unknown, and says how many attempts
    let totals = env.run(&["audit", "calc", "--json"]).json()["totals"].clone();
    assert!(totals["cost_usd"].is_null(), "{totals:#}");
    assert_eq!(totals["cost_unknown_attempts"], 2, "{totals:#}");
}

#[test]
fn real_claude_code_as_a_reviewer_its_envelope_unwrapped_findings_parsed_cost_charged() {
    // the model answers the review prompt (its "## What to report" part) with findings in
    // words and JSON; on issue 2 the finding's file is not in the diff (unanchored)
    let answer = r#"I read the diff. {"findings": [{"severity": "minor", "confidence": 88, "file": "calc/add.py", "line": 1, "title": "no type hints", "body": "add(a, b) takes anything"}], "summary": "fine"}"#;
    let mut rules = python_rules();
    rules.push(fake_model::WriteRule::reply("## What to report", answer));
    let model = FakeModel::start(rules);
    let env = python_project(
        &model,
        "  - name: claude\n    preset: claude-code\n    timeout_seconds: 300\n  - name: critic\n    preset: claude-code\n    angle: code review\n    covers: [zzz-nothing]\n    timeout_seconds: 300\nreview:\n  enabled: true\n  reviewers: [critic]",
    );
    both_issues_done(&env);
    let fin: Vec<serde_json::Value> = env.events_named("calc", "review_finished");
    assert_eq!(fin.len(), 2, "{fin:#?}");
    assert_eq!(fin[0]["reviewer"], "critic");
    assert_eq!(fin[0]["error"], serde_json::Value::Null, "{:#}", fin[0]);
    assert_eq!(fin[0]["counted"], 1, "{:#}", fin[0]);
    assert_eq!(fin[0]["findings"][0]["title"], "no type hints");
    assert_eq!(fin[1]["counted"], 0, "{:#}", fin[1]);
    assert_eq!(
        fin[1]["findings"][0]["drop_reason"], "unanchored",
        "{:#}",
        fin[1]
    );
    // Claude's own cost of the review run is the reviewer's agent_finished and in the ledger
    let critic: Vec<serde_json::Value> = finished(&env)
        .into_iter()
        .filter(|e| e["agent"] == "critic")
        .collect();
    assert_eq!(critic.len(), 2, "{critic:#?}");
    let cost = critic[0]["cost_usd"].as_f64().unwrap();
    assert!(cost > 0.0, "{:#}", critic[0]);
    assert_eq!(fin[0]["cost_usd"].as_f64(), Some(cost));
    assert!(fin[0]["tokens_in"].as_u64().unwrap() > 0, "{:#}", fin[0]);
    let started = env.events_named("calc", "agent_started");
    assert!(
        started
            .iter()
            .any(|e| e["agent"] == "critic" && e["role"] == "reviewer"),
        "{started:#?}"
    );
    let t = &env.state("calc")["tasks"][0];
    assert!(
        t["review"]
            .as_str()
            .unwrap_or_default()
            .starts_with("pass_with_risk (single): [minor] calc/add.py:1 — no type hints"),
        "{t}"
    );
}

#[test]
fn claude_without_accept_edits_is_blocked_naming_the_denial() {
    let model = FakeModel::start(python_rules());
    let env = python_project(
        &model,
        "  - name: claude\n    command: [claude, -p, --output-format, json]\n    timeout_seconds: 300",
    );
    env.run(&["greenlight", "calc"]).ok();
    let run = env.run(&["run", "calc"]);
    run.code(1);
    assert_eq!(env.stage("calc", 1), "BLOCKED");
    let state = env.state("calc");
    let task = &state["tasks"][0];
    let reason = task["blocked_reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.contains("agent `claude` was denied permission to write")
            && reason.contains("calc/add.py")
            && reason.contains("--permission-mode acceptEdits"),
        "{reason}"
    );
    let blocked: Vec<_> = env
        .events("calc")
        .into_iter()
        .filter(|e| e["event"] == "issue_blocked")
        .collect();
    assert!(
        blocked[0]["reason"]
            .as_str()
            .unwrap()
            .contains("denied permission to write"),
        "{blocked:#?}"
    );
    let fin = finished(&env);
    assert_eq!(fin[0]["error_kind"], "permission_denied", "{:#?}", fin[0]);
    assert_eq!(fin[0]["permission_denials"], 2, "{:#?}", fin[0]);
    let audit = env.run(&["audit", "calc"]);
    assert!(
        audit.stdout.contains("denied permission to write")
            && audit.stdout.contains("2 permission denials"),
        "{}",
        audit.stdout
    );
}

#[test]
fn real_claude_code_accepts_the_budget_and_enforces_the_turn_limit_handed_to_it() {
    let model = FakeModel::start(python_rules());
    let env = python_project(
        &model,
        "  - name: claude\n    preset: claude-code\n    max_turns: 1\n    timeout_seconds: 300\nbudgets:\n  issue_usd: 50\n  issue_minutes: 30",
    );
    env.run(&["greenlight", "calc"]).ok();
    // an unknown flag would make the CLI exit before any model call; `--max-turns 1` stops
    // it after its first turn, as Claude Code itself says
    env.run(&["run", "calc"]).code(1);
    let fin = finished(&env);
    assert!(!fin.is_empty());
    for f in &fin {
        assert_eq!(f["error_kind"], "max_turns", "{f:#}");
        assert!(f["cost_usd"].as_f64().unwrap() > 0.0, "{f:#}");
        assert!(
            f["model"].is_string(),
            "the init record names the model: {f:#}"
        );
    }
    assert_eq!(env.stage("calc", 1), "BLOCKED");
    let stdout = env.read(".swarm/runs/calc/issue-1/attempt-1/agent.stdout");
    assert!(stdout.contains("error_max_turns"), "{stdout}");
}
