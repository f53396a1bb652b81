//! The fake's routes under `/repos/<o>/<r>` (and `/repositories/<id>`): the dispatcher, labels,
//! issue listing and creation, and the rest of the repository; an issue's own routes are in
//! `issue_routes.rs`, pull requests' in `pull_routes.rs`.

use super::world::{DOCS, Issue, Label, REPO_ID, Reply, World, etag_of, json_reply, message};
use serde_json::{Value, json};
use std::collections::BTreeMap;

impl World {
    pub(super) fn route(
        &mut self,
        method: &str,
        path: &str,
        query: &BTreeMap<String, String>,
        headers: &BTreeMap<String, String>,
        body: &str,
    ) -> Reply {
        let repo_prefix = format!("/repos/{}/{}", self.owner, self.name);
        let alt_prefix = format!("/repositories/{REPO_ID}");
        let sub = if path.len() >= repo_prefix.len()
            && path[..repo_prefix.len()].eq_ignore_ascii_case(&repo_prefix)
        {
            path[repo_prefix.len()..].to_string()
        } else if let Some(rest) = path.strip_prefix(&alt_prefix) {
            rest.to_string()
        } else {
            return message(404, "Not Found");
        };
        let input: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let parts: Vec<&str> = sub.split('/').filter(|s| !s.is_empty()).collect();
        let reply = match (method, parts.as_slice()) {
            ("GET", ["labels"]) => {
                let items = self.labels.iter().map(|l| self.label_json(l)).collect();
                self.page(items, &sub, query)
            }
            ("POST", ["labels"]) => self.create_label(&input),
            ("GET", ["labels", name]) => match self
                .labels
                .iter()
                .find(|l| l.name.eq_ignore_ascii_case(name))
            {
                Some(l) => json_reply(200, &self.label_json(l)),
                None => message(404, "Not Found"),
            },
            ("PATCH", ["labels", name]) => {
                let Some(pos) = self
                    .labels
                    .iter()
                    .position(|l| l.name.eq_ignore_ascii_case(name))
                else {
                    return message(404, "Not Found");
                };
                if let Some(c) = input["color"].as_str() {
                    self.labels[pos].color = c.to_string();
                }
                if let Some(d) = input["description"].as_str() {
                    self.labels[pos].description = Some(d.to_string());
                }
                json_reply(200, &self.label_json(&self.labels[pos].clone()))
            }
            ("GET", ["collaborators", user, "permission"]) => match self.permissions.get(*user) {
                // as GitHub: `permission` is the legacy base role (maintain → write,
                // triage → read); `role_name` is the role itself
                Some(role) => {
                    let legacy = match role.as_str() {
                        "maintain" => "write",
                        "triage" => "read",
                        r => r,
                    };
                    json_reply(
                        200,
                        &json!({"permission": legacy, "role_name": role, "user": self.user(user)}),
                    )
                }
                None => message(404, &format!("{user} is not a user")),
            },
            ("GET", ["issues"]) => {
                let state = query.get("state").map(String::as_str).unwrap_or("open");
                let wanted: Vec<String> = query
                    .get("labels")
                    .map(|l| l.split(',').map(String::from).collect())
                    .unwrap_or_default();
                let items: Vec<Value> = self
                    .issues
                    .values()
                    .rev()
                    .filter(|i| state == "all" || i.state == state)
                    .filter(|i| {
                        wanted
                            .iter()
                            .all(|w| i.labels.iter().any(|l| l.eq_ignore_ascii_case(w)))
                    })
                    .map(|i| self.issue_json(i))
                    .collect();
                self.page(items, &sub, query)
            }
            ("POST", ["issues"]) => {
                let number = self.issues.keys().max().copied().unwrap_or(0) + 1;
                let now = self.now();
                let labels: Vec<String> = input["labels"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default();
                let labels = labels.iter().map(|l| self.ensure_label(l)).collect();
                let id = self.id();
                let issue = Issue {
                    id,
                    number,
                    title: input["title"].as_str().unwrap_or_default().to_string(),
                    body: input["body"].as_str().unwrap_or_default().to_string(),
                    state: "open".into(),
                    state_reason: None,
                    labels,
                    created_at: now.clone(),
                    updated_at: now,
                    closed_at: None,
                    pull_request: false,
                };
                self.issues.insert(number, issue.clone());
                self.issues_created += 1;
                json_reply(201, &self.issue_json(&issue))
            }
            ("GET", ["issues", "comments", id]) => {
                match id.parse::<u64>().ok().and_then(|id| self.comments.get(&id)) {
                    Some(c) => json_reply(200, &self.comment_json(c)),
                    None => message(404, "Not Found"),
                }
            }
            ("PATCH", ["issues", "comments", id]) => {
                let Some(id) = id
                    .parse::<u64>()
                    .ok()
                    .filter(|id| self.comments.contains_key(id))
                else {
                    return message(404, "Not Found");
                };
                let now = self.now();
                let c = self.comments.get_mut(&id).expect("present");
                if let Some(b) = input["body"].as_str() {
                    c.body = b.to_string();
                }
                c.updated_at = now;
                *self.comment_edits.entry(id).or_insert(0) += 1;
                let c = c.clone();
                json_reply(200, &self.comment_json(&c))
            }
            ("DELETE", ["issues", "comments", id]) => {
                match id
                    .parse::<u64>()
                    .ok()
                    .and_then(|id| self.comments.remove(&id))
                {
                    Some(_) => Reply {
                        status: 204,
                        headers: Vec::new(),
                        body: String::new(),
                    },
                    None => message(404, "Not Found"),
                }
            }
            (m, ["pulls", rest @ ..]) => self.pull_route(m, rest, query, &sub, &input),
            (m, ["issues", n, rest @ ..]) => {
                let Some(number) = n
                    .parse::<u64>()
                    .ok()
                    .filter(|n| self.issues.contains_key(n))
                else {
                    return message(404, "Not Found");
                };
                self.issue_route(m, number, rest, query, &sub, &input)
            }
            _ => message(404, "Not Found"),
        };
        if method == "GET" && reply.status == 200 {
            let tag = etag_of(&reply.body);
            if headers.get("if-none-match") == Some(&tag) {
                return Reply {
                    status: 304,
                    headers: vec![("etag".into(), tag)],
                    body: String::new(),
                };
            }
            let mut reply = reply;
            reply.headers.push(("etag".into(), tag));
            return reply;
        }
        if method == "PATCH"
            && reply.status == 200
            && sub.starts_with("/issues/")
            && !sub.contains("comments")
        {
            // as GitHub: the representation's ETag
            let tag = etag_of(&reply.body);
            let mut reply = reply;
            reply.headers.push(("etag".into(), tag));
            return reply;
        }
        reply
    }

    pub(super) fn create_label(&mut self, input: &Value) -> Reply {
        let name = input["name"].as_str().unwrap_or_default().to_string();
        let color = input["color"].as_str().unwrap_or("ededed").to_string();
        if name.is_empty() || color.len() != 6 || !color.chars().all(|c| c.is_ascii_hexdigit()) {
            return json_reply(
                422,
                &json!({"message": "Validation Failed", "errors": [{"resource": "Label", "code": "invalid", "field": "color"}], "documentation_url": DOCS}),
            );
        }
        if self
            .labels
            .iter()
            .any(|l| l.name.eq_ignore_ascii_case(&name))
        {
            return json_reply(
                422,
                &json!({"message": "Validation Failed", "errors": [{"resource": "Label", "code": "already_exists", "field": "name"}], "documentation_url": DOCS}),
            );
        }
        let id = self.id();
        let l = Label {
            id,
            name,
            color,
            description: input["description"].as_str().map(String::from),
        };
        self.labels.push(l.clone());
        json_reply(201, &self.label_json(&l))
    }
}
