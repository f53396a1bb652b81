//! `run` with the REAL Gemini CLI, OpenCode and aider through their presets, against the fake
//! model server (tests/common/fake_model), set up as docs/agents.md documents. For each: both
//! issues DONE with the files made in the worktree (never in the user's checkout, where `PWD`
//! points), no `.gitignore` edit or CLI scratch file committed, the prompt received and never
//! in any process's argv, tokens recorded; a 401 is `auth` and never DONE; a timeout leaves
//! no process. These tests never skip: when a CLI cannot be installed they fail and say why.

use crate::common::TestEnv;
use crate::common::argv_watch::{ArgvWatch, marked};
use crate::common::fake_model::{self, FakeModel, Mode};
use crate::common::procs::unique_marker as unique_mark;
use crate::common::real_clis::{ADD_PY, SUB_PY, python_project, python_rules};
use serde_json::Value;
use std::time::{Duration, Instant};

const GEMINI: &str = "  - name: gemini\n    preset: gemini";
const OPENCODE: &str = "  - name: opencode\n    preset: opencode";
const AIDER: &str = "  - name: aider\n    preset: aider\n    args: [--model, openai/fake-coder, --edit-format, whole]";

/// The project for `agent_yaml` (300 s timeout unless given), marked for the process scans.
fn project(model: &FakeModel, agent_yaml: &str, mark: &str) -> TestEnv {
    let yaml = if agent_yaml.contains("timeout_seconds") {
        agent_yaml.to_string()
    } else {
        format!("{agent_yaml}\n    timeout_seconds: 300")
    };
    let mut env = python_project(model, &yaml);
    env.extra_env
        .push(("SWARM_TEST_MARK".into(), mark.to_string()));
    env
}

fn finished(env: &TestEnv) -> Vec<Value> {
    env.events("calc")
        .into_iter()
        .filter(|e| e["event"] == "agent_finished")
        .collect()
}

/// Runs the project to the end and checks everything a good run must show; returns the
/// `agent_finished` events.
fn both_done(model: &FakeModel, env: &TestEnv, mark: &str, prompt_whole: bool) -> Vec<Value> {
    env.run(&["greenlight", "calc"]).ok();
    let status = env.git(&["status", "--porcelain", "-uall"]);
    let watch = ArgvWatch::start(mark, "TASK-");
    let run = env.run(&["run", "calc"]);
    let (processes, with_prompt) = watch.finish();
    assert_eq!(
        env.stage("calc", 1),
        "DONE",
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        env.stage("calc", 2),
        "DONE",
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    run.ok();
    // the agent wrote in its worktree: the commits carry the files ...
    assert_eq!(env.git(&["show", "HEAD~1:calc/add.py"]), ADD_PY.trim_end());
    assert_eq!(env.git(&["show", "HEAD:calc/sub.py"]), SUB_PY.trim_end());
    // ... and nothing landed untracked in the user's checkout (where PWD pointed)
    assert_eq!(env.git(&["status", "--porcelain", "-uall"]), status);
    // only the issues' files were committed: no .gitignore edit, no CLI history or cache
    let committed = env.git(&["log", "--format=", "--name-only", "-2"]);
    let mut files: Vec<&str> = committed.lines().filter(|l| !l.is_empty()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "calc/add.py",
            "calc/sub.py",
            "tests/test_add.py",
            "tests/test_sub.py"
        ],
        "{committed}"
    );
    // the prompt reached the model, and no process ever had it in its argv
    for n in [1, 2] {
        let prompt = env.read(&format!(".swarm/runs/calc/issue-{n}/attempt-1/prompt.md"));
        let got = if prompt_whole {
            model.received_prompt(&prompt) || model.received_prompt(prompt.trim_end())
        } else {
            model.received_prompt_within(prompt.trim_end())
        };
        assert!(
            got,
            "the prompt of #{n} did not reach the model; user texts: {:#?}",
            model.all_user_texts()
        );
    }
    assert!(processes > 0, "the argv watch saw no process of the run");
    assert!(with_prompt.is_empty(), "prompt in argv: {with_prompt:#?}");
    let fin = finished(env);
    assert_eq!(fin.len(), 2, "{fin:#?}");
    for f in &fin {
        assert!(f["tokens_in"].as_u64().unwrap_or(0) > 0, "{f:#}");
        assert!(f["tokens_out"].as_u64().unwrap_or(0) > 0, "{f:#}");
        assert_eq!(f["error_kind"], Value::Null, "{f:#}");
    }
    fin
}

/// A model API answering 401: the run ends with the issue BLOCKED (never DONE), every agent
/// run classified `auth`, the reason naming it.
fn unauthorized_is_auth(agent_yaml: &str) {
    let mark = unique_mark();
    let model = FakeModel::start_mode(python_rules(), Mode::Unauthorized);
    let env = project(&model, agent_yaml, &mark);
    env.run(&["greenlight", "calc"]).ok();
    let run = env.run(&["run", "calc"]);
    assert_ne!(env.stage("calc", 1), "DONE", "{}", run.stderr);
    assert_eq!(env.stage("calc", 1), "BLOCKED", "{}", run.stderr);
    run.code(1);
    assert!(
        !model.model_calls().is_empty(),
        "the CLI never called the model"
    );
    let fin = finished(&env);
    assert!(!fin.is_empty());
    for f in &fin {
        assert_eq!(f["error_kind"], "auth", "{f:#}");
    }
    let state = env.state("calc");
    let reason = state["tasks"][0]["blocked_reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(reason.contains("could not authenticate"), "{reason}");
    assert_eq!(
        env.git(&["log", "--format=%s"]).lines().count(),
        2,
        "nothing was committed"
    );
}

/// A model that never answers: the agent is stopped at its timeout, the run says
/// `timeout`, and none of the CLI's processes survives.
fn timeout_leaves_no_process(agent_yaml: &str) {
    let mark = unique_mark();
    let model = FakeModel::start_mode(python_rules(), Mode::Hang);
    // long enough for the CLI to start and call the model on a loaded machine (aider took
    // 43 s to its first call at a load of 16 on 2 cores, 3 s on a quiet one); one attempt
    let env = project(
        &model,
        &format!("{agent_yaml}\n    timeout_seconds: 90"),
        &mark,
    );
    let config = env.read("config.yaml").replace(
        "max_implementation_retries: 1",
        "max_implementation_retries: 0",
    );
    env.write("config.yaml", &config);
    env.run(&["greenlight", "calc"]).ok();
    let run = env.run(&["run", "calc"]);
    assert_eq!(env.stage("calc", 1), "BLOCKED", "{}", run.stderr);
    assert!(
        !model.model_calls().is_empty(),
        "the CLI never called the model; requests: {:?}\n{}\n{:#?}",
        model
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect::<Vec<_>>(),
        env.read(".swarm/runs/calc/issue-1/attempt-1/agent.stderr"),
        (
            env.events("calc"),
            run.stderr.clone(),
            env.state("calc")["tasks"][0].clone()
        )
    );
    let fin = finished(&env);
    assert!(!fin.is_empty());
    for f in &fin {
        assert_eq!(f["error_kind"], "timeout", "{f:#}");
        assert_eq!(f["timed_out"], true, "{f:#}");
    }
    let start = Instant::now();
    let mut left = marked(&mark);
    while !left.is_empty() && start.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(50));
        left = marked(&mark);
    }
    for (pid, _) in &left {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(left.is_empty(), "survivors: {left:#?}");
}

#[test]
fn gemini_preset_gets_both_issues_done_in_its_worktree() {
    let mark = unique_mark();
    let model = FakeModel::start(python_rules());
    let env = project(&model, GEMINI, &mark);
    let fin = both_done(&model, &env, &mark, true);
    for f in &fin {
        // Gemini reports tokens, not dollars
        assert!(f["cost_usd"].is_null(), "{f:#}");
        assert!(f["session_id"].is_string(), "{f:#}");
        assert!(
            f["tokens_cached"].as_u64().unwrap_or(0) >= fake_model::USAGE_CACHED,
            "{f:#}"
        );
    }
}

#[test]
fn gemini_preset_401_is_auth_and_never_done() {
    unauthorized_is_auth(GEMINI);
}

#[test]
fn gemini_preset_timeout_leaves_no_process() {
    timeout_leaves_no_process(GEMINI);
}

#[test]
fn opencode_preset_works_in_its_worktree_not_the_users_checkout() {
    let mark = unique_mark();
    let model = FakeModel::start(python_rules());
    let env = project(&model, OPENCODE, &mark);
    let fin = both_done(&model, &env, &mark, true);
    for f in &fin {
        // two model calls per run (the write, then "Done."), at the configured prices
        assert_eq!(f["tokens_in"], 2 * fake_model::USAGE_IN, "{f:#}");
        assert_eq!(f["tokens_cached"], 2 * fake_model::USAGE_CACHED, "{f:#}");
        assert_eq!(f["tokens_out"], 2 * fake_model::USAGE_OUT, "{f:#}");
        assert!(f["cost_usd"].as_f64().unwrap_or(0.0) > 0.0, "{f:#}");
        assert!(
            f["session_id"].as_str().unwrap_or("").starts_with("ses_"),
            "{f:#}"
        );
    }
}

#[test]
fn opencode_preset_401_is_auth_and_never_done() {
    unauthorized_is_auth(OPENCODE);
}

#[test]
fn opencode_preset_timeout_leaves_no_process() {
    timeout_leaves_no_process(OPENCODE);
}

#[test]
fn aider_preset_gets_both_issues_done_without_touching_gitignore() {
    let mark = unique_mark();
    let model = FakeModel::start(python_rules());
    let env = project(&model, AIDER, &mark);
    let fin = both_done(&model, &env, &mark, false);
    for f in &fin {
        // aider prices the call from the local metadata: 120 in at $1/M, 15 out at $2/M
        let cost = f["cost_usd"].as_f64().unwrap_or(0.0);
        assert!((cost - 0.00015).abs() < 1e-9, "{f:#}");
        assert_eq!(f["tokens_in"], fake_model::USAGE_IN, "{f:#}");
        assert_eq!(f["tokens_out"], fake_model::USAGE_OUT, "{f:#}");
    }
    assert_eq!(env.read(".gitignore"), ".swarm/\n__pycache__/\n");
}

#[test]
fn aider_preset_401_is_auth_and_never_done() {
    unauthorized_is_auth(AIDER);
}

#[test]
fn aider_preset_timeout_leaves_no_process() {
    timeout_leaves_no_process(AIDER);
}
