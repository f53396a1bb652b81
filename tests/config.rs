//! config.yaml through the binary: strict errors (exit 2, one `error:` line naming the key,
//! nothing written), legacy keys warned about, `--config` honoured, the root example valid.

use crate::common::fixtures::chain;
use crate::common::output::input_error;
use crate::common::{Run, TestEnv, snapshot_files};
use serde_json::json;

/// Exit 2, exactly one `error:` line on stderr, and that line is `error: <expected>`.
#[track_caller]
fn assert_config_error(run: &Run, expected: &str) {
    run.code(2);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "stderr:\n{}", run.stderr);
    assert_eq!(
        errors[0],
        format!("error: {expected}"),
        "stderr:\n{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "stdout:\n{}", run.stdout);
}

/// A repository with a greenlit feature, so that a command that ran would write state.
fn env_with_feature() -> TestEnv {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    // A new issue: a greenlight that ran would change the state.
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]},{"order":3,"title":"c"}]),
    );
    env
}

/// Writes `config.yaml`, runs `args`, asserts the error and that no file changed.
#[track_caller]
fn bad_config(yaml: &str, args: &[&str], expected: &str) {
    let env = env_with_feature();
    env.write("config.yaml", yaml);
    let before = snapshot_files(&env.root);
    let run = env.run(args);
    assert_config_error(&run, expected);
    assert_eq!(before, snapshot_files(&env.root), "files changed");
}

#[test]
fn unknown_nested_key_is_named_with_line_and_suggestion() {
    bad_config(
        "coordination:\n  join: first\n  thresholds:\n    confidence_gapp: 0.3\n",
        &["greenlight", "auth"],
        "config.yaml:4: unknown key `coordination.thresholds.confidence_gapp`; did you mean `confidence_gap`?",
    );
}

#[test]
fn unknown_agent_key_names_the_agent_index() {
    bad_config(
        "agents:\n  - name: claude\n    command: [claude, -p]\n  - name: codex\n    command: [codex, exec]\n    angel: review\n",
        &["status"],
        "config.yaml:6: unknown key `agents[1].angel`; did you mean `angle`?",
    );
}

#[test]
fn unknown_top_level_key_is_an_error() {
    bad_config(
        "tets:\n  command: pytest\n",
        &["status", "auth"],
        "config.yaml:1: unknown key `tets`; did you mean `tests`?",
    );
}

#[test]
fn negative_timeout_names_the_key() {
    bad_config(
        "agents:\n  - name: claude\n    command: [claude]\n    timeout_seconds: -5\n",
        &["greenlight", "auth"],
        "config.yaml:4: `agents[0].timeout_seconds` must be a whole number of seconds ≥ 1, not -5",
    );
}

#[test]
fn threshold_outside_zero_one_names_the_key() {
    bad_config(
        "coordination:\n  thresholds: {confidence_gap: 1.3}\n",
        &["status"],
        "config.yaml:2: `coordination.thresholds.confidence_gap` must be a number from 0 to 1, not 1.3",
    );
}

#[test]
fn wrong_type_names_the_key_and_expected_type() {
    bad_config(
        "agents: \"x\"\n",
        &["status"],
        "config.yaml:1: `agents` must be a list of agents (each a mapping with `name`, `preset` or `command`, ...), not a string",
    );
}

#[test]
fn duplicate_agent_names_name_both_indexes() {
    bad_config(
        "agents:\n  - {name: claude, command: [claude]}\n  - {name: claude, command: [other]}\n",
        &["greenlight", "auth"],
        "config.yaml:3: `agents[1].name` repeats the name `claude` of `agents[0]`; agent names must be unique",
    );
}

#[test]
fn empty_agent_list_is_an_error_with_a_hint() {
    let env = env_with_feature();
    env.write("config.yaml", "agents: []\n");
    let run = env.run(&["status"]);
    assert_config_error(
        &run,
        "config.yaml:1: `agents` is empty; a swarm needs at least one agent",
    );
    assert!(run.stderr.contains("\nhint: "), "{}", run.stderr);
}

#[test]
fn llm_proposals_without_llm_command_name_both_keys() {
    bad_config(
        "coordination:\n  proposal_source: llm\n",
        &["status"],
        "config.yaml:2: `coordination.proposal_source` is `llm` but `llm.command` is not set; set `llm.command` or use `proposal_source: heuristic`",
    );
}

#[test]
fn invalid_done_pattern_names_the_index() {
    bad_config(
        "git:\n  done_patterns: ['done #(?P<issue>\\d+)']\n",
        &["status"],
        "config.yaml:2: `git.done_patterns[0]` lacks the named group `(?P<feature>...)`; a done pattern must capture `feature` and `issue`",
    );
}

#[test]
fn yaml_syntax_error_names_file_line_and_column() {
    let env = env_with_feature();
    env.write(
        "config.yaml",
        "tests:\n  command: cargo test\n   timeout_seconds: 5\n",
    );
    let before = snapshot_files(&env.root);
    let run = env.run(&["greenlight", "auth"]);
    run.code(2);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    assert!(
        errors[0].starts_with("error: config.yaml:3:") && errors[0].contains(": invalid YAML: "),
        "{}",
        run.stderr
    );
    assert_eq!(before, snapshot_files(&env.root));
}

#[test]
fn legacy_keys_of_the_original_tool_warn_and_work() {
    let env = env_with_feature();
    env.write(
        "config.yaml",
        "repo_root: \".\"\ngithub:\n  repo: octo/repo\n  token_env_var: GITHUB_TOKEN\nclaude:\n  binary: claude\n  max_turns: 6\ncodex:\n  timeout_seconds: 900\ndebate_retry:\n  max_retries: 3\nspec_debate:\n  max_rounds: 3\ntests:\n  command: pytest\n  args: [-x]\ngit:\n  base_branch: main\n  use_worktrees: true\n",
    );
    let run = env.run(&["greenlight", "auth"]);
    run.ok();
    assert!(!run.stderr.contains("error:"), "{}", run.stderr);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    for key in [
        "github.token_env_var",
        "claude",
        "codex",
        "debate_retry",
        "spec_debate",
        "tests.args",
        "git.use_worktrees",
    ] {
        assert!(
            warnings.iter().any(|w| w.contains(&format!(
                "`{key}` is a setting of the original swarm-attack"
            ))),
            "no warning for {key}:\n{}",
            run.stderr
        );
    }
    assert_eq!(warnings.len(), 7, "{}", run.stderr);
    assert_eq!(env.stage("auth", 3), "READY");
}

#[test]
fn explicit_config_file_is_honoured() {
    let env = TestEnv::new();
    // The default file is broken; --config names a good one, which is used.
    env.write("config.yaml", "zzz: 1\n");
    env.write("other.yaml", "specs_dir: plans\n");
    env.run(&["--config", "other.yaml", "init", "auth"]).ok();
    assert!(env.path("plans/auth/issues.json").exists());
    assert!(!env.path("specs/auth/issues.json").exists());
    // And errors name the file that was given.
    env.write("bad.yaml", "sessions:\n  lock_timeout_seconds: -1\n");
    let run = env.run(&["status", "--config", "bad.yaml"]);
    assert_config_error(
        &run,
        "bad.yaml:2: `sessions.lock_timeout_seconds` must be a whole number of seconds ≥ 0, not -1",
    );
}

#[test]
fn explicit_config_file_that_is_missing_is_an_error() {
    let env = TestEnv::new();
    let run = env.run(&["--config", "missing.yaml", "status"]);
    assert_config_error(&run, "config file missing.yaml does not exist");
}

#[test]
fn missing_default_config_means_defaults() {
    let env = TestEnv::new();
    let run = env.run(&["status"]);
    run.ok();
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn root_example_config_yaml_loads_without_warnings() {
    let env = env_with_feature();
    env.write("config.yaml", include_str!("../config.yaml"));
    let run = env.run(&["greenlight", "auth"]);
    run.ok();
    assert!(
        !run.stderr.contains("warning:") && !run.stderr.contains("error:"),
        "{}",
        run.stderr
    );
    assert_eq!(env.stage("auth", 3), "READY");
}

#[test]
fn every_documented_config_key_is_accepted_without_a_warning() {
    let env = TestEnv::new();
    chain(&env);
    env.write(
        "config.yaml",
        r#"repo_root: "."
specs_dir: "specs"
swarm_dir: ".swarm"
coordination:
  auto_sync_from_git: true
  github_sync_enabled: true
  llm_coordinator_enabled: false
  generate_summaries: true
  event_logging_enabled: true
  proposal_source: heuristic   # heuristic | llm
  thresholds: {confidence_gap: 0.30, angle_overlap: 0.50, high_confidence: 0.50,
               low_confidence: 0.30, synthesis_confidence: 0.70}
  join: first                  # first | all
  synthesis_wait_seconds: 15
agents:                        # the swarm; order matters only for fail-open
  - name: claude
    command: ["claude", "-p", "--output-format", "json"]
    angle: "implementation and tests"
    covers: ["rust", "api", "tests"]
    builds_on_other: false
    timeout_seconds: 1800
    env_passthrough: []
llm:
  command: null                # e.g. ["claude", "-p", "--model", "haiku"]; summaries, proposals
context: {max_prompt_tokens: 15000}
tests: {command: "cargo test", timeout_seconds: 600, issue_command: "cargo test {test_file}"}
sessions: {max_implementation_retries: 3, stale_timeout_minutes: 30, lock_timeout_seconds: 30}
git: {base_branch: main, sync_refs: ["HEAD"], done_patterns: [], worktrees_root: ".swarm/worktrees"}
github: {repo: null, api_url: null, close_on_done: true, trigger_label: swarm,
         default_feature: github, run_agents: false, bot_login: "github-actions[bot]",
         allowed_bots: [], min_write_interval_ms: 1000}
"#,
    );
    for args in [
        &["status", "auth"][..],
        &["greenlight", "auth"],
        &["status"],
    ] {
        let r = env.run(args);
        r.ok();
        assert!(
            !r.stderr.contains("warning:") && !r.stderr.contains("error:"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn original_top_level_keys_warn_naming_each_key() {
    let env = TestEnv::new();
    chain(&env);
    env.write(
        "config.yaml",
        "retry:\n  max: 3\npreflight:\n  enabled: true\nbug_bash: {x: 1}\nchief_of_staff:\n  budget: 5\nauto_fix: {enabled: true}\n",
    );
    let r = env.run(&["status", "auth"]);
    r.ok();
    for key in [
        "retry",
        "preflight",
        "bug_bash",
        "chief_of_staff",
        "auto_fix",
    ] {
        assert!(
            r.stderr
                .lines()
                .any(|l| l.starts_with("warning:") && l.contains(&format!("`{key}`"))),
            "{key}: {}",
            r.stderr
        );
    }
    assert!(!r.stderr.contains("error:"), "{}", r.stderr);
}

#[test]
fn unknown_keys_in_every_section_name_the_key_and_the_nearest_valid_one() {
    let env = TestEnv::new();
    chain(&env);
    for (yaml, key, near) in [
        ("swarm_dri: x\n", "swarm_dri", "swarm_dir"),
        ("githb:\n  repo: a/b\n", "githb", "github"),
        (
            "coordination:\n  auto_sync_from_gti: true\n",
            "coordination.auto_sync_from_gti",
            "auto_sync_from_git",
        ),
        ("git:\n  sync_ref: [HEAD]\n", "git.sync_ref", "sync_refs"),
        (
            "sessions:\n  lock_timeout_second: 3\n",
            "sessions.lock_timeout_second",
            "lock_timeout_seconds",
        ),
        (
            "github:\n  min_write_interval: 0\n",
            "github.min_write_interval",
            "min_write_interval_ms",
        ),
        (
            "context:\n  max_prompt_token: 10\n",
            "context.max_prompt_token",
            "max_prompt_tokens",
        ),
        ("tests:\n  comand: make\n", "tests.comand", "command"),
    ] {
        env.write("config.yaml", yaml);
        let before = snapshot_files(&env.root);
        let r = env.run(&["greenlight", "auth"]);
        input_error(
            &r,
            &["config.yaml", &format!("`{key}`"), &format!("`{near}`")],
        );
        assert_eq!(before, snapshot_files(&env.root), "{yaml}");
    }
}

#[test]
fn repo_root_must_be_a_directory_and_is_used_as_the_project_root() {
    let env = TestEnv::new();
    env.write("config.yaml", "repo_root: nowhere\n");
    let before = snapshot_files(&env.root);
    let r = env.run(&["init", "auth"]);
    input_error(
        &r,
        &["config.yaml", "`repo_root`", "nowhere", "not a directory"],
    );
    assert_eq!(before, snapshot_files(&env.root));
    std::fs::create_dir_all(env.path("app")).unwrap();
    env.write("config.yaml", "repo_root: app\n");
    env.run(&["init", "auth"]).ok();
    assert!(env.path("app/specs/auth/issues.json").exists());
    assert!(env.path("app/.swarm/state/auth.json").exists());
    assert!(!env.path("specs").exists());
}
