//! Unit tests of config loading: every rule of docs/config.md.

use super::*;

mod values;

#[track_caller]
fn ok(text: &str) -> LoadedConfig {
    parse(text, "config.yaml").unwrap_or_else(|e| panic!("expected ok, got: {e}"))
}

/// The error message (asserting a user error, which exits 2 (crates/swarm-attack-app/src/error.rs), and one line).
#[track_caller]
fn err(text: &str) -> String {
    let e = parse(text, "config.yaml").expect_err("expected an error");
    let message = e.to_string();
    assert!(user_error(&e), "{message}");
    assert!(!message.contains('\n'), "one line: {message}");
    assert!(message.starts_with("config.yaml"), "{message}");
    message
}

/// Whether `e` is the user's to fix (every error but the bug `Unloadable`).
fn user_error(e: &ConfigError) -> bool {
    !matches!(e, ConfigError::Unloadable { .. })
}

#[test]
fn empty_text_and_comments_give_defaults() {
    let defaults = Config::default().resolved();
    assert_eq!(ok("").config, defaults);
    assert_eq!(ok("# only a comment\n").config, defaults);
    assert_eq!(ok("{}").config, defaults);
}

#[test]
fn root_example_config_yaml_is_valid_and_equals_the_defaults() {
    let text = include_str!("../../../../config.yaml");
    let loaded = parse(text, "config.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.config, Config::default().resolved());
}

#[test]
fn root_example_documents_every_key() {
    let text = include_str!("../../../../config.yaml");
    let tree = yaml::parse_tree(text).unwrap();
    fn keys(n: &yaml::Node, prefix: &str, out: &mut Vec<String>) {
        match &n.value {
            yaml::Value::Map(m) => {
                for (k, v) in m {
                    let k = k.value.key_text().unwrap();
                    let p = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix}.{k}")
                    };
                    out.push(p.clone());
                    keys(v, &p, out);
                }
            }
            yaml::Value::Seq(items) => {
                for i in items {
                    keys(i, &format!("{prefix}[]"), out);
                }
            }
            _ => {}
        }
    }
    let mut present = Vec::new();
    keys(&tree, "", &mut present);
    for (path, _) in schema_paths() {
        assert!(present.contains(&path), "config.yaml lacks `{path}`");
    }
    let doc = include_str!("../../../../docs/config.md");
    for (path, _) in schema_paths() {
        assert!(
            doc.contains(&format!("`{path}`")),
            "docs/config.md lacks `{path}`"
        );
    }
}

fn schema_paths() -> Vec<(String, &'static str)> {
    schema::all_paths()
}

#[test]
fn docs_list_every_legacy_key() {
    let doc = include_str!("../../../../docs/config.md");
    let sections: [(&str, &schema::Section); 5] = [
        ("", &schema::ROOT),
        ("tests.", &schema::TESTS),
        ("sessions.", &schema::SESSIONS),
        ("git.", &schema::GIT),
        ("github.", &schema::GITHUB),
    ];
    for (prefix, sec) in sections {
        for (k, _) in sec.legacy {
            assert!(doc.contains(&format!("`{prefix}{k}`")), "{prefix}{k}");
        }
    }
}

#[test]
fn every_key_is_read() {
    let text = r#"
repo_root: sub
specs_dir: s
swarm_dir: .sw
coordination:
  auto_sync_from_git: false
  github_sync_enabled: false
  llm_coordinator_enabled: true
  generate_summaries: false
  event_logging_enabled: false
  proposal_source: llm
  thresholds: {confidence_gap: 0.1, angle_overlap: 1, high_confidence: 0, low_confidence: 0.2, synthesis_confidence: 0.9}
  join: all
  learn: on
  learn_prior: 2
  synthesis_wait_seconds: 0
agents:
  - name: a
    command: [a, --turns, 5]
    angle: x
    covers: [rust]
    builds_on_other: true
    timeout_seconds: 7
    env_passthrough: [ANTHROPIC_API_KEY]
  - name: b
    command: [b]
llm: {command: [llm, -p], timeout_seconds: 9}
context: {max_prompt_tokens: 1}
lessons: {enabled: false, path: l.jsonl, max: 2, ttl_days: 9}
tests: {command: "make test", timeout_seconds: 3, issue_command: "pytest {test_file}"}
sessions: {max_implementation_retries: 0, stale_timeout_minutes: 2, lock_timeout_seconds: 0, max_consecutive_agent_failures: 4}
git: {base_branch: trunk, sync_refs: [HEAD, origin/trunk], done_patterns: ['(?P<feature>\w+)#(?P<issue>\d+)'], worktrees_root: wt}
github: {repo: o/r, api_url: "https://ghe.example.com/api/v3", close_on_done: false, trigger_label: go, default_feature: gh, run_agents: true, bot_login: "me[bot]", allowed_bots: [dependabot], min_write_interval_ms: 0}
"#;
    let c = ok(text).config;
    assert_eq!(c.repo_root, "sub");
    assert_eq!(c.specs_dir, "s");
    assert_eq!(c.swarm_dir, ".sw");
    assert!(!c.coordination.auto_sync_from_git);
    assert!(!c.coordination.github_sync_enabled);
    assert!(c.coordination.llm_coordinator_enabled);
    assert!(!c.coordination.generate_summaries);
    assert!(!c.coordination.event_logging_enabled);
    assert_eq!(c.coordination.proposal_source, ProposalSource::Llm);
    assert_eq!(
        c.coordination.thresholds,
        Thresholds {
            confidence_gap: 0.1,
            angle_overlap: 1.0,
            high_confidence: 0.0,
            low_confidence: 0.2,
            synthesis_confidence: 0.9
        }
    );
    assert_eq!(c.coordination.join, JoinStrategy::All);
    assert_eq!(c.coordination.synthesis_wait_seconds, 0);
    assert!(c.coordination.learn);
    assert_eq!(c.coordination.learn_prior, 2);
    assert_eq!(
        c.lessons,
        crate::core::config::LessonsConfig {
            enabled: false,
            path: "l.jsonl".into(),
            max: 2,
            ttl_days: 9
        }
    );
    assert_eq!(
        c.agents[0],
        AgentConfig {
            name: "a".into(),
            preset: Some(Preset::Custom),
            command: vec!["a".into(), "--turns".into(), "5".into()],
            args: vec![],
            angle: "x".into(),
            covers: vec!["rust".into()],
            builds_on_other: true,
            timeout_seconds: 7,
            env_passthrough: vec!["ANTHROPIC_API_KEY".into()],
            max_turns: None,
            fallback: vec![],
        }
    );
    // A declared agent does not inherit the built-in agent's angle and covers.
    assert_eq!(
        c.agents[1],
        AgentConfig {
            name: "b".into(),
            preset: Some(Preset::Custom),
            command: vec!["b".into()],
            args: vec![],
            angle: String::new(),
            covers: vec![],
            builds_on_other: false,
            timeout_seconds: 1800,
            env_passthrough: vec![],
            max_turns: None,
            fallback: vec![],
        }
    );
    assert_eq!(c.llm.command, Some(vec!["llm".into(), "-p".into()]));
    assert_eq!(c.llm.timeout_seconds, 9);
    assert_eq!(c.context.max_prompt_tokens, 1);
    assert_eq!(c.tests.command, "make test");
    assert_eq!(c.tests.timeout_seconds, 3);
    assert_eq!(c.tests.issue_command.as_deref(), Some("pytest {test_file}"));
    assert_eq!(c.sessions.max_implementation_retries, 0);
    assert_eq!(c.sessions.stale_timeout_minutes, 2);
    assert_eq!(c.sessions.lock_timeout_seconds, 0);
    assert_eq!(c.sessions.max_consecutive_agent_failures, 4);
    assert_eq!(c.git.base_branch, "trunk");
    assert_eq!(c.git.sync_refs, vec!["HEAD", "origin/trunk"]);
    assert_eq!(c.git.done_patterns.len(), 1);
    assert_eq!(c.git.worktrees_root, "wt");
    assert_eq!(c.github.repo.as_deref(), Some("o/r"));
    assert_eq!(
        c.github.api_url.as_deref(),
        Some("https://ghe.example.com/api/v3")
    );
    assert!(!c.github.close_on_done);
    assert_eq!(c.github.trigger_label, "go");
    assert_eq!(c.github.default_feature, "gh");
    assert!(c.github.run_agents);
    assert_eq!(c.github.bot_login, "me[bot]");
    assert_eq!(c.github.allowed_bots, vec!["dependabot"]);
    assert_eq!(c.github.min_write_interval_ms, 0);
}

#[test]
fn partial_sections_keep_the_other_defaults() {
    let c =
        ok("coordination:\n  thresholds:\n    confidence_gap: 0.4\ntests: {timeout_seconds: 5}\n")
            .config;
    assert_eq!(c.coordination.thresholds.confidence_gap, 0.4);
    assert_eq!(c.coordination.thresholds.angle_overlap, 0.5);
    assert!(c.coordination.auto_sync_from_git);
    assert_eq!(c.tests.command, "cargo test");
    assert_eq!(c.agents, Config::default().resolved().agents);
}

#[test]
fn empty_values_mean_the_default() {
    let c = ok("coordination:\n  # all commented out\ntests:\n  timeout_seconds:\nagents:\nllm: {command: null}\n").config;
    assert_eq!(c, Config::default().resolved());
}

#[test]
fn unknown_nested_key_names_path_line_and_suggestion() {
    let m = err("coordination:\n  join: first\n  thresholds:\n    confidence_gapp: 0.3\n");
    assert_eq!(
        m,
        "config.yaml:4: unknown key `coordination.thresholds.confidence_gapp`; did you mean `confidence_gap`?"
    );
}

#[test]
fn unknown_agent_key_names_the_index() {
    let m = err(
        "agents:\n  - name: a\n    command: [a]\n  - name: b\n    command: [b]\n    angel: x\n",
    );
    assert_eq!(
        m,
        "config.yaml:6: unknown key `agents[1].angel`; did you mean `angle`?"
    );
}

#[test]
fn unknown_top_level_key() {
    assert_eq!(
        err("agent:\n  - name: a\n"),
        "config.yaml:1: unknown key `agent`; did you mean `agents`?"
    );
    let m = err("zzz: 1\n");
    assert!(
        m.starts_with(
            "config.yaml:1: unknown key `zzz`; the keys at the top level are `repo_root`"
        ),
        "{m}"
    );
}

#[test]
fn key_in_the_wrong_section_suggests_its_full_path() {
    assert_eq!(
        err("coordination:\n  confidence_gap: 0.3\n"),
        "config.yaml:2: unknown key `coordination.confidence_gap`; did you mean `coordination.thresholds.confidence_gap`?"
    );
    assert_eq!(
        err("timeout_seconds: 3\n"),
        "config.yaml:1: unknown key `timeout_seconds`; did you mean `agents[].timeout_seconds`?"
    );
}

#[test]
fn legacy_keys_warn_and_are_ignored() {
    let l = ok(
        "claude:\n  binary: claude\n  max_turns: 6\ncodex: {timeout_seconds: 900}\nspec_debate: {max_rounds: 3}\ndebate_retry: {}\nretry: {}\npreflight: {}\nbug_bash: {}\nchief_of_staff: {}\nauto_fix: {}\n\
         tests:\n  command: pytest\n  args: [-x]\ngit:\n  use_worktrees: true\n  feature_branch_pattern: f/{x}\nsessions:\n  max_concurrent_sessions: 2\ngithub:\n  repo: o/r\n  token_env_var: GITHUB_TOKEN\n",
    );
    assert_eq!(l.config.tests.command, "pytest");
    assert_eq!(l.config.github.repo.as_deref(), Some("o/r"));
    assert_eq!(l.warnings.len(), 14, "{:#?}", l.warnings);
    assert_eq!(
        l.warnings[0],
        "config.yaml:1: `claude` is a setting of the original swarm-attack and is not used by this tool; it is ignored (configure agents in `agents`)"
    );
    assert!(
        l.warnings
            .iter()
            .any(|w| w.starts_with("config.yaml:14: `tests.args` "))
    );
    assert!(l.warnings.iter().any(|w| w.contains("`git.use_worktrees`")));
    assert!(
        l.warnings
            .iter()
            .any(|w| w.contains("`git.feature_branch_pattern`"))
    );
    assert!(
        l.warnings
            .iter()
            .any(|w| w.contains("`sessions.max_concurrent_sessions`"))
    );
    assert!(
        l.warnings
            .iter()
            .any(|w| w.contains("`github.token_env_var`"))
    );
}

#[test]
fn legacy_key_in_the_wrong_place_is_unknown() {
    let m = err("tests:\n  use_worktrees: true\n");
    assert!(m.contains("unknown key `tests.use_worktrees`"), "{m}");
}

#[test]
fn yaml_syntax_errors_have_file_line_and_column() {
    let m = err("agents:\n  - name: a\n    command: [a, b\ntests: {}\n");
    assert!(m.starts_with("config.yaml:4:"), "{m}");
    assert!(m.contains(": invalid YAML: "), "{m}");
    let m = err("a: 1\na: 2\n");
    assert_eq!(m, "config.yaml:2:1: invalid YAML: duplicate key `a`");
}

#[test]
fn values_are_not_echoed() {
    // A string in the wrong place is described, not printed.
    let m = err("github: {repo: [s3cr3t-value]}");
    assert!(!m.contains("s3cr3t"), "{m}");
    let m = err("tests: {timeout_seconds: s3cr3t-value}");
    assert!(!m.contains("s3cr3t"), "{m}");
    let m = err("git: {sync_refs: ['-s3cr3t']}");
    assert!(!m.contains("s3cr3t"), "{m}");
}

#[test]
fn load_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("config.yaml");
    assert_eq!(
        load(&p, false).unwrap().config,
        Config::default().resolved()
    );
    let e = load(&p, true).unwrap_err();
    assert!(user_error(&e), "{e}");
    assert!(e.to_string().contains("does not exist"), "{e}");
}

#[test]
fn load_names_the_file_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("other.yaml");
    std::fs::write(&p, "zzz: 1\n").unwrap();
    let e = load(&p, true).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}:1: unknown key `zzz`", p.display())),
        "{e}"
    );
}

#[test]
fn yaml_1_1_booleans_and_a_byte_order_mark_are_accepted() {
    let c = ok("\u{feff}github: {close_on_done: no, run_agents: on}\ncoordination: {generate_summaries: False}\n").config;
    assert!(!c.github.close_on_done);
    assert!(c.github.run_agents);
    assert!(!c.coordination.generate_summaries);
}

#[test]
fn presets_resolve_to_headless_command_lines() {
    let c = ok("agents:\n  - name: c\n    preset: claude-code\n    args: [--model, sonnet]\n  - name: x\n    preset: codex\n    args: [-m, o4]\n    angle: mine\n  - name: k\n    command: [codex, exec, \"-\"]\ntests:\n  command: \"python3 -m pytest -q\"\n  issue_command: \"python3 -m pytest {test_file}\"\n").config;
    let c0 = &c.agents[0];
    assert_eq!(c0.preset, Some(Preset::ClaudeCode));
    assert_eq!(
        c0.command,
        [
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "Bash(python3 -m pytest -q:*)",
            "Bash(python3 -m pytest:*)",
            "--model",
            "sonnet"
        ]
    );
    assert_eq!(c0.angle, "implementation and tests");
    let c1 = &c.agents[1];
    assert_eq!(
        c1.command,
        [
            "codex",
            "exec",
            "--json",
            "--sandbox",
            "workspace-write",
            "--skip-git-repo-check",
            "-m",
            "o4",
            "-"
        ]
    );
    assert_eq!(c1.angle, "mine");
    assert!(!c1.covers.is_empty());
    // a custom command that runs a known CLI is kept as given, parsed as that CLI
    assert_eq!(c.agents[2].command, ["codex", "exec", "-"]);
    assert_eq!(c.agents[2].preset, Some(Preset::Codex));
    assert_eq!(c.agents[2].angle, "");
    // the built-in agent is the claude-code preset
    let d = ok("tests: {command: make test}\n").config;
    assert_eq!(d.agents[0].preset, Some(Preset::ClaudeCode));
    assert!(
        d.agents[0]
            .command
            .contains(&"Bash(make test:*)".to_string())
    );
}

#[test]
fn governor_max_backoff_minutes_is_a_number_with_a_default() {
    assert_eq!(ok("").config.governor.max_backoff_minutes, 30.0);
    let c = ok("governor:\n  max_backoff_minutes: 0.5\n").config;
    assert_eq!(c.governor.max_backoff_minutes, 0.5);
    assert!(err("governor:\n  max_backoff_minutes: -1\n").contains("governor.max_backoff_minutes"));
    assert_eq!(
        err("governor:\n  max_backof_minutes: 1\n"),
        "config.yaml:2: unknown key `governor.max_backof_minutes`; did you mean `max_backoff_minutes`?"
    );
}
