//! A generic YAML tree with source positions, read with serde-saphyr, so that the schema walk
//! can name the line of every key and value it rejects.

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// One YAML node and where it is (1-based line and column; 0 when unknown).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub line: u64,
    pub column: u64,
}

/// The value of a node, as YAML's core schema resolves it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in document order (a duplicate key is rejected by the parser).
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What kind of value this is, for messages ("a string", "a list", ...). Never the value
    /// itself, except for numbers, which cannot be secrets.
    pub fn describe(&self) -> String {
        match self {
            Value::Null => "empty".into(),
            Value::Bool(b) => format!("`{b}`"),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Str(_) => "a string".into(),
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
        }
    }

    /// The text of a scalar used as a mapping key.
    pub fn key_text(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Null => Some("~".into()),
            Value::Seq(_) | Value::Map(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: Spanned<Value> = Spanned::deserialize(d)?;
        Ok(Node {
            value: s.value,
            line: s.referenced.line(),
            column: s.referenced.column(),
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(Value::Int(i128::try_from(v).unwrap_or(i128::MAX)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = map.next_key::<Node>()? {
            let v = map.next_value::<Node>()?;
            entries.push((k, v));
        }
        Ok(Value::Map(entries))
    }
}

/// A YAML syntax error: where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

/// Parses `text` into a tree; an empty document (or one with only comments) is `Null`.
pub fn parse_tree(text: &str) -> Result<Node, SyntaxError> {
    // `.nan` and `.inf` reach the schema walk, which rejects them by key.
    let options = serde_saphyr::options! {
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
    };
    let parsed: Result<Option<Node>, serde_saphyr::Error> =
        serde_saphyr::from_str_with_options(text, options);
    match parsed {
        Ok(Some(n)) => Ok(n),
        Ok(None) => Ok(Node {
            value: Value::Null,
            line: 1,
            column: 1,
        }),
        Err(e) => {
            let loc = e.location();
            let raw = e.without_snippet().to_string();
            Err(SyntaxError {
                line: loc.map(|l| l.line()).filter(|l| *l > 0),
                column: loc.map(|l| l.column()).filter(|c| *c > 0),
                message: clean_message(&raw),
            })
        }
    }
}

/// The parser's message as one short clause: first line, without its own position suffix.
fn clean_message(raw: &str) -> String {
    let first = raw.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut msg = first.trim().to_string();
    if let Some(i) = msg.find(" at line ") {
        msg.truncate(i);
    }
    // The parser's advice is about its Rust API, not about the file.
    for cut in [", set DuplicateKeyPolicy", "; use from_str_multiple"] {
        if let Some(i) = msg.find(cut) {
            msg.truncate(i);
        }
    }
    if let Some(key) = msg.strip_prefix("duplicate mapping key: ") {
        msg = format!("duplicate key `{key}`");
    } else if msg.starts_with("multiple YAML documents") {
        msg = "the file holds more than one YAML document (`---`)".into();
    }
    let msg = msg.trim_end_matches(['.', ':']).trim().to_string();
    if msg.is_empty() {
        "the YAML cannot be parsed".into()
    } else {
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_has_positions_for_keys_and_values() {
        let n = parse_tree("a: 1\nb:\n  c: [x, 2.5]\n  d: ~\n").unwrap();
        let Value::Map(m) = &n.value else {
            panic!("{n:?}")
        };
        assert_eq!(m[0].0.value, Value::Str("a".into()));
        assert_eq!((m[0].0.line, m[0].1.value.clone()), (1, Value::Int(1)));
        let Value::Map(inner) = &m[1].1.value else {
            panic!()
        };
        assert_eq!(inner[0].0.line, 3);
        let Value::Seq(items) = &inner[0].1.value else {
            panic!()
        };
        assert_eq!(items[1].value, Value::Float(2.5));
        assert_eq!(inner[1].1.value, Value::Null);
        assert_eq!(inner[1].0.line, 4);
    }

    #[test]
    fn scalars_resolve_by_core_schema() {
        let n = parse_tree("[true, '5', 5, -5, 1e3, \"x\", null]").unwrap();
        let Value::Seq(s) = n.value else { panic!() };
        let v: Vec<Value> = s.into_iter().map(|n| n.value).collect();
        assert_eq!(
            v,
            vec![
                Value::Bool(true),
                Value::Str("5".into()),
                Value::Int(5),
                Value::Int(-5),
                Value::Float(1000.0),
                Value::Str("x".into()),
                Value::Null
            ]
        );
    }

    #[test]
    fn empty_and_comment_only_documents_are_null() {
        assert_eq!(parse_tree("").unwrap().value, Value::Null);
        assert_eq!(parse_tree("# nothing\n").unwrap().value, Value::Null);
    }

    #[test]
    fn syntax_error_has_line_and_column() {
        let e = parse_tree("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(e.line.is_some(), "{e:?}");
        assert!(!e.message.contains('\n'));
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        let e = parse_tree("a: 1\na: 2\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e:?}");
        assert_eq!(e.message, "duplicate key `a`");
        let e = parse_tree("---\na: 1\n---\nb: 2\n").unwrap_err();
        assert!(e.message.contains("more than one YAML document"), "{e:?}");
    }
}
