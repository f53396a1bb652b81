//! Configuration *types* (docs/config.md "General rules") with their defaults: what `config.yaml`
//! means, with no loading code (that lives in the binary crate's `io::config`).

use crate::agent_preset::{self, Preset};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    pub repo_root: String,
    pub specs_dir: String,
    pub swarm_dir: String,
    pub coordination: CoordinationConfig,
    pub agents: Vec<AgentConfig>,
    pub llm: LlmConfig,
    /// Who analyses `tests` / `review` failures
    /// (docs/run.md "After a failure: classes, analysis, fallback").
    pub analysis: AnalysisConfig,
    pub context: ContextConfig,
    /// Lessons from verified outcomes (docs/learning.md "Lessons").
    pub lessons: LessonsConfig,
    pub tests: TestsConfig,
    /// Test integrity (docs/integrity.md).
    pub verify: VerifyConfig,
    /// The review gate (docs/review.md).
    pub review: ReviewConfig,
    pub sessions: SessionsConfig,
    pub git: GitConfig,
    pub github: GithubConfig,
    /// Gates before dispatch (docs/gates.md).
    pub gates: crate::gates::GatesConfig,
    /// Spend limits, checked before every attempt (docs/budgets.md "Limits").
    pub budgets: crate::budget::Limits,
    /// USD per million tokens, by model, preset or agent name.
    pub pricing: crate::budget::PriceTable,
    pub secrets: SecretsConfig,
    /// The rate-limit governor (docs/budgets.md "Rate limits: the governor").
    pub governor: GovernorConfig,
}

/// `governor`: how long a run waits out rate limits before it stops.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GovernorConfig {
    /// The most back-off (all waits of a run together, in minutes) before the run stops
    /// with exit 1 (default 30).
    pub max_backoff_minutes: f64,
    /// A rate limit whose wait would exceed this many seconds moves the issue to the
    /// agent's fallback chain at once (docs/run.md "After a failure: classes, analysis, fallback";
    /// default 120).
    pub fallback_after_seconds: u64,
}

impl Default for GovernorConfig {
    fn default() -> Self {
        GovernorConfig {
            max_backoff_minutes: 30.0,
            fallback_after_seconds: 120,
        }
    }
}

/// `secrets`: what else to mask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SecretsConfig {
    /// More variables whose values are masked wherever the tool writes.
    pub mask_env: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            repo_root: ".".into(),
            specs_dir: "specs".into(),
            swarm_dir: ".swarm".into(),
            coordination: CoordinationConfig::default(),
            agents: vec![AgentConfig::default()],
            llm: LlmConfig::default(),
            analysis: AnalysisConfig::default(),
            context: ContextConfig::default(),
            lessons: LessonsConfig::default(),
            tests: TestsConfig::default(),
            verify: VerifyConfig::default(),
            review: ReviewConfig::default(),
            sessions: SessionsConfig::default(),
            git: GitConfig::default(),
            github: GithubConfig::default(),
            gates: crate::gates::GatesConfig::default(),
            budgets: crate::budget::Limits::default(),
            pricing: crate::budget::PriceTable::default(),
            secrets: SecretsConfig::default(),
            governor: GovernorConfig::default(),
        }
    }
}

/// `null` reads as an empty list.
fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(Option::<Vec<String>>::deserialize(d)?.unwrap_or_default())
}

impl Config {
    /// Fills in each agent from its preset: `command` becomes the full command line (the
    /// preset's, unless `command` was given, then `args`), and an empty angle or covers takes
    /// the preset's default. An agent without a preset keeps its command, angle and covers;
    /// its preset becomes the CLI its program names (for the output parser), else `custom`.
    pub fn resolve_agents(&mut self) {
        let mut tests = vec![self.tests.command.as_str()];
        if let Some(ic) = self.tests.issue_command.as_deref() {
            tests.push(ic);
        }
        for a in &mut self.agents {
            a.command = agent_preset::command_line(a.preset, &a.command, &a.args, &tests);
            a.args.clear();
            if let Some(p) = a.preset {
                let (angle, covers) = p.default_angle_covers();
                if a.angle.is_empty() {
                    a.angle = angle.to_string();
                }
                if a.covers.is_empty() {
                    a.covers = covers.iter().map(|c| c.to_string()).collect();
                }
            } else {
                a.preset = a
                    .command
                    .first()
                    .and_then(|p| Preset::for_program(p))
                    .or(Some(Preset::Custom));
            }
        }
    }

    /// This configuration with its agents resolved ([`Config::resolve_agents`]); what
    /// loading config.yaml returns.
    pub fn resolved(mut self) -> Self {
        self.resolve_agents();
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ProposalSource {
    #[default]
    Heuristic,
    Llm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum JoinStrategy {
    #[default]
    First,
    All,
    /// Lands as soon as `coordination.quorum` passing candidates agree
    /// (docs/coordination.md "Many candidates, one result").
    Quorum,
}

impl JoinStrategy {
    /// The config word (`first`, `all`, `quorum`).
    pub fn as_str(self) -> &'static str {
        match self {
            JoinStrategy::First => "first",
            JoinStrategy::All => "all",
            JoinStrategy::Quorum => "quorum",
        }
    }
}

/// What happens when the passing candidates disagree (`coordination.on_low_convergence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnLowConvergence {
    /// The selection lands, flagged.
    #[default]
    Land,
    /// The review gate runs on the selection even when disabled.
    Review,
    /// BLOCKED `needs a person`; every passing candidate's commit is kept under a ref.
    Block,
}

impl OnLowConvergence {
    /// The config word (`land`, `review`, `block`).
    pub fn as_str(self) -> &'static str {
        match self {
            OnLowConvergence::Land => "land",
            OnLowConvergence::Review => "review",
            OnLowConvergence::Block => "block",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CoordinationConfig {
    pub auto_sync_from_git: bool,
    pub github_sync_enabled: bool,
    pub llm_coordinator_enabled: bool,
    pub generate_summaries: bool,
    pub event_logging_enabled: bool,
    pub proposal_source: ProposalSource,
    pub thresholds: Thresholds,
    pub join: JoinStrategy,
    /// `learn: on`: blend each proposal's confidence with the agent's recorded outcomes in
    /// the issue's class (docs/learning.md "Outcomes"; `on`/`off` in config.yaml).
    pub learn: bool,
    /// The prior weight of the blend (`w = n / (n + learn_prior)`).
    pub learn_prior: u32,
    pub synthesis_wait_seconds: u64,
    /// How many candidates a PARALLEL decision runs (2–5,
    /// docs/coordination.md "Many candidates, one result").
    pub candidates: u32,
    /// With join `quorum`: how many passing candidates must agree.
    pub quorum: u32,
    /// With join `quorum`: the similarity at which two candidates agree.
    pub agree_at: f64,
    /// The mean pairwise similarity below which the candidates disagree (0: off).
    pub min_convergence: f64,
    pub on_low_convergence: OnLowConvergence,
}

impl Default for CoordinationConfig {
    fn default() -> Self {
        CoordinationConfig {
            auto_sync_from_git: true,
            github_sync_enabled: true,
            llm_coordinator_enabled: false,
            generate_summaries: true,
            event_logging_enabled: true,
            proposal_source: ProposalSource::Heuristic,
            thresholds: Thresholds::default(),
            join: JoinStrategy::First,
            learn: false,
            learn_prior: 5,
            synthesis_wait_seconds: 15,
            candidates: 2,
            quorum: 2,
            agree_at: 0.60,
            min_convergence: 0.0,
            on_low_convergence: OnLowConvergence::Land,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    pub confidence_gap: f64,
    pub angle_overlap: f64,
    pub high_confidence: f64,
    pub low_confidence: f64,
    pub synthesis_confidence: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            confidence_gap: 0.30,
            angle_overlap: 0.50,
            high_confidence: 0.50,
            low_confidence: 0.30,
            synthesis_confidence: 0.70,
        }
    }
}

/// One agent of the swarm. `Default` is the built-in `claude` agent (preset `claude-code`,
/// used when `agents` is not configured); an agent declared in config.yaml must give `name`
/// and `command` or `preset`, and its other keys default to empty (`angle`, `covers`,
/// `env_passthrough`, `args`), `false` and 1800 s — or, with a preset, to the preset's angle
/// and covers — never to the built-in agent's angle and covers. After loading, `command` is
/// the full command line (see [`Config::resolve_agents`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentConfig {
    pub name: String,
    /// A known CLI whose headless command line, output parser and defaults are used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// The command line; overrides the preset's (`null` or absent: the preset's).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub command: Vec<String>,
    /// Extra arguments appended to the command line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default)]
    pub angle: String,
    #[serde(default)]
    pub covers: Vec<String>,
    #[serde(default)]
    pub builds_on_other: bool,
    #[serde(default = "default_agent_timeout")]
    pub timeout_seconds: u64,
    /// Environment variables (e.g. a token) passed through to the agent.
    #[serde(default)]
    pub env_passthrough: Vec<String>,
    /// A turn limit per run, handed to CLIs that enforce one (Claude Code `--max-turns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    /// The agents that take over, in order, after this agent's `infra` failure
    /// (docs/run.md "After a failure: classes, analysis, fallback").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback: Vec<String>,
}

fn default_agent_timeout() -> u64 {
    1800
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            name: "claude".into(),
            preset: Some(Preset::ClaudeCode),
            command: Vec::new(),
            args: Vec::new(),
            angle: "implementation and tests".into(),
            covers: vec!["rust".into(), "api".into(), "tests".into()],
            builds_on_other: false,
            timeout_seconds: default_agent_timeout(),
            env_passthrough: Vec::new(),
            max_turns: None,
            fallback: Vec::new(),
        }
    }
}

/// `analysis`: the failure analyst (docs/run.md "After a failure: classes, analysis, fallback").
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalysisConfig {
    /// The configured agent that analyses failures (its command line, the prompt on stdin);
    /// unset: `llm.command`, if any.
    pub agent: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmConfig {
    pub command: Option<Vec<String>>,
    pub timeout_seconds: u64,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            command: None,
            timeout_seconds: 120,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextConfig {
    pub max_prompt_tokens: u64,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            max_prompt_tokens: 15000,
        }
    }
}

/// `lessons`: verified facts from earlier work, shown in prompts (docs/learning.md "Lessons").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LessonsConfig {
    pub enabled: bool,
    /// The lessons file, relative to the repository root.
    pub path: String,
    /// The most lessons one prompt holds.
    pub max: u32,
    /// A lesson not verified (created, or renewed by a passing attempt that used it) for
    /// this many days is not used.
    pub ttl_days: u64,
}

impl Default for LessonsConfig {
    fn default() -> Self {
        LessonsConfig {
            enabled: true,
            path: ".swarm/lessons.jsonl".into(),
            max: 5,
            ttl_days: 60,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TestsConfig {
    pub command: String,
    pub timeout_seconds: u64,
    /// Runs one issue's test file; `{test_file}` is replaced.
    pub issue_command: Option<String>,
}

impl Default for TestsConfig {
    fn default() -> Self {
        TestsConfig {
            command: "cargo test".into(),
            timeout_seconds: 600,
            issue_command: None,
        }
    }
}

/// `verify`: the test-integrity checks run on every attempt before it lands (docs/integrity.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyConfig {
    /// Gitignore-style globs on repository paths: a path matching one is a test file.
    pub test_paths: Vec<String>,
    /// A test file present at the attempt's start may not be deleted, renamed or changed
    /// (unless it is the issue's `test_file` or listed in its `files`).
    pub protect_tests: bool,
    /// The test files an attempt adds or changes must fail on the start commit.
    pub fail_before: bool,
    /// Added skip / ignore / xfail markers in test files fail the attempt.
    pub skip_markers: bool,
    /// An attempt that adds or changes no test file fails.
    pub require_tests: bool,
    /// Issues with one of these labels skip `fail_before`.
    pub test_only_labels: Vec<String>,
}

/// The default `verify.test_paths`: docs/integrity.md's list, then what makes it right for nested
/// test folders (Rust workspace crates, Java/Kotlin `src/test/`, Python packages), Jest's
/// `__tests__`, `*.spec.*` (JS/TS) and pytest's `conftest.py` (docs/integrity.md).
pub const DEFAULT_TEST_PATHS: &[&str] = &[
    "tests/**",
    "test/**",
    "spec/**",
    "**/test_*.*",
    "**/*_test.*",
    "**/*.test.*",
    "**/*_spec.*",
    "**/tests/**",
    "**/test/**",
    "**/__tests__/**",
    "**/*.spec.*",
    "**/conftest.py",
];

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            test_paths: DEFAULT_TEST_PATHS.iter().map(|s| s.to_string()).collect(),
            protect_tests: true,
            fail_before: true,
            skip_markers: true,
            require_tests: false,
            test_only_labels: vec!["tests".into(), "testing".into()],
        }
    }
}

/// `review.strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ReviewStrategy {
    #[default]
    Single,
    /// Two reviewers, concurrently; matched findings count once, boosted.
    Cross,
}

impl ReviewStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStrategy::Single => "single",
            ReviewStrategy::Cross => "cross",
        }
    }
}

/// `review.on_error`: when no reviewer gives a valid answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ReviewOnError {
    /// BLOCKED at once, reason beginning `review could not run:`.
    #[default]
    Block,
    /// Land with the verdict `unreviewed`.
    Land,
}

/// `review`: the review gate run on a candidate that passed verification and test
/// integrity, before it lands (docs/review.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReviewConfig {
    pub enabled: bool,
    /// Agent names from `agents`; empty: the configured agents other than the implementer,
    /// in order, else the implementer itself in a fresh session.
    pub reviewers: Vec<String>,
    pub strategy: ReviewStrategy,
    /// 0–100: findings below are recorded, never counted.
    pub min_confidence: u32,
    /// 0–100, `cross` only: a finding only one of the two reviewers reported counts only
    /// at or above this (a matched pair still counts at `min_confidence`). Not set: equal
    /// to `min_confidence` (docs/review.md "A stricter `cross`").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_unmatched_min_confidence: Option<u32>,
    pub block_on: Vec<crate::review::Severity>,
    /// Rounds in which the implementer fixes or answers a failing review, within the attempt.
    pub fix_rounds: u32,
    pub on_error: ReviewOnError,
    /// With `git.landing: pr`, post the counted findings as one PR review (COMMENT).
    pub post_to_pr: bool,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            enabled: false,
            reviewers: Vec::new(),
            strategy: ReviewStrategy::Single,
            min_confidence: 80,
            cross_unmatched_min_confidence: None,
            block_on: vec![
                crate::review::Severity::Critical,
                crate::review::Severity::Major,
            ],
            fix_rounds: 1,
            on_error: ReviewOnError::Block,
            post_to_pr: true,
        }
    }
}

impl ReviewConfig {
    /// The bar of a `cross` finding only one reviewer reported: the key, else
    /// `min_confidence` (never below it).
    pub fn cross_unmatched_min(&self) -> u32 {
        self.cross_unmatched_min_confidence
            .unwrap_or(self.min_confidence)
            .max(self.min_confidence)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionsConfig {
    pub max_implementation_retries: u32,
    pub stale_timeout_minutes: u64,
    pub lock_timeout_seconds: u64,
    /// Consecutive agent-process failures that stop a run (circuit breaker).
    pub max_consecutive_agent_failures: u32,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            max_implementation_retries: 3,
            stale_timeout_minutes: 30,
            lock_timeout_seconds: 30,
            max_consecutive_agent_failures: 3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GitConfig {
    pub base_branch: String,
    pub sync_refs: Vec<String>,
    pub done_patterns: Vec<String>,
    pub worktrees_root: String,
    /// How verified work lands (docs/github.md "Pull requests"): on the checked-out branch, or as a
    /// pull request.
    pub landing: Landing,
    /// With `landing: pr`, whether dependents start from an IN_REVIEW dependency's branch
    /// (not yet supported: dependents wait for the merge either way).
    pub stack: bool,
    /// The git remote branches are pushed to with `landing: pr`.
    pub remote: String,
    /// Whether the repository's hooks run during the tool's own git commands.
    pub run_hooks: bool,
}

impl Default for GitConfig {
    fn default() -> Self {
        GitConfig {
            base_branch: "main".into(),
            sync_refs: vec!["HEAD".into()],
            done_patterns: Vec::new(),
            worktrees_root: ".swarm/worktrees".into(),
            landing: Landing::Commit,
            stack: false,
            remote: "origin".into(),
            run_hooks: false,
        }
    }
}

/// `git.landing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Landing {
    /// A commit on the checked-out branch (fast-forward).
    #[default]
    Commit,
    /// A branch `swarm/<feature>/issue-<N>` and one pull request per issue.
    Pr,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GithubConfig {
    pub repo: Option<String>,
    pub api_url: Option<String>,
    pub close_on_done: bool,
    pub trigger_label: String,
    pub default_feature: String,
    pub run_agents: bool,
    pub bot_login: String,
    pub allowed_bots: Vec<String>,
    pub min_write_interval_ms: u64,
}

impl Default for GithubConfig {
    fn default() -> Self {
        GithubConfig {
            repo: None,
            api_url: None,
            close_on_done: true,
            trigger_label: "swarm".into(),
            default_feature: "github".into(),
            run_agents: false,
            bot_login: "github-actions[bot]".into(),
            allowed_bots: Vec::new(),
            min_write_interval_ms: 1000,
        }
    }
}
