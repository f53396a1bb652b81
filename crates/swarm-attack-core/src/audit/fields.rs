//! Lenient field readers for audit records: a missing or mistyped field reads as absent.

use serde_json::{Map, Value};

pub(crate) fn s(rec: &Map<String, Value>, k: &str) -> Option<String> {
    match rec.get(k)? {
        Value::String(v) => Some(v.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}
pub(crate) fn u(rec: &Map<String, Value>, k: &str) -> Option<u64> {
    rec.get(k).and_then(Value::as_u64)
}
pub(crate) fn f(rec: &Map<String, Value>, k: &str) -> Option<f64> {
    rec.get(k).and_then(Value::as_f64)
}
pub(crate) fn b(rec: &Map<String, Value>, k: &str) -> bool {
    rec.get(k).and_then(Value::as_bool).unwrap_or(false)
}
pub(crate) fn numbers(rec: &Map<String, Value>, k: &str) -> Vec<u64> {
    rec.get(k)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}
/// A text field that may be a string or a list of strings (the original's `failures`).
pub(crate) fn text(rec: &Map<String, Value>, k: &str) -> Option<String> {
    match rec.get(k)? {
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::String(v) if v.is_empty() => None,
        _ => s(rec, k),
    }
}
pub(crate) fn list(rec: &Map<String, Value>, k: &str) -> String {
    match rec.get(k) {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(", "),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.as_str().map_or_else(|| v.to_string(), str::to_string),
    }
}

pub(crate) fn string_list(rec: &Map<String, Value>, k: &str) -> Vec<String> {
    rec.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
