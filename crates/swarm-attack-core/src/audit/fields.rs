//! Lenient field readers for audit records: a missing or mistyped field reads as absent.
//! They read a parsed `Map` and a borrowed [`Record`](crate::record::Record) alike.

use crate::record::{Field, Fields};
use serde_json::Value;
use std::borrow::Cow;

/// A field as text: a string as it is, null as absent, anything else as compact JSON.
pub(crate) fn s_ref<'r, R: Fields + ?Sized>(rec: &'r R, k: &str) -> Option<Cow<'r, str>> {
    rec.field(k)?.text()
}
pub(crate) fn s<R: Fields + ?Sized>(rec: &R, k: &str) -> Option<String> {
    s_ref(rec, k).map(Cow::into_owned)
}
pub(crate) fn u<R: Fields + ?Sized>(rec: &R, k: &str) -> Option<u64> {
    rec.field(k).and_then(Field::as_u64)
}
pub(crate) fn f<R: Fields + ?Sized>(rec: &R, k: &str) -> Option<f64> {
    rec.field(k).and_then(Field::as_f64)
}
pub(crate) fn b<R: Fields + ?Sized>(rec: &R, k: &str) -> bool {
    rec.field(k).and_then(Field::as_bool).unwrap_or(false)
}
/// A field's parsed value (for the rare structured fields).
pub(crate) fn value<R: Fields + ?Sized>(rec: &R, k: &str) -> Option<Value> {
    rec.field(k)?.to_value()
}
/// A list field, parsed (an empty list is read without parsing).
fn array<R: Fields + ?Sized>(rec: &R, k: &str) -> Option<Vec<Value>> {
    match rec.field(k)? {
        Field::Raw("[]") => Some(Vec::new()),
        Field::Value(Value::Array(a)) => Some(a.clone()),
        Field::Value(_) => None,
        Field::Raw(raw) if !raw.starts_with('[') => None,
        raw @ Field::Raw(_) => match raw.to_value()? {
            Value::Array(a) => Some(a),
            _ => None,
        },
    }
}
pub(crate) fn numbers<R: Fields + ?Sized>(rec: &R, k: &str) -> Vec<u64> {
    array(rec, k)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}
/// A text field that may be a string or a list of strings (the original's `failures`).
pub(crate) fn text<R: Fields + ?Sized>(rec: &R, k: &str) -> Option<String> {
    let field = rec.field(k)?;
    if let Some(items) = array(rec, k) {
        let parts: Vec<String> = items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        return (!parts.is_empty()).then(|| parts.join("; "));
    }
    match field.as_str() {
        Some(v) if v.is_empty() => None,
        _ => field.text().map(Cow::into_owned),
    }
}
pub(crate) fn list<R: Fields + ?Sized>(rec: &R, k: &str) -> String {
    if let Some(a) = array(rec, k) {
        return a
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(", ");
    }
    match rec.field(k) {
        None => String::new(),
        Some(v) if v.is_null() => String::new(),
        Some(v) => v.text().map(Cow::into_owned).unwrap_or_default(),
    }
}

pub(crate) fn string_list<R: Fields + ?Sized>(rec: &R, k: &str) -> Vec<String> {
    array(rec, k)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
