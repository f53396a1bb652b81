//! History scan with gix (docs/git-sync.md "The four rules"): walks the configured refs (all
//! parents, not only the first) and folds every commit message into the evidence ledger,
//! incrementally.
//!
//! The scan remembers, per feature, the tip it scanned for each ref together with the
//! ledger and a fingerprint of the rule's inputs (`.swarm/cache/history/<feature>.json`).
//! Next time only the commits reachable from the new tips and not from the old ones are
//! read: the walk goes from the new tips by ancestry and stops at commits an earlier scan
//! read (kept in `<feature>.seen`, see [`crate::history_seen`]), never by date, so a
//! new commit dated before most of the history costs one commit, not a walk of everything. A full rescan happens when there is no usable cache, when the rule's inputs
//! changed, when a shallow clone was deepened, or when a ref's old tip is no longer an
//! ancestor of its new tip (rewritten history).
//!
//! Only commit objects are read (never trees), each once. A full scan reads them straight
//! from the pack files on all cores ([`crate::history_pack`]); where that reader does
//! not apply, and for incremental scans, gix walks: without a commit-graph the walk's own
//! buffer holds the commit, with one the commit is read once for its message.

use crate::core::evidence::{EvidenceRule, Hit, revert_targets};
use crate::core::ledger::Ledger;
use crate::history_pack;
use crate::history_seen::{SeenSet, SeenUpdate};
use crate::state_store::StateId;
use gix::bstr::ByteSlice;
use gix::hash::ObjectId;
use gix::objs::Exists;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

mod cache;
use cache::{CACHE_VERSION, load_ledger, seen_path};
pub use cache::{HistoryCache, PendingCache, load_cache, save_cache};

/// The result of a scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanOutcome {
    /// The whole ledger, to apply to the state; `None` when the state is the one the cache
    /// names as in line with the history and no new commit carried evidence or a revert
    /// (applying would change nothing).
    pub ledger: Option<Ledger>,
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
    /// The cache to write, when it changed (its `in_sync` is for the caller to set).
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

/// Resolves one configured ref to a commit id. `Ok(None)`: an unborn HEAD. `known` is the
/// tip the cache recorded for it: a ref still pointing there is not looked up in the
/// object database (it was a commit when recorded), which spares loading the pack index.
fn resolve_ref(
    repo: &gix::Repository,
    name: &str,
    known: Option<&String>,
) -> Result<Option<ObjectId>, String> {
    let known = known.and_then(|k| ObjectId::from_hex(k.as_bytes()).ok());
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
            Ok(Some(mut r)) => match r.target().try_id() {
                Some(id) if known.is_some_and(|k| &*k == id) => {
                    return Ok(Some(id.to_owned()));
                }
                _ => r.peel_to_id().map_err(|e| e.to_string())?.detach(),
            },
            Ok(None) => return Err("no such ref".into()),
            Err(e) => return Err(e.to_string()),
        }
    };
    if known == Some(id) {
        return Ok(Some(id));
    }
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
/// `cached` when it is still valid. `state` is the identity of the state file the result
/// is for: when the cache names it as in line with the history and no new commit carries
/// evidence or a revert, the ledger is not read ([`ScanOutcome::ledger`] is `None`).
pub fn scan(
    root: &Path,
    refs: &[String],
    rule: &EvidenceRule,
    cached: Option<HistoryCache>,
    state: Option<&StateId>,
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

    let fp = fingerprint(rule, refs, &shallow_bytes);
    let usable = cached.filter(|c| c.version == CACHE_VERSION && c.fingerprint == fp);
    let mut warnings = Vec::new();
    let mut tips: BTreeMap<String, ObjectId> = BTreeMap::new();
    for (i, name) in refs.iter().enumerate() {
        let known = usable.as_ref().and_then(|c| c.tips.get(name));
        match resolve_ref(&repo, name, known) {
            Ok(Some(id)) => {
                tips.insert(name.clone(), id);
            }
            Ok(None) => {}
            Err(e) => warnings.push(format!(
                "git.sync_refs[{i}] `{name}` does not name a commit ({e}); it was not scanned"
            )),
        }
    }
    let tip_strings: BTreeMap<String, String> = tips
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    let in_sync = |c: &HistoryCache| state.is_some() && c.in_sync.as_ref() == state;
    let outcome = |ledger, commits_scanned, full_rescan, warnings, cache| ScanOutcome {
        ledger,
        commits_scanned,
        full_rescan,
        head: head.clone(),
        shallow,
        warnings,
        cache,
    };

    let usable = match usable {
        Some(c) if c.tips == tip_strings => {
            // nothing new
            if in_sync(&c) {
                return Ok(outcome(None, 0, false, warnings, None));
            }
            if let Some(ledger) = load_ledger(&c) {
                // the cache is written again only to name the state as in line
                let cache = HistoryCache {
                    in_sync: None,
                    ..c.clone_head()
                };
                return Ok(outcome(Some(ledger), 0, false, warnings, Some(cache)));
            }
            None
        }
        other => other,
    };

    let mut scanner = Scanner::new(&repo, root, rule, shallow)?;
    let full = |scanner: &mut Scanner<'_>| -> Result<_, HistoryError> {
        let mut ledger = Ledger::default();
        let mut seen = Vec::new();
        let n = scanner.walk(tips.values().copied().collect(), &mut ledger, &mut seen)?;
        Ok((Some(ledger), true, n, n, true, SeenUpdate::Replace(seen)))
    };
    let (usable_token, usable_count, usable_ledger_token, usable_in_sync) =
        usable.as_ref().map_or((0, 0, 0, None), |c| {
            (c.seen_token, c.seen_count, c.ledger_token, c.in_sync)
        });
    let seen = usable
        .as_ref()
        .and_then(|c| SeenSet::open(&seen_path(c.path.as_deref()?), c.seen_token, c.seen_count));
    let (ledger, ledger_changed, commits_scanned, commits_total, full_rescan, update) =
        match (usable, seen) {
            (Some(c), Some(mut seen)) if c.tips.keys().all(|k| tips.contains_key(k)) => {
                // incremental: from the new tips by ancestry, stopping at commits already read
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
                let walked =
                    scanner.walk_new(changed.iter().map(|(_, id)| *id).collect(), &mut seen)?;
                let rewritten = changed.iter().any(|(name, new)| match old.get(name) {
                    None => false,
                    Some(old_tip) => {
                        !(walked.reached.contains(old_tip)
                            || tips.values().any(|t| t == old_tip)
                            || is_ancestor(&repo, *old_tip, *new))
                    }
                });
                let lost = c.tips.len() != old.len();
                // no new evidence and a state in line: the ledger is not needed
                let quiet = walked.found.is_empty() && in_sync(&c);
                let ledger = if rewritten || lost || quiet {
                    None
                } else {
                    load_ledger(&c)
                };
                if rewritten || lost || (!quiet && ledger.is_none()) {
                    full(&mut scanner)?
                } else {
                    let changed = !walked.found.is_empty();
                    let ledger = ledger.map(|mut l| {
                        scanner.fold(walked.found, &mut l);
                        l
                    });
                    let n = walked.ids.len() as u64;
                    let update = SeenUpdate::Append {
                        base: c.seen_count,
                        ids: walked.ids,
                    };
                    (ledger, changed, n, c.commits_total + n, false, update)
                }
            }
            _ => full(&mut scanner)?,
        };
    let cache = HistoryCache {
        version: CACHE_VERSION,
        fingerprint: fp,
        tips: tip_strings,
        commits_total,
        ledger_token: usable_ledger_token,
        seen_token: usable_token,
        seen_count: usable_count,
        // still in line when the ledger was not needed; the caller decides the rest
        in_sync: if ledger.is_none() {
            usable_in_sync
        } else {
            None
        },
        ledger: ledger.clone(),
        ledger_changed,
        path: None,
        seen_update: Some(update),
    };
    Ok(outcome(
        ledger,
        commits_scanned,
        full_rescan,
        warnings,
        Some(cache),
    ))
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

/// What an incremental walk saw.
struct WalkedNew {
    /// The commits read, in walk order (newest first).
    ids: Vec<ObjectId>,
    /// The commits already seen where the walk stopped.
    reached: HashSet<ObjectId>,
    /// The commits that matter among those read (newest first).
    found: Vec<Found>,
}

/// Reads commit messages and records what matters, reusing its buffers.
struct Scanner<'r> {
    repo: &'r gix::Repository,
    root: &'r Path,
    rule: &'r EvidenceRule,
    shallow: bool,
    buf: Vec<u8>,
}

/// A commit that matters, found during a walk (newest first).
#[derive(Debug, PartialEq)]
struct Found {
    id: ObjectId,
    hits: Vec<Hit>,
    reverts: Vec<String>,
}

/// Applies `rule` to one commit's raw data; returns what matters in it, if anything.
fn examine(rule: &EvidenceRule, id: &gix::hash::oid, data: &[u8]) -> Option<Found> {
    let raw = message_of(data);
    let message: Cow<'_, str> = match std::str::from_utf8(raw) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(raw),
    };
    let mut hits = Vec::new();
    rule.scan(&message, &mut hits);
    let reverts = revert_targets(&message);
    if hits.is_empty() && reverts.is_empty() {
        return None;
    }
    Some(Found {
        id: id.to_owned(),
        hits,
        reverts,
    })
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
            buf: Vec::new(),
        })
    }

    /// Folds what a walk found (newest first) into `ledger`, oldest first.
    fn fold(&self, found: Vec<Found>, ledger: &mut Ledger) {
        for f in found.into_iter().rev() {
            let targets = f
                .reverts
                .into_iter()
                .filter_map(|t| self.resolve(&t))
                .collect();
            ledger.record(&f.id.to_string(), f.hits, targets);
        }
    }

    /// Walks everything `tips` reach (all parents) and folds the commits into `ledger`
    /// oldest first; every commit read is pushed to `seen`. Returns how many were read.
    /// The commits are read straight from the packs ([`history_pack`]) when that applies.
    fn walk(
        &mut self,
        tips: Vec<ObjectId>,
        ledger: &mut Ledger,
        seen: &mut Vec<ObjectId>,
    ) -> Result<u64, HistoryError> {
        if tips.is_empty() {
            return Ok(0);
        }
        let rule = self.rule;
        if let Some(read) = history_pack::walk(self.repo, &tips, |id, data| examine(rule, id, data))
        {
            seen.extend(read.ids);
            self.fold(read.found, ledger);
            return Ok(seen.len() as u64);
        }
        let found = self.walk_gix(tips, seen)?;
        self.fold(found, ledger);
        Ok(seen.len() as u64)
    }

    /// The same walk with gix's breadth-first walk: what [`Scanner::walk`] does when the
    /// packs cannot be read directly. Returns what matters, in walk order.
    fn walk_gix(
        &mut self,
        tips: Vec<ObjectId>,
        seen: &mut Vec<ObjectId>,
    ) -> Result<Vec<Found>, HistoryError> {
        let repo = self.repo;
        let objects = &repo.objects;
        let shallow = self.shallow;
        let mut walk =
            gix::traverse::commit::Simple::filtered(tips, objects, move |id: &gix::hash::oid| {
                // a shallow clone's boundary commits have parents that are not there
                !shallow || objects.exists(id)
            })
            .commit_graph(repo.commit_graph_if_enabled().ok().flatten());
        let mut found: Vec<Found> = Vec::new();
        let mut buf = std::mem::take(&mut self.buf);
        while let Some(info) = walk.next() {
            let info = info.map_err(|e| git_err(self.root, e))?;
            seen.push(info.id);
            let data: &[u8] = if info.generation.is_some() {
                // from the commit-graph: read the commit itself once
                match gix::objs::Find::try_find(objects, &info.id, &mut buf) {
                    Ok(Some(d)) => d.data,
                    Ok(None) => continue,
                    Err(e) => return Err(git_err(self.root, e)),
                }
            } else {
                walk.commit_data()
            };
            found.extend(examine(self.rule, &info.id, data));
        }
        drop(walk);
        self.buf = buf;
        Ok(found)
    }

    /// Walks from `tips` by ancestry (all parents), stopping at commits `seen` already
    /// holds: only new commits are read, whatever their dates. Returns what matters in
    /// them (for [`Scanner::fold`]).
    fn walk_new(
        &mut self,
        tips: Vec<ObjectId>,
        seen: &mut SeenSet,
    ) -> Result<WalkedNew, HistoryError> {
        let mut walked = WalkedNew {
            ids: Vec::new(),
            reached: HashSet::new(),
            found: Vec::new(),
        };
        let mut visited: HashSet<ObjectId> = HashSet::new();
        let mut queue: std::collections::VecDeque<ObjectId> = tips.into_iter().collect();
        let mut found: Vec<Found> = Vec::new();
        let mut buf = std::mem::take(&mut self.buf);
        while let Some(id) = queue.pop_front() {
            if !visited.insert(id) {
                continue;
            }
            if seen.contains(&id) {
                walked.reached.insert(id);
                continue;
            }
            let repo = self.repo;
            let data = match gix::objs::Find::try_find(&repo.objects, &id, &mut buf) {
                Ok(Some(d)) => d.data,
                // a shallow clone's boundary: the parent is not there
                Ok(None) if self.shallow => continue,
                Ok(None) => return Err(git_err(self.root, format!("commit {id} is missing"))),
                Err(e) => return Err(git_err(self.root, e)),
            };
            walked.ids.push(id);
            for parent in
                gix::objs::CommitRefIter::from_bytes(data, repo.object_hash()).parent_ids()
            {
                if !visited.contains(&parent) {
                    queue.push_back(parent);
                }
            }
            found.extend(examine(self.rule, &id, data));
        }
        self.buf = buf;
        walked.found = found;
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

#[cfg(test)]
mod pack_tests;
