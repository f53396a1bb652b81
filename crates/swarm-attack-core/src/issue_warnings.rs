//! What in issues.json is accepted but probably a mistake: an issue without a title, an
//! `estimated_size` or `automation_type` outside the original tool's names.

use crate::issues::IssuesDoc;

/// The sizes the original tool writes.
pub const SIZES: &[&str] = &["small", "medium", "large"];

/// One sentence per questionable field, naming the issue and the field.
pub fn warnings(doc: &IssuesDoc) -> Vec<String> {
    let mut out = Vec::new();
    for i in &doc.issues {
        if i.title.trim().is_empty() {
            out.push(format!(
                "issue {} has no `title`; agents, status and GitHub show it untitled",
                i.order
            ));
        }
        if let Some(size) = &i.estimated_size
            && !SIZES.iter().any(|s| s.eq_ignore_ascii_case(size.trim()))
        {
            out.push(format!(
                "issue {}: `estimated_size` is `{size}`; expected small, medium or large",
                i.order
            ));
        }
        if let Some(a) = &i.automation_type
            && !["automated", "manual"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(a.trim()))
        {
            out.push(format!(
                "issue {}: `automation_type` is `{a}`; expected automated or manual (treated as automated)",
                i.order
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issues::IssueSpec;

    #[test]
    fn a_missing_title_and_an_unknown_size_are_named() {
        let doc = IssuesDoc {
            issues: vec![
                IssueSpec {
                    order: 1,
                    title: "ok".into(),
                    estimated_size: Some("Medium".into()),
                    ..Default::default()
                },
                IssueSpec {
                    order: 2,
                    estimated_size: Some("huge".into()),
                    automation_type: Some("robot".into()),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let w = warnings(&doc);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].starts_with("issue 2 has no `title`"));
        assert!(w[1].contains("`estimated_size` is `huge`"));
        assert!(w[2].contains("`automation_type` is `robot`"));
    }
}
