//! The fan-out matrix (docs/cli.md "matrix"): the issues a runner may take now, as a GitHub
//! Actions matrix `{"include":[{"issue":N,"title":"…"}]}`.
//!
//! An issue is in the matrix when it is READY (or INTERRUPTED with every dependency DONE:
//! a resumable attempt), is not manual (`automation_type: manual` waits for a person), and
//! no open pull request links it. Issues come in dependency order, then by number; `max`
//! keeps the first ones.

use crate::readiness;
use crate::stage::Stage;
use crate::state::{FeatureState, Task};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

/// Whether `task` waits for a person (`automation_type: manual`, any case).
pub fn is_manual(task: &Task) -> bool {
    task.automation_type
        .as_deref()
        .is_some_and(|a| a.trim().eq_ignore_ascii_case("manual"))
}

/// The issues a runner may take now, in dependency order. `open_prs` maps an issue to the
/// open pull request that links it.
pub fn dispatchable_issues(state: &FeatureState, open_prs: &BTreeMap<u32, u64>) -> Vec<u32> {
    let stages: HashMap<u32, &Stage> = state
        .tasks
        .iter()
        .map(|t| (t.issue_number, &t.stage))
        .collect();
    let deps_done = |t: &Task| {
        t.dependencies
            .iter()
            .all(|d| stages.get(d).is_some_and(|s| **s == Stage::Done))
    };
    let by_number: HashMap<u32, &Task> = state.tasks.iter().map(|t| (t.issue_number, t)).collect();
    readiness::dependency_order(state)
        .into_iter()
        .filter(|n| {
            by_number.get(n).is_some_and(|t| {
                let runnable = match t.stage {
                    Stage::Ready => true,
                    Stage::Interrupted => deps_done(t),
                    _ => false,
                };
                runnable && !is_manual(t) && !open_prs.contains_key(n)
            })
        })
        .collect()
}

/// The matrix document for `issues` (at most `max` of them).
pub fn matrix_json(state: &FeatureState, issues: &[u32], max: Option<usize>) -> Value {
    let include: Vec<Value> = issues
        .iter()
        .take(max.unwrap_or(usize::MAX))
        .filter_map(|n| state.tasks.iter().find(|t| t.issue_number == *n))
        .map(|t| json!({"issue": t.issue_number, "title": t.title}))
        .collect();
    json!({ "include": include })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(n: u32, stage: Stage, deps: &[u32]) -> Task {
        let mut t = Task::new(n, format!("Issue {n}"));
        t.stage = stage;
        t.dependencies = deps.to_vec();
        t
    }

    fn state(tasks: Vec<Task>) -> FeatureState {
        let mut s = FeatureState::new("f", "2026-01-01T00:00:00Z");
        s.tasks = tasks;
        s
    }

    #[test]
    fn only_ready_automated_issues_without_an_open_pr() {
        let mut manual = task(4, Stage::Ready, &[]);
        manual.automation_type = Some("Manual".into());
        let s = state(vec![
            task(1, Stage::Done, &[]),
            task(2, Stage::Ready, &[1]),
            task(3, Stage::Backlog, &[2]),
            manual,
            task(5, Stage::Ready, &[]),
            task(6, Stage::Blocked, &[]),
            task(7, Stage::Interrupted, &[1]),
            task(8, Stage::Interrupted, &[3]),
        ]);
        let prs = BTreeMap::from([(5, 41)]);
        assert_eq!(dispatchable_issues(&s, &prs), vec![2, 7]);
        assert_eq!(
            dispatchable_issues(&s, &BTreeMap::new()),
            vec![5, 2, 7],
            "without the PR, 5 is dispatchable (dependency order: 5 needs nothing)"
        );
    }

    #[test]
    fn matrix_has_the_actions_shape_and_honours_max() {
        let s = state(vec![task(1, Stage::Ready, &[]), task(2, Stage::Ready, &[])]);
        let issues = dispatchable_issues(&s, &BTreeMap::new());
        assert_eq!(
            matrix_json(&s, &issues, None),
            json!({"include": [{"issue": 1, "title": "Issue 1"}, {"issue": 2, "title": "Issue 2"}]})
        );
        assert_eq!(
            matrix_json(&s, &issues, Some(1)),
            json!({"include": [{"issue": 1, "title": "Issue 1"}]})
        );
        assert_eq!(matrix_json(&s, &[], None), json!({"include": []}));
    }
}
