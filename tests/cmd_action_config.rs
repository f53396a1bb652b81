//! action.yml's `config` input is optional: without it (and without a config file) the
//! tool runs on every key's default instead of failing on a missing `config.yaml`.

use crate::common::action::run_step_script;
use crate::common::{Run, TestEnv, bin};
use std::path::Path;

/// Runs the step's script with bash as the Action would, with `config` and `command` inputs.
fn run_step(env: &TestEnv, config: &str, command: &str) -> Run {
    std::process::Command::new("bash")
        .current_dir(&env.root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("NO_COLOR", "1")
        .env("SWARM_CONFIG", config)
        .env("SWARM_COMMAND", command)
        .env("SWARM_RUN_AGENTS", "false")
        .args(["-c", &run_step_script()])
        .output()
        .unwrap()
        .into()
}

#[test]
fn the_config_input_is_optional_and_no_config_file_means_defaults() {
    let env = TestEnv::new();
    let action_bin = env.home.join(".swarm-attack/bin");
    std::fs::create_dir_all(&action_bin).unwrap();
    std::os::unix::fs::symlink(bin(), action_bin.join("swarm-attack")).unwrap();
    env.issues("auth", serde_json::json!([{"order": 1, "title": "One"}]));
    assert!(!env.path("config.yaml").exists());
    let yaml =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    assert!(
        yaml.contains("default: \"\""),
        "the config input has an empty default"
    );
    let out = run_step(&env, "", "greenlight auth");
    out.ok();
    assert!(out.stdout.contains("greenlight auth"), "{}", out.stdout);
    assert!(!out.stderr.contains("does not exist"), "{}", out.stderr);
    // a config named explicitly is still honoured (and must exist)
    let named = run_step(&env, "missing.yaml", "status auth");
    named.code(2);
    assert!(named.stderr.contains("missing.yaml"), "{}", named.stderr);
}
