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
