//! The model an agent CLI says it ran (for the `pricing` table,
//! docs/budgets.md "Pricing: tokens into USD"): Claude Code's `system`/`init` record (`model`) or
//! its `result.modelUsage` when it names one model; Gemini's stream `init` record (`model`) or its
//! `stats.models` when they name one model. Codex's `--json` stream names none (its model comes
//! from the command line: `-m`).

use serde_json::Value;

/// The model the output names, if it names exactly one.
pub fn reported(lines: &[Value]) -> Option<String> {
    let ty = |v: &Value| {
        v.get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let named = |v: &Value| {
        v.get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_string)
    };
    for v in lines {
        let t = ty(v);
        let init = t == "init"
            || (t == "system" && v.get("subtype").and_then(Value::as_str) == Some("init"));
        if init && let Some(m) = named(v) {
            return Some(m);
        }
    }
    lines.iter().rev().find_map(|v| {
        let models = v
            .get("modelUsage")
            .or_else(|| v.get("stats").and_then(|s| s.get("models")))?
            .as_object()?;
        let mut keys = models.keys();
        match (keys.next(), keys.next()) {
            (Some(only), None) => Some(only.clone()),
            _ => None,
        }
    })
}

/// The model a command line asks for: the value of `--model X`, `--model=X`, or `-m X` when
/// `short_m` (Codex, Gemini and opencode spell `--model` so; for aider `-m` is a message).
pub fn from_argv(argv: &[String], short_m: bool) -> Option<String> {
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        if let Some(v) = a.strip_prefix("--model=") {
            return Some(v.to_string()).filter(|v| !v.is_empty());
        }
        if a == "--model" || (short_m && a == "-m") {
            return it.next().filter(|v| !v.starts_with('-')).cloned();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reported_models() {
        let claude = [
            json!({"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"}),
            json!({"type": "result", "modelUsage": {"a": {}, "b": {}}}),
        ];
        assert_eq!(reported(&claude).as_deref(), Some("claude-sonnet-4-5"));
        let result_only = [json!({"type": "result", "modelUsage": {"claude-haiku": {}}})];
        assert_eq!(reported(&result_only).as_deref(), Some("claude-haiku"));
        let two = [json!({"type": "result", "modelUsage": {"a": {}, "b": {}}})];
        assert_eq!(reported(&two), None, "two models: none is the model");
        let gemini = [json!({"response": "x", "stats": {"models": {"gemini-2.5-pro": {}}}})];
        assert_eq!(reported(&gemini).as_deref(), Some("gemini-2.5-pro"));
        let codex = [json!({"type": "turn.completed", "usage": {"input_tokens": 3}})];
        assert_eq!(reported(&codex), None);
    }

    #[test]
    fn argv_models() {
        let s = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let codex = s(&["codex", "exec", "-m", "o4", "-"]);
        assert_eq!(from_argv(&codex, true).as_deref(), Some("o4"));
        assert_eq!(from_argv(&s(&["aider", "-m", "fix it"]), false), None);
        let eq = s(&["x", "--model=gpt-5"]);
        assert_eq!(from_argv(&eq, false).as_deref(), Some("gpt-5"));
        let claude = s(&["claude", "--model", "opus"]);
        assert_eq!(from_argv(&claude, false).as_deref(), Some("opus"));
        assert_eq!(from_argv(&s(&["codex", "exec", "-"]), true), None);
        assert_eq!(from_argv(&s(&["x", "-m", "--json"]), true), None);
    }
}
