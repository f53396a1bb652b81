//! Claude Code: the `result` object of `--output-format json`, or the JSONL of
//! `--output-format stream-json --verbose` (`system`/`assistant`/`user` lines, then
//! `result`). Without a `result` line (the run was stopped) the report sums the usage of the
//! assistant messages seen so far and prices it with Anthropic's list prices when the model
//! is known (see `estimate_cost`).

use super::{AgentReport, Denial, ErrorKind, Source, add, classify, s, u};
use serde_json::Value;
use std::collections::BTreeSet;

/// Whether `v` is a Claude Code output record.
pub fn is_claude(v: &Value) -> bool {
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    (ty == "result" && (v.get("num_turns").is_some() || v.get("total_cost_usd").is_some()))
        || (ty == "system" && v.get("subtype").and_then(Value::as_str) == Some("init"))
}

/// Input (all), output and cached tokens of a Messages API `usage` object.
fn usage(u_: &Value) -> (Option<u64>, Option<u64>, Option<u64>) {
    let input = u(u_, "input_tokens");
    let read = u(u_, "cache_read_input_tokens");
    let write = u(u_, "cache_creation_input_tokens");
    (add(add(input, read), write), u(u_, "output_tokens"), read)
}

pub fn parse(lines: &[Value]) -> AgentReport {
    let mut r = AgentReport {
        source: Some(Source::Claude),
        ..AgentReport::default()
    };
    if let Some(res) = lines
        .iter()
        .rev()
        .find(|v| v.get("type").and_then(Value::as_str) == Some("result"))
    {
        r.complete = true;
        r.cost_usd = super::cost_of(res);
        let (i, o, c) = usage(res.get("usage").unwrap_or(&Value::Null));
        (r.tokens_in, r.tokens_out, r.tokens_cached) = (i, o, c);
        r.turns = u(res, "num_turns");
        r.session_id = s(res, "session_id");
        r.is_error = res
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        r.text = s(res, "result");
        let subtype = s(res, "subtype").unwrap_or_default();
        r.error_kind = match subtype.as_str() {
            "error_max_turns" => Some(ErrorKind::MaxTurns),
            "error_max_budget_usd" | "error_max_budget" => Some(ErrorKind::MaxBudget),
            _ => None,
        };
        if r.is_error || subtype.starts_with("error") {
            r.message = r.text.clone().or_else(|| {
                res.get("errors")
                    .and_then(Value::as_array)
                    .and_then(|e| e.first())
                    .map(|e| e.as_str().map(str::to_string).unwrap_or(e.to_string()))
            });
        }
        if r.error_kind.is_none() {
            r.error_kind = match res.get("api_error_status").and_then(Value::as_u64) {
                Some(401 | 403) => Some(ErrorKind::Auth),
                // 429 rate limited, 529 overloaded: both wait and retry (the governor)
                Some(429 | 529) => Some(ErrorKind::RateLimit),
                _ if r.is_error => classify(r.message.as_deref().unwrap_or("")),
                _ => None,
            };
        }
        for d in res
            .get("permission_denials")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let input = d.get("tool_input").unwrap_or(&Value::Null);
            r.denials.push(Denial {
                tool: s(d, "tool_name").unwrap_or_else(|| "tool".into()),
                target: s(input, "file_path")
                    .or_else(|| s(input, "notebook_path"))
                    .or_else(|| s(input, "command")),
            });
        }
        return r;
    }
    // Cut short: what the stream showed so far.
    let mut seen = BTreeSet::new();
    let mut cost = Some(0.0);
    let mut turns = 0;
    for v in lines {
        match v.get("type").and_then(Value::as_str) {
            Some("system") if r.session_id.is_none() => r.session_id = s(v, "session_id"),
            Some("assistant") => {
                let m = v.get("message").unwrap_or(&Value::Null);
                let id = s(m, "id").unwrap_or_else(|| format!("#{}", seen.len()));
                if !seen.insert(id) {
                    continue;
                }
                turns += 1;
                let (i, o, c) = usage(m.get("usage").unwrap_or(&Value::Null));
                r.tokens_in = add(r.tokens_in, i);
                r.tokens_out = add(r.tokens_out, o);
                r.tokens_cached = add(r.tokens_cached, c);
                let model = s(m, "model").unwrap_or_default();
                let u_ = m.get("usage").unwrap_or(&Value::Null);
                cost = match (cost, estimate_cost(&model, u_)) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
            }
            _ => {}
        }
    }
    if turns > 0 {
        r.turns = Some(turns);
        r.cost_usd = cost;
    }
    r
}

/// Anthropic list prices in USD per million tokens (input, output) by model family; cache
/// reads cost 0.1× and cache writes 1.25× the input price. `None` for an unknown model.
fn price(model: &str) -> Option<(f64, f64)> {
    let m = model.to_lowercase();
    if m.contains("opus-4-1")
        || m.contains("opus-4-0")
        || m.contains("opus-4-2025")
        || m.contains("3-opus")
    {
        Some((15.0, 75.0))
    } else if m.contains("opus-4") {
        Some((5.0, 25.0))
    } else if m.contains("sonnet-4") || m.contains("3-7-sonnet") || m.contains("3-5-sonnet") {
        Some((3.0, 15.0))
    } else if m.contains("haiku-4") {
        Some((1.0, 5.0))
    } else if m.contains("3-5-haiku") {
        Some((0.8, 4.0))
    } else {
        None
    }
}

/// The cost of one message's `usage` for `model`, from list prices.
pub fn estimate_cost(model: &str, usage: &Value) -> Option<f64> {
    let (pin, pout) = price(model)?;
    let n = |k: &str| u(usage, k).unwrap_or(0) as f64;
    let dollars = n("input_tokens") * pin
        + n("cache_read_input_tokens") * pin * 0.1
        + n("cache_creation_input_tokens") * pin * 1.25
        + n("output_tokens") * pout;
    Some(dollars / 1_000_000.0)
}
