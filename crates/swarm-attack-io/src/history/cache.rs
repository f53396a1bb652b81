//! The history scan's cache files: the small cache (`<feature>.json`), its ledger
//! (`<feature>.ledger`) and its seen set (`<feature>.seen`), written in that order.

use crate::core::ledger::Ledger;
use crate::history_seen::{self, SeenUpdate};
use crate::state_store::StateId;
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

/// Writes a cache file, after its seen file and its ledger when that changed (so a cache
/// never names ids or a ledger that are not written; a crash in between costs one full
/// rescan). The cache file and the ledger are replaced by a rename without fsync: they are
/// caches, and a torn, missing or old one is no cache or names a ledger or seen file that
/// is not there ([`load_cache`], `load_ledger`, the seen file's token and count), so a
/// crash costs one full rescan; the seen file's append is synced before the cache that
/// names its count is written. A cache file that already holds the bytes is left alone.
pub fn save_cache(path: &Path, cache: &HistoryCache) -> std::io::Result<()> {
    let mut head = cache.clone_head();
    let mut wrote = false;
    match &cache.seen_update {
        // nothing new to remember: the file stays as it is
        Some(SeenUpdate::Append { base, ids }) if ids.is_empty() => head.seen_count = *base,
        Some(update) => {
            let (token, count) = history_seen::apply(&seen_path(path), cache.seen_token, update)?;
            head.seen_token = token;
            head.seen_count = count;
            wrote = true;
        }
        None => {}
    }
    if cache.ledger_changed
        && let Some(ledger) = &cache.ledger
    {
        let token = history_seen::new_token();
        let bytes =
            serde_json::to_vec(&LedgerFile { token, ledger }).map_err(std::io::Error::other)?;
        crate::atomic::replace_unsynced(&ledger_path(path), &bytes)?;
        head.ledger_token = token;
        wrote = true;
    }
    let bytes = serde_json::to_vec(&head).map_err(std::io::Error::other)?;
    if !wrote && std::fs::read(path).is_ok_and(|now| now == bytes) {
        return Ok(());
    }
    crate::atomic::replace_unsynced(path, &bytes)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn cache() -> HistoryCache {
        HistoryCache {
            version: CACHE_VERSION,
            fingerprint: "f".into(),
            tips: BTreeMap::from([("HEAD".into(), "a".repeat(40))]),
            commits_total: 3,
            ledger_token: 0,
            seen_token: 0,
            seen_count: 0,
            in_sync: None,
            ledger: Some(Ledger::default()),
            ledger_changed: true,
            path: None,
            seen_update: Some(SeenUpdate::Replace(vec![gix::ObjectId::null(
                gix::hash::Kind::Sha1,
            )])),
        }
    }

    fn inode(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().ino()
    }

    #[test]
    fn an_unchanged_cache_is_not_written_again_and_a_torn_one_is_no_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f.json");
        let mut c = cache();
        save_cache(&path, &c).unwrap();
        let mut loaded = load_cache(&path).unwrap();
        assert_eq!(loaded.seen_count, 1);
        assert!(load_ledger(&loaded).is_some());
        // the next sync found nothing new: no file is replaced
        loaded.seen_update = Some(SeenUpdate::Append {
            base: loaded.seen_count,
            ids: Vec::new(),
        });
        let (cache_ino, ledger_ino, seen_ino) = (
            inode(&path),
            inode(&ledger_path(&path)),
            inode(&seen_path(&path)),
        );
        let seen_bytes = std::fs::read(seen_path(&path)).unwrap();
        save_cache(&path, &loaded).unwrap();
        assert_eq!(inode(&path), cache_ino);
        assert_eq!(inode(&ledger_path(&path)), ledger_ino);
        assert_eq!(inode(&seen_path(&path)), seen_ino);
        assert_eq!(std::fs::read(seen_path(&path)).unwrap(), seen_bytes);
        assert_eq!(load_cache(&path).unwrap().seen_count, 1);
        // a change is written
        loaded.commits_total += 1;
        save_cache(&path, &loaded).unwrap();
        assert_ne!(inode(&path), cache_ino);
        assert_eq!(load_cache(&path).unwrap().commits_total, 4);
        // the files are written without fsync: after a crash any of them may be torn or
        // old, and each such file is no cache (the sync then reads the whole history)
        let whole = std::fs::read(&path).unwrap();
        for cut in [0, 1, whole.len() / 2, whole.len() - 1] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert!(load_cache(&path).is_none(), "cut at {cut}");
        }
        std::fs::write(&path, &whole).unwrap();
        let good = load_cache(&path).unwrap();
        let ledger = std::fs::read(ledger_path(&path)).unwrap();
        for cut in [0, ledger.len() / 2, ledger.len() - 1] {
            std::fs::write(ledger_path(&path), &ledger[..cut]).unwrap();
            assert!(load_ledger(&good).is_none(), "ledger cut at {cut}");
        }
        // an older ledger (the rename of the new one lost) has another token
        c.ledger_changed = true;
        save_cache(&path, &c).unwrap();
        let newer = load_cache(&path).unwrap();
        std::fs::write(ledger_path(&path), &ledger).unwrap();
        assert!(load_ledger(&newer).is_none());
    }
}
