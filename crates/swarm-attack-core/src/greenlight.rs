//! The greenlight merge (docs/cli.md "greenlight"): issues.json into the state, keeping every
//! task's progress. Idempotent: merging the same issues twice changes nothing the second time.

use crate::issues::IssueSpec;
use crate::readiness;
use crate::stage::{Phase, Stage};
use crate::state::{FeatureState, Task};

/// What a merge did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MergeReport {
    pub added: Vec<u32>,
    pub kept: Vec<u32>,
    /// Tasks in the state that issues.json no longer has (kept, never deleted).
    pub missing: Vec<u32>,
    pub ready: Vec<u32>,
}

fn apply_spec(task: &mut Task, spec: &IssueSpec) {
    task.title = spec.title.clone();
    task.body = (!spec.body.is_empty()).then(|| spec.body.clone());
    task.dependencies = spec.dependencies.clone();
    task.labels = spec.labels.clone();
    task.estimated_size = spec.estimated_size.clone().or(task.estimated_size.take());
    task.automation_type = spec.automation_type.clone();
    task.parent_issue = spec.parent_issue.or(task.parent_issue);
    task.files = spec.files.clone();
    task.test_file = spec.test_file.clone();
    if spec.github_issue.is_some() {
        task.github_issue = spec.github_issue;
    }
    task.missing_from_issues = false;
}

/// Merges `issues` into `state`; progress (stage, outputs, summaries, retries, blocked
/// reason, commit, evidence, GitHub link) is never reset.
pub fn merge(state: &mut FeatureState, issues: &[IssueSpec]) -> MergeReport {
    let mut report = MergeReport::default();
    for spec in issues {
        match state.task_mut(spec.order) {
            Some(task) => {
                apply_spec(task, spec);
                report.kept.push(spec.order);
            }
            None => {
                let mut task = Task::new(spec.order, spec.title.clone());
                apply_spec(&mut task, spec);
                state.tasks.push(task);
                report.added.push(spec.order);
            }
        }
    }
    let listed: std::collections::HashSet<u32> = issues.iter().map(|s| s.order).collect();
    for t in &mut state.tasks {
        if !listed.contains(&t.issue_number) {
            t.missing_from_issues = true;
            report.missing.push(t.issue_number);
        }
    }
    readiness::recompute(state);
    if matches!(
        state.phase,
        Phase::NoPrd
            | Phase::PrdReady
            | Phase::SpecInProgress
            | Phase::SpecNeedsApproval
            | Phase::SpecApproved
            | Phase::IssuesCreating
            | Phase::IssuesValidating
            | Phase::IssuesNeedReview
    ) {
        state.phase = Phase::ReadyToImplement;
    }
    report.ready = state
        .tasks
        .iter()
        .filter(|t| t.stage == Stage::Ready)
        .map(|t| t.issue_number)
        .collect();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(order: u32, deps: &[u32]) -> IssueSpec {
        IssueSpec {
            order,
            title: format!("issue {order}"),
            dependencies: deps.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn keeps_progress_and_is_idempotent() {
        let mut s = FeatureState::new("f", "t");
        merge(&mut s, &[spec(1, &[]), spec(2, &[1])]);
        {
            let t = s.task_mut(1).unwrap();
            t.stage = Stage::Blocked;
            t.blocked_reason = Some("tests fail".into());
            t.retries = 3;
            t.outputs.files_created.push("a.rs".into());
            t.github_issue = Some(9);
        }
        let r = merge(&mut s, &[spec(1, &[]), spec(2, &[1]), spec(3, &[])]);
        assert_eq!(r.added, vec![3]);
        let t = s.task(1).unwrap();
        assert_eq!(t.stage, Stage::Blocked);
        assert_eq!(t.blocked_reason.as_deref(), Some("tests fail"));
        assert_eq!(t.retries, 3);
        assert_eq!(t.github_issue, Some(9));
        assert_eq!(s.task(2).unwrap().stage, Stage::Backlog);
        assert_eq!(s.task(3).unwrap().stage, Stage::Ready);
        let before = s.clone();
        merge(&mut s, &[spec(1, &[]), spec(2, &[1]), spec(3, &[])]);
        assert_eq!(before, s);
    }

    #[test]
    fn missing_task_is_kept_and_reported() {
        let mut s = FeatureState::new("f", "t");
        merge(&mut s, &[spec(1, &[]), spec(2, &[])]);
        let r = merge(&mut s, &[spec(1, &[])]);
        assert_eq!(r.missing, vec![2]);
        assert!(s.task(2).unwrap().missing_from_issues);
        assert_eq!(s.tasks.len(), 2);
    }
}
