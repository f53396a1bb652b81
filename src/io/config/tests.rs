//! Unit tests of config loading: every rule of docs/config.md.

use super::*;
use crate::error::ErrorKind;

#[track_caller]
fn ok(text: &str) -> LoadedConfig {
    parse(text, "config.yaml").unwrap_or_else(|e| panic!("expected ok, got: {}", e.message))
}

/// The error message (asserting exit 2 and one line).
#[track_caller]
fn err(text: &str) -> String {
    let e = parse(text, "config.yaml").expect_err("expected an error");
    assert_eq!(e.kind, ErrorKind::Input, "{}", e.message);
    assert!(!e.message.contains('\n'), "one line: {}", e.message);
    assert!(e.message.starts_with("config.yaml"), "{}", e.message);
    e.message
}

#[test]
fn empty_text_and_comments_give_defaults() {
    assert_eq!(ok("").config, Config::default());
    assert_eq!(ok("# only a comment\n").config, Config::default());
    assert_eq!(ok("{}").config, Config::default());
}

#[test]
fn root_example_config_yaml_is_valid_and_equals_the_defaults() {
    let text = include_str!("../../../config.yaml");
    let loaded = parse(text, "config.yaml").unwrap_or_else(|e| panic!("{}", e.message));
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.config, Config::default());
}

#[test]
fn root_example_documents_every_key() {
    let text = include_str!("../../../config.yaml");
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
    let doc = include_str!("../../../docs/config.md");
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
    let doc = include_str!("../../../docs/config.md");
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
    assert_eq!(
        c.agents[0],
        AgentConfig {
            name: "a".into(),
            command: vec!["a".into(), "--turns".into(), "5".into()],
            angle: "x".into(),
            covers: vec!["rust".into()],
            builds_on_other: true,
            timeout_seconds: 7,
            env_passthrough: vec!["ANTHROPIC_API_KEY".into()],
        }
    );
    // A declared agent does not inherit the built-in agent's angle and covers.
    assert_eq!(
        c.agents[1],
        AgentConfig {
            name: "b".into(),
            command: vec!["b".into()],
            angle: String::new(),
            covers: vec![],
            builds_on_other: false,
            timeout_seconds: 1800,
            env_passthrough: vec![],
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
    assert_eq!(c.agents, vec![AgentConfig::default()]);
}

#[test]
fn empty_values_mean_the_default() {
    let c = ok("coordination:\n  # all commented out\ntests:\n  timeout_seconds:\nagents:\nllm: {command: null}\n").config;
    assert_eq!(c, Config::default());
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
fn thresholds_outside_zero_one() {
    assert_eq!(
        err("coordination:\n  thresholds:\n    angle_overlap: 1.5\n"),
        "config.yaml:3: `coordination.thresholds.angle_overlap` must be a number from 0 to 1, not 1.5"
    );
    assert!(err("coordination: {thresholds: {low_confidence: -0.1}}").contains("not -0.1"));
    assert!(err("coordination: {thresholds: {high_confidence: 2}}").contains("not 2"));
    let m = err("coordination: {thresholds: {high_confidence: '0.5'}}");
    assert!(
        m.contains("must be a number from 0 to 1, not a string"),
        "{m}"
    );
    let m = err("coordination: {thresholds: {high_confidence: .nan}}");
    assert!(m.starts_with("config.yaml:1: `coordination.thresholds.high_confidence` must be a number from 0 to 1, not NaN"), "{m}");
    let m = err("tests: {timeout_seconds: .inf}");
    assert!(
        m.contains("`tests.timeout_seconds` must be a whole number of seconds ≥ 1 and at most"),
        "{m}"
    );
}

#[test]
fn negative_timeout_names_the_agent_key() {
    assert_eq!(
        err("agents:\n  - name: a\n    command: [a]\n    timeout_seconds: -5\n"),
        "config.yaml:4: `agents[0].timeout_seconds` must be a whole number of seconds ≥ 1, not -5"
    );
}

#[test]
fn zero_and_fractional_and_textual_timeouts() {
    let m = err("tests: {timeout_seconds: 0}");
    assert!(
        m.contains("`tests.timeout_seconds` must be a whole number of seconds ≥ 1, not 0"),
        "{m}"
    );
    let m = err("llm: {timeout_seconds: 1.5}");
    assert!(
        m.contains("`llm.timeout_seconds` must be a whole number of seconds ≥ 1, not 1.5"),
        "{m}"
    );
    let m = err("sessions: {lock_timeout_seconds: \"30\"}");
    assert!(
        m.contains(
            "`sessions.lock_timeout_seconds` must be a whole number of seconds ≥ 0, not a string"
        ),
        "{m}"
    );
    let m = err("coordination: {synthesis_wait_seconds: -1}");
    assert!(m.contains("`coordination.synthesis_wait_seconds`"), "{m}");
    let m = err("sessions: {stale_timeout_minutes: 0}");
    assert!(
        m.contains("`sessions.stale_timeout_minutes` must be a whole number of minutes ≥ 1"),
        "{m}"
    );
    let m = err("sessions: {max_implementation_retries: -1}");
    assert!(
        m.contains("`sessions.max_implementation_retries` must be a whole number ≥ 0, not -1"),
        "{m}"
    );
    let m = err("sessions: {max_consecutive_agent_failures: 0}");
    assert!(
        m.contains("`sessions.max_consecutive_agent_failures`"),
        "{m}"
    );
    let m = err("github: {min_write_interval_ms: -1}");
    assert!(
        m.contains("`github.min_write_interval_ms` must be a whole number of milliseconds ≥ 0"),
        "{m}"
    );
    let m = err("agents: [{name: a, command: [a], timeout_seconds: 99999999999999999999}]");
    assert!(m.contains("at most"), "{m}");
    // Zero is fine where it means "do not wait".
    let c = ok("sessions: {lock_timeout_seconds: 0}\ncoordination: {synthesis_wait_seconds: 0}\ngithub: {min_write_interval_ms: 0}\n").config;
    assert_eq!(c.sessions.lock_timeout_seconds, 0);
}

#[test]
fn max_prompt_tokens_zero() {
    assert_eq!(
        err("context:\n  max_prompt_tokens: 0\n"),
        "config.yaml:2: `context.max_prompt_tokens` must be a whole number ≥ 1, not 0"
    );
}

#[test]
fn enums_name_the_choices_and_suggest() {
    assert_eq!(
        err("coordination:\n  proposal_source: hueristic\n"),
        "config.yaml:2: `coordination.proposal_source` must be `heuristic` or `llm`, not `hueristic`; did you mean `heuristic`?"
    );
    assert_eq!(
        err("coordination: {join: any}"),
        "config.yaml:1: `coordination.join` must be `first` or `all`, not `any`"
    );
    let m = err("coordination: {join: 1}");
    assert!(
        m.contains("`coordination.join` must be `first` or `all`, not 1"),
        "{m}"
    );
}

#[test]
fn duplicate_agent_names_name_both_indexes() {
    assert_eq!(
        err(
            "agents:\n  - {name: a, command: [a]}\n  - {name: b, command: [b]}\n  - {name: a, command: [c]}\n"
        ),
        "config.yaml:4: `agents[2].name` repeats the name `a` of `agents[0]`; agent names must be unique"
    );
}

#[test]
fn agent_command_and_name_rules() {
    let m = err("agents:\n  - name: a\n    command: []\n");
    assert!(
        m.starts_with("config.yaml:3: `agents[0].command` is an empty list"),
        "{m}"
    );
    let m = err("agents:\n  - name: a\n    command: [\"\", x]\n");
    assert!(
        m.contains("`agents[0].command[0]` (the program to run) must not be empty"),
        "{m}"
    );
    let m = err("agents:\n  - name: a\n    command: claude -p\n");
    assert!(m.contains("`agents[0].command` must be a list of strings (the program and its arguments), not a string; write"), "{m}");
    let m = err("agents:\n  - name: ''\n    command: [a]\n");
    assert!(m.contains("`agents[0].name` must not be empty"), "{m}");
    let m = err("agents:\n  - name: ../evil\n    command: [a]\n");
    assert!(m.contains("`agents[0].name` must be 1–64 letters"), "{m}");
    let m = err("agents:\n  - command: [a]\n");
    assert_eq!(
        m,
        "config.yaml:2: `agents[0]` has no `name`; every agent needs `name` and `command`"
    );
    let m = err("agents:\n  - name: a\n");
    assert!(m.contains("`agents[0]` has no `command`"), "{m}");
    let m = err("agents:\n  - name: a\n    command: [a]\n    env_passthrough: [MY-TOKEN]\n");
    assert!(
        m.contains("`agents[0].env_passthrough[0]` must be an environment variable name"),
        "{m}"
    );
    let m = err("agents:\n  - name: a\n    command: [a]\n    covers: rust\n");
    assert!(
        m.contains("`agents[0].covers` must be a list of strings, not a string"),
        "{m}"
    );
    let m = err("agents:\n  - name: a\n    command: [a]\n    builds_on_other: maybe\n");
    assert!(
        m.contains("`agents[0].builds_on_other` must be `true` or `false`, not a string"),
        "{m}"
    );
}

#[test]
fn no_agents_is_an_error() {
    let e = parse("agents: []\n", "config.yaml").unwrap_err();
    assert_eq!(
        e.message,
        "config.yaml:1: `agents` is empty; a swarm needs at least one agent"
    );
    assert!(e.hint.is_some());
}

#[test]
fn wrong_types_name_the_key_and_expected_type() {
    assert_eq!(
        err("agents: \"x\"\n"),
        "config.yaml:1: `agents` must be a list of agents (each a mapping with `name`, `command`, ...), not a string"
    );
    assert!(err("agents: [x]").contains("`agents[0]` must be a mapping"));
    assert_eq!(
        err("tests: 5\n"),
        "config.yaml:1: `tests` must be a mapping of keys, not 5"
    );
    assert!(
        err("git: {sync_refs: HEAD}")
            .contains("`git.sync_refs` must be a list of strings, not a string")
    );
    assert!(err("git: {sync_refs: [1]}").contains("`git.sync_refs[0]` must be a string, not 1"));
    assert!(err("tests: {command: [cargo, test]}").contains("write the command as one string"));
    assert!(
        err("github: {close_on_done: 1}")
            .contains("`github.close_on_done` must be `true` or `false`, not 1")
    );
    assert!(
        err("- a\n- b\n")
            .contains("the configuration must be a mapping of keys such as `agents:`, not a list")
    );
    assert!(err("just text\n").contains("not a string"));
    assert_eq!(
        err("tests:\n  ? [a, b]\n  : 1\n"),
        "config.yaml:2: a key in `tests` is a list; keys must be plain names"
    );
}

#[test]
fn llm_rules() {
    let m = err("llm:\n  command: []\n");
    assert!(
        m.starts_with("config.yaml:2: `llm.command` is an empty list"),
        "{m}"
    );
    assert_eq!(
        err("coordination:\n  proposal_source: llm\n"),
        "config.yaml:2: `coordination.proposal_source` is `llm` but `llm.command` is not set; set `llm.command` or use `proposal_source: heuristic`"
    );
    let c = ok("coordination: {proposal_source: llm}\nllm: {command: [x]}\n").config;
    assert_eq!(c.coordination.proposal_source, ProposalSource::Llm);
}

#[test]
fn git_rules() {
    let m = err("git:\n  sync_refs: []\n");
    assert_eq!(
        m,
        "config.yaml:2: `git.sync_refs` must list at least 1 entry, not none"
    );
    let m = err(
        "git:\n  done_patterns:\n    - '(?P<feature>\\w+)#(?P<issue>\\d+)'\n    - '(?P<feature>x'\n",
    );
    assert!(
        m.starts_with("config.yaml:4: `git.done_patterns[1]` is not a valid regular expression: "),
        "{m}"
    );
    let m = err("git:\n  done_patterns: ['done #(\\d+)']\n");
    assert!(
        m.contains(
            "`git.done_patterns[0]` lacks the named group `(?P<feature>...)` and `(?P<issue>...)`"
        ),
        "{m}"
    );
    let m = err("git: {base_branch: '--force'}");
    assert!(
        m.contains("`git.base_branch` must be a git ref name"),
        "{m}"
    );
    let m = err("git: {sync_refs: ['HEAD', '']}");
    assert!(m.contains("`git.sync_refs[1]` must not be empty"), "{m}");
    let m = err("git: {worktrees_root: ''}");
    assert!(m.contains("`git.worktrees_root` must not be empty"), "{m}");
}

#[test]
fn github_rules() {
    assert_eq!(
        err("github:\n  repo: octo\n"),
        "config.yaml:2: `github.repo` must be `owner/name`, e.g. `octo-org/octo-repo`"
    );
    assert!(
        err("github: {api_url: api.github.com}")
            .contains("`github.api_url` must be an http:// or https:// URL")
    );
    assert!(
        err("github: {default_feature: Bad_Id}")
            .contains("`github.default_feature` must be a feature id")
    );
    assert!(err("github: {bot_login: ''}").contains("`github.bot_login` must not be empty"));
    assert!(
        err("github: {allowed_bots: ['']}").contains("`github.allowed_bots[0]` must not be empty")
    );
    assert!(
        err("github: {trigger_label: ' '}").contains("`github.trigger_label` must not be empty")
    );
}

#[test]
fn tests_rules() {
    assert!(err("tests: {command: ''}").contains("`tests.command` must not be empty"));
    assert!(err("tests: {issue_command: ''}").contains("`tests.issue_command` must not be empty"));
    assert!(err("specs_dir: ''").contains("`specs_dir` must not be empty"));
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
    assert_eq!(load(&p, false).unwrap().config, Config::default());
    let e = load(&p, true).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert!(e.message.contains("does not exist"), "{}", e.message);
}

#[test]
fn load_names_the_file_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("other.yaml");
    std::fs::write(&p, "zzz: 1\n").unwrap();
    let e = load(&p, true).unwrap_err();
    assert!(
        e.message
            .starts_with(&format!("{}:1: unknown key `zzz`", p.display())),
        "{}",
        e.message
    );
}

#[test]
fn yaml_1_1_booleans_and_a_byte_order_mark_are_accepted() {
    let c = ok("\u{feff}github: {close_on_done: no, run_agents: on}\ncoordination: {generate_summaries: False}\n").config;
    assert!(!c.github.close_on_done);
    assert!(c.github.run_agents);
    assert!(!c.coordination.generate_summaries);
}
