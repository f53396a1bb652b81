//! Codex CLI: the JSONL of `codex exec --json` — `thread.started{thread_id}`,
//! `turn.started`, `item.*`, `turn.completed{usage}`, `turn.failed{error}`, `error`. Codex
//! reports tokens, never dollars, so the cost stays unknown.

use super::{AgentReport, ErrorKind, Source, add, classify, s, u};
use serde_json::Value;

pub fn parse(lines: &[Value]) -> AgentReport {
    let mut r = AgentReport {
        source: Some(Source::Codex),
        ..AgentReport::default()
    };
    let mut turns = 0;
    let mut read_only = false;
    for v in lines {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "thread.started" => r.session_id = s(v, "thread_id"),
            "turn.completed" => {
                turns += 1;
                r.complete = true;
                let us = v.get("usage").unwrap_or(&Value::Null);
                r.tokens_in = add(r.tokens_in, u(us, "input_tokens"));
                r.tokens_cached = add(r.tokens_cached, u(us, "cached_input_tokens"));
                // output_tokens already counts the reasoning tokens
                r.tokens_out = add(r.tokens_out, u(us, "output_tokens"));
            }
            "turn.failed" => {
                turns += 1;
                r.complete = true;
                r.is_error = true;
                r.message = v
                    .get("error")
                    .and_then(|e| s(e, "message"))
                    .or(r.message.take());
            }
            "error" => {
                r.is_error = true;
                r.message = s(v, "message").or(r.message.take());
            }
            "item.completed" | "item.updated" => {
                let item = v.get("item").unwrap_or(&Value::Null);
                match item.get("type").and_then(Value::as_str).unwrap_or("") {
                    "agent_message" => r.text = s(item, "text").or(r.text.take()),
                    "command_execution" | "file_change" | "patch_apply" => {
                        let out = s(item, "aggregated_output").unwrap_or_default();
                        if classify(&out) == Some(ErrorKind::ReadOnly) {
                            read_only = true;
                        }
                    }
                    "error" => {
                        // warnings such as "Model metadata ... not found" are not failures
                        let m = s(item, "message").unwrap_or_default();
                        if classify(&m) == Some(ErrorKind::ReadOnly) {
                            read_only = true;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if turns > 0 {
        r.turns = Some(turns);
    }
    r.error_kind = r
        .message
        .as_deref()
        .and_then(classify)
        .or(read_only.then_some(ErrorKind::ReadOnly));
    r
}
