//! History scan with gix (SPEC §3): walks the configured refs (all parents, not only the
//! first) and folds every commit message into the evidence ledger, incrementally.
//!
//! The scan remembers, per feature, the tip it scanned for each ref together with the
//! ledger and a fingerprint of the rule's inputs (`.swarm/cache/history/<feature>.json`).
//! Next time only the commits reachable from the new tips and not from the old ones are
//! read. A full rescan happens when there is no usable cache, when the rule's inputs
//! changed, when a shallow clone was deepened, or when a ref's old tip is no longer an
//! ancestor of its new tip (rewritten history).
//!
//! Only commit objects are read (never trees), each once: without a commit-graph the walk's
//! own buffer holds the commit, with one the commit is read once for its message. This is
//! the only module that uses gix.

use crate::core::evidence::{EvidenceRule, Hit, revert_targets};
use crate::core::ledger::Ledger;
use gix::bstr::ByteSlice;
use gix::hash::ObjectId;
use gix::objs::Exists;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The cache format; a change forces a full rescan.
const CACHE_VERSION: u32 = 1;

/// What one feature's scan remembers between runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryCache {
    pub version: u32,
    /// Hash of the rule's inputs, the configured refs and the shallow boundary.
    pub fingerprint: String,
    /// The tip scanned per configured ref (refs that did not resolve are absent).
    pub tips: BTreeMap<String, String>,
    /// Commits scanned since the last full scan.
    pub commits_total: u64,
    pub ledger: Ledger,
}

/// A history cache waiting to be written: a sync produces it, the feature transaction
/// writes it when it commits (never a dry run).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCache {
    pub path: PathBuf,
    pub cache: HistoryCache,
}

/// The result of a scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanOutcome {
    pub ledger: Ledger,
    /// Commits read by this scan.
    pub commits_scanned: u64,
    /// Whether everything was read again (no cache, changed rule, rewritten history).
    pub full_rescan: bool,
    /// The commit HEAD points to (None when unborn or detached from nothing).
    pub head: Option<String>,
    /// Whether the repository is a shallow clone (history incomplete).
    pub shallow: bool,
    /// Configured refs that could not be used.
    pub warnings: Vec<String>,
    /// The cache to write, when it changed.
    pub cache: Option<HistoryCache>,
}

/// Why a scan could not run.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{} is not inside a git repository", .0.display())]
    NotARepository(PathBuf),
    #[error("could not read the git history in {dir}: {message}")]
    Git { dir: PathBuf, message: String },
}

fn git_err(dir: &Path, e: impl std::fmt::Display) -> HistoryError {
    HistoryError::Git {
        dir: dir.to_path_buf(),
        message: e.to_string(),
    }
}

/// Loads a cache file; a missing, unreadable or foreign file is no cache.
pub fn load_cache(path: &Path) -> Option<HistoryCache> {
    let bytes = std::fs::read(path).ok()?;
    let cache: HistoryCache = serde_json::from_slice(&bytes).ok()?;
    (cache.version == CACHE_VERSION).then_some(cache)
}

/// Writes a cache file atomically.
pub fn save_cache(path: &Path, cache: &HistoryCache) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(cache).map_err(std::io::Error::other)?;
    crate::io::atomic::write_atomic(path, &bytes)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

fn fingerprint(rule: &EvidenceRule, refs: &[String], shallow: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(CACHE_VERSION.to_le_bytes());
    h.update(rule.fingerprint_input().as_bytes());
    h.update([0]);
    for r in refs {
        h.update(r.as_bytes());
        h.update([0]);
    }
    h.update([1]);
    h.update(shallow);
    hex(&h.finalize())
}

/// Resolves one configured ref to a commit id. `Ok(None)`: an unborn HEAD.
fn resolve_ref(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>, String> {
    let id = if name == "HEAD" {
        let head = repo.head().map_err(|e| e.to_string())?;
        match head.id() {
            Some(id) => id.detach(),
            None => return Ok(None),
        }
    } else if name.len() == 40 && name.bytes().all(|c| c.is_ascii_hexdigit()) {
        ObjectId::from_hex(name.as_bytes()).map_err(|e| e.to_string())?
    } else {
        match repo.try_find_reference(name) {
            Ok(Some(mut r)) => r.peel_to_id().map_err(|e| e.to_string())?.detach(),
            Ok(None) => return Err("no such ref".into()),
            Err(e) => return Err(e.to_string()),
        }
    };
    let object = repo.find_object(id).map_err(|e| e.to_string())?;
    let commit = object.peel_to_commit().map_err(|e| e.to_string())?;
    Ok(Some(commit.id))
}

/// The message of a raw commit object (everything after the headers).
fn message_of(data: &[u8]) -> &[u8] {
    match data.find(b"\n\n") {
        Some(i) => &data[i + 2..],
        None => &[],
    }
}

/// Whether the repository at `root` is a shallow clone (false when it is not a repository).
pub fn is_shallow(root: &Path) -> bool {
    gix::discover(root).is_ok_and(|repo| repo.is_shallow().unwrap_or(false))
}

/// Scans the history of the repository containing `root` for `rule`, resuming from
/// `cached` when it is still valid.
pub fn scan(
    root: &Path,
    refs: &[String],
    rule: &EvidenceRule,
    cached: Option<HistoryCache>,
) -> Result<ScanOutcome, HistoryError> {
    let repo = match gix::discover(root) {
        Ok(r) => r,
        Err(e) => {
            use gix::discover::upwards::Error as U;
            return Err(match e.downcast_any_ref::<U>() {
                Some(
                    U::NoGitRepository { .. }
                    | U::NoGitRepositoryWithinCeiling { .. }
                    | U::NoGitRepositoryWithinFs { .. },
                ) => HistoryError::NotARepository(root.to_path_buf()),
                _ => git_err(root, e),
            });
        }
    };
    let shallow = repo.is_shallow().unwrap_or(false);
    let shallow_bytes = if shallow {
        repo.shallow_file()
            .ok()
            .and_then(|p| std::fs::read(p).ok())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let head = repo
        .head()
        .ok()
        .and_then(|h| h.id())
        .map(|id| id.detach().to_string());

    let mut warnings = Vec::new();
    let mut tips: BTreeMap<String, ObjectId> = BTreeMap::new();
    for (i, name) in refs.iter().enumerate() {
        match resolve_ref(&repo, name) {
            Ok(Some(id)) => {
                tips.insert(name.clone(), id);
            }
            Ok(None) => {}
            Err(e) => warnings.push(format!(
                "git.sync_refs[{i}] `{name}` does not name a commit ({e}); it was not scanned"
            )),
        }
    }
    let fp = fingerprint(rule, refs, &shallow_bytes);
    let tip_strings: BTreeMap<String, String> = tips
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();

    let usable = cached.filter(|c| c.version == CACHE_VERSION && c.fingerprint == fp);
    if let Some(c) = &usable
        && c.tips == tip_strings
    {
        // nothing new
        return Ok(ScanOutcome {
            ledger: c.ledger.clone(),
            commits_scanned: 0,
            full_rescan: false,
            head,
            shallow,
            warnings,
            cache: None,
        });
    }

    let mut scanner = Scanner::new(&repo, root, rule, shallow)?;
    let (ledger, commits_scanned, commits_total, full_rescan) = match usable {
        Some(c) if c.tips.keys().all(|k| tips.contains_key(k)) => {
            // incremental: the new tips, hiding everything the old tips reach
            let old: BTreeMap<&str, ObjectId> = c
                .tips
                .iter()
                .filter_map(|(k, v)| Some((k.as_str(), ObjectId::from_hex(v.as_bytes()).ok()?)))
                .filter(|(_, id)| repo.objects.exists(id))
                .collect();
            let changed: Vec<(&str, ObjectId)> = tips
                .iter()
                .filter(|(k, v)| old.get(k.as_str()) != Some(*v))
                .map(|(k, v)| (k.as_str(), *v))
                .collect();
            let hidden: Vec<ObjectId> = old.values().copied().collect();
            let mut ledger = c.ledger.clone();
            let walked = scanner.walk(
                changed.iter().map(|(_, id)| *id).collect(),
                hidden,
                &mut ledger,
            )?;
            let rewritten = changed.iter().any(|(name, new)| match old.get(name) {
                None => false,
                Some(old_tip) => {
                    !(walked.parents.contains(old_tip)
                        || tips.values().any(|t| t == old_tip)
                        || is_ancestor(&repo, *old_tip, *new))
                }
            });
            let lost = c.tips.len() != old.len();
            if rewritten || lost {
                let mut ledger = Ledger::default();
                let n = scanner.walk(tips.values().copied().collect(), Vec::new(), &mut ledger)?;
                (ledger, n.count, n.count, true)
            } else {
                (ledger, walked.count, c.commits_total + walked.count, false)
            }
        }
        _ => {
            let mut ledger = Ledger::default();
            let n = scanner.walk(tips.values().copied().collect(), Vec::new(), &mut ledger)?;
            (ledger, n.count, n.count, true)
        }
    };
    let cache = HistoryCache {
        version: CACHE_VERSION,
        fingerprint: fp,
        tips: tip_strings,
        commits_total,
        ledger: ledger.clone(),
    };
    Ok(ScanOutcome {
        ledger,
        commits_scanned,
        full_rescan,
        head,
        shallow,
        warnings,
        cache: Some(cache),
    })
}

/// Whether `old` is an ancestor of `new`, looking only at commits not older than `old`
/// (clock skew can make this say no for a real ancestor, which only costs a rescan).
fn is_ancestor(repo: &gix::Repository, old: ObjectId, new: ObjectId) -> bool {
    if old == new {
        return true;
    }
    let Ok(old_time) = repo.find_commit(old).and_then(|c| c.time()) else {
        return false;
    };
    let walk = repo
        .rev_walk([new])
        .sorting(gix::revision::walk::Sorting::ByCommitTimeCutoff {
            seconds: old_time.seconds,
            order: Default::default(),
        })
        .all();
    let Ok(walk) = walk else { return false };
    for info in walk {
        match info {
            Ok(info) if info.id == old => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

/// What one walk saw.
struct Walked {
    count: u64,
    /// Every parent of a walked commit (to tell whether an old tip is still an ancestor).
    parents: HashSet<ObjectId>,
}

/// Reads commit messages and records what matters, reusing its buffers.
struct Scanner<'r> {
    repo: &'r gix::Repository,
    root: &'r Path,
    rule: &'r EvidenceRule,
    shallow: bool,
    hits: Vec<Hit>,
    buf: Vec<u8>,
}

/// A commit that matters, found during a walk (newest first).
struct Found {
    id: ObjectId,
    hits: Vec<Hit>,
    reverts: Vec<String>,
}

impl<'r> Scanner<'r> {
    fn new(
        repo: &'r gix::Repository,
        root: &'r Path,
        rule: &'r EvidenceRule,
        shallow: bool,
    ) -> Result<Self, HistoryError> {
        Ok(Scanner {
            repo,
            root,
            rule,
            shallow,
            hits: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// Walks `tips` (all parents) hiding what `hidden` reaches, and folds the commits into
    /// `ledger` oldest first.
    fn walk(
        &mut self,
        tips: Vec<ObjectId>,
        hidden: Vec<ObjectId>,
        ledger: &mut Ledger,
    ) -> Result<Walked, HistoryError> {
        let mut walked = Walked {
            count: 0,
            parents: HashSet::new(),
        };
        if tips.is_empty() {
            return Ok(walked);
        }
        let track_parents = !hidden.is_empty();
        let objects = &self.repo.objects;
        let shallow = self.shallow;
        let mut walk =
            gix::traverse::commit::Simple::filtered(tips, objects, move |id: &gix::hash::oid| {
                // a shallow clone's boundary commits have parents that are not there
                !shallow || objects.exists(id)
            })
            .commit_graph(self.repo.commit_graph_if_enabled().ok().flatten())
            .hide(hidden)
            .map_err(|e| git_err(self.root, e))?;
        let mut found: Vec<Found> = Vec::new();
        while let Some(info) = walk.next() {
            let info = info.map_err(|e| git_err(self.root, e))?;
            walked.count += 1;
            if track_parents {
                walked.parents.extend(info.parent_ids.iter().copied());
            }
            let data: &[u8] = if info.generation.is_some() {
                // from the commit-graph: read the commit itself once
                match gix::objs::Find::try_find(objects, &info.id, &mut self.buf) {
                    Ok(Some(d)) => d.data,
                    Ok(None) => continue,
                    Err(e) => return Err(git_err(self.root, e)),
                }
            } else {
                walk.commit_data()
            };
            let raw = message_of(data);
            let message: Cow<'_, str> = match std::str::from_utf8(raw) {
                Ok(s) => Cow::Borrowed(s),
                Err(_) => String::from_utf8_lossy(raw),
            };
            self.hits.clear();
            self.rule.scan(&message, &mut self.hits);
            let reverts = revert_targets(&message);
            if self.hits.is_empty() && reverts.is_empty() {
                continue;
            }
            found.push(Found {
                id: info.id,
                hits: std::mem::take(&mut self.hits),
                reverts,
            });
        }
        drop(walk);
        for f in found.into_iter().rev() {
            let targets = f
                .reverts
                .into_iter()
                .filter_map(|t| self.resolve(&t))
                .collect();
            ledger.record(&f.id.to_string(), f.hits, targets);
        }
        Ok(walked)
    }

    /// A full sha, or the unique object an abbreviated one (≥ 7 hex digits) names.
    fn resolve(&self, hex: &str) -> Option<String> {
        if hex.len() == 40 {
            return Some(hex.to_string());
        }
        let prefix = gix::hash::Prefix::from_hex(hex).ok()?;
        match self.repo.objects.lookup_prefix(prefix, None) {
            Ok(Some(Ok(id))) => Some(id.to_string()),
            _ => None,
        }
    }
}
