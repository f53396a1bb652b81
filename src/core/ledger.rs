//! The evidence ledger (SPEC §3): what the scanned history says, folded commit by commit
//! oldest first, and what that means for the feature's tasks.
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

use crate::core::evidence::{EvidenceRule, Hit, revert_targets};
use crate::core::stage::Stage;
use crate::core::state::{EvidenceRecord, FeatureState, Task};
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

/// Whether an evidence record comes from git (SPEC §3 rules 1–4).
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

fn set_evidence(task: &mut Task, ev: &IssueEvidence) {
    task.commit = ev.active.first().map(|(c, _)| c.clone());
    task.evidence.retain(|e| !is_git_source(&e.source));
    task.evidence
        .extend(ev.active.iter().map(|(commit, hit)| EvidenceRecord {
            source: hit.source.as_str().to_string(),
            commit: Some(commit.clone()),
            detail: Some(hit.detail.clone()),
        }));
}

/// Applies the evidence to the tasks (SPEC §3):
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
        task.stage = Stage::Ready;
        task.commit = None;
        task.evidence.retain(|e| !is_git_source(&e.source));
        out.reverted.push((
            task.issue_number,
            ev.last_reverter().unwrap_or_default().to_string(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evidence::Source;

    fn sha(n: u32) -> String {
        format!("{n:040x}")
    }

    fn no_resolve(_: &str) -> Option<String> {
        None
    }

    /// Folds `(commit number, message)` pairs oldest first.
    fn fold_all(rule: &EvidenceRule, commits: &[(u32, String)]) -> Ledger {
        let mut l = Ledger::default();
        for (n, msg) in commits {
            l.fold(&sha(*n), msg, rule, &mut no_resolve);
        }
        l
    }

    fn implement(issue: u32) -> String {
        format!("feat(auth): Implement issue #{issue}")
    }

    fn revert(target: u32) -> String {
        format!("Revert \"x\"\n\nThis reverts commit {}.", sha(target))
    }

    fn active_issues(l: &Ledger) -> Vec<u32> {
        l.by_issue()
            .into_iter()
            .filter(|(_, e)| !e.active.is_empty())
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn revert_cancels_and_revert_of_revert_restores() {
        let rule = EvidenceRule::new("auth");
        let mut commits = vec![(1, implement(1)), (2, implement(2))];
        assert_eq!(active_issues(&fold_all(&rule, &commits)), [1, 2]);
        commits.push((3, revert(1)));
        let l = fold_all(&rule, &commits);
        assert_eq!(active_issues(&l), [2]);
        assert_eq!(l.by_issue()[&1].cancelled, [(sha(1), sha(3))]);
        commits.push((4, revert(3)));
        assert_eq!(active_issues(&fold_all(&rule, &commits)), [1, 2]);
        commits.push((5, revert(4)));
        let l = fold_all(&rule, &commits);
        assert_eq!(active_issues(&l), [2]);
        assert_eq!(l.by_issue()[&1].last_reverter(), Some(sha(5).as_str()));
    }

    #[test]
    fn revert_by_unique_prefix_is_resolved() {
        let rule = EvidenceRule::new("auth");
        let mut l = Ledger::default();
        let target = "abcdef0123456789abcdef0123456789abcdef01";
        l.fold(target, &implement(1), &rule, &mut no_resolve);
        let mut resolve = |p: &str| target.starts_with(p).then(|| target.to_string());
        l.fold(
            &sha(9),
            "Revert\n\nThis reverts commit abcdef0.",
            &rule,
            &mut resolve,
        );
        assert!(!l.is_active(target));
        assert_eq!(active_issues(&l), Vec::<u32>::new());
        // an unresolvable prefix reverts nothing
        let mut l2 = Ledger::default();
        l2.fold(target, &implement(1), &rule, &mut no_resolve);
        l2.fold(
            &sha(9),
            "This reverts commit abcdef0.",
            &rule,
            &mut no_resolve,
        );
        assert!(l2.is_active(target));
    }

    #[test]
    fn another_implementation_keeps_the_issue_active() {
        let rule = EvidenceRule::new("auth");
        let l = fold_all(
            &rule,
            &[(1, implement(1)), (2, revert(1)), (3, implement(1))],
        );
        let e = &l.by_issue()[&1];
        assert_eq!(e.active.len(), 1);
        assert_eq!(e.active[0].0, sha(3));
        assert_eq!(e.cancelled, [(sha(1), sha(2))]);
    }

    #[test]
    fn merge_and_unrelated_commits_are_not_recorded() {
        let rule = EvidenceRule::new("auth");
        let l = fold_all(
            &rule,
            &[
                (1, "Merge branch 'x'".into()),
                (2, "feat(auth2): Implement issue #1".into()),
                (
                    3,
                    "Merge pull request #1 from a/b\n\nSwarm-Feature: auth\nSwarm-Issue: 1".into(),
                ),
            ],
        );
        assert_eq!(l.evidence.len(), 1);
        assert!(l.evidence.contains_key(&sha(3)));
        assert_eq!(l.evidence[&sha(3)].hits[0].source, Source::Trailers);
    }

    #[test]
    fn ledger_round_trips_through_json() {
        let rule = EvidenceRule::new("auth");
        let l = fold_all(&rule, &[(1, implement(1)), (2, revert(1)), (3, revert(2))]);
        let back: Ledger = serde_json::from_str(&serde_json::to_string(&l).unwrap()).unwrap();
        assert_eq!(back, l);
        assert_eq!(active_issues(&back), [1]);
    }

    // ---- apply ----

    fn state(tasks: &[(u32, Stage, &[u32])]) -> FeatureState {
        let mut s = FeatureState::new("auth", "t");
        for (n, stage, deps) in tasks {
            let mut t = Task::new(*n, format!("t{n}"));
            t.stage = stage.clone();
            t.dependencies = deps.to_vec();
            s.tasks.push(t);
        }
        s
    }

    #[test]
    fn apply_marks_done_with_commit_and_evidence() {
        let rule = EvidenceRule::new("auth");
        let l = fold_all(&rule, &[(1, implement(1)), (2, implement(1))]);
        let mut s = state(&[(1, Stage::Blocked, &[]), (2, Stage::Ready, &[])]);
        let a = apply(&mut s, &l.by_issue());
        assert_eq!(a.synced, [1]);
        let t = s.task(1).unwrap();
        assert_eq!(t.stage, Stage::Done);
        assert_eq!(t.commit.as_deref(), Some(sha(1).as_str()));
        assert_eq!(t.evidence.len(), 2);
        assert_eq!(t.evidence[0].source, "subject");
        assert_eq!(s.task(2).unwrap().stage, Stage::Ready);
        // idempotent
        let before = s.clone();
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        assert_eq!(s, before);
    }

    #[test]
    fn apply_reverts_only_tasks_whose_evidence_was_cancelled() {
        let rule = EvidenceRule::new("auth");
        let mut s = state(&[(1, Stage::Ready, &[])]);
        apply(&mut s, &fold_all(&rule, &[(1, implement(1))]).by_issue());
        let l = fold_all(&rule, &[(1, implement(1)), (2, revert(1))]);
        let a = apply(&mut s, &l.by_issue());
        assert_eq!(a.reverted, [(1, sha(2))]);
        let t = s.task(1).unwrap();
        assert_eq!(t.stage, Stage::Ready);
        assert_eq!(t.commit, None);
        assert!(t.evidence.is_empty());
        // the next sync does nothing more
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        // revert of the revert: DONE again
        let l = fold_all(&rule, &[(1, implement(1)), (2, revert(1)), (3, revert(2))]);
        assert_eq!(apply(&mut s, &l.by_issue()).synced, [1]);
    }

    #[test]
    fn a_task_done_by_other_means_never_leaves_done() {
        let rule = EvidenceRule::new("auth");
        let l = fold_all(&rule, &[(1, implement(1)), (2, revert(1))]);
        // DONE with a commit the history does not cancel
        let mut s = state(&[(1, Stage::Done, &[])]);
        s.tasks[0].commit = Some(sha(7));
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        assert_eq!(s.tasks[0].stage, Stage::Done);
        // DONE with no history evidence at all
        let mut s = state(&[(5, Stage::Done, &[])]);
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        // DONE on other evidence (duplicate detection)
        let mut s = state(&[(1, Stage::Done, &[])]);
        s.tasks[0].evidence.push(EvidenceRecord {
            source: "files".into(),
            commit: None,
            detail: None,
        });
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        // DONE with nothing recorded (an older state file): the history decides
        let mut s = state(&[(1, Stage::Done, &[])]);
        assert_eq!(apply(&mut s, &l.by_issue()).reverted, [(1, sha(2))]);
        // other stages are not touched by a cancelled evidence
        let mut s = state(&[(1, Stage::Blocked, &[])]);
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        assert_eq!(s.tasks[0].stage, Stage::Blocked);
    }

    #[test]
    fn a_done_task_with_a_reverted_commit_takes_the_new_evidence() {
        let rule = EvidenceRule::new("auth");
        let mut s = state(&[(1, Stage::Ready, &[])]);
        apply(&mut s, &fold_all(&rule, &[(1, implement(1))]).by_issue());
        let l = fold_all(
            &rule,
            &[(1, implement(1)), (2, revert(1)), (3, implement(1))],
        );
        assert_eq!(apply(&mut s, &l.by_issue()), Applied::default());
        assert_eq!(s.tasks[0].stage, Stage::Done);
        assert_eq!(s.tasks[0].commit.as_deref(), Some(sha(3).as_str()));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// A random history of implementations and reverts of earlier commits.
        fn history() -> impl Strategy<Value = Vec<(u32, String)>> {
            prop::collection::vec((0u8..3, 1u32..5, 0usize..1000), 1..25).prop_map(|ops| {
                let mut out: Vec<(u32, String)> = Vec::new();
                for (i, (kind, issue, pick)) in ops.into_iter().enumerate() {
                    let n = i as u32 + 1;
                    let msg = match kind {
                        0 if !out.is_empty() => revert(out[pick % out.len()].0),
                        1 => format!("chore: {issue}"),
                        _ => implement(issue),
                    };
                    out.push((n, msg));
                }
                out
            })
        }

        proptest! {
            #[test]
            fn fold_is_order_independent(h in history(), seed in any::<u64>()) {
                let rule = EvidenceRule::new("auth");
                let l = fold_all(&rule, &h);
                let mut shuffled = h.clone();
                // a deterministic shuffle
                let mut x = seed | 1;
                for i in (1..shuffled.len()).rev() {
                    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                    shuffled.swap(i, (x % (i as u64 + 1)) as usize);
                }
                let s = fold_all(&rule, &shuffled);
                prop_assert_eq!(active_issues(&l), active_issues(&s));
                for sha in l.evidence.keys() {
                    prop_assert_eq!(l.is_active(sha), s.is_active(sha));
                }
            }

            #[test]
            fn fold_is_idempotent(h in history()) {
                let rule = EvidenceRule::new("auth");
                let once = fold_all(&rule, &h);
                let mut twice = once.clone();
                for (n, msg) in &h {
                    twice.fold(&sha(*n), msg, &rule, &mut no_resolve);
                }
                prop_assert_eq!(once, twice);
            }

            #[test]
            fn incremental_fold_equals_full_fold(h in history(), cut in 0usize..25) {
                let rule = EvidenceRule::new("auth");
                let cut = cut.min(h.len());
                let mut inc = fold_all(&rule, &h[..cut]);
                let json = serde_json::to_string(&inc).unwrap();
                inc = serde_json::from_str(&json).unwrap();
                for (n, msg) in &h[cut..] {
                    inc.fold(&sha(*n), msg, &rule, &mut no_resolve);
                }
                prop_assert_eq!(inc, fold_all(&rule, &h));
            }

            #[test]
            fn apply_is_idempotent_and_done_only_leaves_by_revert(h in history()) {
                let rule = EvidenceRule::new("auth");
                let l = fold_all(&rule, &h);
                let ev = l.by_issue();
                let mut s = state(&[(1, Stage::Ready, &[]), (2, Stage::Done, &[]), (3, Stage::Blocked, &[]), (4, Stage::Backlog, &[1])]);
                let before = s.clone();
                let a = apply(&mut s, &ev);
                for t in &before.tasks {
                    let now = s.task(t.issue_number).unwrap();
                    if t.stage == Stage::Done && now.stage != Stage::Done {
                        prop_assert!(a.reverted.iter().any(|(n, _)| *n == t.issue_number));
                    }
                }
                let again = s.clone();
                prop_assert_eq!(apply(&mut s, &ev), Applied::default());
                prop_assert_eq!(s, again);
            }
        }
    }
}
