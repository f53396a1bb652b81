//! OpenAI Chat Completions (`POST …/chat/completions`, streamed or not) as OpenCode and aider
//! call it. With a `write` tool (OpenCode) the model calls it once per matching rule until a
//! `tool` message is back; without tools, when the system prompt asks for aider's "whole"
//! edit format (a *file listing*), it answers with one listing per matching rule; otherwise
//! (OpenCode's title call, aider after its edit) "Done.".

use super::{Reply, USAGE_CACHED, USAGE_IN, USAGE_OUT, WriteRule, matching};
use serde_json::{Value, json};

fn has_tool(body: &Value, name: &str) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|ts| ts.iter().any(|t| t["function"]["name"] == name))
}

fn wants_file_listing(body: &Value) -> bool {
    body["messages"].as_array().is_some_and(|ms| {
        ms.iter()
            .filter(|m| m["role"] == "system")
            .any(|m| m["content"].to_string().contains("file listing"))
    })
}

pub fn answer(body: &Value, rules: &[WriteRule]) -> Reply {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let answered = messages.iter().any(|m| m["role"] == "tool");
    let mut content: Option<String> = None;
    let mut calls = Vec::new();
    if has_tool(body, "write") && !answered {
        for (i, w) in matching(body, rules).iter().enumerate() {
            calls.push(json!({"id": format!("call_{i}"), "type": "function",
                "function": {"name": "write",
                    "arguments": json!({"filePath": w.path, "content": w.content}).to_string()}}));
        }
    } else if !has_tool(body, "write") && wants_file_listing(body) {
        let listings: String = matching(body, rules)
            .iter()
            .map(|w| format!("{}\n```\n{}```\n\n", w.path, w.content))
            .collect();
        if !listings.is_empty() {
            content = Some(listings);
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    if calls.is_empty() && content.is_none() {
        content = Some("Done.".into());
    }
    let model = body["model"].as_str().unwrap_or("fake-coder");
    let usage = json!({"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
        "total_tokens": USAGE_IN + USAGE_OUT,
        "prompt_tokens_details": {"cached_tokens": USAGE_CACHED}});
    if body["stream"] != true {
        let mut message = json!({"role": "assistant", "content": content});
        if !calls.is_empty() {
            message["tool_calls"] = json!(calls);
        }
        let out = json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 1,
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage});
        return (200, "application/json", out.to_string());
    }
    let chunk = |choices: Value, usage: Value| {
        let mut c = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk",
            "created": 1, "model": model, "choices": choices});
        if !usage.is_null() {
            c["usage"] = usage;
        }
        c
    };
    let mut delta = json!({"role": "assistant"});
    if let Some(c) = &content {
        delta["content"] = json!(c);
    }
    if !calls.is_empty() {
        let indexed: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut c = c.clone();
                c["index"] = json!(i);
                c
            })
            .collect();
        delta["tool_calls"] = json!(indexed);
    }
    let events = [
        chunk(
            json!([{"index": 0, "delta": delta, "finish_reason": null}]),
            Value::Null,
        ),
        chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
            Value::Null,
        ),
        chunk(json!([]), usage),
    ];
    let mut out: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    (200, "text/event-stream", out)
}
