//! Unit tests of config values: ranges, timeouts, enums, types, and the rules of the
//! `agents`, `llm`, `git`, `github` and `tests` sections.

use super::*;

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
        "config.yaml:1: `coordination.join` must be one of `first`, `all`, `quorum`, not `any`"
    );
    let m = err("coordination: {join: 1}");
    assert!(
        m.contains("`coordination.join` must be one of `first`, `all`, `quorum`, not 1"),
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
    assert!(m.contains("`agents[0].command` must be a list of strings (the program and its arguments) or `null`, not a string; write"), "{m}");
    let m = err("agents:\n  - name: ''\n    command: [a]\n");
    assert!(m.contains("`agents[0].name` must not be empty"), "{m}");
    let m = err("agents:\n  - name: ../evil\n    command: [a]\n");
    assert!(m.contains("`agents[0].name` must be 1–64 letters"), "{m}");
    let m = err("agents:\n  - command: [a]\n");
    assert_eq!(
        m,
        "config.yaml:2: `agents[0]` has no `name`; every agent needs `name`"
    );
    let m = err("agents:\n  - name: a\n");
    assert_eq!(
        m,
        "config.yaml:2: `agents[0]` (`a`) has neither `command` nor `preset`; every agent needs one (e.g. `preset: claude-code`, or `command: [\"my-agent\"]` with the prompt on stdin)"
    );
    let m = err("agents:\n  - name: a\n    preset: claude\n");
    assert!(
        m.contains("`agents[0].preset` must be ") && m.contains("claude-code"),
        "{m}"
    );
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
        e.to_string(),
        "config.yaml:1: `agents` is empty; a swarm needs at least one agent"
    );
    // the variant that crates/swarm-attack-app/src/error.rs gives a hint (tested there)
    assert!(matches!(e, ConfigError::NoAgents(_)), "{e:?}");
}

#[test]
fn wrong_types_name_the_key_and_expected_type() {
    assert_eq!(
        err("agents: \"x\"\n"),
        "config.yaml:1: `agents` must be a list of agents (each a mapping with `name`, `preset` or `command`, ...), not a string"
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
fn review_cross_unmatched_min_confidence() {
    // not set (or null): the contract's rule, the bar is min_confidence
    let c = ok("review: {min_confidence: 70}").config;
    assert_eq!(c.review.cross_unmatched_min_confidence, None);
    assert_eq!(c.review.cross_unmatched_min(), 70);
    let c = ok("review: {cross_unmatched_min_confidence: null}").config;
    assert_eq!(c.review.cross_unmatched_min(), 80);
    let c = ok("review: {strategy: cross, cross_unmatched_min_confidence: 95}").config;
    assert_eq!(c.review.cross_unmatched_min_confidence, Some(95));
    assert_eq!(c.review.cross_unmatched_min(), 95);
    assert!(
        err("review: {cross_unmatched_min_confidence: 101}")
            .contains("`review.cross_unmatched_min_confidence` must be")
    );
    assert!(err("review: {cross_unmatched_min_confidence: high}").contains("not"));
    // below min_confidence would count a lone finding more easily than any other
    let e = err("review:\n  min_confidence: 85\n  cross_unmatched_min_confidence: 80\n");
    assert!(
        e.contains("config.yaml:3")
            && e.contains(
                "`review.cross_unmatched_min_confidence` (80) is below `review.min_confidence` (85)"
            ),
        "{e}"
    );
}
