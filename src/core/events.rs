//! The event schema (SPEC §5): one typed variant per event name. The common fields (`ts`,
//! `feature`, `session`, `seq`) are added by the event log when a record is appended.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event body. Serialises as `{"event": "<name>", ...fields}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    GitSync {
        synced_issues: Vec<u32>,
        reverted_issues: Vec<u32>,
        commits_scanned: u64,
        head: Option<String>,
    },
    Greenlight {
        added: Vec<u32>,
        kept: Vec<u32>,
        ready: Vec<u32>,
    },
    DuplicateDetected {
        issue: u32,
        git: Value,
        tests: Value,
        files: Value,
    },
    AgentsSelected {
        issue: u32,
        mode: String,
        winner: String,
        runner_up: Option<String>,
        reason: String,
        proposals: Value,
    },
    ContextInjected {
        issue: u32,
        has_claude_md: bool,
        summaries_count: u32,
        prompt_bytes: u64,
        truncated: Vec<String>,
    },
    IssueStarted {
        issue: u32,
        attempt: u32,
    },
    AgentStarted {
        issue: u32,
        agent: String,
        role: String,
    },
    AgentFinished {
        issue: u32,
        agent: String,
        exit_code: Option<i32>,
        duration_ms: u64,
        timed_out: bool,
        cost_usd: Option<f64>,
    },
    TestsWritten {
        issue: u32,
        count: u32,
        path: String,
    },
    ImplementationComplete {
        issue: u32,
        files_created: Vec<String>,
        files_modified: Vec<String>,
    },
    VerificationPassed {
        issue: u32,
        tests_passed: Option<u64>,
    },
    VerificationFailed {
        issue: u32,
        tests_failed: Option<u64>,
        failures: String,
    },
    RetryStarted {
        issue: u32,
        attempt: u32,
    },
    IssueBlocked {
        issue: u32,
        reason: String,
        retries: u32,
    },
    IssueDone {
        issue: u32,
        commit: Option<String>,
        cost_usd: Option<f64>,
        summary: Option<String>,
    },
    IssueSkipped {
        issue: u32,
        blocking_issue: Option<u32>,
    },
    IssueUnblocked {
        issue: u32,
    },
    StateReverted {
        issue: u32,
        commit: String,
    },
    GithubSync {
        issue: u32,
        github_issue: u64,
        action: String,
        success: bool,
    },
    GithubError {
        issue: Option<u32>,
        op: String,
        status: Option<u16>,
        message: String,
    },
    ActionReceived {
        event_name: String,
        action: Option<String>,
        issue: Option<u64>,
        sender: Option<String>,
        association: Option<String>,
        handled: bool,
    },
}

impl Event {
    /// The event's name as written in the log.
    pub fn name(&self) -> String {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m
                .get("event")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            _ => String::new(),
        }
    }
}
