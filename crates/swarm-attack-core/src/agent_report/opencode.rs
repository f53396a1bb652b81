//! opencode: the JSONL of `opencode run --format json` — `step_start`, `text`, `tool_use`,
//! `step_finish{part: {cost, tokens: {input, output, reasoning, cache: {read, write}}}}`,
//! `error{error}`, and `done{rejected}` (the permissions it auto-rejected). Every line
//! carries `sessionID`.

use super::{AgentReport, Denial, ErrorKind, Source, add, classify, s, u};
use serde_json::Value;

/// Whether `v` is an opencode event: a `type` and a `sessionID` (an `error` line comes
/// alone when the first model call fails).
pub fn is_opencode(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str).is_some() && v.get("sessionID").is_some()
}

/// The kind an opencode `error` names: an `APIError`'s HTTP `statusCode` (401/403 `auth`,
/// 429 `rate_limit`), a `ProviderAuthError`, else what its message says.
fn error_kind(e: &Value, message: Option<&str>) -> Option<ErrorKind> {
    let name = e.get("name").and_then(Value::as_str).unwrap_or("");
    let status = e
        .get("data")
        .and_then(|d| d.get("statusCode"))
        .and_then(Value::as_u64);
    match (name, status) {
        ("ProviderAuthError", _) | (_, Some(401 | 403)) => Some(ErrorKind::Auth),
        (_, Some(429 | 529)) => Some(ErrorKind::RateLimit),
        _ => message.and_then(classify),
    }
}

pub fn parse(lines: &[Value]) -> AgentReport {
    let mut r = AgentReport {
        source: Some(Source::Opencode),
        ..AgentReport::default()
    };
    let mut cost: Option<f64> = None;
    let mut turns = 0;
    let mut kind = None;
    for v in lines {
        if let Some(id) = s(v, "sessionID") {
            r.session_id = Some(id);
        }
        let part = v.get("part").unwrap_or(&Value::Null);
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "step_finish" => {
                turns += 1;
                // 1.18 prints no `done` line: the step that stops the run ends it
                r.complete |= part.get("reason").and_then(Value::as_str) == Some("stop");
                if let Some(c) = part.get("cost").and_then(Value::as_f64) {
                    cost = Some(cost.unwrap_or(0.0) + c);
                }
                let t = part.get("tokens").unwrap_or(&Value::Null);
                let cache = t.get("cache").unwrap_or(&Value::Null);
                let read = u(cache, "read");
                r.tokens_in = add(
                    r.tokens_in,
                    add(add(u(t, "input"), read), u(cache, "write")),
                );
                r.tokens_out = add(r.tokens_out, add(u(t, "output"), u(t, "reasoning")));
                r.tokens_cached = add(r.tokens_cached, read);
            }
            "text" => r.text = s(part, "text").or(r.text.take()),
            "error" => {
                r.is_error = true;
                let e = v.get("error").unwrap_or(&Value::Null);
                r.message = e
                    .get("data")
                    .and_then(|d| s(d, "message"))
                    .or_else(|| s(e, "message"))
                    .or_else(|| s(e, "name"));
                kind = error_kind(e, r.message.as_deref()).or(kind);
            }
            "done" => {
                r.complete = true;
                for p in v
                    .get("rejected")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    r.denials.push(Denial {
                        tool: p.as_str().unwrap_or("tool").to_string(),
                        target: None,
                    });
                }
            }
            _ => {}
        }
    }
    if turns > 0 {
        r.turns = Some(turns);
    }
    // opencode reports a cost of 0 for a model its catalog has no price for: with tokens
    // spent, 0 means unknown
    r.cost_usd = cost.filter(|c| *c > 0.0 || r.tokens_in.is_none_or(|t| t == 0));
    r.error_kind = kind.or_else(|| r.message.as_deref().and_then(classify));
    r
}
