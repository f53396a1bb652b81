//! The fake's routes under `/repos/<o>/<r>/issues/<n>`: the issue, its comments, its labels.

use super::world::{Comment, Reply, World, json_reply, message};
use serde_json::Value;
use std::collections::BTreeMap;

impl World {
    pub(super) fn issue_route(
        &mut self,
        method: &str,
        number: u64,
        rest: &[&str],
        query: &BTreeMap<String, String>,
        sub: &str,
        input: &Value,
    ) -> Reply {
        match (method, rest) {
            ("GET", []) => json_reply(200, &self.issue_json(&self.issues[&number])),
            ("PATCH", []) => {
                let now = self.now();
                let labels: Option<Vec<String>> = input["labels"].as_array().map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().or_else(|| v["name"].as_str()))
                        .map(String::from)
                        .collect()
                });
                let labels = labels
                    .filter(|_| !self.ignore_patch_labels)
                    .map(|l| l.iter().map(|n| self.ensure_label(n)).collect());
                let issue = self.issues.get_mut(&number).expect("present");
                if let Some(l) = labels {
                    issue.labels = l;
                }
                if let Some(s) = input["state"].as_str() {
                    if s == "closed" && issue.state != "closed" {
                        issue.closed_at = Some(now.clone());
                        issue.state_reason =
                            Some(input["state_reason"].as_str().unwrap_or("completed").into());
                    }
                    if s == "open" && issue.state != "open" {
                        issue.closed_at = None;
                        issue.state_reason = Some("reopened".into());
                    }
                    issue.state = s.to_string();
                }
                if let Some(t) = input["title"].as_str() {
                    issue.title = t.to_string();
                }
                if let Some(b) = input["body"].as_str() {
                    issue.body = b.to_string();
                }
                issue.updated_at = now;
                let issue = issue.clone();
                json_reply(200, &self.issue_json(&issue))
            }
            ("GET", ["comments"]) => {
                let items = self
                    .comments
                    .values()
                    .filter(|c| c.issue == number)
                    .map(|c| self.comment_json(c))
                    .collect();
                self.page(items, sub, query)
            }
            ("POST", ["comments"]) => {
                let id = self.id();
                let now = self.now();
                let c = Comment {
                    id,
                    issue: number,
                    body: input["body"].as_str().unwrap_or_default().to_string(),
                    login: "swarm-bot".into(),
                    association: "OWNER".into(),
                    created_at: now.clone(),
                    updated_at: now.clone(),
                };
                self.comments.insert(id, c.clone());
                self.comments_created += 1;
                self.issues.get_mut(&number).expect("present").updated_at = now;
                json_reply(201, &self.comment_json(&c))
            }
            ("POST", ["labels"]) => {
                let names: Vec<String> = input["labels"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default();
                for n in names {
                    let n = self.ensure_label(&n);
                    let issue = self.issues.get_mut(&number).expect("present");
                    if !issue.labels.contains(&n) {
                        issue.labels.push(n);
                    }
                }
                let labels: Vec<Value> = self.issues[&number]
                    .labels
                    .iter()
                    .filter_map(|n| self.labels.iter().find(|l| &l.name == n))
                    .map(|l| self.label_json(l))
                    .collect();
                json_reply(200, &Value::Array(labels))
            }
            ("PUT", ["labels"]) => {
                let names: Vec<String> = input["labels"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().or_else(|| v["name"].as_str()))
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default();
                let names: Vec<String> = names.iter().map(|n| self.ensure_label(n)).collect();
                self.issues.get_mut(&number).expect("present").labels = names;
                let labels: Vec<Value> = self.issues[&number]
                    .labels
                    .iter()
                    .filter_map(|n| self.labels.iter().find(|l| &l.name == n))
                    .map(|l| self.label_json(l))
                    .collect();
                json_reply(200, &Value::Array(labels))
            }
            ("DELETE", ["labels", name]) => {
                let issue = self.issues.get_mut(&number).expect("present");
                let before = issue.labels.len();
                issue.labels.retain(|l| !l.eq_ignore_ascii_case(name));
                if issue.labels.len() == before {
                    return message(404, "Label does not exist");
                }
                let labels: Vec<Value> = self.issues[&number]
                    .labels
                    .iter()
                    .filter_map(|n| self.labels.iter().find(|l| &l.name == n))
                    .map(|l| self.label_json(l))
                    .collect();
                json_reply(200, &Value::Array(labels))
            }
            _ => message(404, "Not Found"),
        }
    }
}
