//! The feature's issues (`specs/<feature>/issues.json`, docs/state.md "issues.json"): parsing from
//! JSON values with exact field errors, and validation (duplicate order, unknown dependency,
//! cycles).

use crate::json_text::type_name;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One issue of a feature, as written in issues.json.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IssueSpec {
    pub order: u32,
    pub title: String,
    pub body: String,
    pub labels: Vec<String>,
    pub estimated_size: Option<String>,
    pub dependencies: Vec<u32>,
    pub automation_type: Option<String>,
    pub parent_issue: Option<u32>,
    pub github_issue: Option<u64>,
    pub files: Vec<String>,
    pub test_file: Option<String>,
}

/// The whole issues.json document.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IssuesDoc {
    pub feature_id: Option<String>,
    pub generated_at: Option<String>,
    pub issues: Vec<IssueSpec>,
}

/// Why issues.json cannot be used: the message names the issue and field; the caller adds
/// the file name.
#[derive(Debug, Clone, PartialEq)]
pub struct IssuesError {
    pub message: String,
}

fn err<T>(message: String) -> Result<T, IssuesError> {
    Err(IssuesError { message })
}

struct Ctx<'a> {
    who: String,
    obj: &'a serde_json::Map<String, Value>,
}

impl Ctx<'_> {
    fn wrong(&self, field: &str, want: &str, got: &Value) -> IssuesError {
        // a number is shown as itself: "found -1" says more than "found a number"
        let found = match got {
            Value::Number(n) => n.to_string(),
            v => type_name(v).to_string(),
        };
        IssuesError {
            message: format!(
                "{}: field `{field}` must be {want}, found {found}",
                self.who
            ),
        }
    }
    fn present(&self, field: &str) -> Option<&Value> {
        self.obj.get(field).filter(|v| !v.is_null())
    }
    fn string(&self, field: &str) -> Result<Option<String>, IssuesError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.wrong(field, "a string", v)),
        }
    }
    fn number(&self, field: &str) -> Result<Option<u64>, IssuesError> {
        match self.present(field) {
            None => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) => Ok(Some(n)),
                None => Err(self.wrong(field, "a whole number ≥ 0", v)),
            },
        }
    }
    fn strings(&self, field: &str) -> Result<Vec<String>, IssuesError> {
        match self.present(field) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.wrong(field, "a list of strings", other)),
                })
                .collect(),
            Some(v) => Err(self.wrong(field, "a list of strings", v)),
        }
    }
    fn numbers(&self, field: &str) -> Result<Vec<u32>, IssuesError> {
        match self.present(field) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| self.wrong(field, "a list of issue numbers", i))
                })
                .collect(),
            Some(v) => Err(self.wrong(field, "a list of issue numbers", v)),
        }
    }
}

/// Parses and validates an issues.json document.
pub fn parse_issues(doc: &Value) -> Result<IssuesDoc, IssuesError> {
    let Value::Object(top) = doc else {
        return err(format!(
            "the document must be an object with an `issues` list, found {}",
            type_name(doc)
        ));
    };
    let top_ctx = Ctx {
        who: "top level".into(),
        obj: top,
    };
    let feature_id = top_ctx.string("feature_id")?;
    let generated_at = top_ctx.string("generated_at")?;
    let items = match top.get("issues") {
        None | Some(Value::Null) => return err("top level: field `issues` is missing".into()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(top_ctx.wrong("issues", "a list", v)),
    };
    let mut issues = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let Value::Object(obj) = item else {
            return err(format!(
                "issue at index {index}: must be an object, found {}",
                type_name(item)
            ));
        };
        let order_ctx = Ctx {
            who: format!("issue at index {index}"),
            obj,
        };
        let order = match order_ctx.present("order") {
            None => return err(format!("issue at index {index}: field `order` is missing")),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| order_ctx.wrong("order", "a whole number ≥ 1", v))?,
        };
        let c = Ctx {
            who: format!("issue {order}"),
            obj,
        };
        let spec = IssueSpec {
            order,
            title: c.string("title")?.unwrap_or_default(),
            body: c.string("body")?.unwrap_or_default(),
            labels: c.strings("labels")?,
            estimated_size: c.string("estimated_size")?,
            dependencies: c.numbers("dependencies")?,
            automation_type: c.string("automation_type")?,
            parent_issue: c.number("parent_issue")?.map(|n| n as u32),
            github_issue: c.number("github_issue")?,
            files: c.strings("files")?,
            test_file: c.string("test_file")?,
        };
        issues.push(spec);
    }
    validate(&issues)?;
    Ok(IssuesDoc {
        feature_id,
        generated_at,
        issues,
    })
}

/// Checks duplicate orders, unknown dependencies and dependency cycles.
pub fn validate(issues: &[IssueSpec]) -> Result<(), IssuesError> {
    let mut seen = BTreeSet::new();
    for i in issues {
        if !seen.insert(i.order) {
            return err(format!(
                "issue {}: field `order` is duplicated (two issues have order {})",
                i.order, i.order
            ));
        }
    }
    let mut linked: BTreeMap<u64, u32> = BTreeMap::new();
    for i in issues {
        if let Some(g) = i.github_issue {
            if g == 0 {
                return err(format!(
                    "issue {}: field `github_issue` must be a GitHub issue number ≥ 1, found 0",
                    i.order
                ));
            }
            if let Some(first) = linked.insert(g, i.order) {
                return err(format!(
                    "issue {}: field `github_issue` links GitHub issue #{g}, which issue {first} links already (one GitHub issue per task)",
                    i.order
                ));
            }
        }
    }
    for i in issues {
        for d in &i.dependencies {
            if !seen.contains(d) {
                return err(format!(
                    "issue {}: field `dependencies` names unknown issue {d}",
                    i.order
                ));
            }
        }
    }
    let graph: BTreeMap<u32, Vec<u32>> = issues
        .iter()
        .map(|i| (i.order, i.dependencies.clone()))
        .collect();
    if let Some(cycle) = find_cycle(&graph) {
        let names: Vec<String> = cycle.iter().map(|n| n.to_string()).collect();
        return err(format!(
            "issue {}: field `dependencies` forms a cycle: {}",
            cycle[0],
            names.join(" → ")
        ));
    }
    Ok(())
}

/// Finds a dependency cycle, returned as the path `a → b → … → a` (smallest start first).
pub fn find_cycle(graph: &BTreeMap<u32, Vec<u32>>) -> Option<Vec<u32>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Finished,
    }
    let mut mark: BTreeMap<u32, Mark> = graph.keys().map(|k| (*k, Mark::New)).collect();
    for &start in graph.keys() {
        if mark[&start] != Mark::New {
            continue;
        }
        // iterative DFS keeping the active path
        let mut path: Vec<(u32, usize)> = vec![(start, 0)];
        mark.insert(start, Mark::Active);
        while let Some(&mut (node, ref mut next)) = path.last_mut() {
            let deps = graph.get(&node).map(Vec::as_slice).unwrap_or(&[]);
            if *next < deps.len() {
                let d = deps[*next];
                *next += 1;
                match mark.get(&d).copied() {
                    Some(Mark::New) => {
                        mark.insert(d, Mark::Active);
                        path.push((d, 0));
                    }
                    Some(Mark::Active) => {
                        let pos = path.iter().position(|(n, _)| *n == d).unwrap_or(0);
                        let mut cycle: Vec<u32> = path[pos..].iter().map(|(n, _)| *n).collect();
                        cycle.push(d);
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                mark.insert(node, Mark::Finished);
                path.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<IssuesDoc, String> {
        parse_issues(&v).map_err(|e| e.message)
    }

    #[test]
    fn minimal_and_unknown_keys() {
        let d = parse(json!({"feature_id":"a","issues":[{"order":1,"title":"x","whatever":3}]}))
            .unwrap();
        assert_eq!(d.issues[0].title, "x");
    }

    #[test]
    fn duplicate_order() {
        let e = parse(json!({"issues":[{"order":1},{"order":1}]})).unwrap_err();
        assert!(e.contains("issue 1") && e.contains("duplicated"), "{e}");
    }

    #[test]
    fn one_github_issue_per_task() {
        let e =
            parse(json!({"issues":[{"order":1,"github_issue":42},{"order":2,"github_issue":42}]}))
                .unwrap_err();
        assert!(
            e.starts_with("issue 2: field `github_issue`") && e.contains("issue 1"),
            "{e}"
        );
        let e = parse(json!({"issues":[{"order":1,"github_issue":0}]})).unwrap_err();
        assert!(e.contains("found 0"), "{e}");
    }

    #[test]
    fn unknown_dependency() {
        let e = parse(json!({"issues":[{"order":1,"dependencies":[7]}]})).unwrap_err();
        assert_eq!(e, "issue 1: field `dependencies` names unknown issue 7");
    }

    #[test]
    fn cycle_is_named() {
        let e = parse(json!({"issues":[{"order":1,"dependencies":[3]},{"order":2,"dependencies":[1]},{"order":3,"dependencies":[2]}]})).unwrap_err();
        assert_eq!(
            e,
            "issue 1: field `dependencies` forms a cycle: 1 → 3 → 2 → 1"
        );
        let e = parse(json!({"issues":[{"order":4,"dependencies":[4]}]})).unwrap_err();
        assert!(e.ends_with("4 → 4"), "{e}");
    }

    #[test]
    fn wrong_types_name_issue_and_field() {
        let e = parse(json!({"issues":[{"order":2,"dependencies":"1"}]})).unwrap_err();
        assert_eq!(
            e,
            "issue 2: field `dependencies` must be a list of issue numbers, found a string"
        );
        let e = parse(json!({"issues":[{"order":"2"}]})).unwrap_err();
        assert!(e.starts_with("issue at index 0: field `order`"), "{e}");
        let e = parse(json!({"issues":[{"order":3,"title":5}]})).unwrap_err();
        assert!(e.contains("`title` must be a string"), "{e}");
        let e = parse(json!({"issues":{}})).unwrap_err();
        assert!(e.contains("`issues` must be a list"), "{e}");
    }
}
