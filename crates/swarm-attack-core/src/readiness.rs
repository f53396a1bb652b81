//! Readiness (docs/state.md "Readiness"): a task is READY only when every dependency is DONE; a
//! BACKLOG task is released by itself when its dependencies become DONE, and a READY task whose
//! dependency is no longer DONE returns to BACKLOG. With `git.stack`
//! (docs/github.md "Pull requests", [`FeatureState::stack`]) one IN_REVIEW dependency counts as met
//! too: the dependent starts from that dependency's branch ([`stacked_on`]).

use crate::stage::Stage;
use crate::state::FeatureState;
use crate::state::Task;
use std::collections::{BTreeMap, HashMap};

/// A stage change made by readiness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageChange {
    pub issue: u32,
    pub from: Stage,
    pub to: Stage,
}

/// Recomputes BACKLOG/READY for every task; other stages are never touched.
pub fn recompute(state: &mut FeatureState) -> Vec<StageChange> {
    let stages: BTreeMap<u32, Stage> = state
        .tasks
        .iter()
        .map(|t| (t.issue_number, t.stage.clone()))
        .collect();
    let mut changes = Vec::new();
    for t in &mut state.tasks {
        if !matches!(t.stage, Stage::Backlog | Stage::Ready) {
            continue;
        }
        let ready = dependencies_met(&t.dependencies, state.stack, |d| stages.get(&d));
        let want = if ready { Stage::Ready } else { Stage::Backlog };
        if t.stage != want {
            changes.push(StageChange {
                issue: t.issue_number,
                from: t.stage.clone(),
                to: want.clone(),
            });
            t.stage = want;
        }
    }
    changes
}

/// Whether every dependency is DONE — or, with `stack`, all are DONE but at most one that
/// is IN_REVIEW (a dependent cannot start from two unmerged branches at once).
fn dependencies_met<'s>(
    deps: &[u32],
    stack: bool,
    stage: impl Fn(u32) -> Option<&'s Stage>,
) -> bool {
    let mut in_review = 0;
    for d in deps {
        match stage(*d) {
            Some(Stage::Done) => {}
            Some(Stage::InReview) if stack => in_review += 1,
            _ => return false,
        }
    }
    in_review <= 1
}

/// With `git.stack`, the IN_REVIEW dependency a dispatchable `task` starts from (its
/// branch is the worktree's base and its pull request's base); `None` otherwise.
pub fn stacked_on(state: &FeatureState, task: &Task) -> Option<u32> {
    if !state.stack {
        return None;
    }
    task.dependencies
        .iter()
        .copied()
        .find(|d| state.task(*d).is_some_and(|x| x.stage == Stage::InReview))
}

/// Each task's stage by issue number, built once for lookups over many tasks.
#[derive(Debug, Clone, Default)]
pub struct Stages<'s> {
    by_issue: HashMap<u32, &'s Stage>,
}

impl<'s> Stages<'s> {
    pub fn of(state: &'s FeatureState) -> Self {
        let mut by_issue = HashMap::with_capacity(state.tasks.len());
        for t in &state.tasks {
            // the first task of a number wins, as `FeatureState::task` finds it
            by_issue.entry(t.issue_number).or_insert(&t.stage);
        }
        Stages { by_issue }
    }

    pub fn get(&self, issue: u32) -> Option<&'s Stage> {
        self.by_issue.get(&issue).copied()
    }

    /// The dependencies of `task` that are not DONE yet, with their stages.
    pub fn waiting_on(&self, task: &Task) -> Vec<(u32, Stage)> {
        task.dependencies
            .iter()
            .filter_map(|d| {
                let stage = self
                    .get(*d)
                    .cloned()
                    .unwrap_or(Stage::Unknown("missing".into()));
                (stage != Stage::Done).then_some((*d, stage))
            })
            .collect()
    }
}

/// The dependencies of `issue` that are not DONE yet, with their stages (for `status`).
/// Over many tasks, build [`Stages`] once and use [`Stages::waiting_on`].
pub fn waiting_on(state: &FeatureState, issue: u32) -> Vec<(u32, Stage)> {
    let Some(task) = state.task(issue) else {
        return Vec::new();
    };
    task.dependencies
        .iter()
        .filter_map(|d| {
            let stage = state
                .task(*d)
                .map(|t| t.stage.clone())
                .unwrap_or(Stage::Unknown("missing".into()));
            (stage != Stage::Done).then_some((*d, stage))
        })
        .collect()
}

/// The tasks that depend on `issue` (directly).
pub fn dependents(state: &FeatureState, issue: u32) -> Vec<u32> {
    state
        .tasks
        .iter()
        .filter(|t| t.dependencies.contains(&issue))
        .map(|t| t.issue_number)
        .collect()
}

/// Issue numbers in dependency order: by depth (a task with no dependency in the feature
/// has depth 0, otherwise one more than its deepest dependency), ties by number; tasks on
/// or behind a dependency cycle (which validation rejects) come last, by number.
/// Linear in tasks and dependencies (plus the sort).
pub fn dependency_order(state: &FeatureState) -> Vec<u32> {
    let n = state.tasks.len();
    let mut index: HashMap<u32, usize> = HashMap::with_capacity(n);
    for (i, t) in state.tasks.iter().enumerate() {
        index.entry(t.issue_number).or_insert(i);
    }
    // Kahn's algorithm over the dependencies that exist; a missing one counts as met
    let mut pending = vec![0usize; n];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, t) in state.tasks.iter().enumerate() {
        for d in &t.dependencies {
            if let Some(&j) = index.get(d) {
                pending[i] += 1;
                dependents[j].push(i);
            }
        }
    }
    let mut depth: Vec<Option<usize>> = vec![None; n];
    let mut level: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    let mut d = 0;
    while !level.is_empty() {
        let mut next = Vec::new();
        for &i in &level {
            depth[i] = Some(d);
            for &k in &dependents[i] {
                pending[k] -= 1;
                if pending[k] == 0 {
                    next.push(k);
                }
            }
        }
        level = next;
        d += 1;
    }
    let mut keyed: Vec<(usize, u32)> = state
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (depth[i].unwrap_or(usize::MAX), t.issue_number))
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, n)| n).collect()
}

/// Whether a task may be dispatched: READY, or INTERRUPTED with its dependencies met;
/// never a manual issue (it waits for a person, docs/run.md "The flow of one issue").
pub fn dispatchable(state: &FeatureState, t: &Task) -> bool {
    if t.is_manual() {
        return false;
    }
    match t.stage {
        Stage::Ready => true,
        Stage::Interrupted => dependencies_met(&t.dependencies, state.stack, |d| {
            state.task(d).map(|x| &x.stage)
        }),
        _ => false,
    }
}

/// The first dispatchable issue in dependency order (interrupted ones first).
pub fn next_dispatchable(state: &FeatureState) -> Option<u32> {
    next_dispatchable_except(state, &BTreeMap::<u32, ()>::new())
}

/// [`next_dispatchable`], leaving out the issues in `held` (e.g. held by an open pull
/// request).
pub fn next_dispatchable_except<V>(state: &FeatureState, held: &BTreeMap<u32, V>) -> Option<u32> {
    let order = dependency_order(state);
    let ok =
        |n: &u32| !held.contains_key(n) && state.task(*n).is_some_and(|t| dispatchable(state, t));
    let interrupted = order.iter().find(|n| {
        ok(n)
            && state
                .task(**n)
                .is_some_and(|t| t.stage == Stage::Interrupted)
    });
    interrupted
        .or_else(|| order.iter().find(|n| ok(n)))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(tasks: &[(u32, Stage, &[u32])]) -> FeatureState {
        let mut s = FeatureState::new("f", "t");
        for (n, st, deps) in tasks {
            let mut t = Task::new(*n, "x");
            t.stage = st.clone();
            t.dependencies = deps.to_vec();
            s.tasks.push(t);
        }
        s
    }

    #[test]
    fn interrupted_work_is_dispatched_first_and_only_when_its_dependencies_are_done() {
        let s = state(&[
            (1, Stage::Ready, &[]),
            (2, Stage::Interrupted, &[]),
            (3, Stage::Interrupted, &[4]),
            (4, Stage::Blocked, &[]),
        ]);
        assert_eq!(next_dispatchable(&s), Some(2));
        assert!(!dispatchable(&s, s.task(3).unwrap()));
        assert!(!dispatchable(&s, s.task(4).unwrap()));
        let s = state(&[(1, Stage::Done, &[]), (2, Stage::Blocked, &[])]);
        assert_eq!(next_dispatchable(&s), None);
    }

    #[test]
    fn blocked_dependency_keeps_backlog_until_done() {
        let mut s = state(&[(1, Stage::Blocked, &[]), (2, Stage::Ready, &[1])]);
        recompute(&mut s);
        assert_eq!(s.task(2).unwrap().stage, Stage::Backlog);
        s.task_mut(1).unwrap().stage = Stage::Done;
        let ch = recompute(&mut s);
        assert_eq!(s.task(2).unwrap().stage, Stage::Ready);
        assert_eq!(ch.len(), 1);
        assert!(recompute(&mut s).is_empty());
    }

    #[test]
    fn an_in_review_dependency_is_met_only_with_stack_and_only_one_of_them() {
        let tasks: &[(u32, Stage, &[u32])] = &[
            (1, Stage::InReview, &[]),
            (2, Stage::Backlog, &[1]),
            (3, Stage::InReview, &[]),
            (4, Stage::Backlog, &[1, 3]),
            (5, Stage::Done, &[]),
            (6, Stage::Interrupted, &[1, 5]),
        ];
        let mut s = state(tasks);
        recompute(&mut s);
        assert_eq!(s.task(2).unwrap().stage, Stage::Backlog, "no stack: waits");
        assert!(!dispatchable(&s, s.task(6).unwrap()));
        assert_eq!(stacked_on(&s, s.task(2).unwrap()), None);
        let mut s = state(tasks);
        s.stack = true;
        recompute(&mut s);
        assert_eq!(s.task(2).unwrap().stage, Stage::Ready);
        assert_eq!(stacked_on(&s, s.task(2).unwrap()), Some(1));
        assert_eq!(
            s.task(4).unwrap().stage,
            Stage::Backlog,
            "two unmerged branches cannot both be the base"
        );
        assert!(dispatchable(&s, s.task(6).unwrap()));
        assert_eq!(stacked_on(&s, s.task(6).unwrap()), Some(1));
    }

    #[test]
    fn skipped_dependency_does_not_satisfy() {
        let mut s = state(&[(1, Stage::Skipped, &[]), (2, Stage::Backlog, &[1])]);
        recompute(&mut s);
        assert_eq!(s.task(2).unwrap().stage, Stage::Backlog);
        assert_eq!(waiting_on(&s, 2), vec![(1, Stage::Skipped)]);
    }

    #[test]
    fn order_puts_dependencies_first() {
        let s = state(&[
            (1, Stage::Ready, &[3]),
            (2, Stage::Ready, &[]),
            (3, Stage::Ready, &[2]),
        ]);
        assert_eq!(dependency_order(&s), vec![2, 3, 1]);
    }

    /// The round-by-round order this module used before (quadratic on chains), as the
    /// reference for the linear one.
    fn rounds_order(state: &FeatureState) -> Vec<u32> {
        let mut order = Vec::new();
        let mut placed = std::collections::BTreeSet::new();
        let mut remaining: Vec<&Task> = state.tasks.iter().collect();
        remaining.sort_by_key(|t| t.issue_number);
        while !remaining.is_empty() {
            let before = remaining.len();
            remaining.retain(|t| {
                let ok = t
                    .dependencies
                    .iter()
                    .all(|d| placed.contains(d) || state.task(*d).is_none());
                if ok {
                    order.push(t.issue_number);
                }
                !ok
            });
            placed.extend(order.iter().copied());
            if remaining.len() == before {
                order.extend(remaining.iter().map(|t| t.issue_number));
                break;
            }
        }
        order
    }

    #[test]
    fn linear_order_is_the_round_order_on_many_shapes() {
        // a small deterministic generator: chains, fans, missing deps, cycles, shuffled
        let mut seed = 0x2545_f491_u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for case in 0..300 {
            let n = 1 + next(30) as u32;
            let mut numbers: Vec<u32> = (1..=n).collect();
            for i in (1..numbers.len()).rev() {
                numbers.swap(i, next(i as u64 + 1) as usize);
            }
            let mut s = FeatureState::new("f", "t");
            for &k in &numbers {
                let mut t = Task::new(k, "x");
                for _ in 0..next(4) {
                    // mostly earlier issues, sometimes later (cycles) or missing ones
                    let d = match next(10) {
                        0 => n + 1 + next(3) as u32,
                        1 => 1 + next(n as u64) as u32,
                        _ if k > 1 => 1 + next(k as u64 - 1) as u32,
                        _ => continue,
                    };
                    t.dependencies.push(d);
                }
                s.tasks.push(t);
            }
            assert_eq!(dependency_order(&s), rounds_order(&s), "case {case}");
            let stages = Stages::of(&s);
            for t in &s.tasks {
                assert_eq!(stages.waiting_on(t), waiting_on(&s, t.issue_number));
            }
        }
    }

    #[test]
    fn order_of_a_long_chain_is_linear() {
        let mut s = FeatureState::new("f", "t");
        for k in 1..=20_000u32 {
            let mut t = Task::new(k, "x");
            if k > 1 {
                t.dependencies.push(k - 1);
            }
            s.tasks.push(t);
        }
        s.tasks.reverse();
        let order = dependency_order(&s);
        assert_eq!(order, (1..=20_000).collect::<Vec<_>>());
    }
}
