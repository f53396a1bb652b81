//! Which issues one line of a feature's event log may concern: the lines an issue's audit
//! needs (docs/learning.md "Outcomes": an ended issue's record is built from them). A line
//! may concern issue `N` when it holds `"issue":N` or `"issue": N` with no digit after `N`,
//! or when it is a `git_sync` naming `N` in `synced_issues` or `reverted_issues`. A line may
//! be named for an issue it does not concern (the audit that parses it decides); it is
//! never left out for an issue it does concern.

use serde_json::Value;

/// The issues `line` may concern, ascending, without repeats.
pub fn issues_of_line(line: &str) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for (i, _) in line.match_indices("\"issue\":") {
        let rest = &line[i + "\"issue\":".len()..];
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let digits = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
        // only a number as the log writes it (`07` is no issue's form)
        if digits.len() > 1 && digits.starts_with('0') {
            continue;
        }
        if let Ok(n) = digits.parse::<u32>() {
            out.push(n);
        }
    }
    if line.contains("\"git_sync\"")
        && let Ok(Value::Object(m)) = serde_json::from_str::<Value>(line)
    {
        for key in ["synced_issues", "reverted_issues"] {
            let listed = m.get(key).and_then(Value::as_array).into_iter().flatten();
            out.extend(
                listed
                    .filter_map(Value::as_u64)
                    .filter_map(|n| u32::try_from(n).ok()),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_issues_a_line_names() {
        let cases: &[(&str, &[u32])] = &[
            (r#"{"event":"issue_done","issue":7,"commit":"a"}"#, &[7]),
            (r#"{"event": "issue_done", "issue": 7, "x": 1}"#, &[7]),
            // a longer number is another issue
            (r#"{"event":"issue_done","issue":70}"#, &[70]),
            (r#"{"event":"issue_done","issue":07}"#, &[]),
            // two spaces: not the log's form (the audit would not read it either)
            (r#"{"event":"issue_done","issue":  7}"#, &[]),
            (r#"{"event":"greenlight","added":[1,2]}"#, &[]),
            (
                r#"{"event":"git_sync","synced_issues":[3,1],"reverted_issues":[9],"commits_scanned":2}"#,
                &[1, 3, 9],
            ),
            (
                r#"{"event":"git_sync","synced_issues":[],"reverted_issues":[]}"#,
                &[],
            ),
            // a torn git_sync line names nothing it cannot prove
            (r#"{"event":"git_sync","synced_issues":[3"#, &[]),
            // a mention inside a string is escaped: not the record's issue
            (
                r#"{"event":"agent_finished","issue":2,"output":"see \"issue\":5"}"#,
                &[2],
            ),
            ("", &[]),
        ];
        for (line, want) in cases {
            assert_eq!(issues_of_line(line), *want, "{line}");
        }
    }

    /// The old test: `"issue":N` or `"issue": N` not followed by a digit.
    fn named_by_needle(line: &str, n: u32) -> bool {
        [format!("\"issue\":{n}"), format!("\"issue\": {n}")]
            .iter()
            .any(|needle| {
                line.match_indices(needle.as_str()).any(|(i, _)| {
                    !line[i + needle.len()..]
                        .bytes()
                        .next()
                        .is_some_and(|b| b.is_ascii_digit())
                })
            })
    }

    proptest! {
        #[test]
        fn every_issue_a_needle_finds_is_named(
            parts in proptest::collection::vec(
                prop_oneof![
                    (0u32..40).prop_map(|n| format!("\"issue\":{n}")),
                    (0u32..40).prop_map(|n| format!("\"issue\": {n}")),
                    "[a-z0-9 ,:\"{}]{0,8}",
                ],
                0..6,
            ),
            n in 0u32..40,
        ) {
            let line = parts.concat();
            let named = issues_of_line(&line);
            prop_assert_eq!(named.contains(&n), named_by_needle(&line, n), "{}", line);
        }
    }
}
