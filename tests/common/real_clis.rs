//! The REAL Claude Code and Codex CLIs, installed from npm at the versions pinned in
//! `scripts/install-test-clis.sh` (cached between runs), and a 2-issue Python project whose
//! environment points both CLIs at the fake model server (`fake_model`).

use super::TestEnv;
use super::fake_model::{FakeModel, WriteRule};
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
