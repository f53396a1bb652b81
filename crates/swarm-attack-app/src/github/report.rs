//! What a GitHub sync or publish did: per linked issue, the writes planned by a dry run,
//! what is left in the outbox. Filled by a `Session`,
//! printed by the CLI.

use crate::core::feature_id::FeatureId;
use crate::io::github::outbox::OutboxEntry;
use serde::Serialize;

/// What happened to one linked issue.
#[derive(Debug, Clone, Serialize)]
pub struct IssueReport {
    pub issue: u32,
    pub github_issue: u64,
    pub stage: String,
    pub label: Option<String>,
    /// The writes applied (`comment_created`, `comment_updated`, `labels_set`, `closed`, ...).
    pub actions: Vec<String>,
    pub ok: bool,
    /// Whether it was replayed from the outbox.
    pub replayed: bool,
}

/// One request a dry run would send.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedRequest {
    pub method: String,
    pub path: String,
    pub issue: Option<u32>,
    pub github_issue: Option<u64>,
    pub action: String,
}

/// What a `github sync` (or the sync part of `github publish`) did.
#[derive(Debug, Clone, Serialize)]
pub struct GithubSyncReport {
    pub feature: FeatureId,
    pub repo: String,
    pub dry_run: bool,
    pub issues: Vec<IssueReport>,
    /// Dry run: the writes it would send.
    pub planned: Vec<PlannedRequest>,
    /// Outbox entries replayed (and done) by this sync.
    pub replayed: usize,
    /// What is left in the outbox.
    pub outbox: Vec<OutboxEntry>,
    /// One sentence per failure that retrying will not fix (404, 422, ...).
    pub errors: Vec<String>,
    pub reads: usize,
    pub writes: usize,
    /// Issues linked by `github publish` in this run: `(issue, github_issue, created)`.
    pub linked: Vec<(u32, u64, bool)>,
}

impl GithubSyncReport {
    /// 0 when everything is on GitHub; 1 when something failed or waits in the outbox.
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.errors.is_empty() || !self.outbox.is_empty())
    }
}
