//! One event-log record read without copying it: the line is parsed once into its keys and
//! the raw JSON text of each value, borrowed from the line; a value is decoded only when a
//! reader asks for it (a plain string or number is read straight from the text).
//!
//! The readers (`events`' table, `audit`, the report) take their fields through [`Fields`],
//! which a parsed `serde_json::Map` implements too, with exactly the same answers: a missing
//! or mistyped field reads as absent, a repeated key reads as its last value (in the place
//! of its first), as a parsed `Map` has it.

use crate::event_filter::Head;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// One field's value: parsed, or the raw JSON text of the record line.
#[derive(Debug, Clone, Copy)]
pub enum Field<'r> {
    Value(&'r Value),
    Raw(&'r str),
}

/// Reads a record's fields by key.
pub trait Fields {
    /// The value of `key` (the last one when the key is repeated).
    fn field(&self, key: &str) -> Option<Field<'_>>;
    /// Every key with its value, in the record's order (a repeated key once, in the place of
    /// its first occurrence, with its last value).
    fn entries(&self) -> Vec<(&str, Field<'_>)>;
}

impl Fields for Map<String, Value> {
    fn field(&self, key: &str) -> Option<Field<'_>> {
        self.get(key).map(Field::Value)
    }
    fn entries(&self) -> Vec<(&str, Field<'_>)> {
        self.iter()
            .map(|(k, v)| (k.as_str(), Field::Value(v)))
            .collect()
    }
}

/// Whether a JSON text has an escape (a byte search: `\\` is ASCII).
fn has_backslash(raw: &str) -> bool {
    memchr::memchr(b'\\', raw.as_bytes()).is_some()
}

/// Whole non-negative integers written plainly: the JSON text is the number's own text.
fn plain_digits(raw: &str) -> bool {
    !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit())
}

fn numeric(raw: &str) -> bool {
    raw.as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
}

impl<'r> Field<'r> {
    /// The value, parsed (`None` for a raw number out of range, which a parsed record does
    /// not have).
    pub fn to_value(self) -> Option<Value> {
        match self {
            Field::Value(v) => Some(v.clone()),
            Field::Raw(raw) => serde_json::from_str(raw).ok(),
        }
    }

    pub fn is_number(self) -> bool {
        match self {
            Field::Value(v) => v.is_number(),
            Field::Raw(raw) => numeric(raw),
        }
    }

    /// The value as compact JSON text.
    pub fn json_text(self) -> String {
        match self {
            Field::Value(v) => v.to_string(),
            Field::Raw(raw) => self
                .to_value()
                .map_or_else(|| raw.to_string(), |v| v.to_string()),
        }
    }

    pub fn is_null(self) -> bool {
        match self {
            Field::Value(v) => v.is_null(),
            Field::Raw(raw) => raw == "null",
        }
    }

    /// The value when it is a string.
    pub fn as_str(self) -> Option<Cow<'r, str>> {
        match self {
            Field::Value(v) => v.as_str().map(Cow::Borrowed),
            Field::Raw(raw) if raw.starts_with('"') => {
                if has_backslash(raw) {
                    serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
                } else {
                    Some(Cow::Borrowed(&raw[1..raw.len() - 1]))
                }
            }
            Field::Raw(_) => None,
        }
    }

    /// The value as text: a string as it is, `null` as absent, anything else as compact JSON.
    pub fn text(self) -> Option<Cow<'r, str>> {
        match self {
            Field::Value(Value::String(v)) => Some(Cow::Borrowed(v)),
            Field::Value(Value::Null) => None,
            Field::Value(other) => Some(Cow::Owned(other.to_string())),
            Field::Raw(raw) if raw.starts_with('"') => self.as_str(),
            Field::Raw("null") => None,
            Field::Raw(raw @ ("true" | "false")) => Some(Cow::Borrowed(raw)),
            Field::Raw(raw) if plain_digits(raw) && raw.parse::<u64>().is_ok() => {
                Some(Cow::Borrowed(raw))
            }
            Field::Raw(_) => self.to_value().map(|v| Cow::Owned(v.to_string())),
        }
    }

    pub fn as_u64(self) -> Option<u64> {
        match self {
            Field::Value(v) => v.as_u64(),
            Field::Raw(raw) if plain_digits(raw) => raw.parse().ok(),
            Field::Raw(raw) if numeric(raw) => self.to_value()?.as_u64(),
            Field::Raw(_) => None,
        }
    }

    pub fn as_i64(self) -> Option<i64> {
        match self {
            Field::Value(v) => v.as_i64(),
            Field::Raw(raw) if plain_digits(raw) => {
                raw.parse::<u64>().ok().and_then(|n| i64::try_from(n).ok())
            }
            Field::Raw(raw) if numeric(raw) => self.to_value()?.as_i64(),
            Field::Raw(_) => None,
        }
    }

    pub fn as_f64(self) -> Option<f64> {
        match self {
            Field::Value(v) => v.as_f64(),
            Field::Raw(raw) if plain_digits(raw) => match raw.parse::<u64>() {
                Ok(n) => Some(n as f64),
                Err(_) => self.to_value()?.as_f64(),
            },
            Field::Raw(raw) if numeric(raw) => self.to_value()?.as_f64(),
            Field::Raw(_) => None,
        }
    }

    pub fn as_bool(self) -> Option<bool> {
        match self {
            Field::Value(v) => v.as_bool(),
            Field::Raw("true") => Some(true),
            Field::Raw("false") => Some(false),
            Field::Raw(_) => None,
        }
    }
}

/// A record line, parsed into its keys and raw values (borrowed from the line).
#[derive(Debug, Default)]
pub struct Record<'a> {
    fields: Vec<(Cow<'a, str>, &'a str)>,
}

/// Why a line is not a [`Record`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotARecord {
    /// Not a JSON record: the reader names it and skips it (the text says why).
    Bad(String),
    /// A JSON record the reader accepts, but one of its values cannot be read (a string
    /// that is not UTF-8 or has half a surrogate pair, a number beyond `f64`): printed as it is by `events --json`,
    /// skipped by the readers of fields, as a parse into a `Map` skips it.
    Unreadable,
}

impl<'a> Record<'a> {
    /// Parses one line (without its newline). Accepts exactly the lines [`Head::parse`]
    /// accepts: a JSON object whose `ts` and `event` are strings (or null), whose `issue` is
    /// any JSON value, each of the three at most once.
    pub fn parse(line: &'a [u8]) -> Result<Record<'a>, NotARecord> {
        // UTF-8 checked once for the whole line (the raw values are then not checked one by
        // one); a line that is not UTF-8 takes the slow path below
        let parsed = match line.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => {
                std::str::from_utf8(line)
                    .ok()
                    .and_then(|text| match plain::split(text) {
                        Some(fields) => Some(Record { fields }),
                        None => serde_json::from_str::<Record>(text).ok(),
                    })
            }
            _ => None,
        };
        match parsed {
            Some(rec) if rec.head_is_valid() && rec.readable() => Ok(rec),
            // the rare line that is refused: the reason as the head's parse words it
            _ => match Head::parse(line) {
                Err(why) => Err(NotARecord::Bad(why)),
                Ok(_) => Err(NotARecord::Unreadable),
            },
        }
    }

    /// The checks [`Head`]'s parse makes beyond JSON syntax.
    fn head_is_valid(&self) -> bool {
        let mut seen = [false; 3];
        for (k, v) in &self.fields {
            let slot = match k.as_ref() {
                "ts" => 0,
                "event" => 1,
                "issue" => 2,
                _ => continue,
            };
            if std::mem::replace(&mut seen[slot], true) {
                return false; // a duplicate field
            }
            let raw = *v;
            let ok = match slot {
                0 | 1 => {
                    raw == "null"
                        || (raw.starts_with('"')
                            && (!has_backslash(raw) || serde_json::from_str::<String>(raw).is_ok()))
                }
                _ => {
                    plain_digits(raw)
                        || matches!(raw, "null" | "true" | "false")
                        || (raw.starts_with('"') && !has_backslash(raw))
                        || serde_json::from_str::<Value>(raw).is_ok()
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// Whether every value parses, as parsing into a `Map` requires: skipping a value (what
    /// the raw parse does) checks neither that a number is in `f64`'s range nor that a
    /// `\u` escape is not half a surrogate pair.
    fn readable(&self) -> bool {
        self.fields.iter().all(|(_, v)| readable(v))
    }

    /// `ts`, when it is a string.
    pub fn ts(&self) -> Option<Cow<'a, str>> {
        self.raw("ts").and_then(|r| Field::Raw(r).as_str())
    }

    /// `event`, when it is a string.
    pub fn event(&self) -> Option<Cow<'a, str>> {
        self.raw("event").and_then(|r| Field::Raw(r).as_str())
    }

    /// `issue`, when it is a whole number.
    pub fn issue_number(&self) -> Option<u64> {
        self.raw("issue").and_then(|r| Field::Raw(r).as_u64())
    }

    fn raw(&self, key: &str) -> Option<&'a str> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }
}

impl Fields for Record<'_> {
    fn field(&self, key: &str) -> Option<Field<'_>> {
        self.raw(key).map(Field::Raw)
    }
    fn entries(&self) -> Vec<(&str, Field<'_>)> {
        let mut out: Vec<(&str, Field<'_>)> = Vec::with_capacity(self.fields.len());
        for (k, v) in &self.fields {
            match out.iter_mut().find(|(seen, _)| *seen == k.as_ref()) {
                Some(slot) => slot.1 = Field::Raw(v),
                None => out.push((k.as_ref(), Field::Raw(v))),
            }
        }
        out
    }
}

/// Whether a raw value parses (see [`Record::readable`]).
fn readable(raw: &str) -> bool {
    if memchr::memchr(b'\\', raw.as_bytes()).is_some()
        && (raw.contains("\\ud") || raw.contains("\\uD"))
    {
        return serde_json::from_str::<Value>(raw).is_ok();
    }
    numbers_in_range(raw)
}

/// Whether every number in a raw value is in `f64`'s range.
fn numbers_in_range(raw: &str) -> bool {
    let b = raw.as_bytes();
    match b.first() {
        Some(b'[' | b'{') => {}
        Some(c) if c.is_ascii_digit() || *c == b'-' => return number_in_range(raw),
        _ => return true,
    }
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            c if c.is_ascii_digit() || c == b'-' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                if !number_in_range(&raw[start..i]) {
                    return false;
                }
            }
            _ => i += 1,
        }
    }
    true
}

/// Only a number with an exponent or hundreds of digits can overflow.
fn number_in_range(n: &str) -> bool {
    (n.len() <= 300 && !n.bytes().any(|b| b == b'e' || b == b'E'))
        || serde_json::from_str::<f64>(n).is_ok()
}

/// A key, borrowed from the line unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Record<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Record<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record<'de>, A::Error> {
                let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(12));
                while let Some(Key(k)) = map.next_key()? {
                    let v: &'de RawValue = map.next_value()?;
                    fields.push((k, v.get()));
                }
                Ok(Record { fields })
            }
        }
        d.deserialize_map(V)
    }
}

mod plain;
#[cfg(test)]
mod tests;
