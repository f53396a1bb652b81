use super::*;
use proptest::prelude::*;

const FAILURE: &str = "running 3 tests\n  FAILED: checks/t_login.sh\n  assertion failed: expected 200, got 401\n2 passed, 1 failed\n";

fn answer(rec: &str, extra: &str) -> String {
    format!(
        r#"{{"diagnosis": "implementation_bug", "recommendation": "{rec}", "reason": "the login handler rejects valid tokens", "evidence": ["assertion failed: expected 200, got 401"]{extra}}}"#
    )
}

#[test]
fn every_recommendation_is_read() {
    for (rec, extra) in [
        ("retry", ""),
        (
            "modify",
            r#", "modified_approach": "validate the token before the session""#,
        ),
        ("skip", ""),
        ("escalate", ""),
        ("depend", r#", "depends_on": 3"#),
    ] {
        let a = parse(&answer(rec, extra), FAILURE).unwrap();
        assert_eq!(a.recommendation.as_str(), rec);
        assert_eq!(a.source, Source::Llm);
        assert_eq!(a.diagnosis, Some(Diagnosis::ImplementationBug));
        assert_eq!(a.evidence, ["assertion failed: expected 200, got 401"]);
    }
    let a = parse(&answer("depend", r#", "depends_on": 3"#), FAILURE).unwrap();
    assert_eq!(a.depends_on, Some(3));
    let a = parse(
        &answer("modify", r#", "modified_approach": "use X""#),
        FAILURE,
    )
    .unwrap();
    assert_eq!(a.modified_approach.as_deref(), Some("use X"));
    // text around the object is tolerated (a fenced answer)
    let fenced = format!("Here:\n```json\n{}\n```", answer("retry", ""));
    assert_eq!(
        parse(&fenced, FAILURE).unwrap().recommendation,
        Recommendation::Retry
    );
}

#[test]
fn invalid_answers_name_their_problem() {
    let cases = [
        (answer("retry", "").replace("implementation_bug", "bad_luck"), "`diagnosis` must be one of"),
        (answer("try harder", ""), "`recommendation` must be one of"),
        (answer("modify", ""), "`modified_approach` is required"),
        (answer("depend", ""), "`depends_on` is required"),
        (answer("depend", r#", "depends_on": "three""#), "`depends_on` must be an issue number"),
        (answer("retry", "").replace(r#""reason": "the login handler rejects valid tokens", "#, ""), "missing field `reason`"),
        (r#"{"diagnosis": "unclear", "recommendation": "retry", "reason": "r"}"#.to_string(), "missing field `evidence`"),
        (r#"{"diagnosis": "unclear", "recommendation": "retry", "reason": "r", "evidence": "x"}"#.to_string(), "must be a list of strings"),
        (format!("{} {}", answer("retry", ""), answer("skip", "")), "2 JSON objects"),
        ("I am not sure what happened.".to_string(), "no JSON object"),
    ];
    for (text, want) in cases {
        let e = parse(&text, FAILURE).unwrap_err();
        assert!(e.contains(want), "{text}: {e}");
    }
}

#[test]
fn invented_evidence_is_rejected() {
    let invented = r#"{"diagnosis": "test_expectation", "recommendation": "skip", "reason": "the test is wrong", "evidence": ["assertion failed: expected 401, got 200", "all tests passed"]}"#;
    let e = parse(invented, FAILURE).unwrap_err();
    assert!(e.contains("verbatim"), "{e}");
    // one real line is enough; the invented one is dropped
    let mixed = r#"{"diagnosis": "test_expectation", "recommendation": "retry", "reason": "r", "evidence": ["all tests passed", "  FAILED: checks/t_login.sh  "]}"#;
    assert_eq!(
        parse(mixed, FAILURE).unwrap().evidence,
        ["FAILED: checks/t_login.sh"]
    );
    // a short fragment must be a whole line; a long one may be part of a line
    assert!(!quoted_from("failed", FAILURE));
    assert!(quoted_from("2 passed, 1 failed", FAILURE));
    assert!(quoted_from("expected 200, got 401", FAILURE));
    assert!(!quoted_from("", FAILURE));
    assert!(!quoted_from("running 3 tests\n  FAILED", FAILURE));
}

#[test]
fn the_llm_text_path() {
    let a = parse("Escalate\nthe requirement contradicts issue 2", FAILURE).unwrap();
    assert_eq!(a.recommendation, Recommendation::Escalate);
    assert_eq!(a.source, Source::LlmText);
    assert_eq!(a.reason, "the requirement contradicts issue 2");
    let a = parse("\nmodify approach: use a hash map\nnot a list", FAILURE).unwrap();
    assert_eq!(a.recommendation, Recommendation::Modify);
    assert_eq!(
        a.modified_approach.as_deref(),
        Some("use a hash map not a list")
    );
    assert_eq!(
        parse("skip.", FAILURE).unwrap().recommendation,
        Recommendation::Skip
    );
    assert_eq!(
        parse("retry", FAILURE).unwrap().reason,
        "the analyst answered `retry`"
    );
    // not a verdict word on the first line
    assert!(parse("retrying makes no sense\nskip", FAILURE).is_err());
    assert!(parse("depend on 3", FAILURE).is_err());
    assert!(read_text("").is_none());
}

fn note(attempt: u32, d: Option<Diagnosis>, r: Recommendation) -> Note {
    Note {
        attempt,
        agent: Some("fake".into()),
        class: "tests".into(),
        kind: "tests_failed".into(),
        diagnosis: d,
        recommendation: r,
        source: Source::Llm,
        reason: "why".into(),
        modified_approach: None,
    }
}

#[test]
fn never_the_same_retry_twice() {
    use Diagnosis::*;
    use Recommendation::*;
    let bug = Some(ImplementationBug);
    assert_eq!(
        same_failure_twice(&[note(1, bug, Retry), note(2, bug, Modify)]),
        Some(ImplementationBug)
    );
    assert_eq!(same_failure_twice(&[note(1, bug, Retry)]), None);
    assert_eq!(
        same_failure_twice(&[note(1, bug, Retry), note(2, Some(Environment), Retry)]),
        None
    );
    assert_eq!(
        same_failure_twice(&[note(1, bug, Skip), note(2, bug, Retry)]),
        None
    );
    assert_eq!(
        same_failure_twice(&[note(1, None, Retry), note(2, None, Retry)]),
        None
    );
    // only the two newest count
    assert_eq!(
        same_failure_twice(&[
            note(1, bug, Retry),
            note(2, Some(Unclear), Retry),
            note(3, bug, Retry)
        ]),
        None
    );
}

#[test]
fn notes_are_kept_bounded_and_condensed() {
    let mut notes = Vec::new();
    for i in 1..=12 {
        push_note(
            &mut notes,
            note(i, Some(Diagnosis::Unclear), Recommendation::Retry),
        );
    }
    assert_eq!(notes.len(), MAX_NOTES);
    assert_eq!(notes[0].attempt, 3);
    let lines = condensed(&notes, 2);
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].starts_with("Attempt 11 (fake): tests/tests_failed, unclear → retry"),
        "{}",
        lines[0]
    );
    let long = Note {
        reason: "x ".repeat(500),
        ..note(1, None, Recommendation::Retry)
    };
    assert!(long.line().chars().count() <= 300);
}

#[test]
fn depend_is_checked() {
    let tasks: BTreeMap<u32, (Stage, Vec<u32>)> = [
        (1, (Stage::Done, vec![])),
        (2, (Stage::InProgress, vec![1])),
        (3, (Stage::Ready, vec![])),
        (4, (Stage::Backlog, vec![2])),
    ]
    .into_iter()
    .collect();
    assert!(check_depend(2, 3, &tasks).is_ok());
    assert!(check_depend(2, 1, &tasks).unwrap_err().contains("DONE"));
    assert!(
        check_depend(2, 9, &tasks)
            .unwrap_err()
            .contains("not an issue")
    );
    assert!(check_depend(2, 2, &tasks).unwrap_err().contains("itself"));
    assert!(check_depend(2, 4, &tasks).unwrap_err().contains("cycle"));
}

#[test]
fn the_prompt_holds_what_the_analyst_needs() {
    let files = vec!["src/login.rs".to_string()];
    let earlier = vec!["Attempt 1 (fake): tests/tests_failed → retry: r".to_string()];
    let others = vec!["#3 Tokens [READY]".to_string()];
    let p = prompt(&Question {
        issue: 2,
        title: "Login",
        body: "Add login.",
        attempt: 2,
        retries_left: 1,
        class: "tests",
        reason: "tests failed",
        failure: FAILURE,
        files_changed: &files,
        earlier: &earlier,
        others: &others,
    });
    for want in [
        "Issue #2 — Login",
        "Add login.",
        "Attempt 2 failed",
        "1 retry left",
        "expected 200, got 401",
        "src/login.rs",
        "Attempt 1 (fake)",
        "#3 Tokens",
        "\"evidence\"",
    ] {
        assert!(p.contains(want), "{want} missing:\n{p}");
    }
    assert!(
        reprompt(&p, "missing field `reason`")
            .ends_with("Answer again with exactly one valid JSON object.\n")
    );
}

proptest! {
    /// Whatever the analyst writes, an answer is read deterministically and an accepted
    /// JSON answer's evidence always occurs in the failure.
    #[test]
    fn accepted_evidence_is_in_the_failure(quote in "[a-z0-9 :,]{0,40}", rec in prop::sample::select(vec!["retry", "skip", "escalate"])) {
        let text = format!(r#"{{"diagnosis": "unclear", "recommendation": "{rec}", "reason": "r", "evidence": ["{quote}"]}}"#);
        let a = parse(&text, FAILURE);
        prop_assert_eq!(a.clone(), parse(&text, FAILURE));
        if let Ok(a) = a {
            prop_assert!(a.evidence.iter().all(|e| quoted_from(e, FAILURE)));
        }
    }
}
