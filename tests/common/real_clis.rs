//! The REAL Claude Code, Codex, Gemini CLI, OpenCode (npm) and aider (PyPI, in a venv) CLIs,
//! installed at the versions pinned in `scripts/install-test-clis.sh` (cached between runs),
//! and a 2-issue Python project whose environment points every CLI at the fake model server
//! (`fake_model`) — the set-ups docs/agents.md documents.

use super::TestEnv;
use super::fake_model::{FakeModel, WriteRule};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The installed CLIs.
pub struct Clis {
    pub claude: PathBuf,
    pub codex: PathBuf,
    pub gemini: PathBuf,
    pub opencode: PathBuf,
    pub aider: PathBuf,
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
            gemini: cache.join(format!(
                "gemini-cli-{}/node_modules/.bin",
                pin("GEMINI_CLI_VERSION")
            )),
            opencode: cache.join(format!(
                "opencode-{}/node_modules/.bin",
                pin("OPENCODE_VERSION")
            )),
            aider: cache.join(format!("aider-{}/bin", pin("AIDER_VERSION"))),
        };
        assert!(clis.claude.join("claude").exists(), "{:?}", clis.claude);
        assert!(clis.codex.join("codex").exists(), "{:?}", clis.codex);
        assert!(clis.gemini.join("gemini").exists(), "{:?}", clis.gemini);
        assert!(clis.opencode.join("opencode").exists(), "{:?}", clis.opencode);
        assert!(clis.aider.join("aider").exists(), "{:?}", clis.aider);
        clis
    })
}

pub const ADD_PY: &str = "def add(a, b):\n    return a + b\n";
pub const ADD_TEST: &str = "import unittest\n\nfrom calc.add import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
pub const SUB_PY: &str = "def sub(a, b):\n    return a - b\n";
pub const SUB_TEST: &str = "import unittest\n\nfrom calc.sub import sub\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n";

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

/// The OpenCode configuration (docs/agents.md) that points it at `model`'s Chat Completions:
/// an `@ai-sdk/openai-compatible` provider (bundled with OpenCode, nothing to install),
/// every permission allowed.
pub fn opencode_config(model: &FakeModel) -> String {
    serde_json::to_string_pretty(&serde_json::json!({
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/fake-coder",
        "permission": "allow",
        "autoupdate": false,
        "share": "disabled",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": format!("{}/v1", model.url), "apiKey": "{env:OPENAI_API_KEY}"},
            "models": {"fake-coder": {"name": "fake-coder",
                "cost": {"input": 1.0, "output": 2.0, "cache_read": 0.5}}}
        }}
    }))
    .unwrap()
}

/// aider's model metadata (docs/agents.md): context window and prices of the fake model,
/// read from a local file (`LITELLM_LOCAL_MODEL_COST_MAP=True`: no download).
pub const AIDER_METADATA: &str = r#"{"openai/fake-coder": {"max_input_tokens": 100000, "max_tokens": 4096, "max_output_tokens": 4096, "input_cost_per_token": 0.000001, "output_cost_per_token": 0.000002, "litellm_provider": "openai", "mode": "chat"}}"#;

/// A 2-issue Python project whose agent entry is `agent_yaml` (one YAML list item, indented
/// by 2), with the environment that points every CLI at `model`, and `PWD` set to the
/// project (as a shell does).
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
    // Gemini CLI: an API key sent to the fake, and the auth method headless mode needs
    // (without it: exit 41)
    let gemini_dir = env.home.join(".gemini");
    std::fs::create_dir_all(&gemini_dir).unwrap();
    std::fs::write(
        gemini_dir.join("settings.json"),
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#,
    )
    .unwrap();
    let opencode_json = env.tmp.path().join("opencode.json");
    std::fs::write(&opencode_json, opencode_config(model)).unwrap();
    let aider_models = env.tmp.path().join("aider-models.json");
    std::fs::write(&aider_models, AIDER_METADATA).unwrap();
    let path = format!(
        "{}:{}:{}:{}:{}:{}",
        clis.claude.display(),
        clis.codex.display(),
        clis.gemini.display(),
        clis.opencode.display(),
        clis.aider.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let v1 = format!("{}/v1", model.url);
    let root = env.root.display().to_string();
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
        ("GEMINI_API_KEY", "gemini-test-fake"),
        ("GOOGLE_GEMINI_BASE_URL", model.url.as_str()),
        ("OPENCODE_CONFIG", opencode_json.to_str().unwrap()),
        ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
        ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"),
        ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
        ("OPENCODE_DISABLE_SHARE", "1"),
        ("OPENAI_API_BASE", v1.as_str()),
        ("LITELLM_LOCAL_MODEL_COST_MAP", "True"),
        ("AIDER_MODEL_METADATA_FILE", aider_models.to_str().unwrap()),
        ("PWD", root.as_str()),
    ] {
        env.extra_env.push((k.into(), v.into()));
    }
    env
}
