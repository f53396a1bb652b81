//! Readiness (SPEC §2): a task is READY only when every dependency is DONE; a BACKLOG task
//! is released by itself when its dependencies become DONE, and a READY task whose
//! dependency is no longer DONE returns to BACKLOG.

use crate::stage::Stage;
use crate::state::FeatureState;
use std::collections::BTreeMap;

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

/// The dependencies of `issue` that are not DONE yet, with their stages (for `status`).
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

/// Issue numbers in dependency order (dependencies first, ties by number).
pub fn dependency_order(state: &FeatureState) -> Vec<u32> {
    let mut order = Vec::with_capacity(state.tasks.len());
    let mut placed = std::collections::BTreeSet::new();
    let mut remaining: Vec<&crate::state::Task> = state.tasks.iter().collect();
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
        for n in &order {
            placed.insert(*n);
        }
        if remaining.len() == before {
            // a cycle (should not happen after validation): keep the rest by number
            order.extend(remaining.iter().map(|t| t.issue_number));
            break;
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Task;

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
}
