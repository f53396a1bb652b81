//! JSON objects inside free text (an LLM's or an agent's answer with words around it).

use serde_json::{Map, Value};

/// Every top-level JSON object in `text`, in order (an object nested in another is part of
/// it, not a separate one).
pub fn objects(text: &str) -> Vec<Map<String, Value>> {
    let mut found: Vec<Map<String, Value>> = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].find('{') {
        let start = i + off;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(m))) => {
                found.push(m);
                i = start + stream.byte_offset();
            }
            _ => i = start + 1,
        }
    }
    found
}

/// What a JSON value is, for messages (`a string`, `a list`, ...).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The last top-level JSON object in `text`.
pub fn last_object(text: &str) -> Option<Map<String, Value>> {
    objects(text).pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_objects_in_text() {
        let t = "first {\"a\": {\"b\": 1}} then {not json} and {\"c\": 2} end";
        let all = objects(t);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0]["a"]["b"], 1);
        assert_eq!(last_object(t).unwrap()["c"], 2);
        assert!(last_object("no object").is_none());
    }
}
