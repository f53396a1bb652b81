//! A reviewer's answer (docs/review.md): the last JSON object of its final text,
//! `{"findings": [...], "summary": "..."}`. A missing object or a wrong type is an error
//! naming the problem (the reviewer gets one re-prompt with it); the findings themselves
//! are validated one by one later ([`super::validate`]).

use crate::json_text::type_name;
use serde_json::Value;

/// A reviewer's parsed answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The raw findings (each validated later).
    pub findings: Vec<Value>,
    pub summary: String,
}

/// Parses the reviewer's final text.
pub fn parse(text: &str) -> Result<Answer, String> {
    let Some(obj) = crate::json_text::last_object(text) else {
        return Err("the answer holds no JSON object".into());
    };
    let findings = match obj.get("findings") {
        Some(Value::Array(a)) => a.clone(),
        Some(other) => {
            return Err(format!(
                "`findings` must be a list, not {}",
                type_name(other)
            ));
        }
        None => return Err("the last JSON object has no `findings` list".into()),
    };
    let summary = match obj.get("summary") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "`summary` must be a string, not {}",
                type_name(other)
            ));
        }
    };
    if let Some(i) = findings.iter().position(|f| !f.is_object()) {
        return Err(format!(
            "finding {} must be an object, not {}",
            i + 1,
            type_name(&findings[i])
        ));
    }
    Ok(Answer { findings, summary })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_last_object_and_names_wrong_types() {
        let a = parse("LGTM! {\"findings\": []} Final: {\"findings\": [{\"severity\": \"critical\"}], \"summary\": \"bad\"}").unwrap();
        assert_eq!(a.findings.len(), 1);
        assert_eq!(a.summary, "bad");
        assert_eq!(
            parse("Looks good to me.").unwrap_err(),
            "the answer holds no JSON object"
        );
        assert_eq!(
            parse("{\"findings\": \"none\"}").unwrap_err(),
            "`findings` must be a list, not a string"
        );
        assert_eq!(
            parse("{\"summary\": \"ok\"}").unwrap_err(),
            "the last JSON object has no `findings` list"
        );
        assert_eq!(
            parse("{\"findings\": [], \"summary\": 3}").unwrap_err(),
            "`summary` must be a string, not a number"
        );
        assert_eq!(
            parse("{\"findings\": [1]}").unwrap_err(),
            "finding 1 must be an object, not a number"
        );
    }
}
