//! Agent reports (docs/agents.md "Agent reports"): what a coding-agent CLI says about its own run —
//! cost, tokens, turns, session id, the kind of error, the permission denials — read from its final
//! output. One parser per CLI (a file each); [`parse`] recognises the output's shape, so a `custom`
//! command that runs a known CLI is understood too. Pure: text in, report out.

mod aider;
mod claude;
mod codex;
mod gemini;
pub mod model;
mod opencode;
mod retry_after;

pub use gemini::exit_kind as gemini_exit_kind;
pub use retry_after::retry_after_ms;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why an agent's run went wrong, as far as its output (or the process) tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    MaxTurns,
    MaxBudget,
    Auth,
    RateLimit,
    PermissionDenied,
    ReadOnly,
    NotFound,
    Timeout,
    Crashed,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::MaxTurns => "max_turns",
            ErrorKind::MaxBudget => "max_budget",
            ErrorKind::Auth => "auth",
            ErrorKind::RateLimit => "rate_limit",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::ReadOnly => "read_only",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Crashed => "crashed",
        }
    }
}

/// Which CLI's output the report was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Claude,
    Codex,
    Gemini,
    Opencode,
    Aider,
    /// A JSON object with `total_cost_usd` / `cost_usd` (any agent).
    Generic,
}

/// One tool call the CLI refused for lack of permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The tool (`Write`, `Edit`, `Bash`, ...).
    pub tool: String,
    /// What it was for: a file path, or a shell command.
    pub target: Option<String>,
}

impl Denial {
    /// Whether the tool writes files.
    pub fn is_write(&self) -> bool {
        matches!(
            self.tool.as_str(),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "write" | "edit" | "patch"
        )
    }
}

/// The report of one agent run. Unknown values are `None` (never 0).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentReport {
    pub source: Option<Source>,
    pub cost_usd: Option<f64>,
    /// All input tokens, cached ones included.
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// The cached part of `tokens_in`.
    pub tokens_cached: Option<u64>,
    pub turns: Option<u64>,
    pub session_id: Option<String>,
    pub error_kind: Option<ErrorKind>,
    pub denials: Vec<Denial>,
    /// The CLI said the run failed.
    pub is_error: bool,
    /// The CLI's error message, if it gave one.
    pub message: Option<String>,
    /// The final answer's text.
    pub text: Option<String>,
    /// The CLI's final record was seen (false: the run was cut short, figures are partial).
    pub complete: bool,
    /// Rate-limited or overloaded: the wait the CLI asked for, when it named one.
    pub retry_after_ms: Option<u64>,
    /// The model the CLI says it ran (see [`model::reported`]); the caller may fill it in
    /// from the command line.
    pub model: Option<String>,
}

/// The JSON objects among `stdout`'s lines (JSONL), or the whole stdout when it is one
/// (pretty-printed) object.
pub fn json_lines(stdout: &str) -> Vec<Value> {
    let whole = stdout.trim();
    if whole.starts_with('{')
        && let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(whole)
    {
        return vec![v];
    }
    whole
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| match serde_json::from_str::<Value>(l) {
            Ok(v @ Value::Object(_)) => Some(v),
            _ => None,
        })
        .collect()
}

/// Reads the report from an agent's stdout and stderr, whichever CLI wrote them.
pub fn parse(stdout: &str, stderr: &str) -> AgentReport {
    let lines = json_lines(stdout);
    let ty = |v: &Value| {
        v.get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let types: Vec<String> = lines.iter().map(ty).collect();
    let has = |t: &str| types.iter().any(|x| x == t);
    let mut report = if lines.iter().any(claude::is_claude) {
        claude::parse(&lines)
    } else if types
        .iter()
        .any(|t| t.starts_with("thread.") || t.starts_with("turn.") || t.starts_with("item."))
    {
        codex::parse(&lines)
    } else if has("step_finish") || has("step_start") || lines.iter().any(opencode::is_opencode) {
        opencode::parse(&lines)
    } else if lines.iter().any(gemini::is_gemini) {
        gemini::parse(&lines)
    } else if let Some(r) = aider::parse(stdout) {
        r
    } else {
        generic(&lines)
    };
    if report.error_kind.is_none() {
        report.error_kind = classify(&format!(
            "{}\n{}",
            report.message.as_deref().unwrap_or(""),
            tail(stderr, 4000)
        ));
    }
    if report.error_kind.is_none() && !report.denials.is_empty() {
        report.error_kind = Some(ErrorKind::PermissionDenied);
    }
    if report.error_kind == Some(ErrorKind::RateLimit) {
        report.retry_after_ms = report
            .message
            .as_deref()
            .and_then(retry_after_ms)
            .or_else(|| retry_after_ms(tail(stderr, 4000)))
            .or_else(|| retry_after_ms(tail(stdout, 4000)));
    }
    report.model = model::reported(&lines);
    report
}

/// Any JSON object with a cost (`total_cost_usd` or `cost_usd`): the last one.
fn generic(lines: &[Value]) -> AgentReport {
    let last = lines.iter().rev().find(|v| cost_of(v).is_some());
    match last {
        Some(v) => AgentReport {
            source: Some(Source::Generic),
            cost_usd: cost_of(v),
            is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            text: v.get("result").and_then(Value::as_str).map(str::to_string),
            complete: true,
            ..AgentReport::default()
        },
        None => AgentReport::default(),
    }
}

/// `total_cost_usd` or `cost_usd` (a finite, non-negative number).
pub fn cost_of(v: &Value) -> Option<f64> {
    ["total_cost_usd", "cost_usd"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_f64))
        .filter(|c| c.is_finite() && *c >= 0.0)
}

fn tail(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut start = s.len() - n;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The error kind an error message names (authentication, rate limit or overloaded model
/// API — both `rate_limit` —, read-only sandbox).
pub fn classify(text: &str) -> Option<ErrorKind> {
    let t = text.to_lowercase();
    let any = |xs: &[&str]| xs.iter().any(|x| t.contains(x));
    if status_code(&t, "401")
        || any(&[
            "invalid api key",
            "invalid x-api-key",
            "invalid_api_key",
            "authentication_error",
            "authentication failed",
            "unauthorized",
            "please run /login",
            "not logged in",
            "missing api key",
            "api key not found",
            "authenticationerror",
            "unauthenticated",
        ])
    {
        Some(ErrorKind::Auth)
    } else if any(&[
        "rate limit",
        "rate_limit",
        "ratelimit",
        "too many requests",
        "usage limit",
        "quota exceeded",
        "resource_exhausted",
        "overloaded",
    ]) || status_code(&t, "429")
        || status_code(&t, "529")
    {
        Some(ErrorKind::RateLimit)
    } else if any(&["read-only file system", "read only file system"]) {
        Some(ErrorKind::ReadOnly)
    } else {
        None
    }
}

/// Whether lower-cased `text` gives `code` as an HTTP status: the number on its own (no
/// digit or letter on either side, so `4290 tests`, `a4291bc` or `line 1401` are not one)
/// with a word naming a status shortly before it on the same line (`API Error: 429`,
/// `last status: 429`, `HTTP 401`, `status code 529`).
fn status_code(text: &str, code: &str) -> bool {
    const NAMES: [&str; 4] = ["error", "status", "http", "code"];
    let b = text.as_bytes();
    text.match_indices(code).any(|(at, _)| {
        let end = at + code.len();
        let alone = |i: Option<&u8>| i.is_none_or(|c| !c.is_ascii_alphanumeric());
        if !alone(at.checked_sub(1).and_then(|i| b.get(i))) || !alone(b.get(end)) {
            return false;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let mut from = at.saturating_sub(24).max(line_start);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let before = &text[from..at];
        NAMES.iter().any(|n| before.contains(n))
    })
}

/// Adds `b` to an optional sum.
fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (x, y) => Some(x.unwrap_or(0) + y.unwrap_or(0)),
    }
}

fn u(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl AgentReport {
    /// The report's fields of `agent_finished`.
    pub fn event_fields(&self) -> crate::events::AgentFinishedReport {
        crate::events::AgentFinishedReport {
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            tokens_cached: self.tokens_cached,
            turns: self.turns,
            session_id: self.session_id.clone(),
            error_kind: self.error_kind.map(|k| k.as_str().to_string()),
            permission_denials: self.denials.len() as u64,
            output: None,
            model: self.model.clone(),
            cost_priced: false,
        }
    }

    /// One sentence naming the agent's real cause of failure, with what to do, when the
    /// report gives one: e.g. "agent `claude` was denied permission to write src/x.py
    /// (3 writes denied): use preset claude-code or add --permission-mode acceptEdits".
    pub fn cause(&self, agent: &str) -> Option<String> {
        self.predicate().map(|p| format!("agent `{agent}` {p}"))
    }

    /// The cause as a predicate ("was denied permission to ...", "could not authenticate
    /// ..."), for a sentence whose subject is the agent.
    pub fn predicate(&self) -> Option<String> {
        let msg = || {
            self.message
                .as_deref()
                .map(|m| format!(": {}", one_line(m)))
                .unwrap_or_default()
        };
        let p = match self.error_kind? {
            ErrorKind::PermissionDenied => match self.denial_predicate() {
                Some(p) => p,
                None => format!("was denied permission to work{}", msg()),
            },
            ErrorKind::ReadOnly => format!(
                "ran in a read-only sandbox and could not write files{}; use preset codex or add `--sandbox workspace-write`",
                msg()
            ),
            ErrorKind::Auth => format!(
                "could not authenticate with its model API{}; set the CLI's API key variable (docs/agents.md) or log in with the CLI",
                msg()
            ),
            ErrorKind::RateLimit => format!("was rate-limited by its model API{}", msg()),
            ErrorKind::MaxTurns => format!(
                "stopped at its turn limit{}{}",
                self.turns
                    .map(|t| format!(" after {t} turns"))
                    .unwrap_or_default(),
                msg()
            ),
            ErrorKind::MaxBudget => format!(
                "stopped at its budget limit{}",
                self.cost_usd
                    .map(|c| format!(" (${c:.2} spent)"))
                    .unwrap_or_default()
            ),
            ErrorKind::NotFound | ErrorKind::Timeout | ErrorKind::Crashed => return None,
        };
        Some(p)
    }

    fn denial_predicate(&self) -> Option<String> {
        let writes: Vec<&Denial> = self.denials.iter().filter(|d| d.is_write()).collect();
        if let Some(first) = writes.first() {
            let what = first.target.as_deref().unwrap_or("a file");
            let n = writes.len();
            let plural = if n == 1 { "write" } else { "writes" };
            let fix = match self.source {
                Some(Source::Claude) => {
                    ": use preset claude-code or add --permission-mode acceptEdits"
                }
                _ => ": allow the agent to edit files in its worktree (see docs/agents.md)",
            };
            return Some(format!(
                "was denied permission to write {what} ({n} {plural} denied){fix}"
            ));
        }
        let first = self.denials.first()?;
        let n = self.denials.len();
        let what = match &first.target {
            Some(t) => format!("run `{}` with {}", one_line(t), first.tool),
            None => format!("use {}", first.tool),
        };
        let fix = match (self.source, first.tool.as_str()) {
            (Some(Source::Claude), "Bash") => {
                ": add the command to --allowedTools as \"Bash(<command>:*)\" (preset claude-code allows the test commands)"
            }
            _ => "",
        };
        let calls = if n == 1 { "call" } else { "calls" };
        Some(format!(
            "was denied permission to {what} ({n} tool {calls} denied){fix}"
        ))
    }
}

/// The first line of `s`, at most 200 characters.
fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut out: String = line.chars().take(200).collect();
    if line.chars().count() > 200 {
        out.push('…');
    }
    out
}

/// The readable text of an LLM or agent answer: when `stdout` is a Claude, Codex or Gemini
/// JSON envelope (or JSONL stream), its final text; otherwise `stdout` unchanged.
pub fn unwrap_text(stdout: &str) -> String {
    let trimmed = stdout.trim();
    if !trimmed.starts_with('{') {
        return stdout.to_string();
    }
    let r = parse(stdout, "");
    match (r.source, r.text) {
        (Some(Source::Generic), _) | (None, _) => stdout.to_string(),
        (_, Some(text)) => text,
        (_, None) => stdout.to_string(),
    }
}
