//! opencode: the JSONL of `opencode run --format json` — `step_start`, `text`, `tool_use`,
//! `step_finish{part: {cost, tokens: {input, output, reasoning, cache: {read, write}}}}`,
//! `error{error}`, and `done{rejected}` (the permissions it auto-rejected). Every line
//! carries `sessionID`.

use super::{AgentReport, Denial, Source, add, classify, s, u};
use serde_json::Value;

pub fn parse(lines: &[Value]) -> AgentReport {
    let mut r = AgentReport {
        source: Some(Source::Opencode),
        ..AgentReport::default()
    };
    let mut cost: Option<f64> = None;
    let mut turns = 0;
    for v in lines {
        if let Some(id) = s(v, "sessionID") {
            r.session_id = Some(id);
        }
        let part = v.get("part").unwrap_or(&Value::Null);
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "step_finish" => {
                turns += 1;
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
    r.cost_usd = cost;
    r.error_kind = r.message.as_deref().and_then(classify);
    r
}
