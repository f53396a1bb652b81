//! Tests of `core::ledger`: tables for each rule, properties.
use super::*;
use crate::evidence::Source;

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

#[test]
fn a_task_keeps_its_oldest_evidence_records_and_still_follows_every_revert() {
    let rule = EvidenceRule::new("auth");
    let five: Vec<(u32, String)> = (1..=5).map(|n| (n, implement(1))).collect();
    let mut s = state(&[(1, Stage::Ready, &[])]);
    assert_eq!(
        apply(&mut s, &fold_all(&rule, &five).by_issue()).synced,
        [1]
    );
    let commits = |s: &FeatureState| -> Vec<String> {
        s.tasks[0]
            .evidence
            .iter()
            .filter_map(|e| e.commit.clone())
            .collect()
    };
    assert_eq!(s.tasks[0].commit.as_deref(), Some(sha(1).as_str()));
    assert_eq!(commits(&s), [sha(1), sha(2), sha(3)]);
    assert_eq!(MAX_GIT_EVIDENCE, 3);
    // a revert of an evidence commit the task does not record changes nothing
    let mut h = five.clone();
    h.push((6, revert(5)));
    assert_eq!(
        apply(&mut s, &fold_all(&rule, &h).by_issue()),
        Applied::default()
    );
    // reverting the recorded ones moves the task to the remaining evidence, still DONE
    h.extend([(7, revert(1)), (8, revert(2))]);
    assert_eq!(
        apply(&mut s, &fold_all(&rule, &h).by_issue()),
        Applied::default()
    );
    assert_eq!(s.tasks[0].stage, Stage::Done);
    assert_eq!(s.tasks[0].commit.as_deref(), Some(sha(3).as_str()));
    assert_eq!(commits(&s), [sha(3), sha(4)]);
    // every one reverted: back to READY, named by the revert of the newest evidence
    h.extend([(9, revert(3)), (10, revert(4))]);
    let a = apply(&mut s, &fold_all(&rule, &h).by_issue());
    assert_eq!(a.reverted, [(1, sha(6))]);
    assert_eq!(s.tasks[0].stage, Stage::Ready);
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
