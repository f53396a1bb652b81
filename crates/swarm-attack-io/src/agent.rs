//! Running one coding agent (docs/run.md "External commands"): the configured command with the
//! prompt on stdin, cwd = the issue's worktree, env `SWARM_AGENT`, `SWARM_FEATURE`, `SWARM_ISSUE`,
//! `SWARM_ATTEMPT`, `SWARM_ROLE`, token variables removed unless passed through, a timeout that
//! kills the whole process group; prompt, stdout and stderr saved in the attempt folder; the
//! agent's report (cost, tokens, turns, session, error kind, permission denials) read from its
//! output by `core::agent_report`.

use crate::config::AgentConfig;
use crate::core::agent_limits::RunLimits;
use crate::core::agent_report::{self, AgentReport, ErrorKind};
use crate::core::feature_id::FeatureId;
use crate::process::{self, ProcessSpec, SpawnError, TOKEN_VARS};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One agent invocation.
#[derive(Debug, Clone)]
pub struct AgentRun<'a> {
    pub agent: &'a AgentConfig,
    pub feature: &'a FeatureId,
    pub issue: u32,
    pub attempt: u32,
    /// `primary`, `runner-up` or `reviewer`.
    pub role: &'a str,
    /// `SWARM_PURPOSE` (e.g. `review`), when the run is not an implementation.
    pub purpose: Option<&'a str>,
    pub prompt: &'a str,
    pub worktree: &'a Path,
    /// Where the prompt and outputs are saved.
    pub artifacts: &'a Path,
    /// Relative programs (`./agent.sh`, `tools/agent`) resolve against this folder (the
    /// project root), not the worktree.
    pub project_root: &'a Path,
    /// What remains of the issue's budgets: handed to the CLI where it enforces them
    /// (Claude Code `--max-budget-usd`, `--max-turns`), and the timeout scaled to the
    /// remaining `issue_minutes`.
    pub limits: RunLimits,
}

/// What the agent process did.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOutcome {
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub cost_usd: Option<f64>,
    /// The agent reported an error in its JSON output (`"is_error": true`).
    pub reported_error: bool,
    /// What the agent's output says about its run.
    pub report: AgentReport,
    pub stdout: String,
    pub stderr: String,
}

impl AgentOutcome {
    /// Whether the process ended normally and reported no error.
    pub fn ok(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.reported_error
    }

    /// One sentence on how the process failed (for retries and the blocked reason); the
    /// agent's own cause (from its report) when it gives one.
    pub fn failure(&self, agent: &str) -> Option<String> {
        let symptom = self.symptom(agent)?;
        Some(match self.report.predicate() {
            Some(p) if !self.timed_out => format!("{symptom}: it {p}"),
            _ => symptom,
        })
    }

    fn symptom(&self, agent: &str) -> Option<String> {
        if self.timed_out {
            return Some(format!(
                "agent `{agent}` timed out after {} s and was stopped",
                self.duration_ms / 1000
            ));
        }
        if self.reported_error {
            let said = match (&self.report.message, self.report.predicate()) {
                (Some(m), None) => format!(": {}", m.lines().next().unwrap_or("").trim()),
                _ => String::new(),
            };
            return Some(format!(
                "agent `{agent}` reported an error in its output{said}"
            ));
        }
        match self.exit_code {
            Some(0) => None,
            // a code the CLI documents (Gemini CLI's) says what went wrong
            Some(c) => Some(match (&self.report.message, self.report.error_kind) {
                (Some(m), Some(ErrorKind::Crashed)) => {
                    format!("agent `{agent}` exited with code {c}: {m}")
                }
                _ => format!("agent `{agent}` exited with code {c}"),
            }),
            None => Some(format!("agent `{agent}` was killed by a signal")),
        }
    }
}

/// Why the agent could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("agent `{agent}` has no command (agents[].command in config.yaml is empty)")]
    NoCommand { agent: String },
    #[error("agent `{agent}`: the program `{program}` was not found")]
    NotFound { agent: String, program: String },
    #[error("agent `{agent}` could not be started: {message}")]
    Spawn { agent: String, message: String },
}

/// The environment for an agent: SWARM_* set, token variables removed unless passed through.
pub fn agent_env(run: &AgentRun<'_>) -> (BTreeMap<String, String>, Vec<String>) {
    let mut env = BTreeMap::new();
    env.insert("SWARM_AGENT".to_string(), run.agent.name.clone());
    env.insert("SWARM_FEATURE".to_string(), run.feature.to_string());
    env.insert("SWARM_ISSUE".to_string(), run.issue.to_string());
    env.insert("SWARM_ATTEMPT".to_string(), run.attempt.to_string());
    env.insert("SWARM_ROLE".to_string(), run.role.to_string());
    if let Some(p) = run.purpose {
        env.insert("SWARM_PURPOSE".to_string(), p.to_string());
    }
    let remove = TOKEN_VARS
        .iter()
        .filter(|v| !run.agent.env_passthrough.iter().any(|p| p == *v))
        .map(|s| s.to_string())
        .collect();
    // a token passed through comes from memory: the process's environment holds none
    for v in TOKEN_VARS {
        if run.agent.env_passthrough.iter().any(|p| p == *v)
            && let Some(value) = crate::secrets::get(v)
        {
            env.insert(v.to_string(), value);
        }
    }
    (env, remove)
}

/// Resolves a relative program path (one with a `/`) against `root`.
pub fn resolve_program(argv: &[String], root: &Path) -> Vec<String> {
    let mut argv = argv.to_vec();
    if let Some(first) = argv.first_mut() {
        let p = Path::new(first.as_str());
        if p.is_relative() && first.contains('/') {
            *first = root.join(p).to_string_lossy().into_owned();
        }
    }
    argv
}

impl AgentError {
    /// The report's error kind for an agent that could not run.
    pub fn error_kind(&self) -> ErrorKind {
        match self {
            AgentError::NotFound { .. } | AgentError::NoCommand { .. } => ErrorKind::NotFound,
            AgentError::Spawn { .. } => ErrorKind::Crashed,
        }
    }
}

/// Runs the agent; `on_spawn` gets the process id (for the caller's stop-on-signal list).
/// The prompt, stdout and stderr are written to `artifacts` (`prompt.md`, `agent.stdout`,
/// `agent.stderr`).
pub fn run_agent(
    run: &AgentRun<'_>,
    on_spawn: impl FnOnce(u32),
) -> Result<AgentOutcome, AgentError> {
    let name = run.agent.name.clone();
    let _ = std::fs::create_dir_all(run.artifacts);
    let _ = crate::secrets::write_file(run.artifacts.join("prompt.md"), run.prompt.as_bytes());
    if run.agent.command.is_empty() {
        return Err(AgentError::NoCommand { agent: name });
    }
    let argv = run.limits.apply(
        run.agent.preset,
        &resolve_program(&run.agent.command, run.project_root),
    );
    let (env, env_remove) = agent_env(run);
    let stdout_path = run.artifacts.join("agent.stdout");
    let stderr_path = run.artifacts.join("agent.stderr");
    let spec = ProcessSpec {
        argv: &argv,
        stdin: run.prompt.as_bytes(),
        cwd: Some(run.worktree),
        env,
        env_remove,
        timeout: Duration::from_secs(run.limits.timeout_seconds(run.agent.timeout_seconds)),
        // the whole output goes to the attempt folder; memory keeps the last 8 MiB
        stdout_to: Some(&stdout_path),
        stderr_to: Some(&stderr_path),
        keep_bytes: AGENT_OUTPUT_KEPT_BYTES,
        contained: true,
    };
    let out = process::run_with_pid(&spec, on_spawn).map_err(|e| match e {
        SpawnError::NotFound { program } => AgentError::NotFound {
            agent: name.clone(),
            program,
        },
        SpawnError::Empty => AgentError::NoCommand {
            agent: name.clone(),
        },
        other => AgentError::Spawn {
            agent: name.clone(),
            message: other.to_string(),
        },
    })?;
    let stdout = out.stdout_text();
    let stderr = out.stderr_text();
    let mut report = agent_report::parse(&stdout, &stderr);
    if report.model.is_none() {
        use crate::core::agent_preset::Preset;
        let short_m = matches!(
            run.agent.preset,
            Some(Preset::Codex | Preset::Gemini | Preset::Opencode)
        );
        report.model = agent_report::model::from_argv(&argv, short_m);
    }
    // denied paths relative to the worktree, as the user knows them
    let prefix = format!("{}/", run.worktree.display());
    for d in &mut report.denials {
        if let Some(t) = d.target.as_mut().filter(|t| t.starts_with(&prefix)) {
            *t = t[prefix.len()..].to_string();
        }
    }
    let gemini = run.agent.preset == Some(crate::core::agent_preset::Preset::Gemini)
        || report.source == Some(agent_report::Source::Gemini);
    if let Some((kind, meaning)) = out
        .exit_code
        .filter(|_| gemini && !out.timed_out && report.error_kind.is_none())
        .and_then(agent_report::gemini_exit_kind)
    {
        report.error_kind = Some(kind);
        report.message.get_or_insert_with(|| meaning.to_string());
    }
    if out.timed_out {
        report.error_kind = Some(ErrorKind::Timeout);
    } else if report.error_kind.is_none()
        && out.exit_code.is_none_or(|c| c != 0)
        && !report.is_error
    {
        report.error_kind = Some(ErrorKind::Crashed);
    }
    Ok(AgentOutcome {
        exit_code: out.exit_code,
        timed_out: out.timed_out,
        duration_ms: out.duration.as_millis() as u64,
        cost_usd: report.cost_usd,
        reported_error: report.is_error,
        report,
        stdout,
        stderr,
    })
}

/// How much of an agent's stdout/stderr is kept in memory (the tail); the whole output is in
/// the attempt folder.
pub const AGENT_OUTPUT_KEPT_BYTES: usize = 8 << 20;

/// The folder for one candidate's artifacts inside an attempt folder: the attempt folder
/// itself for the primary agent (SOLO), a sub-folder named after the agent otherwise.
pub fn artifacts_dir(attempt_dir: &Path, agent: &str, role: &str) -> PathBuf {
    if role == "primary" {
        attempt_dir.to_path_buf()
    } else {
        attempt_dir.join(agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_removed_unless_passed_through() {
        let agent = AgentConfig {
            env_passthrough: vec!["GH_TOKEN".into()],
            ..AgentConfig::default()
        };
        let f = crate::fid("auth");
        let run = AgentRun {
            agent: &agent,
            feature: &f,
            issue: 3,
            attempt: 2,
            role: "primary",
            purpose: None,
            prompt: "",
            worktree: Path::new("."),
            artifacts: Path::new("."),
            project_root: Path::new("."),
            limits: RunLimits::default(),
        };
        let (env, remove) = agent_env(&run);
        assert_eq!(env["SWARM_ISSUE"], "3");
        assert_eq!(env["SWARM_ATTEMPT"], "2");
        assert_eq!(env["SWARM_ROLE"], "primary");
        assert!(remove.contains(&"GITHUB_TOKEN".to_string()));
        assert!(!remove.contains(&"GH_TOKEN".to_string()));
    }

    #[test]
    fn relative_programs_resolve_against_the_project() {
        let a = resolve_program(&["./tools/agent.sh".into(), "x".into()], Path::new("/p"));
        assert_eq!(a[0], "/p/./tools/agent.sh");
        let a = resolve_program(&["claude".into()], Path::new("/p"));
        assert_eq!(a[0], "claude");
    }
}
