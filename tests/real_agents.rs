//! The REAL Claude Code and Codex CLIs (installed from npm at the versions pinned in
//! `scripts/install-test-clis.sh`, cached between runs) driven by `run` against the fake model
//! server in `fake_model`. These tests never skip: when the CLIs cannot be installed they fail
//! and say why.

use crate::common::TestEnv;
use crate::fake_model::{FakeModel, WriteRule};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The installed CLIs.
pub struct Clis {
    pub claude: PathBuf,
    pub codex: PathBuf,
}

fn pin(name: &str) -> String {
    let script = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/install-test-clis.sh"),
    )
    .unwrap();
    script
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("scripts/install-test-clis.sh pins no {name}"))
        .trim()
        .to_string()
}

/// The CLIs from `$SWARM_TEST_CLIS` (set by `.ci/run`), installed there (or in the default
/// cache) by `scripts/install-test-clis.sh` when missing. Panics with the installer's output
/// when that fails.
pub fn clis() -> &'static Clis {
    static CLIS: OnceLock<Clis> = OnceLock::new();
    CLIS.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/install-test-clis.sh");
        let out = std::process::Command::new("bash")
            .arg(&script)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "the real agent CLIs could not be installed (these tests need node and npm; CI={}):\n{}",
            std::env::var("CI").unwrap_or_default(),
            String::from_utf8_lossy(&out.stderr)
        );
        let cache = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let clis = Clis {
            claude: cache.join(format!(
                "claude-code-{}/node_modules/.bin",
                pin("CLAUDE_CODE_VERSION")
            )),
            codex: cache.join(format!("codex-{}/node_modules/.bin", pin("CODEX_VERSION"))),
        };
        assert!(clis.claude.join("claude").exists(), "{:?}", clis.claude);
        assert!(clis.codex.join("codex").exists(), "{:?}", clis.codex);
        clis
    })
}

const ADD_PY: &str = "def add(a, b):\n    return a + b\n";
const ADD_TEST: &str = "import unittest\n\nfrom calc.add import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
const SUB_PY: &str = "def sub(a, b):\n    return a - b\n";
const SUB_TEST: &str = "import unittest\n\nfrom calc.sub import sub\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n";

/// The model's script for the 2-issue project: each issue's marker makes it write the
/// implementation and its test.
pub fn python_rules() -> Vec<WriteRule> {
    vec![
        WriteRule::new("TASK-ADD", "calc/add.py", ADD_PY),
        WriteRule::new("TASK-ADD", "tests/test_add.py", ADD_TEST),
        WriteRule::new("TASK-SUB", "calc/sub.py", SUB_PY),
        WriteRule::new("TASK-SUB", "tests/test_sub.py", SUB_TEST),
    ]
}

/// A 2-issue Python project whose agent entry is `agent_yaml` (one YAML list item, indented
/// by 2), with the environment that points both CLIs at `model`.
pub fn python_project(model: &FakeModel, agent_yaml: &str) -> TestEnv {
    let clis = clis();
    let mut env = TestEnv::new();
    env.write("calc/__init__.py", "");
    env.write("tests/__init__.py", "");
    env.write("README.md", "# calc\n\nA tiny calculator.\n");
    env.write(".gitignore", ".swarm/\n__pycache__/\n");
    env.git(&["add", "-A"]);
    env.commit("chore: python skeleton");
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\nagents:\n{agent_yaml}\ntests:\n  command: \"python3 -m unittest discover -s tests -q\"\n  timeout_seconds: 120\nsessions:\n  max_implementation_retries: 1\n"
        ),
    );
    env.issues(
        "calc",
        serde_json::json!([
            {"order": 1, "title": "Addition", "body": "TASK-ADD: write calc/add.py with add(a, b) and tests/test_add.py.", "dependencies": []},
            {"order": 2, "title": "Subtraction", "body": "TASK-SUB: write calc/sub.py with sub(a, b) and tests/test_sub.py.", "dependencies": [1]}
        ]),
    );
    let codex_home = env.tmp.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{}/v1\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n",
            model.url
        ),
    )
    .unwrap();
    let path = format!(
        "{}:{}:{}",
        clis.claude.display(),
        clis.codex.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (k, v) in [
        ("PATH", path.as_str()),
        ("ANTHROPIC_BASE_URL", model.url.as_str()),
        ("ANTHROPIC_API_KEY", "sk-ant-test-fake"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_TELEMETRY", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("DISABLE_ERROR_REPORTING", "1"),
        ("OPENAI_API_KEY", "sk-openai-test-fake"),
        ("CODEX_HOME", codex_home.to_str().unwrap()),
    ] {
        env.extra_env.push((k.into(), v.into()));
    }
    env
}

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

/// The `agent_finished` events.
fn finished(env: &TestEnv) -> Vec<serde_json::Value> {
    env.events("calc")
        .into_iter()
        .filter(|e| e["event"] == "agent_finished")
        .collect()
}

#[test]
fn claude_code_preset_gets_both_issues_done_and_reports_its_cost() {
    let model = FakeModel::start(python_rules());
    let env = python_project(
        &model,
        "  - name: claude\n    preset: claude-code\n    timeout_seconds: 300",
    );
    both_issues_done(&env);
    // the prompt reaches the model byte for byte
    let prompt = env.read(".swarm/runs/calc/issue-1/attempt-1/prompt.md");
    assert!(
        model.received_prompt(&prompt),
        "the prompt did not reach the model byte for byte; user texts: {:#?}",
        model.all_user_texts()
    );
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
    let model = FakeModel::start(python_rules());
    let env = python_project(
        &model,
        "  - name: codex\n    preset: codex\n    timeout_seconds: 300",
    );
    both_issues_done(&env);
    let prompt = env.read(".swarm/runs/calc/issue-2/attempt-1/prompt.md");
    assert!(
        model.received_prompt(&prompt),
        "the prompt did not reach the model byte for byte; user texts: {:#?}",
        model.all_user_texts()
    );
    let fin = finished(&env);
    assert_eq!(fin.len(), 2, "{fin:#?}");
    for f in &fin {
        // two model calls per run (tool call, then the answer), each as the fake reports
        assert_eq!(f["tokens_in"], 2 * crate::fake_model::USAGE_IN, "{f:#}");
        assert_eq!(
            f["tokens_cached"],
            2 * crate::fake_model::USAGE_CACHED,
            "{f:#}"
        );
        assert_eq!(f["tokens_out"], 2 * crate::fake_model::USAGE_OUT, "{f:#}");
        assert!(f["cost_usd"].is_null(), "{f:#}");
        assert!(f["session_id"].is_string(), "{f:#}");
    }
    let audit = env.run(&["audit", "calc"]);
    audit.ok();
    assert!(audit.stdout.contains("cost unknown"), "{}", audit.stdout);
    assert!(!audit.stdout.contains("$0.00"), "{}", audit.stdout);
    assert!(
        audit.stdout.contains("2 agent runs reported none"),
        "{}",
        audit.stdout
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
