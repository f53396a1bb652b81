//! The schema walk: checks a parsed document key by key against `schema` (unknown keys,
//! legacy keys, types, ranges, value rules) and yields the JSON the typed `Config` is
//! deserialized from, the warnings, and the line of every key.

use super::ConfigError;
use super::schema::{AGENT, ROOT, Section, Ty, all_paths, expected, join};
use super::validate::{Rule, check_rule};
use super::yaml::{Node, Value};
use serde_json::{Map, Value as Json};
use std::collections::HashMap;

/// The result of a successful walk.
pub struct Walked {
    /// The document minus legacy keys and `null`s, ready for `serde_json::from_value`.
    pub json: Json,
    pub warnings: Vec<String>,
    /// Key path (`agents[1].name`) → line, for messages of later checks.
    pub lines: HashMap<String, u64>,
}

/// An error at `line` of `origin` (`origin:line: msg`, or `origin: msg` when the line is not
/// known).
pub fn error_at(origin: &str, line: u64, msg: impl std::fmt::Display) -> ConfigError {
    ConfigError::Invalid(at(origin, line, msg))
}

/// `origin:line: msg`, or `origin: msg` when the line is not known.
fn at(origin: &str, line: u64, msg: impl std::fmt::Display) -> String {
    if line > 0 {
        format!("{origin}:{line}: {msg}")
    } else {
        format!("{origin}: {msg}")
    }
}

/// Checks the document against the schema: the first problem is the error.
pub fn walk(root: &Node, origin: &str) -> Result<Walked, ConfigError> {
    let mut w = Walker {
        origin,
        warnings: Vec::new(),
        lines: HashMap::new(),
    };
    let json = match &root.value {
        Value::Null => Json::Object(Map::new()),
        Value::Map(_) => Json::Object(w.section("", root, &ROOT)?),
        other => {
            return Err(error_at(
                origin,
                root.line,
                format!(
                    "the configuration must be a mapping of keys such as `agents:`, not {}",
                    other.describe()
                ),
            ));
        }
    };
    Ok(Walked {
        json,
        warnings: w.warnings,
        lines: w.lines,
    })
}

struct Walker<'a> {
    origin: &'a str,
    warnings: Vec<String>,
    lines: HashMap<String, u64>,
}

impl Walker<'_> {
    fn err(&self, line: u64, msg: impl std::fmt::Display) -> ConfigError {
        error_at(self.origin, line, msg)
    }

    fn section(
        &mut self,
        path: &str,
        node: &Node,
        sec: &'static Section,
    ) -> Result<Map<String, Json>, ConfigError> {
        let Value::Map(entries) = &node.value else {
            unreachable!("section() is called on mappings only")
        };
        let mut out = Map::new();
        for (k, v) in entries {
            let Some(key) = k.value.key_text() else {
                return Err(self.err(
                    k.line,
                    format!(
                        "a key {} is {}; keys must be plain names",
                        if path.is_empty() {
                            "at the top level".to_string()
                        } else {
                            format!("in `{path}`")
                        },
                        k.value.describe()
                    ),
                ));
            };
            let kpath = join(path, &key);
            if let Some(field) = sec.fields.iter().find(|f| f.name == key) {
                self.lines.insert(kpath.clone(), k.line);
                if matches!(v.value, Value::Null) {
                    continue; // an empty value means the default
                }
                let j = self.value(&kpath, v, &field.ty)?;
                out.insert(key, j);
            } else if let Some((_, instead)) = sec.legacy.iter().find(|(l, _)| *l == key) {
                let mut msg = format!(
                    "{}:{}: `{kpath}` is a setting of the original swarm-attack and is not used by this tool; it is ignored",
                    self.origin, k.line
                );
                if !instead.is_empty() {
                    msg.push_str(&format!(" ({instead})"));
                }
                self.warnings.push(msg);
            } else {
                return Err(self.err(
                    k.line,
                    format!("unknown key `{kpath}`; {}", suggest(&key, path, sec)),
                ));
            }
        }
        for req in sec.required {
            if !out.contains_key(*req) {
                let all = sec
                    .required
                    .iter()
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(" and ");
                return Err(self.err(
                    node.line,
                    format!("`{path}` has no `{req}`; every agent needs {all}"),
                ));
            }
        }
        Ok(out)
    }

    fn type_error(&self, path: &str, node: &Node, ty: &Ty) -> ConfigError {
        let mut msg = format!(
            "`{path}` must be {}, not {}",
            expected(ty),
            node.value.describe()
        );
        match (ty, &node.value) {
            (Ty::OptCommand, Value::Str(_)) => msg.push_str(
                "; write the program and its arguments as a list, e.g. [\"claude\", \"-p\"] (commands never go through a shell)",
            ),
            (Ty::Str(_), Value::Seq(_)) if path == "tests.command" => {
                msg.push_str("; write the command as one string, e.g. \"cargo test\"")
            }
            _ => {}
        }
        self.err(node.line, msg)
    }

    fn value(&mut self, path: &str, node: &Node, ty: &'static Ty) -> Result<Json, ConfigError> {
        match (ty, &node.value) {
            (Ty::Bool, Value::Bool(b)) => Ok(Json::Bool(*b)),
            (Ty::OnOff, Value::Bool(b)) => Ok(Json::Bool(*b)),
            (Ty::OnOff, Value::Str(s)) if s == "on" || s == "off" => Ok(Json::Bool(s == "on")),
            (Ty::Str(rule) | Ty::OptStr(rule), Value::Str(s)) => {
                self.rule(path, node, rule, s)?;
                Ok(Json::String(s.clone()))
            }
            (Ty::Uint { min, max, .. }, Value::Int(i))
                if *i >= i128::from(*min) && *i <= i128::from(*max) =>
            {
                Ok(Json::from(*i as u64))
            }
            (Ty::Uint { max, .. }, Value::Int(_) | Value::Float(_)) => {
                let too_big = match node.value {
                    Value::Int(i) => i > i128::from(*max),
                    Value::Float(x) => x > *max as f64,
                    _ => false,
                };
                let mut msg = format!("`{path}` must be {}", expected(ty));
                if too_big {
                    msg.push_str(&format!(" and at most {max}"));
                }
                msg.push_str(&format!(", not {}", node.value.describe()));
                Err(self.err(node.line, msg))
            }
            (Ty::Fraction, Value::Int(i)) if (0..=1).contains(i) => Ok(Json::from(*i as f64)),
            (Ty::Fraction, Value::Float(x)) if (0.0..=1.0).contains(x) => Ok(Json::from(*x)),
            (Ty::Fraction, Value::Int(_) | Value::Float(_)) => Err(self.err(
                node.line,
                format!(
                    "`{path}` must be a number from 0 to 1, not {}",
                    node.value.describe()
                ),
            )),
            (Ty::Enum(choices), Value::Str(s)) => {
                if choices.contains(&s.as_str()) {
                    return Ok(Json::String(s.clone()));
                }
                let shown = if s.chars().count() <= 40 {
                    format!("`{s}`")
                } else {
                    "a longer string".into()
                };
                let mut msg = format!("`{path}` must be {}, not {shown}", expected(ty));
                if let Some(n) = nearest(s, choices.iter().copied()) {
                    msg.push_str(&format!("; did you mean `{n}`?"));
                }
                Err(self.err(node.line, msg))
            }
            (Ty::StrList { min_items, rule }, Value::Seq(items)) => {
                if items.len() < *min_items {
                    return Err(self.err(
                        node.line,
                        format!("`{path}` must list at least {min_items} entry, not none"),
                    ));
                }
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let ipath = format!("{path}[{i}]");
                    let Value::Str(s) = &item.value else {
                        return Err(self.err(
                            item.line,
                            format!("`{ipath}` must be a string, not {}", item.value.describe()),
                        ));
                    };
                    self.rule(&ipath, item, rule, s)?;
                    out.push(Json::String(s.clone()));
                }
                Ok(Json::Array(out))
            }
            (Ty::OptCommand, Value::Seq(items)) => {
                if items.is_empty() {
                    return Err(self.err(
                        node.line,
                        format!(
                            "`{path}` is an empty list; give the program and its arguments, e.g. [\"claude\", \"-p\"]"
                        ),
                    ));
                }
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let ipath = format!("{path}[{i}]");
                    let s = match &item.value {
                        Value::Str(s) => s.clone(),
                        // `[prog, --max-turns, 5]`: numbers are arguments too.
                        Value::Int(n) if i > 0 => n.to_string(),
                        Value::Float(x) if i > 0 => x.to_string(),
                        other => {
                            return Err(self.err(
                                item.line,
                                format!("`{ipath}` must be a string, not {}", other.describe()),
                            ));
                        }
                    };
                    if i == 0 && s.trim().is_empty() {
                        return Err(self.err(
                            item.line,
                            format!("`{ipath}` (the program to run) must not be empty"),
                        ));
                    }
                    out.push(Json::String(s));
                }
                Ok(Json::Array(out))
            }
            (Ty::Section(sec), Value::Map(_)) => Ok(Json::Object(self.section(path, node, sec)?)),
            (Ty::Amount, Value::Int(i)) if *i >= 0 => Ok(Json::from(*i as f64)),
            (Ty::Amount, Value::Float(x)) if x.is_finite() && *x >= 0.0 => Ok(Json::from(*x)),
            (Ty::MapOf(sec), Value::Map(entries)) => {
                let mut out = Map::new();
                for (k, v) in entries {
                    let Some(name) = k.value.key_text() else {
                        return Err(self.err(
                            k.line,
                            format!(
                                "a key in `{path}` is {}; keys must be plain names",
                                k.value.describe()
                            ),
                        ));
                    };
                    let kpath = join(path, &name);
                    self.lines.insert(kpath.clone(), k.line);
                    match &v.value {
                        Value::Map(_) => {
                            out.insert(name, Json::Object(self.section(&kpath, v, sec)?));
                        }
                        _ => return Err(self.type_error(&kpath, v, &Ty::Section(sec))),
                    }
                }
                Ok(Json::Object(out))
            }
            (Ty::Agents, Value::Seq(items)) => {
                if items.is_empty() {
                    return Err(ConfigError::NoAgents(at(
                        self.origin,
                        node.line,
                        format!("`{path}` is empty; a swarm needs at least one agent"),
                    )));
                }
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let ipath = format!("{path}[{i}]");
                    if !matches!(item.value, Value::Map(_)) {
                        return Err(self.err(
                            item.line,
                            format!(
                                "`{ipath}` must be a mapping with `name`, `command`, ..., not {}",
                                item.value.describe()
                            ),
                        ));
                    }
                    self.lines.insert(ipath.clone(), item.line);
                    out.push(Json::Object(self.section(&ipath, item, &AGENT)?));
                }
                Ok(Json::Array(out))
            }
            _ => Err(self.type_error(path, node, ty)),
        }
    }

    fn rule(&self, path: &str, node: &Node, rule: &Rule, s: &str) -> Result<(), ConfigError> {
        check_rule(rule, s).map_err(|why| self.err(node.line, format!("`{path}` {why}")))
    }
}

/// The closest of `candidates` to `key`, if close enough to be a likely typo.
pub fn nearest<'a>(key: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let norm = |s: &str| s.to_lowercase().replace('-', "_");
    let k = norm(key);
    candidates
        .map(|c| (strsim::jaro_winkler(&k, &norm(c)), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The second half of an unknown-key message: the nearest valid key, or the valid keys.
fn suggest(key: &str, path: &str, sec: &'static Section) -> String {
    let here = sec.fields.iter().map(|f| f.name);
    // A near twin here (`agent` for `agents`) before an exact name elsewhere
    // (`analysis.agent`).
    let norm = |s: &str| s.to_lowercase().replace('-', "_");
    if let Some(n) = here
        .clone()
        .find(|n| strsim::jaro_winkler(&norm(key), &norm(n)) >= 0.95)
    {
        return format!("did you mean `{n}`?");
    }
    // The key exists, but somewhere else (`coordination.confidence_gap`).
    let elsewhere: Vec<String> = all_paths()
        .into_iter()
        .filter(|(_, name)| *name == key)
        .map(|(p, _)| p)
        .collect();
    if let Some(p) = elsewhere.first() {
        return format!("did you mean `{p}`?");
    }
    if let Some(n) = nearest(key, here.clone()) {
        return format!("did you mean `{n}`?");
    }
    let paths = all_paths();
    if let Some(n) = nearest(key, paths.iter().map(|(_, name)| *name))
        && let Some((p, _)) = paths.iter().find(|(_, name)| *name == n)
    {
        return format!("did you mean `{p}`?");
    }
    let valid: Vec<String> = here.map(|n| format!("`{n}`")).collect();
    let place = if path.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in `{path}`")
    };
    format!("the keys {place} are {}", valid.join(", "))
}
