use super::*;
use proptest::prelude::*;

fn at(stage: Stage) -> Task {
    Task {
        stage,
        ..Task::new(7, "t")
    }
}

/// The stage each event may leave a task in (docs/state.md "Stages and phases").
fn event_allows(event: &Event, stage: &Stage) -> bool {
    match event {
        Event::IssueStarted { .. } => *stage == Stage::InProgress,
        Event::IssueBlocked { .. } => *stage == Stage::Blocked,
        Event::IssueDone { .. } => *stage == Stage::Done,
        Event::IssueSkipped { .. } => *stage == Stage::Skipped,
        Event::IssueUnblocked { .. } => *stage == Stage::Backlog,
        Event::StateReverted { .. } => *stage == Stage::Ready,
        Event::PrOpened { .. } => *stage == Stage::InReview,
        _ => false,
    }
}

fn apply(task: &mut Task, t: Transition, n: u32) -> Result<Option<Event>, NotAllowed> {
    match t {
        Transition::Claim => task.claim(format!("1@host@{n}")).map(Some),
        Transition::Interrupt => task.interrupt().map(|()| None),
        Transition::Stop => task.stop().map(|()| None),
        Transition::Block => task.block(format!("reason {n}")).map(Some),
        Transition::Hold => task.hold(format!("needs info ({n}/10): why?")).map(Some),
        Transition::Done => task
            .done(Some(format!("c{n}")), Some(f64::from(n)), None)
            .map(Some),
        Transition::Review => task.review(u64::from(n), format!("b{n}")).map(Some),
        Transition::CloseReview => task.close_review(format!("closed {n}")).map(|()| None),
        Transition::Skip => task.skip(format!("skipped {n}")).map(Some),
        Transition::Unblock => task.unblock().map(Some),
        Transition::Reopen => task.reopen().map(Some),
        Transition::Revert => task.revert(format!("r{n}")).map(Some),
    }
}

#[test]
fn each_transition_goes_from_its_stages_to_its_stage_with_its_event() {
    for t in Transition::ALL {
        for stage in Stage::KNOWN {
            let mut task = at(stage.clone());
            let before = task.clone();
            match apply(&mut task, t, 1) {
                Ok(event) => {
                    assert!(t.allowed_from(stage), "{} from {stage}", t.name());
                    assert_eq!(task.stage, t.to(), "{}", t.name());
                    match &event {
                        Some(e) => assert!(event_allows(e, &task.stage), "{e:?} at {}", task.stage),
                        None => assert!(matches!(
                            t,
                            Transition::Interrupt | Transition::Stop | Transition::CloseReview
                        )),
                    }
                }
                Err(e) => {
                    assert!(!t.allowed_from(stage), "{} from {stage}", t.name());
                    assert_eq!(task, before, "a refused transition changes nothing");
                    assert_eq!(e.from, *stage);
                    assert!(e.to_string().contains(t.name()), "{e}");
                }
            }
        }
    }
}

#[test]
fn a_claim_counts_the_attempt_and_owns_the_task() {
    let mut t = at(Stage::Ready);
    t.blocked_reason = Some("old".into());
    let e = t.claim("me".into()).unwrap();
    assert_eq!(
        e,
        Event::IssueStarted {
            issue: 7,
            attempt: 1
        }
    );
    assert_eq!(t.owner.as_deref(), Some("me"));
    assert_eq!(t.blocked_reason, None);
    assert!(
        t.claim("again".into()).is_err(),
        "an issue is never claimed twice"
    );
}

#[test]
fn done_records_the_commit_and_the_summary_as_the_task_holds_them() {
    let mut t = at(Stage::InProgress);
    t.owner = Some("me".into());
    t.last_failure = Some("f".into());
    t.completion_summary = Some("adds login".into());
    let e = t.done(Some("abc".into()), Some(0.5), None).unwrap();
    assert_eq!(
        e,
        Event::IssueDone {
            issue: 7,
            commit: Some("abc".into()),
            cost_usd: Some(0.5),
            summary: Some("adds login".into()),
            convergence: None,
        }
    );
    assert_eq!((t.owner, t.last_failure), (None, None));
    // no commit given: the one recorded stays
    let mut t = at(Stage::InProgress);
    t.commit = Some("old".into());
    t.done(None, None, None).unwrap();
    assert_eq!(t.commit.as_deref(), Some("old"));
}

#[test]
fn unblock_clears_retries_and_reopen_keeps_them() {
    let mut t = at(Stage::Skipped);
    t.retries = 2;
    t.reopen().unwrap();
    assert_eq!((t.stage.clone(), t.retries), (Stage::Backlog, 2));
    let mut t = at(Stage::Blocked);
    t.retries = 3;
    t.blocked_reason = Some("x".into());
    assert_eq!(t.unblock().unwrap(), Event::IssueUnblocked { issue: 7 });
    assert_eq!((t.retries, t.blocked_reason), (0, None));
}

#[test]
fn a_task_imported_blocked_and_the_done_preview_are_no_transitions() {
    let t = Task::new_blocked(3, "x", "marked blocked on GitHub".into());
    assert_eq!(t.stage, Stage::Blocked);
    let preview = at(Stage::InProgress).as_done();
    assert_eq!(preview.stage, Stage::Done);
}

fn any_stage() -> impl Strategy<Value = Stage> {
    proptest::sample::select(Stage::KNOWN.to_vec())
}

fn any_transition() -> impl Strategy<Value = Transition> {
    proptest::sample::select(Transition::ALL.to_vec())
}

proptest! {
    /// A random sequence of transitions never produces a stage/event pair docs/state.md forbids, a
    /// refused transition changes nothing, and the owner is set exactly while IN_PROGRESS.
    #[test]
    fn random_transitions_never_break_the_rules(
        start in any_stage(),
        steps in proptest::collection::vec((any_transition(), 0u32..100), 0..40),
    ) {
        let mut task = at(start);
        for (t, n) in steps {
            let before = task.clone();
            match apply(&mut task, t, n) {
                Ok(Some(event)) => {
                    prop_assert!(t.allowed_from(&before.stage));
                    prop_assert!(event_allows(&event, &task.stage), "{:?} left {}", event, task.stage);
                }
                Ok(None) => {
                    prop_assert!(t.allowed_from(&before.stage));
                    prop_assert!(matches!(task.stage, Stage::Interrupted | Stage::Ready));
                }
                Err(_) => prop_assert_eq!(&task, &before),
            }
            if task.stage != before.stage {
                prop_assert_eq!(task.owner.is_some(), task.stage == Stage::InProgress);
                if task.stage == Stage::Done {
                    prop_assert!(task.commit.is_some());
                }
            }
            prop_assert!(task.attempts >= before.attempts);
        }
    }
}
