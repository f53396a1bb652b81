//! A new user's first run: the project root is found from a subfolder, `init` writes a
//! working setup (config.yaml, .swarm/.gitignore, an issues.json template).

use crate::common::{Run, TestEnv};
use serde_json::Value;

fn run_in(env: &TestEnv, sub: &str, args: &[&str]) -> Run {
    let dir = env.path(sub);
    std::fs::create_dir_all(&dir).unwrap();
    env.command()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
        .into()
}

#[test]
fn init_in_a_subfolder_initialises_at_the_top_level_and_says_so() {
    let env = TestEnv::new();
    let r = run_in(&env, "pkg/inner", &["init", "auth"]);
    r.ok();
    assert!(
        r.stdout.contains("initialising at the project root"),
        "{}",
        r.stdout
    );
    assert!(env.path("specs/auth/issues.json").is_file());
    assert!(env.path(".swarm/state/auth.json").is_file());
    assert!(!env.path("pkg/inner/specs").exists());
    assert!(!env.path("pkg/inner/.swarm").exists());
    // every command finds the same root from the subfolder
    run_in(&env, "pkg/inner", &["greenlight", "auth"]).ok();
    let s = run_in(&env, "pkg", &["status", "auth", "--json"]);
    s.ok();
    assert_eq!(s.json()["feature"], "auth", "{}", s.stdout);
}

#[test]
fn the_nearest_folder_with_config_or_swarm_is_the_root() {
    let env = TestEnv::new();
    env.write("tools/config.yaml", "tests: {command: \"true\"}\n");
    run_in(&env, "tools/sub", &["init", "auth"]).ok();
    assert!(env.path("tools/specs/auth/issues.json").is_file());
    assert!(!env.path("specs").exists());
}

#[test]
fn init_writes_config_with_the_detected_test_command_and_a_self_ignoring_swarm_folder() {
    let env = TestEnv::new();
    env.write("pyproject.toml", "[project]\nname = \"x\"\n");
    env.git(&["add", "pyproject.toml"]);
    env.git(&["commit", "-q", "-m", "chore: python project"]);
    let r = env.run(&["init", "auth"]);
    r.ok();
    let config = env.read("config.yaml");
    assert!(config.contains(" -m pytest -q\""), "{config}");
    assert!(config.contains("detected from pyproject.toml"), "{config}");
    assert_eq!(env.read(".swarm/.gitignore"), "*\n");
    // .swarm/ ignores itself; the user's .gitignore is untouched (there is none)
    assert!(!env.path(".gitignore").exists());
    let porcelain = env.git(&["status", "--porcelain"]);
    assert!(!porcelain.contains(".swarm"), "{porcelain}");
    // the template has one example issue, manual so no agent ever picks it up
    let issues: Value = serde_json::from_str(&env.read("specs/auth/issues.json")).unwrap();
    let list = issues["issues"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["automation_type"], "manual");
    assert!(r.stdout.contains("next steps:"), "{}", r.stdout);
    assert!(
        r.stdout.contains("swarm-attack greenlight auth"),
        "{}",
        r.stdout
    );
    // a config that exists is never touched
    env.write("config.yaml", "tests: {command: \"make check\"}\n");
    env.run(&["init", "billing"]).ok();
    assert_eq!(
        env.read("config.yaml"),
        "tests: {command: \"make check\"}\n"
    );
}

#[test]
fn init_without_a_known_project_or_agent_writes_a_commented_example_and_next_step() {
    let mut env = TestEnv::new();
    // a PATH with git only: no agent CLI can be found
    let bin = path_with_git_only(&env);
    env.extra_env
        .push(("PATH".into(), bin.to_string_lossy().into_owned()));
    let r = env.run(&["init", "auth"]);
    r.ok();
    let config = env.read("config.yaml");
    assert!(config.contains("No agent CLI"), "{config}");
    assert!(config.contains("# agents:"), "{config}");
    assert!(config.contains("No test command was detected"), "{config}");
    assert!(
        r.stdout.contains("no agent CLI found on PATH"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("edit config.yaml"), "{}", r.stdout);
    // and the written config loads
    env.run(&["status", "auth"]).ok();
}

#[test]
fn init_writes_a_preset_entry_for_each_agent_cli_on_path() {
    let mut env = TestEnv::new();
    // a PATH with git and two agent CLIs (stand-ins: only their presence on PATH matters)
    let bin = path_with_git_only(&env);
    for program in ["codex", "claude"] {
        let path = bin.join(program);
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        let mut perm = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&path, perm).unwrap();
    }
    env.extra_env
        .push(("PATH".into(), bin.to_string_lossy().into_owned()));
    env.run(&["init", "auth"]).ok();
    let config = env.read("config.yaml");
    // presets, not command lines: a `command:` would make the agent `custom`, and its
    // report (cost, tokens, errors) would not be read
    assert!(
        config.contains(
            "agents:\n  - name: claude\n    preset: claude-code\n  - name: codex\n    preset: codex\n"
        ),
        "{config}"
    );
    assert!(!config.contains("command: [\"claude\""), "{config}");
    env.run(&["status", "auth"]).ok();
}

/// A `bin` folder holding only a link to git, to be used as the whole PATH.
fn path_with_git_only(env: &TestEnv) -> std::path::PathBuf {
    let bin = env.tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let git = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::os::unix::fs::symlink(git.trim(), bin.join("git")).unwrap();
    bin
}
