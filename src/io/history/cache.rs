//! The history scan's cache files: the small cache (`<feature>.json`), its ledger
//! (`<feature>.ledger`) and its seen set (`<feature>.seen`), written in that order.

use crate::core::ledger::Ledger;
use crate::io::history_seen::{self, SeenUpdate};
use crate::io::state_store::StateId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache format; a change forces a full rescan.
pub(super) const CACHE_VERSION: u32 = 3;

/// What one feature's scan remembers between runs: this small file, the ledger in
/// `<feature>.ledger` (read only when it is needed) and the seen set in `<feature>.seen`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryCache {
    pub version: u32,
    /// Hash of the rule's inputs, the configured refs and the shallow boundary.
    pub fingerprint: String,
    /// The tip scanned per configured ref (refs that did not resolve are absent).
    pub tips: BTreeMap<String, String>,
    /// Commits scanned since the last full scan.
    pub commits_total: u64,
    /// The token of the ledger file this cache goes with.
    pub ledger_token: u64,
    /// The token of the seen file (`<feature>.seen`, every commit scanned) this cache goes
    /// with, and how many of its ids are valid.
    pub seen_token: u64,
    pub seen_count: u64,
    /// The state file (its identity) in line with this ledger: applying the ledger to it
    /// and recomputing readiness changes nothing, so a sync that finds no new evidence
    /// leaves it as it is without reading the ledger.
    #[serde(default)]
    pub in_sync: Option<StateId>,
    /// The ledger, when this scan read or changed it.
    #[serde(skip)]
    pub ledger: Option<Ledger>,
    /// Whether the ledger changed (written with the cache under a new token).
    #[serde(skip)]
    pub ledger_changed: bool,
    /// Where the cache file is (set when loaded).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// What this scan adds to the seen file (written with the cache).
    #[serde(skip)]
    pub seen_update: Option<SeenUpdate>,
}

/// The ledger file: the token its cache names, and the ledger.
#[derive(Serialize, Deserialize)]
struct LedgerFile<L> {
    token: u64,
    ledger: L,
}

/// A history cache waiting to be written: a sync produces it, the feature transaction
/// writes it when it commits (never a dry run).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCache {
    pub path: PathBuf,
    pub cache: HistoryCache,
}

/// Loads a cache file (not its ledger); a missing, unreadable or foreign file is no cache.
pub fn load_cache(path: &Path) -> Option<HistoryCache> {
    let bytes = std::fs::read(path).ok()?;
    let mut cache: HistoryCache = serde_json::from_slice(&bytes).ok()?;
    cache.path = Some(path.to_path_buf());
    (cache.version == CACHE_VERSION).then_some(cache)
}

/// The seen file that goes with the cache file `path`.
pub(super) fn seen_path(path: &Path) -> PathBuf {
    path.with_extension("seen")
}

/// The ledger file that goes with the cache file `path`.
fn ledger_path(path: &Path) -> PathBuf {
    path.with_extension("ledger")
}

/// The ledger `cache` names; `None` when its file is missing or is another one.
pub(super) fn load_ledger(cache: &HistoryCache) -> Option<Ledger> {
    let bytes = std::fs::read(ledger_path(cache.path.as_deref()?)).ok()?;
    let file: LedgerFile<Ledger> = serde_json::from_slice(&bytes).ok()?;
    (file.token == cache.ledger_token).then_some(file.ledger)
}

/// Writes a cache file atomically, after its seen file and its ledger when that changed
/// (so a cache never names ids or a ledger that are not written; a crash in between costs
/// one full rescan).
pub fn save_cache(path: &Path, cache: &HistoryCache) -> std::io::Result<()> {
    let mut head = cache.clone_head();
    if let Some(update) = &cache.seen_update {
        let (token, count) = history_seen::apply(&seen_path(path), cache.seen_token, update)?;
        head.seen_token = token;
        head.seen_count = count;
    }
    if cache.ledger_changed
        && let Some(ledger) = &cache.ledger
    {
        let token = history_seen::new_token();
        let bytes =
            serde_json::to_vec(&LedgerFile { token, ledger }).map_err(std::io::Error::other)?;
        crate::io::atomic::write_atomic(&ledger_path(path), &bytes)?;
        head.ledger_token = token;
    }
    let bytes = serde_json::to_vec(&head).map_err(std::io::Error::other)?;
    crate::io::atomic::write_atomic(path, &bytes)
}

impl HistoryCache {
    /// A copy of the small part (not the ledger, the seen update or the path).
    pub(super) fn clone_head(&self) -> HistoryCache {
        HistoryCache {
            version: self.version,
            fingerprint: self.fingerprint.clone(),
            tips: self.tips.clone(),
            commits_total: self.commits_total,
            ledger_token: self.ledger_token,
            seen_token: self.seen_token,
            seen_count: self.seen_count,
            in_sync: self.in_sync,
            ledger: None,
            ledger_changed: false,
            path: None,
            seen_update: None,
        }
    }
}
