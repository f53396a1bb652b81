//! A fallback across vendors with the REAL CLIs
//! (docs/run.md "After a failure: classes, analysis, fallback"): the fake model server answers
//! Claude Code's every call with 529 overloaded; the attempt is classified `infra`/`overloaded`
//! by code, and Codex (`agents[].fallback: [codex]`), against the same server, takes the next
//! attempt at once: `agent_fallback` from claude to codex, no retry used, the issue DONE by
//! Codex. Never skips: when a CLI cannot be installed it fails.

use crate::common::fake_model::{FakeModel, Mode};
use crate::common::real_clis::{ADD_PY, python_project, python_rules};

const AGENTS: &str = "  - name: claude\n    preset: claude-code\n    timeout_seconds: 300\n    fallback: [codex]\n  - name: codex\n    preset: codex\n    timeout_seconds: 300";

#[test]
fn claude_code_overloaded_529_falls_back_to_codex() {
    let model = FakeModel::start_mode(python_rules(), Mode::Overloaded);
    let mut env = python_project(&model, AGENTS);
    // Claude Code retries a 529 itself (10 times by default, with back-off): none here
    env.extra_env
        .push(("CLAUDE_CODE_MAX_RETRIES".into(), "0".into()));
    // SOLO by the first agent (claude), no retry at all: the switch must not use one
    let cfg = env.read("config.yaml").replace(
        "coordination:\n  github_sync_enabled: false\n",
        "coordination:\n  github_sync_enabled: false\n  thresholds: {high_confidence: 1.0, synthesis_confidence: 1.0}\n",
    ).replace("max_implementation_retries: 1", "max_implementation_retries: 0");
    env.write("config.yaml", &cfg);
    env.run(&["greenlight", "calc"]).ok();
    let started = std::time::Instant::now();
    let run = env.run(&["run", "calc", "--issue", "1"]);
    run.ok();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(240),
        "no long wait for the overloaded vendor: {:?}",
        started.elapsed()
    );
    assert_eq!(env.stage("calc", 1), "DONE", "{}", run.stderr);
    assert_eq!(env.git(&["show", "HEAD:calc/add.py"]), ADD_PY.trim_end());
    // Claude Code did call the (overloaded) Messages API, Codex the Responses API
    let calls = model.model_calls();
    assert!(
        calls.iter().any(|r| r.path == "/v1/messages"),
        "{:?}",
        calls.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
    assert!(calls.iter().any(|r| r.path.ends_with("/responses")));
    let events = env.events("calc");
    let named = |n: &str| -> Vec<serde_json::Value> {
        events.iter().filter(|e| e["event"] == n).cloned().collect()
    };
    let analyzed = named("failure_analyzed");
    assert_eq!(analyzed.len(), 1, "{analyzed:#?}");
    assert_eq!(
        (analyzed[0]["class"].as_str(), analyzed[0]["kind"].as_str()),
        (Some("infra"), Some("overloaded")),
        "{:#}",
        analyzed[0]
    );
    let fb = named("agent_fallback");
    assert_eq!(fb.len(), 1, "{fb:#?}");
    assert_eq!(
        (
            fb[0]["from"].as_str(),
            fb[0]["to"].as_str(),
            fb[0]["attempt"].as_u64()
        ),
        (Some("claude"), Some("codex"), Some(2)),
        "{:#}",
        fb[0]
    );
    assert!(
        fb[0]["reason"].as_str().unwrap().starts_with("overloaded"),
        "{:#}",
        fb[0]
    );
    let finished = named("agent_finished");
    let agents: Vec<&str> = finished
        .iter()
        .filter_map(|e| e["agent"].as_str())
        .collect();
    assert_eq!(agents, ["claude", "codex"], "{finished:#?}");
    let task = env.state("calc")["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["issue_number"] == 1)
        .cloned()
        .unwrap();
    assert_eq!(task["retries"], 0, "an overloaded vendor uses no retry");
    let audit = env.run(&["audit", "calc"]);
    assert!(
        audit
            .stdout
            .contains("fallback: attempt 2 by codex instead of claude (overloaded"),
        "{}",
        audit.stdout
    );
}
