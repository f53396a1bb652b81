//! Gemini CLI: `gemini --output-format json` prints one object `{session_id, response,
//! stats: {models: {<model>: {tokens: {prompt, candidates, cached, ...}}}}, error: {type,
//! message, code}}`; `stream-json` ends with a `result` line carrying the same `stats`.
//! Gemini reports tokens, not dollars.

use super::{AgentReport, ErrorKind, Source, add, classify, s, u};
use serde_json::Value;

/// Whether `v` is a Gemini CLI output object.
pub fn is_gemini(v: &Value) -> bool {
    v.get("stats").and_then(|s| s.get("models")).is_some()
        || (v.get("response").is_some() && v.get("stats").is_some())
        || (v.get("error").and_then(|e| e.get("type")).is_some()
            && (v.get("session_id").is_some() || v.get("response").is_some()))
        || v.get("type").and_then(Value::as_str) == Some("init") && v.get("model").is_some()
}

pub fn parse(lines: &[Value]) -> AgentReport {
    let mut r = AgentReport {
        source: Some(Source::Gemini),
        ..AgentReport::default()
    };
    let mut text = String::new();
    for v in lines {
        if let Some(id) = s(v, "session_id") {
            r.session_id = Some(id);
        }
        if v.get("type").and_then(Value::as_str) == Some("message")
            && v.get("role").and_then(Value::as_str) == Some("assistant")
        {
            text.push_str(v.get("content").and_then(Value::as_str).unwrap_or(""));
        }
        if let Some(resp) = s(v, "response") {
            r.text = Some(resp);
        }
        if let Some(models) = v
            .get("stats")
            .and_then(|st| st.get("models"))
            .and_then(Value::as_object)
        {
            r.complete = true;
            let (mut i, mut o, mut c, mut turns) = (None, None, None, None);
            for m in models.values() {
                let t = m.get("tokens").unwrap_or(&Value::Null);
                i = add(i, u(t, "prompt"));
                o = add(o, add(u(t, "candidates"), u(t, "thoughts")));
                c = add(c, u(t, "cached"));
                turns = add(turns, m.get("api").and_then(|a| u(a, "totalRequests")));
            }
            (r.tokens_in, r.tokens_out, r.tokens_cached, r.turns) = (i, o, c, turns);
        }
        if let Some(e) = v.get("error").filter(|e| e.is_object()) {
            r.is_error = true;
            r.message = s(e, "message");
            let ty = s(e, "type").unwrap_or_default().to_lowercase();
            let code = e.get("code").and_then(Value::as_u64);
            r.error_kind = if ty.contains("auth") || matches!(code, Some(41)) {
                Some(ErrorKind::Auth)
            } else if ty.contains("quota")
                || ty.contains("ratelimit")
                || ty.contains("rate_limit")
                || matches!(code, Some(429 | 503))
            {
                // TerminalQuotaError / RetryableQuotaError, HTTP 429, 503 (model overloaded)
                Some(ErrorKind::RateLimit)
            } else if ty.contains("turn") || matches!(code, Some(53)) {
                Some(ErrorKind::MaxTurns)
            } else {
                classify(&format!("{ty} {}", r.message.as_deref().unwrap_or("")))
            };
        }
    }
    if r.text.is_none() && !text.is_empty() {
        r.text = Some(text);
    }
    r
}

/// What a Gemini CLI exit code means (its `FatalError` classes, `packages/core/src/utils/
/// errors.ts`): the error kind and a sentence for the blocked reason. `None` for codes it
/// does not define (1 and any other).
pub fn exit_kind(code: i32) -> Option<(ErrorKind, &'static str)> {
    Some(match code {
        41 => (
            ErrorKind::Auth,
            "Gemini CLI exit 41: authentication failed or no auth method selected (set GEMINI_API_KEY and security.auth.selectedType in its settings)",
        ),
        42 => (
            ErrorKind::Crashed,
            "Gemini CLI exit 42: invalid input (the prompt or an argument)",
        ),
        44 => (
            ErrorKind::Crashed,
            "Gemini CLI exit 44: its sandbox could not be set up",
        ),
        52 => (
            ErrorKind::Crashed,
            "Gemini CLI exit 52: invalid configuration (settings.json)",
        ),
        53 => (
            ErrorKind::MaxTurns,
            "Gemini CLI exit 53: the session's turn limit was reached",
        ),
        54 => (
            ErrorKind::Crashed,
            "Gemini CLI exit 54: a tool failed fatally (e.g. no space left on the device)",
        ),
        55 => (
            ErrorKind::PermissionDenied,
            "Gemini CLI exit 55: the folder is not trusted (add --skip-trust or set GEMINI_CLI_TRUST_WORKSPACE=true)",
        ),
        130 => (ErrorKind::Crashed, "Gemini CLI exit 130: cancelled"),
        _ => return None,
    })
}
