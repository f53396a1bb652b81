//! The evidence ledger (docs/git-sync.md "The four rules"): what the scanned history says, folded
//! commit by commit oldest first, and what that means for the feature's tasks.
//!
//! The ledger keeps only the commits that matter: evidence commits (with their hits) and
//! reverting commits (with the commits they revert). Whether a commit's evidence counts is
//! derived, never stored: a commit is *active* unless an active commit reverts it, so a
//! revert cancels evidence and a revert of that revert restores it. Because of that the
//! result does not depend on the order commits were folded in, and folding a commit twice
//! changes nothing; the position only decides which commit is "the implementing one"
//! (the oldest active) and which revert is named in `state_reverted` (the newest).
//!
//! The ledger is serialisable so a scan can be resumed: fold only the new commits.

use crate::evidence::{EvidenceRule, Hit, revert_targets};
use crate::stage::Stage;
use crate::state::{EvidenceRecord, FeatureState, Task};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// A commit that gives evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceCommit {
    /// Position in the fold (oldest first).
    pub pos: u64,
    pub hits: Vec<Hit>,
}

/// A commit that reverts other commits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevertCommit {
    pub pos: u64,
    /// The full shas it reverts.
    pub targets: Vec<String>,
}

/// What the scanned history says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// Evidence commits by full sha.
    pub evidence: BTreeMap<String, EvidenceCommit>,
    /// Reverting commits by full sha.
    pub reverts: BTreeMap<String, RevertCommit>,
    /// The next position.
    pub next: u64,
}

/// The evidence for one issue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueEvidence {
    /// Active evidence, oldest first: (commit, hit).
    pub active: Vec<(String, Hit)>,
    /// Cancelled evidence commits, oldest first: (commit, the newest active commit that
    /// reverts it).
    pub cancelled: Vec<(String, String)>,
}

impl IssueEvidence {
    /// The commit that cancelled the newest cancelled evidence.
    pub fn last_reverter(&self) -> Option<&str> {
        self.cancelled.last().map(|(_, r)| r.as_str())
    }
}

fn is_full_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|c| c.is_ascii_hexdigit())
}

impl Ledger {
    /// Folds one commit: records its evidence and the commits it reverts. `resolve` turns an
    /// abbreviated sha (≥ 7 hex digits) into the full one when it is unique; full shas are
    /// taken as they are. Returns whether the commit mattered.
    pub fn fold(
        &mut self,
        commit: &str,
        message: &str,
        rule: &EvidenceRule,
        resolve: &mut dyn FnMut(&str) -> Option<String>,
    ) -> bool {
        let hits = rule.matches(message);
        let targets: Vec<String> = revert_targets(message)
            .into_iter()
            .filter_map(|t| {
                if is_full_sha(&t) {
                    Some(t)
                } else {
                    resolve(&t)
                }
            })
            .collect();
        self.record(commit, hits, targets)
    }

    /// Records an already scanned commit (the low-level half of [`Ledger::fold`]). A commit
    /// already recorded keeps its first record. Returns whether the commit mattered.
    pub fn record(&mut self, commit: &str, hits: Vec<Hit>, reverted: Vec<String>) -> bool {
        if hits.is_empty() && reverted.is_empty() {
            return false;
        }
        if self.evidence.contains_key(commit) || self.reverts.contains_key(commit) {
            return true;
        }
        let pos = self.next;
        self.next += 1;
        if !hits.is_empty() {
            self.evidence
                .insert(commit.to_string(), EvidenceCommit { pos, hits });
        }
        let reverted: Vec<String> = reverted
            .into_iter()
            .map(|t| t.to_ascii_lowercase())
            .filter(|t| t != commit)
            .collect();
        if !reverted.is_empty() {
            self.reverts.insert(
                commit.to_string(),
                RevertCommit {
                    pos,
                    targets: reverted,
                },
            );
        }
        true
    }

    /// Whether the evidence of `commit` counts (no active commit reverts it).
    pub fn is_active(&self, commit: &str) -> bool {
        Activity::new(self).active(commit)
    }

    /// The evidence per issue.
    pub fn by_issue(&self) -> BTreeMap<u32, IssueEvidence> {
        let mut act = Activity::new(self);
        let mut commits: Vec<(&String, &EvidenceCommit)> = self.evidence.iter().collect();
        commits.sort_by_key(|(_, e)| e.pos);
        let mut out: BTreeMap<u32, IssueEvidence> = BTreeMap::new();
        for (sha, ev) in commits {
            let active = act.active(sha);
            let reverter = if active { None } else { act.canceller(sha) };
            for hit in &ev.hits {
                let entry = out.entry(hit.issue).or_default();
                if active {
                    entry.active.push((sha.clone(), hit.clone()));
                } else if !entry.cancelled.iter().any(|(c, _)| c == sha) {
                    let r = reverter.clone().unwrap_or_default();
                    entry.cancelled.push((sha.clone(), r));
                }
            }
        }
        out
    }
}

/// Memoised activity over the revert graph.
struct Activity<'a> {
    ledger: &'a Ledger,
    reverted_by: HashMap<&'a str, Vec<&'a str>>,
    memo: HashMap<&'a str, bool>,
}

impl<'a> Activity<'a> {
    fn new(ledger: &'a Ledger) -> Self {
        let mut reverted_by: HashMap<&str, Vec<&str>> = HashMap::new();
        for (sha, r) in &ledger.reverts {
            for t in &r.targets {
                reverted_by
                    .entry(t.as_str())
                    .or_default()
                    .push(sha.as_str());
            }
        }
        Activity {
            ledger,
            reverted_by,
            memo: HashMap::new(),
        }
    }

    fn active(&mut self, commit: &str) -> bool {
        let Some((key, reverters)) = self.reverted_by.get_key_value(commit) else {
            return true;
        };
        let (key, reverters) = (*key, reverters.clone());
        if let Some(a) = self.memo.get(key) {
            return *a;
        }
        // a revert graph has no cycles (a commit cannot name a descendant); be safe anyway
        self.memo.insert(key, true);
        let a = reverters.iter().all(|r| !self.active(r));
        self.memo.insert(key, a);
        a
    }

    /// The newest commit that made `commit` inactive: among its active reverters and,
    /// through revert chains, the commits that cancelled the reverts of those reverters.
    fn canceller(&mut self, commit: &str) -> Option<String> {
        self.cause(commit, 0).map(|(_, c)| c.to_string())
    }

    fn cause(&mut self, commit: &str, depth: usize) -> Option<(u64, &'a str)> {
        if depth > 64 {
            return None;
        }
        let ledger = self.ledger;
        let reverters = self.reverted_by.get(commit)?.clone();
        let mut best: Option<(u64, &'a str)> = None;
        for r in reverters {
            if !self.active(r) {
                continue;
            }
            let pos = ledger.reverts.get(r).map_or(0, |c| c.pos);
            best = best.max(Some((pos, r)));
            // r is active because its own reverters were cancelled
            for r2 in self.reverted_by.get(r).cloned().unwrap_or_default() {
                let c = self.cause(r2, depth + 1);
                best = best.max(c);
            }
        }
        best
    }
}

/// What applying the ledger to a state changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Tasks that became DONE.
    pub synced: Vec<u32>,
    /// DONE tasks whose evidence was all reverted, with the reverting commit.
    pub reverted: Vec<(u32, String)>,
}

/// Whether an evidence record comes from git (docs/git-sync.md "The four rules" rules 1–4).
pub fn is_git_source(source: &str) -> bool {
    matches!(
        source,
        "subject" | "trailers" | "closing_keyword" | "pattern"
    )
}

fn same_commit(a: &str, b: &str) -> bool {
    a.len() >= 7 && b.len() >= 7 && (a.starts_with(b) || b.starts_with(a))
}

/// The commits a task records as its evidence.
fn recorded_commits(task: &Task) -> impl Iterator<Item = &str> {
    task.commit.as_deref().into_iter().chain(
        task.evidence
            .iter()
            .filter(|e| is_git_source(&e.source))
            .filter_map(|e| e.commit.as_deref()),
    )
}

/// How many git evidence records a task keeps: the oldest active ones, the implementing
/// commit (`task.commit`) first. The history cache keeps them all; the state stays the
/// same size however often a history repeats an issue's implementing subject (cherry-picks,
/// backports, imported branches), so loading and printing it does not grow with history.
pub const MAX_GIT_EVIDENCE: usize = 3;

fn set_evidence(task: &mut Task, ev: &IssueEvidence) {
    task.commit = ev.active.first().map(|(c, _)| c.clone());
    task.evidence.retain(|e| !is_git_source(&e.source));
    task.evidence.extend(
        ev.active
            .iter()
            .take(MAX_GIT_EVIDENCE)
            .map(|(commit, hit)| EvidenceRecord {
                source: hit.source.as_str().to_string(),
                commit: Some(commit.clone()),
                detail: Some(hit.detail.clone()),
            }),
    );
}

/// Applies the evidence to the tasks (docs/git-sync.md "The four rules"):
/// - a task with active evidence that is not DONE becomes DONE, with `commit` (the oldest
///   active evidence commit) and its git evidence records;
/// - a DONE task whose recorded commit is no longer active gets the active evidence
///   recorded instead (it stays DONE);
/// - a DONE task whose evidence was all cancelled by reverts returns to READY (readiness
///   may then make it BACKLOG): only when a commit it records is among the cancelled ones
///   (or it records no commit and no evidence at all, as in an older state file);
/// - a task never leaves DONE for any other reason.
pub fn apply(state: &mut FeatureState, evidence: &BTreeMap<u32, IssueEvidence>) -> Applied {
    let mut out = Applied::default();
    for task in &mut state.tasks {
        let Some(ev) = evidence.get(&task.issue_number) else {
            continue;
        };
        if !ev.active.is_empty() {
            if task.stage != Stage::Done {
                task.stage = Stage::Done;
                set_evidence(task, ev);
                out.synced.push(task.issue_number);
            } else {
                let stale = match task.commit.as_deref() {
                    None => true,
                    Some(c) => ev.cancelled.iter().any(|(x, _)| same_commit(x, c)),
                };
                if stale {
                    set_evidence(task, ev);
                }
            }
            continue;
        }
        if ev.cancelled.is_empty() || task.stage != Stage::Done {
            continue;
        }
        // the revert concerns this task when a commit it records was cancelled; a task
        // that records nothing at all (an older state file) goes by the history alone; a
        // task DONE on other evidence (tests, files) keeps it
        let ours = {
            let mut recorded = recorded_commits(task).peekable();
            if recorded.peek().is_none() {
                task.evidence.is_empty()
            } else {
                recorded.any(|c| ev.cancelled.iter().any(|(x, _)| same_commit(x, c)))
            }
        };
        if !ours {
            continue;
        }
        let reverter = ev.last_reverter().unwrap_or_default().to_string();
        if task.revert(reverter.clone()).is_ok() {
            out.reverted.push((task.issue_number, reverter));
        }
    }
    out
}

#[cfg(test)]
mod tests;
