//! A reviewer's answer in the review gate's format (docs/review.md "What is checked"), as the
//! script and real reviewers of the tests give it.

/// One finding, as JSON text.
pub fn finding(sev: &str, conf: u32, file: &str, line: u32, title: &str) -> String {
    format!(
        r#"{{"severity": "{sev}", "confidence": {conf}, "file": "{file}", "line": {line}, "title": "{title}", "body": "see the line"}}"#
    )
}

/// An answer holding `findings`, summary "reviewed".
pub fn answer_with(findings: &[String]) -> String {
    format!(
        r#"{{"findings": [{}], "summary": "reviewed"}}"#,
        findings.join(", ")
    )
}
