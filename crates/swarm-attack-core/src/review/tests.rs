use super::*;
use crate::unified_diff;
use proptest::prelude::*;
use serde_json::json;

/// calc.sh line 1 changed, tests/t.sh new (lines 1-2), old.sh deleted.
fn anchors() -> Anchors {
    Anchors::from_diff(&[
        unified_diff::FileDiff {
            path: "calc.sh".into(),
            deleted: false,
            added: vec![(10, "echo".into())],
            removed: vec![],
        },
        unified_diff::all_added("tests/t.sh", "a\nb\n"),
        unified_diff::FileDiff {
            path: "old.sh".into(),
            deleted: true,
            added: vec![],
            removed: vec!["x".into()],
        },
    ])
}

fn raw(sev: &str, conf: f64, file: &str, line: u64, title: &str) -> serde_json::Value {
    json!({"severity": sev, "confidence": conf, "file": file, "line": line, "title": title, "body": "because"})
}

#[test]
fn findings_are_validated_anchored_and_counted() {
    let raws = vec![
        raw("critical", 95.0, "calc.sh", 10, "wrong sign"),
        raw("major", 90.0, "calc.sh", 13, "three lines away"),
        raw("major", 90.0, "calc.sh", 14, "four lines away"),
        raw("blocker", 99.0, "calc.sh", 10, "bad severity"),
        json!({"severity": "minor", "confidence": "high", "file": "calc.sh", "line": 10}),
        raw("minor", 150.0, "README.md", 1, "unchanged file"),
        raw("major", 70.0, "tests/t.sh", 2, "below"),
        raw("minor", 88.0, "old.sh", 500, "deleted file, any line"),
        raw("minor", -5.0, "calc.sh", 10, "clamped"),
    ];
    let mut f = validate("r1", &raws, &anchors());
    count(&mut f, 80.0);
    let got: Vec<(bool, Option<DropReason>)> =
        f.iter().map(|x| (x.counted, x.drop_reason)).collect();
    assert_eq!(
        got,
        vec![
            (true, None),
            (true, None),
            (false, Some(DropReason::Unanchored)),
            (false, Some(DropReason::Invalid)),
            (false, Some(DropReason::Invalid)),
            (false, Some(DropReason::Unanchored)),
            (false, Some(DropReason::BelowConfidence)),
            (true, None),
            (false, Some(DropReason::BelowConfidence)),
        ]
    );
    assert_eq!(f[5].confidence, Some(100.0));
    assert_eq!(f[8].confidence, Some(0.0));
    assert_eq!(
        verdict(&f, &[Severity::Critical, Severity::Major]),
        Verdict::Fail
    );
    assert_eq!(
        fail_reason(&f, &[Severity::Critical, Severity::Major]),
        "review: 2 blocking finding(s): wrong sign (calc.sh:10)"
    );
}

#[test]
fn verdicts() {
    let mut minor = validate("r", &[raw("minor", 90.0, "calc.sh", 10, "nit")], &anchors());
    count(&mut minor, 80.0);
    let block = [Severity::Critical, Severity::Major];
    assert_eq!(verdict(&minor, &block), Verdict::PassWithRisk);
    assert_eq!(verdict(&[], &block), Verdict::Pass);
    // a critical finding below the threshold is recorded, never counted
    let mut low = validate(
        "r",
        &[raw("critical", 79.9, "calc.sh", 10, "maybe")],
        &anchors(),
    );
    count(&mut low, 80.0);
    assert_eq!(verdict(&low, &block), Verdict::Pass);
    // block_on decides what fails
    let mut major = validate("r", &[raw("major", 90.0, "calc.sh", 10, "bug")], &anchors());
    count(&mut major, 80.0);
    assert_eq!(
        verdict(&major, &[Severity::Critical]),
        Verdict::PassWithRisk
    );
}

#[test]
fn cross_matches_pairs_once_with_a_boost_and_the_higher_severity() {
    let a = validate(
        "a",
        &[
            raw("minor", 75.0, "calc.sh", 10, "A says"),
            raw("major", 70.0, "tests/t.sh", 1, "only A"),
        ],
        &anchors(),
    );
    let b = validate(
        "b",
        &[
            raw("critical", 72.0, "calc.sh", 12, "B says"),
            raw("major", 60.0, "calc.sh", 30, "unanchored"),
        ],
        &anchors(),
    );
    let mut m = cross(a, b);
    count(&mut m, 80.0);
    assert_eq!(m.len(), 3);
    assert_eq!(m[0].reviewer, "a+b");
    assert_eq!(m[0].confidence, Some(85.0));
    assert_eq!(m[0].severity, Some(Severity::Critical));
    assert_eq!(m[0].title, "A says");
    assert!(m[0].counted);
    assert_eq!(m[1].drop_reason, Some(DropReason::BelowConfidence));
    assert_eq!(m[2].drop_reason, Some(DropReason::Unanchored));
    let top = validate("a", &[raw("major", 95.0, "calc.sh", 10, "x")], &anchors());
    let top2 = validate("b", &[raw("major", 99.0, "calc.sh", 9, "y")], &anchors());
    let m = cross(top, top2);
    assert_eq!(m[0].confidence, Some(100.0));
    assert_eq!(m[0].title, "y");
}

#[test]
fn a_stricter_cross_counts_an_unmatched_finding_only_at_its_own_bar() {
    let a = || {
        validate(
            "a",
            &[
                raw("major", 75.0, "calc.sh", 10, "matched"),
                raw("major", 90.0, "tests/t.sh", 1, "only a, 90"),
                raw("critical", 99.0, "README.md", 1, "only a, invented"),
            ],
            &anchors(),
        )
    };
    let b = || {
        validate(
            "b",
            &[
                raw("minor", 72.0, "calc.sh", 11, "matched too"),
                raw("major", 96.0, "old.sh", 3, "only b, 96"),
            ],
            &anchors(),
        )
    };
    let state = |f: &[Finding]| -> Vec<(String, bool, Option<DropReason>)> {
        f.iter()
            .map(|x| (x.title.clone(), x.counted, x.drop_reason))
            .collect()
    };
    // (unmatched bar, counted titles): at the default (= min_confidence) the SPEC rule;
    // a bar below min_confidence is min_confidence
    let table: [(f64, &[&str]); 5] = [
        (80.0, &["matched", "only a, 90", "only b, 96"]),
        (0.0, &["matched", "only a, 90", "only b, 96"]),
        (90.0, &["matched", "only a, 90", "only b, 96"]),
        (95.0, &["matched", "only b, 96"]),
        (100.0, &["matched"]),
    ];
    for (bar, want) in table {
        let m = cross_counted(a(), b(), 80.0, bar);
        let got: Vec<&str> = m
            .iter()
            .filter(|f| f.counted)
            .map(|f| f.title.as_str())
            .collect();
        assert_eq!(got, want, "bar {bar}");
        // the invented finding is unanchored whatever its confidence and the bar
        let invented = m.iter().find(|f| f.title == "only a, invented").unwrap();
        assert_eq!(invented.drop_reason, Some(DropReason::Unanchored));
        // an unmatched finding under the bar is recorded `below_confidence`
        for f in m
            .iter()
            .filter(|f| !f.counted && f.file.as_deref() != Some("README.md"))
        {
            assert_eq!(f.drop_reason, Some(DropReason::BelowConfidence), "{f:?}");
        }
    }
    let mut spec = cross(a(), b());
    count(&mut spec, 80.0);
    assert_eq!(state(&cross_counted(a(), b(), 80.0, 80.0)), state(&spec));
}

/// Two reviewers' raw findings: (severity, confidence, file, line).
fn arb_findings() -> impl Strategy<Value = Vec<(usize, f64, usize, u64)>> {
    proptest::collection::vec((0usize..4, 0.0f64..100.0, 0usize..3, 0u64..16), 0..6)
}

fn raws(spec: &[(usize, f64, usize, u64)]) -> Vec<serde_json::Value> {
    let sev = ["critical", "major", "minor", "blocker"];
    let file = ["calc.sh", "tests/t.sh", "README.md"];
    spec.iter()
        .enumerate()
        .map(|(i, (s, c, f, l))| raw(sev[*s], *c, file[*f], *l, &format!("f{i}")))
        .collect()
}

proptest! {
    /// With the stricter bar at `min_confidence` (the default), `cross_counted` is exactly
    /// `cross` then `count` (the contract's rule); raising the bar never counts a finding
    /// the lower bar did not, and never makes the verdict stricter.
    #[test]
    fn a_stricter_cross_at_its_default_is_the_contract_and_raising_it_never_adds(
        fa in arb_findings(), fb in arb_findings(),
        min in 0.0f64..100.0, u1 in 0.0f64..101.0, u2 in 0.0f64..101.0,
    ) {
        let a = validate("a", &raws(&fa), &anchors());
        let b = validate("b", &raws(&fb), &anchors());
        let mut spec = cross(a.clone(), b.clone());
        count(&mut spec, min);
        prop_assert_eq!(&cross_counted(a.clone(), b.clone(), min, min), &spec);
        let (lo, hi) = if u1 <= u2 { (u1, u2) } else { (u2, u1) };
        let low = cross_counted(a.clone(), b.clone(), min, lo);
        let high = cross_counted(a, b, min, hi);
        prop_assert_eq!(low.len(), high.len());
        for (l, h) in low.iter().zip(&high) {
            prop_assert!(!h.counted || l.counted, "{h:?} counted at {hi}, not at {lo}");
            // nothing but counting differs
            prop_assert_eq!((&l.title, l.confidence, l.severity), (&h.title, h.confidence, h.severity));
        }
        let block = [Severity::Critical, Severity::Major];
        if verdict(&low, &block) != Verdict::Fail {
            prop_assert_ne!(verdict(&high, &block), Verdict::Fail);
        }
        if verdict(&low, &block) == Verdict::Pass {
            prop_assert_eq!(verdict(&high, &block), Verdict::Pass);
        }
    }
}

proptest! {
    /// Counting is monotone in the threshold: raising it never counts more findings, and
    /// the verdict never gets stricter.
    #[test]
    fn a_higher_threshold_never_blocks_more(confs in proptest::collection::vec(0.0f64..100.0, 0..8), t1 in 0.0f64..100.0, t2 in 0.0f64..100.0) {
        let (lo, hi) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        let raws: Vec<serde_json::Value> = confs.iter().map(|c| raw("major", *c, "calc.sh", 10, "x")).collect();
        let mut a = validate("r", &raws, &anchors());
        let mut b = a.clone();
        count(&mut a, lo);
        count(&mut b, hi);
        let na = a.iter().filter(|f| f.counted).count();
        let nb = b.iter().filter(|f| f.counted).count();
        prop_assert!(nb <= na);
        if verdict(&a, &[Severity::Major]) == Verdict::Pass {
            prop_assert_eq!(verdict(&b, &[Severity::Major]), Verdict::Pass);
        }
    }
}

#[test]
fn a_counted_finding_the_next_round_no_longer_reports_is_fixed() {
    let mut round1 = validate(
        "rev",
        &[
            raw("critical", 95.0, "calc.sh", 10, "wrong sign"),
            raw("minor", 95.0, "tests/t.sh", 1, "still there"),
            raw("major", 10.0, "tests/t.sh", 2, "never counted"),
        ],
        &anchors(),
    );
    count(&mut round1, 80.0);
    // round 2 reports the test file again (a line away), not calc.sh
    let round2 = validate(
        "rev",
        &[raw("minor", 95.0, "tests/t.sh", 2, "still there")],
        &anchors(),
    );
    let fixed: Vec<&str> = no_longer_reported(&round1, &round2)
        .iter()
        .map(|f| f.title.as_str())
        .collect();
    assert_eq!(fixed, ["wrong sign"]);
    // nothing earlier: nothing fixed; the same findings again: nothing fixed
    assert!(no_longer_reported(&[], &round2).is_empty());
    assert!(no_longer_reported(&round1, &round1).is_empty());
}
