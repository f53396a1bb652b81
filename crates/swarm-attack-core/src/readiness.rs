//! Readiness (SPEC §2): a task is READY only when every dependency is DONE; a BACKLOG task
//! is released by itself when its dependencies become DONE, and a READY task whose
//! dependency is no longer DONE returns to BACKLOG.

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
        let ready = t
            .dependencies
            .iter()
            .all(|d| stages.get(d) == Some(&Stage::Done));
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
