use super::*;
use proptest::prelude::*;

fn cfg() -> VerifyConfig {
    VerifyConfig::default()
}

fn created(path: &str, text: &str) -> Changed {
    Changed {
        path: path.into(),
        kind: ChangeKind::Created,
        added: crate::unified_diff::all_added(path, text).added,
        removed: Vec::new(),
    }
}

fn modified(path: &str, added: &[(u32, &str)], removed: &[&str]) -> Changed {
    Changed {
        path: path.into(),
        kind: ChangeKind::Modified,
        added: added.iter().map(|(n, t)| (*n, t.to_string())).collect(),
        removed: removed.iter().map(|s| s.to_string()).collect(),
    }
}

fn deleted(path: &str) -> Changed {
    Changed {
        path: path.into(),
        kind: ChangeKind::Deleted,
        added: Vec::new(),
        removed: Vec::new(),
    }
}

fn subject<'a>(
    test_file: Option<&'a str>,
    files: &'a [String],
    labels: &'a [String],
) -> Subject<'a> {
    Subject {
        agent: "lazy",
        test_file,
        files,
        labels,
    }
}

#[test]
fn default_test_paths_cover_the_common_layouts() {
    let c = cfg();
    for p in [
        "tests/test_existing.sh",
        "tests/integration.rs",
        "crates/core/tests/api.rs",
        "test/calc.bats",
        "spec/user_spec.rb",
        "pkg/tests/test_calc.py",
        "test_calc.py",
        "calc/calc_test.go",
        "web/src/login.test.ts",
        "web/src/login.spec.tsx",
        "web/src/__tests__/login.js",
        "src/test/java/com/x/CalcTest.java",
        "app/src/test/kotlin/CalcTest.kt",
        "pkg/conftest.py",
    ] {
        assert!(is_test_file(&c, p), "{p} should be a test file");
    }
    for p in [
        "src/calc.rs",
        "src/main/java/com/x/Calc.java",
        "calc.sh",
        "README.md",
        "src/contest.py",
        "latest/notes.md",
    ] {
        assert!(!is_test_file(&c, p), "{p} should not be a test file");
    }
}

#[test]
fn a_deleted_pre_existing_test_fails_with_the_spec_reason() {
    let changes = [
        deleted("tests/test_existing.sh"),
        created("tests/test_issue_1.sh", "true\n"),
    ];
    let r = protect_tests(&cfg(), &subject(None, &[], &[]), &changes);
    assert!(!r.passed);
    assert_eq!(r.failures.len(), 1);
    let f = &r.failures[0];
    assert_eq!(f.kind, Kind::DeletedTest);
    assert_eq!(f.paths, vec!["tests/test_existing.sh".to_string()]);
    assert_eq!(
        f.reason,
        "test integrity: lazy deleted tests/test_existing.sh, a test that existed before this issue"
    );
}

#[test]
fn changed_and_deleted_tests_are_two_kinds() {
    let changes = [
        deleted("tests/a.sh"),
        modified("tests/b.sh", &[(1, "exit 0")], &["exit 1"]),
        modified("tests/c.sh", &[(1, "exit 0")], &["exit 1"]),
        modified("src/calc.sh", &[], &[]),
    ];
    let r = protect_tests(&cfg(), &subject(None, &[], &[]), &changes);
    let kinds: Vec<Kind> = r.failures.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, vec![Kind::DeletedTest, Kind::ChangedTest]);
    assert_eq!(
        r.failures[1].reason,
        "test integrity: lazy changed tests/b.sh, tests/c.sh, tests that existed before this issue"
    );
}

#[test]
fn the_issues_own_test_file_and_files_may_change() {
    let files = vec!["tests/helper.sh".to_string()];
    let changes = [
        modified("tests/test_issue.sh", &[(3, "check 2")], &["check 1"]),
        modified("tests/helper.sh", &[(1, "x")], &[]),
    ];
    let r = protect_tests(
        &cfg(),
        &subject(Some("tests/test_issue.sh"), &files, &[]),
        &changes,
    );
    assert!(r.passed, "{r:?}");
    assert!(r.detail.contains("tests/test_issue.sh"), "{}", r.detail);
}

#[test]
fn switched_off_checks_are_skipped_and_pass() {
    let off = VerifyConfig {
        protect_tests: false,
        skip_markers: false,
        fail_before: false,
        ..cfg()
    };
    let changes = [
        deleted("tests/a.sh"),
        created("tests/b.py", "@pytest.mark.skip\n"),
    ];
    for r in static_checks(&off, &subject(None, &[], &[]), &changes) {
        assert!(r.passed && r.skipped, "{r:?}");
    }
    assert!(matches!(
        fail_before_plan(&off, &subject(None, &[], &[]), &changes),
        FailBeforePlan::Skip(_)
    ));
}

#[test]
fn added_skip_markers_fail_and_moved_lines_do_not() {
    let changes = [modified(
        "tests/test_calc.py",
        &[
            (10, "    @pytest.mark.skip(reason='later')"),
            (20, "@pytest.mark.xfail"),
        ],
        &["@pytest.mark.xfail"],
    )];
    let r = skip_markers(&cfg(), &subject(None, &[], &[]), &changes);
    assert!(!r.passed);
    let f = &r.failures[0];
    assert_eq!(f.kind, Kind::SkipMarker);
    assert_eq!(
        f.reason,
        "test integrity: lazy added a skip marker (`@pytest.mark.skip`) at tests/test_calc.py:10"
    );
    // a marker in a non-test file is not a test's marker
    let src = [modified("src/lib.rs", &[(3, "#[ignore]")], &[])];
    assert!(skip_markers(&cfg(), &subject(None, &[], &[]), &src).passed);
    // in a new test file every line is added
    let new = [created("tests/x.rs", "#[test]\n#[ignore]\nfn t() {}\n")];
    let r = skip_markers(&cfg(), &subject(None, &[], &[]), &new);
    assert_eq!(r.failures[0].detail, "`#[ignore` added at tests/x.rs:2");
}

#[test]
fn require_tests_only_when_asked() {
    let changes = [modified("src/calc.sh", &[], &[])];
    let s = subject(None, &[], &[]);
    assert!(require_tests(&cfg(), &s, &changes).skipped);
    let on = VerifyConfig {
        require_tests: true,
        ..cfg()
    };
    let r = require_tests(&on, &s, &changes);
    assert_eq!(r.failures[0].kind, Kind::NoTest);
    assert_eq!(
        r.failures[0].reason,
        "test integrity: lazy added or changed no test file (verify.require_tests)"
    );
    // a deleted test is not a written one
    let del = [deleted("tests/a.sh")];
    assert!(!require_tests(&on, &s, &del).passed);
    let with = [created("tests/a.sh", "x")];
    assert!(require_tests(&on, &s, &with).passed);
}

#[test]
fn fail_before_plan_runs_written_tests_unless_test_only() {
    let changes = [
        created("tests/b.sh", "x"),
        modified("tests/a.sh", &[(1, "y")], &[]),
        deleted("tests/c.sh"),
        created("src/x.sh", "z"),
    ];
    let s = subject(None, &[], &[]);
    assert_eq!(
        fail_before_plan(&cfg(), &s, &changes),
        FailBeforePlan::Run(vec!["tests/a.sh".into(), "tests/b.sh".into()])
    );
    let labels = vec!["bug".to_string(), "Testing".to_string()];
    assert_eq!(
        fail_before_plan(&cfg(), &subject(None, &[], &labels), &changes),
        FailBeforePlan::Skip(
            "skipped: the issue has the label `Testing` (verify.test_only_labels)".into()
        )
    );
    let none = [created("src/x.sh", "z")];
    assert!(matches!(
        fail_before_plan(&cfg(), &s, &none),
        FailBeforePlan::Skip(_)
    ));
}

#[test]
fn fail_before_verdict() {
    let pass = |p: &str| (p.to_string(), BaseRun::Passed);
    let r = fail_before_result(&[pass("tests/a.sh"), pass("tests/b.sh")]);
    assert!(!r.passed);
    assert_eq!(r.failures[0].kind, Kind::VacuousTest);
    assert_eq!(r.failures[0].reason, VACUOUS_REASON);
    assert_eq!(
        r.detail,
        "tests/a.sh passes without the change; tests/b.sh passes without the change"
    );
    let mixed = fail_before_result(&[
        pass("tests/a.sh"),
        ("tests/b.sh".into(), BaseRun::CannotRun),
    ]);
    assert!(mixed.passed, "{mixed:?}");
    assert!(fail_before_result(&[]).skipped);
}

#[test]
fn base_runs_are_classified() {
    assert_eq!(classify_base_run(false, Some(127), ""), BaseRun::CannotRun);
    assert_eq!(classify_base_run(false, Some(126), ""), BaseRun::CannotRun);
    assert_eq!(
        classify_base_run(
            false,
            Some(2),
            "E   ModuleNotFoundError: No module named 'calc'"
        ),
        BaseRun::CannotRun
    );
    assert_eq!(
        classify_base_run(false, Some(1), "1 failed"),
        BaseRun::Failed
    );
    assert_eq!(classify_base_run(true, Some(0), "ok"), BaseRun::Passed);
    // a passing run cannot hide behind an error message it prints
    assert_eq!(
        classify_base_run(true, Some(0), "ImportError (not really)"),
        BaseRun::Passed
    );
}

#[test]
fn tests_written_only_for_tests_that_failed_before() {
    let changes = [
        created("tests/a.sh", "x"),
        created("tests/b.sh", "y"),
        created("checks/t_1.sh", "z"),
    ];
    let s = subject(Some("checks/t_1.sh"), &[], &[]);
    let runs = [
        ("tests/a.sh".to_string(), BaseRun::Passed),
        ("tests/b.sh".to_string(), BaseRun::Failed),
    ];
    assert_eq!(
        tests_written(&cfg(), &s, &changes, Some(&runs)),
        vec!["tests/b.sh".to_string(), "checks/t_1.sh".to_string()]
    );
    assert_eq!(
        tests_written(&cfg(), &s, &changes, None),
        vec![
            "tests/a.sh".to_string(),
            "tests/b.sh".to_string(),
            "checks/t_1.sh".to_string()
        ]
    );
}

#[test]
fn report_joins_reasons_and_feedback() {
    let changes = [
        deleted("tests/test_existing.sh"),
        created("tests/test_issue_1.sh", "@Disabled\n"),
    ];
    let checks = static_checks(&cfg(), &subject(None, &[], &[]), &changes);
    let rep = Report::new(checks, None);
    assert!(!rep.passed);
    assert_eq!(
        rep.reason(),
        "test integrity: lazy deleted tests/test_existing.sh, a test that existed before this issue; test integrity: lazy added a skip marker (`@Disabled`) at tests/test_issue_1.sh:1"
    );
    let fb = rep.feedback();
    assert!(
        fb.contains("restore it; change the code, not the test"),
        "{fb}"
    );
    let json = serde_json::to_value(&rep).unwrap();
    assert_eq!(json["checks"][0]["check"], "protect_tests");
    assert_eq!(json["checks"][0]["passed"], false);
    assert_eq!(json["checks"][0]["failures"][0]["kind"], "deleted_test");
}

fn kind_strategy() -> impl Strategy<Value = ChangeKind> {
    prop_oneof![
        Just(ChangeKind::Created),
        Just(ChangeKind::Modified),
        Just(ChangeKind::Deleted)
    ]
}

proptest! {
    /// The checks depend on the set of changes, not their order, and an attempt that
    /// touches no test file passes every static check.
    #[test]
    fn order_independent_and_quiet_without_tests(
        entries in proptest::collection::vec((prop_oneof![Just("tests/a.sh"), Just("tests/b.py"), Just("src/c.rs"), Just("lib/d.sh")], kind_strategy(), any::<bool>()), 0..6)
    ) {
        let mut seen = std::collections::BTreeSet::new();
        let changes: Vec<Changed> = entries
            .iter()
            .filter(|(p, _, _)| seen.insert(*p))
            .map(|(p, k, marker)| Changed {
                path: p.to_string(),
                kind: *k,
                added: if *marker && *k != ChangeKind::Deleted { vec![(1, "@Ignore".to_string())] } else { Vec::new() },
                removed: Vec::new(),
            })
            .collect();
        let s = subject(None, &[], &[]);
        let a = Report::new(static_checks(&cfg(), &s, &changes), None);
        let mut rev = changes.clone();
        rev.reverse();
        let b = Report::new(static_checks(&cfg(), &s, &rev), None);
        prop_assert_eq!(a.passed, b.passed);
        let ka: std::collections::BTreeSet<Kind> = a.failures().iter().map(|f| f.kind).collect();
        let kb: std::collections::BTreeSet<Kind> = b.failures().iter().map(|f| f.kind).collect();
        prop_assert_eq!(ka, kb);
        if changes.iter().all(|c| !is_test_file(&cfg(), &c.path)) {
            prop_assert!(a.passed);
        }
    }
}
