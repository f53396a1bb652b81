//! The pure diff between what GitHub should show ([`Desired`]) and what it shows
//! ([`IssueView`]): the minimal list of writes. Labels other than `swarm:*` are never
//! touched; the status comment is edited in place; nothing to change gives no operation.

use crate::github_status::{Desired, LABELS, LabelSpec, body_digest, is_swarm_label};
use crate::stage::Stage;

/// One comment that starts with the status marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusComment {
    pub id: u64,
    /// [`body_digest`] of its body.
    pub digest: String,
}

/// What GitHub shows for one issue (fresh, or as remembered from the last sync).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IssueView {
    /// The issue's label names, in GitHub's order.
    pub labels: Vec<String>,
    pub open: bool,
    /// The status comments, oldest first (normally at most one).
    pub status_comments: Vec<StatusComment>,
    /// Whether this tool closed the issue when its task became DONE (and has not seen it
    /// reopened since): decides whether a reopen by hand is respected and whether leaving
    /// DONE reopens it.
    pub closed_by_swarm: bool,
}

/// The issue state to set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IssueState {
    Open,
    Closed,
}

/// One write to one issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueOp {
    CreateComment {
        body: String,
    },
    UpdateComment {
        comment_id: u64,
        body: String,
    },
    /// A second status comment (left by an older tool or a lost race): removed so exactly
    /// one remains.
    DeleteComment {
        comment_id: u64,
    },
    /// Labels (the full set, human labels kept as they are) and/or state, in one request.
    UpdateIssue {
        labels: Option<Vec<String>>,
        state: Option<IssueState>,
    },
}

impl IssueOp {
    /// A short name for events and output.
    pub fn action(&self) -> &'static str {
        match self {
            IssueOp::CreateComment { .. } => "comment_created",
            IssueOp::UpdateComment { .. } => "comment_updated",
            IssueOp::DeleteComment { .. } => "comment_deleted",
            IssueOp::UpdateIssue {
                state: Some(IssueState::Closed),
                ..
            } => "closed",
            IssueOp::UpdateIssue {
                state: Some(IssueState::Open),
                ..
            } => "reopened",
            IssueOp::UpdateIssue { .. } => "labels_set",
        }
    }
}

/// The labels the issue should carry: its labels without any `swarm:*`, plus the desired
/// one (appended).
pub fn wanted_labels(current: &[String], label: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = current
        .iter()
        .filter(|l| !is_swarm_label(l))
        .cloned()
        .collect();
    if let Some(l) = label {
        out.push(l.to_string());
    }
    out
}

fn same_set(a: &[String], b: &[String]) -> bool {
    let norm = |v: &[String]| {
        let mut v: Vec<String> = v.iter().map(|s| s.to_lowercase()).collect();
        v.sort();
        v.dedup();
        v
    };
    norm(a) == norm(b)
}

/// The state change the issue needs, if any.
fn wanted_state(d: &Desired, v: &IssueView) -> Option<IssueState> {
    let done = d.stage == Stage::Done;
    if d.close && v.open && !v.closed_by_swarm {
        Some(IssueState::Closed)
    } else if !done && !v.open && v.closed_by_swarm {
        Some(IssueState::Open)
    } else {
        None
    }
}

/// The comment operations only (used again after a comment vanished).
pub fn plan_comment(d: &Desired, v: &IssueView) -> Vec<IssueOp> {
    let mut ops = Vec::new();
    match v.status_comments.split_first() {
        None => ops.push(IssueOp::CreateComment {
            body: d.body.clone(),
        }),
        Some((keep, extra)) => {
            if keep.digest != body_digest(&d.body) {
                ops.push(IssueOp::UpdateComment {
                    comment_id: keep.id,
                    body: d.body.clone(),
                });
            }
            for c in extra {
                ops.push(IssueOp::DeleteComment { comment_id: c.id });
            }
        }
    }
    ops
}

/// The minimal writes that make `v` show `d`: comment writes first, then one issue update
/// (labels and state together) so the issue is closed only after its done comment is there.
pub fn plan_issue(d: &Desired, v: &IssueView) -> Vec<IssueOp> {
    let mut ops = plan_comment(d, v);
    let want = wanted_labels(&v.labels, d.label);
    let labels = (!same_set(&want, &v.labels)).then_some(want);
    let state = wanted_state(d, v);
    if labels.is_some() || state.is_some() {
        ops.push(IssueOp::UpdateIssue { labels, state });
    }
    ops
}

/// The view after `ops` were applied (for remembering it).
pub fn apply_to_view(v: &IssueView, ops: &[IssueOp]) -> IssueView {
    let mut out = v.clone();
    for op in ops {
        match op {
            IssueOp::CreateComment { .. } => {}
            IssueOp::UpdateComment { comment_id, body } => {
                if let Some(c) = out.status_comments.iter_mut().find(|c| c.id == *comment_id) {
                    c.digest = body_digest(body);
                }
            }
            IssueOp::DeleteComment { comment_id } => {
                out.status_comments.retain(|c| c.id != *comment_id);
            }
            IssueOp::UpdateIssue { labels, state } => {
                if let Some(l) = labels {
                    out.labels = l.clone();
                }
                match state {
                    Some(IssueState::Closed) => {
                        out.open = false;
                        out.closed_by_swarm = true;
                    }
                    Some(IssueState::Open) => {
                        out.open = true;
                        out.closed_by_swarm = false;
                    }
                    None => {}
                }
            }
        }
    }
    out
}

/// One repository label write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelOp {
    Create(LabelSpec),
    /// The label exists with another colour (e.g. GitHub's auto-created `ededed`).
    Recolor(LabelSpec),
}

/// The writes that make the repository's labels (`(name, colour)`) include the four (and
/// `extra`, e.g. `swarm:in-review` when landing through pull requests) with their exact
/// colours.
pub fn plan_labels(existing: &[(String, String)], extra: &[LabelSpec]) -> Vec<LabelOp> {
    LABELS
        .iter()
        .chain(extra.iter())
        .filter_map(|spec| {
            match existing
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(spec.name))
            {
                None => Some(LabelOp::Create(*spec)),
                Some((_, c)) if !c.eq_ignore_ascii_case(spec.color) => {
                    Some(LabelOp::Recolor(*spec))
                }
                Some(_) => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github_status::STATUS_MARKER;
    use proptest::prelude::*;

    fn desired(stage: Stage, body: &str) -> Desired {
        Desired {
            issue: 1,
            github_issue: 7,
            label: stage.label(),
            close: stage == Stage::Done,
            stage,
            body: format!("{STATUS_MARKER}\n{body}"),
        }
    }

    fn view(labels: &[&str], open: bool, comment: Option<&str>) -> IssueView {
        IssueView {
            labels: labels.iter().map(|s| s.to_string()).collect(),
            open,
            status_comments: comment
                .map(|b| StatusComment {
                    id: 100,
                    digest: body_digest(&format!("{STATUS_MARKER}\n{b}")),
                })
                .into_iter()
                .collect(),
            closed_by_swarm: false,
        }
    }

    #[test]
    fn first_sync_creates_comment_and_label_keeping_human_labels() {
        let ops = plan_issue(&desired(Stage::Ready, "r"), &view(&["bug"], true, None));
        assert_eq!(
            ops,
            vec![
                IssueOp::CreateComment {
                    body: format!("{STATUS_MARKER}\nr")
                },
                IssueOp::UpdateIssue {
                    labels: Some(vec!["bug".into(), "swarm:ready".into()]),
                    state: None
                }
            ]
        );
    }

    #[test]
    fn nothing_to_change_gives_no_operation() {
        let d = desired(Stage::InProgress, "x");
        let v = view(&["swarm:in-progress", "bug"], true, Some("x"));
        assert!(plan_issue(&d, &v).is_empty());
    }

    #[test]
    fn done_edits_comment_then_swaps_label_and_closes_in_one_request() {
        let d = desired(Stage::Done, "done");
        let v = view(
            &["swarm:in-progress", "swarm:blocked", "p1"],
            true,
            Some("x"),
        );
        let ops = plan_issue(&d, &v);
        assert_eq!(ops.len(), 2);
        assert!(matches!(
            ops[0],
            IssueOp::UpdateComment {
                comment_id: 100,
                ..
            }
        ));
        assert_eq!(
            ops[1],
            IssueOp::UpdateIssue {
                labels: Some(vec!["p1".into(), "swarm:done".into()]),
                state: Some(IssueState::Closed)
            }
        );
        assert_eq!(ops[1].action(), "closed");
    }

    #[test]
    fn reopened_by_hand_is_respected_and_leaving_done_reopens_what_we_closed() {
        let d = desired(Stage::Done, "done");
        let mut v = view(&["swarm:done"], true, Some("done"));
        v.closed_by_swarm = true;
        assert!(plan_issue(&d, &v).is_empty());
        let d = desired(Stage::Ready, "r");
        let mut v = view(&["swarm:done"], false, Some("r"));
        v.closed_by_swarm = true;
        assert_eq!(
            plan_issue(&d, &v),
            vec![IssueOp::UpdateIssue {
                labels: Some(vec!["swarm:ready".into()]),
                state: Some(IssueState::Open)
            }]
        );
        v.closed_by_swarm = false;
        assert_eq!(
            plan_issue(&d, &v).len(),
            1,
            "closed by a human: only labels"
        );
    }

    #[test]
    fn extra_status_comments_are_removed() {
        let d = desired(Stage::Ready, "r");
        let mut v = view(&["swarm:ready"], true, Some("r"));
        v.status_comments.push(StatusComment {
            id: 200,
            digest: "x".into(),
        });
        assert_eq!(
            plan_issue(&d, &v),
            vec![IssueOp::DeleteComment { comment_id: 200 }]
        );
    }

    #[test]
    fn skipped_removes_swarm_labels_only() {
        let d = desired(Stage::Skipped, "s");
        let v = view(&["swarm", "swarm:blocked"], true, Some("s"));
        assert_eq!(
            plan_issue(&d, &v),
            vec![IssueOp::UpdateIssue {
                labels: Some(vec!["swarm".into()]),
                state: None
            }]
        );
    }

    #[test]
    fn labels_plan_creates_missing_and_recolors_auto_coloured() {
        let ops = plan_labels(
            &[
                ("swarm:ready".into(), "0e8a16".into()),
                ("swarm:done".into(), "ededed".into()),
            ],
            &[],
        );
        assert_eq!(ops.len(), 3);
        assert!(matches!(ops[2], LabelOp::Recolor(s) if s.name == "swarm:done"));
        assert!(
            plan_labels(
                &LABELS
                    .iter()
                    .map(|l| (l.name.to_string(), l.color.to_string()))
                    .collect::<Vec<_>>(),
                &[]
            )
            .is_empty()
        );
        let with_review = plan_labels(&[], &[crate::github_status::IN_REVIEW_LABEL]);
        assert_eq!(with_review.len(), 5);
        assert!(matches!(with_review[4], LabelOp::Create(s) if s.name == "swarm:in-review"));
    }

    fn stage_strategy() -> impl Strategy<Value = Stage> {
        prop::sample::select(Stage::KNOWN.to_vec())
    }

    proptest! {
        /// Applying the plan gives a view with exactly the desired `swarm:*` label, all human
        /// labels, one status comment; planning again gives nothing (idempotence).
        #[test]
        fn plan_converges_in_one_step(
            stage in stage_strategy(),
            human in prop::collection::vec("[a-z]{1,6}", 0..4),
            swarm in prop::collection::vec(stage_strategy(), 0..3),
            open in any::<bool>(),
            comments in 0usize..3,
        ) {
            let d = desired(stage, "b");
            // GitHub never lists a label twice on one issue
            let mut seen = std::collections::BTreeSet::new();
            let labels: Vec<String> = human
                .iter()
                .cloned()
                .chain(swarm.iter().filter_map(|s| s.label()).map(String::from))
                .filter(|l| seen.insert(l.clone()))
                .collect();
            let v = IssueView {
                labels,
                open,
                status_comments: (0..comments as u64)
                    .map(|i| StatusComment { id: i, digest: "old".into() })
                    .collect(),
                closed_by_swarm: false,
            };
            let ops = plan_issue(&d, &v);
            let mut after = apply_to_view(&v, &ops);
            if after.status_comments.is_empty() {
                after.status_comments.push(StatusComment { id: 9, digest: body_digest(&d.body) });
            }
            let swarm_after: Vec<&String> = after.labels.iter().filter(|l| is_swarm_label(l)).collect();
            prop_assert_eq!(swarm_after.len(), usize::from(d.label.is_some()));
            for h in &human {
                prop_assert!(after.labels.contains(h));
            }
            prop_assert_eq!(after.status_comments.len(), 1);
            prop_assert!(plan_issue(&d, &after).is_empty());
        }
    }
}
