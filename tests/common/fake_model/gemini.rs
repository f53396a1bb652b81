//! The Gemini API as Gemini CLI calls it: `POST /v1beta/models/<m>:streamGenerateContent?alt=sse`
//! for the conversation (a `write_file` function call per matching rule until a function
//! response is back, then "Done."), and `:generateContent` for its utility calls (the model
//! router asks for JSON matching a `responseJsonSchema`: the fake fills every property).

use super::{Reply, USAGE_CACHED, USAGE_IN, USAGE_OUT, WriteRule, matching};
use serde_json::{Value, json};

fn usage() -> Value {
    json!({"promptTokenCount": USAGE_IN, "cachedContentTokenCount": USAGE_CACHED,
        "candidatesTokenCount": USAGE_OUT, "totalTokenCount": USAGE_IN + USAGE_OUT})
}

fn answered(body: &Value) -> bool {
    body["contents"].as_array().is_some_and(|cs| {
        cs.iter().any(|c| {
            c["parts"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p.get("functionResponse").is_some()))
        })
    })
}

fn has_tool(body: &Value, name: &str) -> bool {
    body["tools"].as_array().is_some_and(|ts| {
        ts.iter().any(|t| {
            t["functionDeclarations"]
                .as_array()
                .is_some_and(|fs| fs.iter().any(|f| f["name"] == name))
        })
    })
}

pub fn stream(body: &Value, rules: &[WriteRule]) -> Reply {
    let writes = if has_tool(body, "write_file") && !answered(body) {
        matching(body, rules)
    } else {
        Vec::new()
    };
    let parts: Vec<Value> = if writes.is_empty() {
        vec![json!({"text": "Done."})]
    } else {
        writes
            .iter()
            .map(|w| {
                json!({"functionCall": {"name": "write_file",
                    "args": {"file_path": w.path, "content": w.content}}})
            })
            .collect()
    };
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP", "index": 0}], "usageMetadata": usage(),
        "modelVersion": "gemini-fake"});
    (200, "text/event-stream", format!("data: {chunk}\r\n\r\n"))
}

/// A value of the schema's shape.
fn fill(schema: &Value) -> Value {
    match schema["type"]
        .as_str()
        .unwrap_or("STRING")
        .to_uppercase()
        .as_str()
    {
        "OBJECT" => {
            let mut out = serde_json::Map::new();
            for (k, v) in schema["properties"].as_object().into_iter().flatten() {
                out.insert(k.clone(), fill(v));
            }
            Value::Object(out)
        }
        "ARRAY" => json!([]),
        "INTEGER" | "NUMBER" => {
            // the smallest allowed (the router's complexity score: a simple task)
            schema.get("minimum").cloned().unwrap_or_else(|| json!(1))
        }
        "BOOLEAN" => json!(false),
        _ => match schema["enum"].as_array().and_then(|e| e.first()) {
            Some(first) => first.clone(),
            None => json!("simple"),
        },
    }
}

pub fn generate(body: &Value) -> Reply {
    let schema = &body["generationConfig"]["responseJsonSchema"];
    let text = if schema.is_object() {
        fill(schema).to_string()
    } else {
        "Done.".to_string()
    };
    let out = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP", "index": 0}], "usageMetadata": usage(),
        "modelVersion": "gemini-fake"});
    (200, "application/json", out.to_string())
}
