//! The LLM helper (`llm.command`, docs/run.md "External commands"): prompt on stdin, env
//! `SWARM_AGENT`, `SWARM_FEATURE`, `SWARM_ISSUE`, `SWARM_PURPOSE`; token variables removed. An
//! answer that is a CLI's JSON envelope (e.g. `claude -p --output-format json`) is unwrapped to its
//! text; what the envelope says the call cost (cost, tokens) is kept in a [`Call`] for the budget
//! ledger (docs/budgets.md "LLM helper calls").

use crate::config::Config;
use crate::core::feature_id::FeatureId;
use crate::process::{self, ProcessSpec, TOKEN_VARS};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Why the helper gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("no `llm.command` is configured")]
    NotConfigured,
    #[error("llm.command could not start: {0}")]
    Spawn(String),
    #[error("llm.command timed out after {0} s")]
    TimedOut(u64),
    #[error("llm.command exited with {code:?}: {stderr}")]
    Failed { code: Option<i32>, stderr: String },
}

/// Who is asking, and for what (`proposal` / `summary` / `failure-analysis`).
#[derive(Debug, Clone)]
pub struct LlmRequest<'a> {
    pub agent: &'a str,
    pub feature: &'a FeatureId,
    pub issue: u32,
    pub purpose: &'a str,
    pub prompt: &'a str,
}

/// One call that ran: how it ended and what its output reports (cost, tokens, model).
#[derive(Debug, Clone, Default)]
pub struct Call {
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub timed_out: bool,
    pub report: crate::core::agent_report::AgentReport,
}

/// The answer (or why there is none) and, when the helper ran, the [`Call`].
pub type Asked = (Result<String, LlmError>, Option<Call>);

/// Runs `llm.command` with the prompt on stdin and returns its answer: stdout, or, when
/// stdout is a Claude / Codex / Gemini JSON envelope, the envelope's text.
pub fn ask(config: &Config, cwd: &Path, req: &LlmRequest<'_>) -> Result<String, LlmError> {
    ask_call(config, cwd, req).0
}

/// [`ask`], with the [`Call`] it made (for the budget ledger).
pub fn ask_call(config: &Config, cwd: &Path, req: &LlmRequest<'_>) -> Asked {
    let timeout = Duration::from_secs(config.llm.timeout_seconds);
    let Some(argv) = config.llm.command.as_ref().filter(|c| !c.is_empty()) else {
        return (Err(LlmError::NotConfigured), None);
    };
    run_helper(argv, &[], cwd, req, timeout)
}

/// [`ask`] with a timeout of `timeout` (e.g. what is left of a budget) instead of
/// `llm.timeout_seconds`.
pub fn ask_within(
    config: &Config,
    cwd: &Path,
    req: &LlmRequest<'_>,
    timeout: Duration,
) -> Result<String, LlmError> {
    let Some(argv) = config.llm.command.as_ref().filter(|c| !c.is_empty()) else {
        return Err(LlmError::NotConfigured);
    };
    run_helper(argv, &[], cwd, req, timeout).0
}

/// Asks a configured agent instead of `llm.command` (e.g. `analysis.agent`,
/// docs/run.md "After a failure: classes, analysis, fallback"): its command line with the prompt on
/// stdin, in `cwd`, within its `timeout_seconds`; the variables of its `env_passthrough` are passed
/// through. Its preset's envelope is unwrapped.
pub fn ask_agent(
    agent: &crate::config::AgentConfig,
    root: &Path,
    cwd: &Path,
    req: &LlmRequest<'_>,
) -> Asked {
    if agent.command.is_empty() {
        let why = format!("agent `{}` has no command", agent.name);
        return (Err(LlmError::Spawn(why)), None);
    }
    let argv = crate::agent::resolve_program(&agent.command, root);
    run_helper(
        &argv,
        &agent.env_passthrough,
        cwd,
        req,
        Duration::from_secs(agent.timeout_seconds),
    )
}

fn run_helper(
    argv: &[String],
    passthrough: &[String],
    cwd: &Path,
    req: &LlmRequest<'_>,
    timeout: Duration,
) -> Asked {
    let mut env = BTreeMap::new();
    env.insert("SWARM_AGENT".to_string(), req.agent.to_string());
    env.insert("SWARM_FEATURE".to_string(), req.feature.to_string());
    env.insert("SWARM_ISSUE".to_string(), req.issue.to_string());
    env.insert("SWARM_PURPOSE".to_string(), req.purpose.to_string());
    let passed = |v: &str| passthrough.iter().any(|p| p == v);
    // a token passed through comes from memory: the process's environment holds none
    for v in TOKEN_VARS.iter().filter(|v| passed(v)) {
        if let Some(value) = crate::secrets::get(v) {
            env.insert(v.to_string(), value);
        }
    }
    let spec = ProcessSpec {
        argv,
        stdin: req.prompt.as_bytes(),
        cwd: Some(cwd),
        env,
        env_remove: TOKEN_VARS
            .iter()
            .filter(|v| !passed(v))
            .map(|s| s.to_string())
            .collect(),
        timeout,
        // an answer is small; keep the last 1 MiB of anything bigger
        keep_bytes: 1 << 20,
        contained: true,
        ..Default::default()
    };
    let out = match process::run(&spec) {
        Ok(o) => o,
        Err(e) => return (Err(LlmError::Spawn(e.to_string())), None),
    };
    let stdout = out.stdout_text();
    let call = Call {
        exit_code: out.exit_code,
        duration_ms: u64::try_from(out.duration.as_millis()).unwrap_or(u64::MAX),
        timed_out: out.timed_out,
        report: crate::core::agent_report::parse(&stdout, ""),
    };
    (answer(&out, &stdout, timeout), Some(call))
}

/// The answer of a helper that ran.
fn answer(
    out: &process::ProcessOutcome,
    stdout: &str,
    timeout: Duration,
) -> Result<String, LlmError> {
    if out.timed_out {
        return Err(LlmError::TimedOut(timeout.as_secs()));
    }
    if !out.success() {
        let mut stderr = out.stderr_text();
        // at most 500 bytes, cut at a character boundary (a byte cut could panic)
        let mut cut = stderr.len().min(500);
        while !stderr.is_char_boundary(cut) {
            cut -= 1;
        }
        stderr.truncate(cut);
        return Err(LlmError::Failed {
            code: out.exit_code,
            stderr,
        });
    }
    Ok(crate::core::agent_report::unwrap_text(stdout))
}
