//! Tests of `core::evidence`: tables for each rule, properties.
use super::*;

fn rule(feature: &str) -> EvidenceRule {
    EvidenceRule::new(feature)
}

fn issues(r: &EvidenceRule, msg: &str) -> Vec<(u32, Source)> {
    r.matches(msg)
        .into_iter()
        .map(|h| (h.issue, h.source))
        .collect()
}

use Source::*;

#[test]
fn subject_rule_table() {
    let r = rule("auth");
    let cases: &[(&str, &[(u32, Source)])] = &[
        ("feat(auth): Implement issue #2", &[(2, Subject)]),
        ("feat(auth): Implement issue #2 (#41)", &[(2, Subject)]),
        (
            "feat(auth): Implement issue #2: login form",
            &[(2, Subject)],
        ),
        ("feat(auth): Implement issue #2\n\nbody", &[(2, Subject)]),
        ("feat(auth): Implement issue #2\r\n", &[(2, Subject)]),
        // prefix trap
        ("feat(auth): Implement issue #22", &[(22, Subject)]),
        ("feat(auth): Implement issue #6x", &[]),
        ("feat(auth): Implement issue #6é", &[]),
        ("feat(auth): Implement issue #02", &[]),
        ("feat(auth): Implement issue #2.", &[(2, Subject)]),
        // case
        ("FEAT(auth): IMPLEMENT ISSUE #3", &[(3, Subject)]),
        ("Feat(auth): implement Issue #3", &[(3, Subject)]),
        ("feat(AUTH): Implement issue #3", &[]),
        // anchored
        ("Revert \"feat(auth): Implement issue #3\"", &[]),
        (" feat(auth): Implement issue #3", &[]),
        ("chore: x\n\nfeat(auth): Implement issue #3", &[]),
        // another feature
        ("feat(auth2): Implement issue #3", &[]),
        ("feat(au): Implement issue #3", &[]),
        ("feat(auth-x): Implement issue #3", &[]),
        ("fix(auth): Implement issue #3", &[]),
        // shape
        ("feat(auth): Implement #3", &[]),
        ("feat(auth): Implement issue 3", &[]),
        ("feat(auth): Implementissue #3", &[]),
        ("feat(auth): Implement issue#3", &[]),
        ("feat(auth):Implement issue #3", &[(3, Subject)]),
    ];
    for (msg, want) in cases {
        assert_eq!(issues(&r, msg), *want, "message: {msg:?}");
    }
}

#[test]
fn feature_ids_with_dots_and_dashes_are_literal() {
    let r = rule("v1.2-x_y");
    assert_eq!(
        issues(&r, "feat(v1.2-x_y): Implement issue #1"),
        [(1, Subject)]
    );
    // `.` is not a regex wildcard
    assert_eq!(issues(&r, "feat(v1x2-x_y): Implement issue #1"), []);
    assert_eq!(issues(&r, "feat(v1.2-x): Implement issue #1"), []);
    let msg = "x\n\nSwarm-Feature: v1.2-x_y\nSwarm-Issue: 4";
    assert_eq!(issues(&r, msg), [(4, Trailers)]);
    assert_eq!(issues(&rule("v1.2"), msg), []);
}

#[test]
fn trailers_only_in_last_paragraph() {
    let r = rule("auth");
    let cases: &[(&str, &[(u32, Source)])] = &[
        (
            "add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5",
            &[(5, Trailers)],
        ),
        (
            "add x\n\nbody\n\nSwarm-Feature: auth\nSwarm-Issue: 5\n",
            &[(5, Trailers)],
        ),
        (
            "add x\n\nswarm-feature: auth\nSWARM-ISSUE: #5",
            &[(5, Trailers)],
        ),
        (
            "add x\n\nSwarm-Issue: 5\nSwarm-Feature: auth",
            &[(5, Trailers)],
        ),
        // not the last paragraph
        (
            "add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5\n\nSigned-off-by: a",
            &[],
        ),
        // both trailers needed, in the same paragraph
        ("add x\n\nSwarm-Feature: auth\n\nSwarm-Issue: 5", &[]),
        ("add x\n\nSwarm-Issue: 5", &[]),
        // the subject paragraph never holds trailers
        ("Swarm-Feature: auth\nSwarm-Issue: 5", &[]),
        // exact values
        ("add x\n\nSwarm-Feature: auth2\nSwarm-Issue: 5", &[]),
        (
            "add x\n\nSwarm-Feature: auth\nSwarm-Issue: 55",
            &[(55, Trailers)],
        ),
        ("add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5x", &[]),
        ("add x\n\nSwarm-Feature: auth\nSwarm-Issue: 5 and 6", &[]),
        // both rules
        (
            "feat(auth): Implement issue #5\n\nSwarm-Feature: auth\nSwarm-Issue: 5",
            &[(5, Subject), (5, Trailers)],
        ),
    ];
    for (msg, want) in cases {
        assert_eq!(issues(&r, msg), *want, "message: {msg:?}");
    }
}

#[test]
fn closing_keywords_only_for_linked_issues() {
    let mut r = rule("auth");
    r.links.insert(3, 42);
    r.repo = Some("Owner/Repo".into());
    let cases: &[(&str, &[(u32, Source)])] = &[
        ("x\n\nFixes #42", &[(3, ClosingKeyword)]),
        ("Close #42", &[(3, ClosingKeyword)]),
        ("closes #42", &[(3, ClosingKeyword)]),
        ("closed #42", &[(3, ClosingKeyword)]),
        ("fix #42", &[(3, ClosingKeyword)]),
        ("FIXED #42.", &[(3, ClosingKeyword)]),
        ("resolve #42", &[(3, ClosingKeyword)]),
        ("Resolves: #42", &[(3, ClosingKeyword)]),
        ("resolved:#42", &[(3, ClosingKeyword)]),
        ("Fixes: #12\nFixes owner/repo#42", &[(3, ClosingKeyword)]),
        // bare references never
        ("x #42", &[]),
        ("Ref #42", &[]),
        ("See #42, relates to #42", &[]),
        ("Merge pull request #42 from a/b", &[]),
        // prefix trap and near misses
        ("Fixes #420", &[]),
        ("Fixes #4", &[]),
        ("Fixes #42a", &[]),
        ("prefixes #42", &[]),
        ("fixing #42", &[]),
        ("Fixes\n#42", &[]),
        ("Fixes#42", &[]),
        // another repository
        ("Fixes other/repo#42", &[]),
        ("Fixes owner/repo2#42", &[]),
    ];
    for (msg, want) in cases {
        assert_eq!(issues(&r, msg), *want, "message: {msg:?}");
    }
    // an unlinked task: never
    assert_eq!(issues(&rule("auth"), "Fixes #42"), []);
    // owner/repo needs a known repository
    let mut norepo = rule("auth");
    norepo.links.insert(3, 42);
    assert_eq!(issues(&norepo, "Fixes owner/repo#42"), []);
    assert_eq!(issues(&norepo, "Fixes #42"), [(3, ClosingKeyword)]);
}

#[test]
fn bare_numbers_are_never_evidence() {
    let r = rule("auth");
    for msg in [
        "#3",
        "Ref #3",
        "implement issue #3",
        "auth: Implement issue #3",
        "feat: Implement issue #3",
        "Fixes #3",
        "x\n\nSwarm-Issue: 3",
    ] {
        assert_eq!(issues(&r, msg), [], "message: {msg:?}");
    }
}

#[test]
fn done_patterns_match_the_whole_message_multiline() {
    let mut r = rule("auth");
    r.done_patterns = compile_patterns(&[
        r"^Done: (?P<feature>[a-z0-9._-]+)/(?P<issue>\d+)$".to_string(),
        r"^\[(?P<feature>[a-z]+)-(?P<issue>\d+)\] complete".to_string(),
    ])
    .unwrap();
    assert_eq!(issues(&r, "wip\n\nDone: auth/7\n"), [(7, Pattern)]);
    assert_eq!(
        issues(&r, "Done: auth/7\nDone: auth/8"),
        [(7, Pattern), (8, Pattern)]
    );
    assert_eq!(issues(&r, "Done: billing/7"), []);
    assert_eq!(issues(&r, "Done: auth/7x"), []);
    assert_eq!(issues(&r, "x\n[auth-9] complete"), [(9, Pattern)]);
    assert_eq!(issues(&r, "x\n[billing-9] complete"), []);
    let h = &r.matches("Done: auth/7")[0];
    assert_eq!(h.detail, "git.done_patterns[0]: Done: auth/7");
}

#[test]
fn invalid_patterns_name_their_index() {
    let ok = "(?P<feature>x)(?P<issue>\\d+)".to_string();
    let e = compile_patterns(&[ok, "(".into()]).unwrap_err();
    assert_eq!(e.index, 1);
    assert!(
        e.message.contains("not a valid regular expression"),
        "{}",
        e.message
    );
    let e = compile_patterns(&[r"(?P<issue>\d+)".into()]).unwrap_err();
    assert_eq!(e.index, 0);
    assert!(e.message.contains("feature"), "{}", e.message);
}

#[test]
fn merge_commits_are_ordinary_messages() {
    let r = rule("auth");
    assert_eq!(
        issues(
            &r,
            "Merge branch 'feature/x'\n\nSwarm-Feature: auth\nSwarm-Issue: 2"
        ),
        [(2, Trailers)]
    );
    assert_eq!(issues(&r, "Merge pull request #2 from o/auth-2"), []);
}

#[test]
fn revert_targets_table() {
    let full = "0123456789abcdef0123456789abcdef01234567";
    let cases: &[(&str, &[&str])] = &[
        (
            &format!("Revert \"x\"\n\nThis reverts commit {full}."),
            &[full],
        ),
        ("Revert\n\nThis reverts commit ABCDEF0.", &["abcdef0"]),
        ("this reverts commit abcdef0, reversing", &["abcdef0"]),
        ("This reverts commit abcdef", &[]),
        ("This reverts commit abcdef0g", &[]),
        (
            "This reverts commit abcdef01\nThis reverts commit 1234567",
            &["abcdef01", "1234567"],
        ),
        ("reverts abcdef0", &[]),
    ];
    for (msg, want) in cases {
        assert_eq!(revert_targets(msg), *want, "message: {msg:?}");
    }
}

#[test]
fn fingerprint_changes_with_every_input() {
    let base = rule("auth");
    let mut linked = base.clone();
    linked.links.insert(1, 2);
    let mut repo = base.clone();
    repo.repo = Some("o/r".into());
    let mut pat = base.clone();
    pat.done_patterns = compile_patterns(&["(?P<feature>x)(?P<issue>\\d+)".into()]).unwrap();
    let all = [
        base.fingerprint_input(),
        rule("auth2").fingerprint_input(),
        linked.fingerprint_input(),
        repo.fingerprint_input(),
        pat.fingerprint_input(),
    ];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn issue_n_never_matches_n_followed_by_a_digit(n in 1u32..100_000, d in 0u32..10) {
            let mut r = rule("auth");
            let longer = n * 10 + d;
            r.links.insert(n, u64::from(n) + 1000);
            let g = n + 1000;
            for msg in [
                format!("feat(auth): Implement issue #{longer}"),
                format!("x\n\nSwarm-Feature: auth\nSwarm-Issue: {longer}"),
                format!("Fixes #{g}{d}"),
            ] {
                let hits = r.matches(&msg);
                prop_assert!(hits.iter().all(|h| h.issue != n), "{msg:?} gave {hits:?}");
            }
            prop_assert_eq!(
                issues(&r, &format!("feat(auth): Implement issue #{n}")),
                vec![(n, Subject)]
            );
        }

        #[test]
        fn subject_suffix_never_changes_the_number(n in 1u32..1_000_000, tail in "[ ,.:;()#!?-][ -~]{0,20}") {
            let r = rule("auth");
            let msg = format!("feat(auth): Implement issue #{n}{tail}");
            prop_assert_eq!(issues(&r, &msg), vec![(n, Subject)]);
        }

        #[test]
        fn alphanumeric_suffix_is_never_evidence(n in 1u32..1_000_000, c in "[a-zA-Z0-9]") {
            let r = rule("auth");
            let msg = format!("feat(auth): Implement issue #{n}{c}");
            prop_assert!(issues(&r, &msg).iter().all(|(i, _)| *i != n));
        }

        #[test]
        fn scan_never_panics(msg in "\\PC{0,200}") {
            let mut r = rule("auth");
            r.links.insert(1, 1);
            let _ = r.matches(&msg);
            let _ = revert_targets(&msg);
        }
    }
}
