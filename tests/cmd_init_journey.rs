//! A new user's journey on a Python project: init → the written config has the pytest
//! command and `.swarm/.gitignore` → greenlight from a subfolder finds the root → run with a
//! script agent → DONE; `git status` is clean apart from the agent's commits.

use crate::common::{Run, TestEnv};
use serde_json::json;

/// Stands in for pytest where it is not installed: the same command line
/// (`python -m pytest -q`) runs the unittest-style tests and prints pytest's summary words.
const PYTEST_SHIM: &str = r#"import sys, unittest
suite = unittest.defaultTestLoader.discover("tests", pattern="test_*.py", top_level_dir=".")
r = unittest.TextTestRunner(verbosity=0).run(suite)
failed = len(r.failures) + len(r.errors)
print(f"{r.testsRun - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
"#;

/// The agent: adds `calc/add.py` and its test (unittest style, which pytest also runs).
const AGENT: &str = r#"#!/bin/sh
cat > /dev/null
mkdir -p calc tests
printf 'def add(a, b):\n    return a + b\n' > calc/add.py
printf 'import unittest\nfrom calc.add import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n' > tests/test_add.py
echo '{"result": "ok"}'
"#;

fn has_pytest() -> bool {
    ["python", "python3"].iter().any(|p| {
        std::process::Command::new(p)
            .args(["-m", "pytest", "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn run_in(env: &TestEnv, sub: &str, args: &[&str]) -> Run {
    env.command()
        .current_dir(env.path(sub))
        .args(args)
        .output()
        .unwrap()
        .into()
}

#[test]
fn python_project_from_init_to_done() {
    let mut env = TestEnv::new();
    if !has_pytest() {
        let shim = env.tmp.path().join("shim");
        std::fs::create_dir_all(shim.join("pytest")).unwrap();
        std::fs::write(shim.join("pytest/__init__.py"), "").unwrap();
        std::fs::write(shim.join("pytest/__main__.py"), PYTEST_SHIM).unwrap();
        env.extra_env
            .push(("PYTHONPATH".into(), shim.to_string_lossy().into_owned()));
    }
    env.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
    );
    env.write("calc/__init__.py", "");
    env.write("tests/__init__.py", "");
    env.write(
        "tests/test_base.py",
        "import unittest\n\n\nclass TestBase(unittest.TestCase):\n    def test_truth(self):\n        self.assertTrue(True)\n",
    );
    env.write(".gitignore", "__pycache__/\n");
    env.git(&["add", "."]);
    env.git(&["commit", "-q", "-m", "chore: python project"]);

    // init: config.yaml with the pytest command, .swarm/.gitignore, the issues template
    let init = env.run(&["init", "calc"]);
    init.ok();
    let config = env.read("config.yaml");
    assert!(config.contains("-m pytest -q\""), "{config}");
    assert_eq!(env.read(".swarm/.gitignore"), "*\n");

    // the user names the agent and writes the issue (what the next steps say)
    let agent = env.script("agent.sh", AGENT);
    let tests_line = config
        .lines()
        .find(|l| l.contains("-m pytest -q"))
        .unwrap()
        .to_string();
    let config = format!(
        "tests:\n{tests_line}\nagents:\n  - name: coder\n    command: [\"{}\"]\n    timeout_seconds: 60\ncoordination: {{github_sync_enabled: false}}\n",
        agent.display()
    );
    env.write("config.yaml", &config);
    env.issues(
        "calc",
        json!([{"order": 1, "title": "Add function", "body": "Add calc.add(a, b).", "estimated_size": "small"}]),
    );
    env.git(&["add", "config.yaml", "specs"]);
    env.git(&["commit", "-q", "-m", "chore: swarm-attack setup"]);

    // greenlight from a subfolder finds the root
    let gl = run_in(&env, "calc", &["greenlight", "calc"]);
    gl.ok();
    assert!(gl.stdout.contains("READY"), "{}", gl.stdout);
    assert!(!env.path("calc/.swarm").exists() && !env.path("calc/specs").exists());

    let run = run_in(&env, "tests", &["run", "calc"]);
    run.ok();
    assert_eq!(
        env.stage("calc", 1),
        "DONE",
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(run.stdout.contains("DONE"), "{}", run.stdout);

    // clean apart from the agent's commit: nothing untracked or modified, .swarm/ included
    let porcelain = env.git(&["status", "--porcelain"]);
    assert_eq!(porcelain, "", "git status is not clean");
    let last = env.git(&["log", "-1", "--format=%s"]);
    assert!(last.starts_with("feat(calc): Implement issue #1"), "{last}");
    let files = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        files.contains("calc/add.py") && !files.contains(".swarm"),
        "{files}"
    );
}

#[test]
fn cargo_test_in_a_python_repository_is_warned_about_with_the_suggested_command() {
    let env = TestEnv::new();
    env.write("pyproject.toml", "[project]\nname = \"x\"\n");
    env.write("config.yaml", "tests: {command: \"cargo test\"}\n");
    env.issues("calc", json!([{"order": 1, "title": "One"}]));
    let r = env.run(&["greenlight", "calc"]);
    r.ok();
    assert!(
        r.stderr
            .contains("the test command `cargo test` needs Cargo.toml")
            && r.stderr.contains("-m pytest -q` (from pyproject.toml)"),
        "{}",
        r.stderr
    );
}
