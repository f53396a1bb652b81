//! `null`s in the original tool's state files
//! (docs/state.md "Compatibility with the original tool"): a `null` where this tool expects an
//! object, list, number or string loads as the field's default, and is written back as `null` while
//! the field still holds that default (untouched).

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A serde `deserialize_with` helper: `null` (or a missing key, with `#[serde(default)]`)
/// becomes `T::default()`.
pub fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// One key that was `null` in the loaded file, and what this tool wrote there instead
/// (`None`: the key is not written at all while it holds its default).
#[derive(Debug, Clone, PartialEq)]
struct NullKey {
    path: Vec<String>,
    default: Option<Value>,
}

/// The keys that were `null` when the state was loaded: top level, and per task (by
/// issue number), one level deep into objects (e.g. `outputs.files_created`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedNulls {
    top: Vec<NullKey>,
    tasks: BTreeMap<u64, Vec<NullKey>>,
}

impl LoadedNulls {
    /// Records the `null` keys of `raw` (the file as JSON) together with what the loaded
    /// state serialises there (`loaded`), so that [`LoadedNulls::restore`] can tell an
    /// untouched default from a value the tool set.
    pub fn find(raw: &Value, loaded: &Value) -> LoadedNulls {
        let mut out = LoadedNulls::default();
        let (Value::Object(raw), Value::Object(loaded)) = (raw, loaded) else {
            return out;
        };
        out.top = null_keys(raw, loaded);
        let raw_tasks = raw.get("tasks").and_then(Value::as_array);
        let loaded_tasks = loaded.get("tasks").and_then(Value::as_array);
        if let (Some(raw_tasks), Some(loaded_tasks)) = (raw_tasks, loaded_tasks) {
            for (r, l) in raw_tasks.iter().zip(loaded_tasks) {
                let (Value::Object(r), Value::Object(l)) = (r, l) else {
                    continue;
                };
                let Some(n) = l.get("issue_number").and_then(Value::as_u64) else {
                    continue;
                };
                let keys = null_keys(r, l);
                if !keys.is_empty() {
                    out.tasks.insert(n, keys);
                }
            }
        }
        out
    }

    /// Whether nothing was `null` where a default was loaded.
    pub fn is_empty(&self) -> bool {
        self.top.is_empty() && self.tasks.is_empty()
    }

    /// Puts `null` back where the file had it and the state still holds the default.
    pub fn restore(&self, out: &mut Value) {
        let Value::Object(top) = out else { return };
        restore_keys(top, &self.top);
        if let Some(Value::Array(tasks)) = top.get_mut("tasks") {
            for task in tasks {
                let Value::Object(obj) = task else { continue };
                let Some(n) = obj.get("issue_number").and_then(Value::as_u64) else {
                    continue;
                };
                if let Some(keys) = self.tasks.get(&n) {
                    restore_keys(obj, keys);
                }
            }
        }
    }
}

/// The `null` keys of `raw` (and of its object members, one level down) whose loaded
/// value is not `null` (a field with a default, not an `Option`).
fn null_keys(raw: &Map<String, Value>, loaded: &Map<String, Value>) -> Vec<NullKey> {
    let mut out = Vec::new();
    for (k, v) in raw {
        let l = loaded.get(k);
        match v {
            Value::Null if l != Some(&Value::Null) => out.push(NullKey {
                path: vec![k.clone()],
                default: l.cloned(),
            }),
            Value::Object(inner) if k != "tasks" => {
                if let Some(Value::Object(l_inner)) = l {
                    for (k2, v2) in inner {
                        let l2 = l_inner.get(k2);
                        if v2.is_null() && l2 != Some(&Value::Null) {
                            out.push(NullKey {
                                path: vec![k.clone(), k2.clone()],
                                default: l2.cloned(),
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn restore_keys(obj: &mut Map<String, Value>, keys: &[NullKey]) {
    for key in keys {
        let (parent, last) = match key.path.as_slice() {
            [k] => (Some(&mut *obj), k),
            [k, k2] => (
                match obj.get_mut(k) {
                    Some(Value::Object(inner)) => Some(inner),
                    _ => None,
                },
                k2,
            ),
            _ => (None, &key.path[0]),
        };
        let Some(parent) = parent else { continue };
        if parent.get(last) == key.default.as_ref() {
            parent.insert(last.clone(), Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn untouched_defaults_go_back_to_null_and_changed_ones_stay() {
        let raw = json!({"a": null, "o": {"x": null, "y": 1}, "tasks": [
            {"issue_number": 1, "outputs": null, "deps": null},
            {"issue_number": 2, "outputs": {"files": null}}]});
        let loaded = json!({"a": [], "o": {"x": {}, "y": 1}, "tasks": [
            {"issue_number": 1, "outputs": {"files": []}, "deps": []},
            {"issue_number": 2, "outputs": {"files": []}}]});
        let nulls = LoadedNulls::find(&raw, &loaded);
        let mut out = loaded.clone();
        // task 1's dependencies changed: written as they are now
        out["tasks"][0]["deps"] = json!([3]);
        nulls.restore(&mut out);
        assert_eq!(out["a"], Value::Null);
        assert_eq!(out["o"], json!({"x": null, "y": 1}));
        assert_eq!(out["tasks"][0]["outputs"], Value::Null);
        assert_eq!(out["tasks"][0]["deps"], json!([3]));
        assert_eq!(out["tasks"][1]["outputs"], json!({"files": null}));
    }

    #[test]
    fn nothing_null_means_nothing_recorded() {
        let v = json!({"tasks": [{"issue_number": 1, "x": 1}]});
        assert!(LoadedNulls::find(&v, &v).is_empty());
    }
}
