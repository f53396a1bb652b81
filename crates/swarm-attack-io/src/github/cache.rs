//! What the last sync saw and wrote, per linked issue: `.swarm/cache/github/<feature>.json`.
//! It lets a sync skip reads (the status comment's id, the labels, an ETag for a
//! conditional read that GitHub answers `304`) and skip every write when nothing changed.
//! Losing it costs requests, never correctness: a missing entry means "read everything".

use crate::atomic::write_atomic;
use crate::core::feature_id::FeatureId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What was last written to one issue (compared with what the state wants now).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    pub label: Option<String>,
    pub digest: String,
    pub close: bool,
}

/// One linked issue as last seen.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct IssueCache {
    pub etag: Option<String>,
    pub labels: Vec<String>,
    pub open: bool,
    /// Whether `labels`/`open` were ever read (an ETag alone proves nothing).
    pub seen: bool,
    pub comment_id: Option<u64>,
    pub comment_digest: Option<String>,
    /// The issue's comment count as last seen (fewer later: a comment was deleted, perhaps
    /// the status comment, so the comments are read again).
    pub comments: Option<u64>,
    pub closed_by_swarm: bool,
    pub applied: Option<Applied>,
}

/// The whole cache of one feature.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncCache {
    pub repo: String,
    pub api_url: String,
    /// The four labels were verified or created with their colours.
    pub labels_ok: bool,
    pub issues: BTreeMap<u64, IssueCache>,
}

/// The repository's open pull requests as last listed by the supersession gate, with the
/// listing's ETag: `.swarm/cache/github/open-pulls.json` (one per repository, shared by
/// every feature).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OpenPullsCache {
    pub repo: String,
    pub api_url: String,
    pub etag: Option<String>,
    pub pulls: Vec<CachedPull>,
}

/// One open pull request as the gate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CachedPull {
    pub number: u64,
    pub head_ref: String,
    pub title: String,
    pub body: String,
    /// The head commit its `commits` were read at.
    pub head_sha: String,
    /// Its commits' messages (`None`: not read yet).
    pub commits: Option<Vec<String>>,
}

/// `.swarm/cache/github/open-pulls.json`.
pub fn open_pulls_file(cache_dir: &Path) -> PathBuf {
    cache_dir.join("github").join("open-pulls.json")
}

/// Loads the open-pull-request cache; anything unreadable, or a cache of another
/// repository or API, gives an empty one (no ETag: the next listing is unconditional).
pub fn load_open_pulls(path: &Path, repo: &str, api_url: &str) -> OpenPullsCache {
    match std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<OpenPullsCache>(&b).ok())
    {
        Some(c) if c.repo == repo && c.api_url == api_url => c,
        _ => OpenPullsCache {
            repo: repo.to_string(),
            api_url: api_url.to_string(),
            ..OpenPullsCache::default()
        },
    }
}

/// Writes the open-pull-request cache (atomically).
pub fn save_open_pulls(path: &Path, cache: &OpenPullsCache) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(cache).unwrap_or_default();
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// `.swarm/cache/github/<feature>.json`.
pub fn cache_file(cache_dir: &Path, feature: &FeatureId) -> PathBuf {
    cache_dir.join("github").join(format!("{feature}.json"))
}

/// Loads the cache; anything unreadable, or a cache of another repository or API, gives an
/// empty one.
pub fn load(path: &Path, repo: &str, api_url: &str) -> SyncCache {
    let fresh = || SyncCache {
        repo: repo.to_string(),
        api_url: api_url.to_string(),
        ..SyncCache::default()
    };
    match std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<SyncCache>(&b).ok())
    {
        Some(c) if c.repo == repo && c.api_url == api_url => c,
        _ => fresh(),
    }
}

/// Writes the cache if it differs from `before`.
pub fn save_if_changed(path: &Path, before: &SyncCache, now: &SyncCache) -> std::io::Result<()> {
    if before == now && path.exists() {
        return Ok(());
    }
    let mut bytes = serde_json::to_vec_pretty(now).unwrap_or_default();
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}
