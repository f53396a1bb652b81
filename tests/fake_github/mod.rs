//! A stateful fake GitHub REST API on 127.0.0.1 for the integration tests: HTTP/1.1 with
//! keep-alive on std threads. It keeps labels, issues and comments with GitHub's JSON shapes,
//! paginates with `Link` headers (`per_page`, `page`; next pages under
//! `/repositories/<id>/...` as GitHub does), answers `304` to a matching `If-None-Match`,
//! sends rate-limit headers, auto-creates unknown labels on issues with colour `ededed` (as
//! GitHub does), and can inject faults: 500/502/503, 429, secondary and primary rate limits,
//! and the "applied, then 502" trap. Every request is logged (method, path, status).
#![allow(dead_code)]

use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

const REPO_ID: u64 = 1296269;
const DOCS: &str = "https://docs.github.com/rest";

/// A fault to inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer this status (500, 502, 503) without applying the request.
    Status(u16),
    /// 429 with `retry-after: <secs>`.
    TooMany(u64),
    /// 403 "secondary rate limit" with `retry-after: <secs>`.
    Secondary(u64),
    /// 403 with `x-ratelimit-remaining: 0` and a reset `<secs>` from now.
    PrimaryExhausted(u64),
    /// Apply the request, then answer 502.
    AppliedThen502,
    /// Answer this status with this GitHub message (e.g. 422, 404) without applying.
    Reply(u16, &'static str),
}

/// Every kind, for random injection.
pub const ALL_FAULTS: [Fault; 6] = [
    Fault::Status(500),
    Fault::Status(502),
    Fault::Status(503),
    Fault::TooMany(0),
    Fault::Secondary(0),
    Fault::AppliedThen502,
];

/// One logged request.
#[derive(Debug, Clone)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub query: String,
    pub status: u16,
}

impl Logged {
    pub fn is_write(&self) -> bool {
        self.method != "GET"
    }
}

#[derive(Debug, Clone)]
struct Label {
    id: u64,
    name: String,
    color: String,
    description: Option<String>,
}

#[derive(Debug, Clone)]
struct Issue {
    id: u64,
    number: u64,
    title: String,
    body: String,
    state: String,
    state_reason: Option<String>,
    labels: Vec<String>,
    created_at: String,
    updated_at: String,
    closed_at: Option<String>,
}

#[derive(Debug, Clone)]
struct Comment {
    id: u64,
    issue: u64,
    body: String,
    login: String,
    created_at: String,
    updated_at: String,
}

struct Scripted {
    method: String,
    path_contains: String,
    fault: Fault,
    times: u32,
}

struct World {
    base: String,
    owner: String,
    name: String,
    token: String,
    labels: Vec<Label>,
    issues: BTreeMap<u64, Issue>,
    comments: BTreeMap<u64, Comment>,
    next_id: u64,
    tick: u64,
    log: Vec<Logged>,
    scripted: VecDeque<Scripted>,
    random: Option<(f64, u64)>,
    random_kinds: Vec<Fault>,
    remaining: u64,
    comment_edits: BTreeMap<u64, u32>,
    issues_created: u32,
    comments_created: u32,
    permissions: BTreeMap<String, String>,
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
        } else if b[i] == b'+' {
            out.push(b' ');
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn etag_of(body: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut h);
    format!("W/\"{:016x}\"", h.finish())
}

fn json_reply(status: u16, v: &Value) -> Reply {
    Reply {
        status,
        headers: vec![(
            "content-type".into(),
            "application/json; charset=utf-8".into(),
        )],
        body: v.to_string(),
    }
}

fn message(status: u16, msg: &str) -> Reply {
    json_reply(
        status,
        &json!({"message": msg, "documentation_url": DOCS, "status": status.to_string()}),
    )
}

impl World {
    fn now(&mut self) -> String {
        self.tick += 1;
        let t = self.tick;
        format!(
            "2026-01-01T{:02}:{:02}:{:02}Z",
            (t / 3600) % 24,
            (t / 60) % 60,
            t % 60
        )
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn repo_url(&self) -> String {
        format!("{}/repos/{}/{}", self.base, self.owner, self.name)
    }

    fn user(&self, login: &str) -> Value {
        json!({"login": login, "id": 1, "node_id": "MDQ6VXNlcjE=",
               "avatar_url": "https://github.com/images/error/octocat_happy.gif",
               "url": format!("{}/users/{login}", self.base), "type": "User", "site_admin": false})
    }

    fn label_json(&self, l: &Label) -> Value {
        json!({"id": l.id, "node_id": format!("MDU6TGFiZWw{}", l.id),
               "url": format!("{}/labels/{}", self.repo_url(), l.name),
               "name": l.name, "color": l.color, "default": false, "description": l.description})
    }

    fn issue_json(&self, i: &Issue) -> Value {
        let labels: Vec<Value> = i
            .labels
            .iter()
            .filter_map(|n| self.labels.iter().find(|l| &l.name == n))
            .map(|l| self.label_json(l))
            .collect();
        let comments = self
            .comments
            .values()
            .filter(|c| c.issue == i.number)
            .count();
        let url = format!("{}/issues/{}", self.repo_url(), i.number);
        json!({"url": url, "repository_url": self.repo_url(),
               "labels_url": format!("{url}/labels{{/name}}"),
               "comments_url": format!("{url}/comments"), "events_url": format!("{url}/events"),
               "html_url": format!("https://github.com/{}/{}/issues/{}", self.owner, self.name, i.number),
               "id": i.id, "node_id": format!("I_kwDO{}", i.id), "number": i.number,
               "title": i.title, "user": self.user("octocat"), "labels": labels, "state": i.state,
               "locked": false, "assignee": null, "assignees": [], "milestone": null,
               "comments": comments, "created_at": i.created_at, "updated_at": i.updated_at,
               "closed_at": i.closed_at, "author_association": "OWNER", "active_lock_reason": null,
               "body": i.body, "closed_by": null, "state_reason": i.state_reason,
               "performed_via_github_app": null,
               "timeline_url": format!("{url}/timeline")})
    }

    fn comment_json(&self, c: &Comment) -> Value {
        let url = format!("{}/issues/comments/{}", self.repo_url(), c.id);
        json!({"url": url,
               "html_url": format!("https://github.com/{}/{}/issues/{}#issuecomment-{}", self.owner, self.name, c.issue, c.id),
               "issue_url": format!("{}/issues/{}", self.repo_url(), c.issue),
               "id": c.id, "node_id": format!("IC_kwDO{}", c.id), "user": self.user(&c.login),
               "created_at": c.created_at, "updated_at": c.updated_at,
               "author_association": "OWNER", "body": c.body,
               "reactions": {"url": format!("{url}/reactions"), "total_count": 0, "+1": 0, "-1": 0,
                             "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
               "performed_via_github_app": null})
    }

    /// A page of `items` with a `Link` header (next pages under `/repositories/<id>`).
    fn page(&self, items: Vec<Value>, sub: &str, query: &BTreeMap<String, String>) -> Reply {
        let per_page: usize = query
            .get("per_page")
            .and_then(|v| v.parse().ok())
            .unwrap_or(30)
            .clamp(1, 100);
        let page: usize = query
            .get("page")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1)
            .max(1);
        let last = items.len().div_ceil(per_page).max(1);
        let slice: Vec<Value> = items
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .collect();
        let mut reply = json_reply(200, &Value::Array(slice));
        let link_for = |p: usize| {
            let mut q: Vec<String> = query
                .iter()
                .filter(|(k, _)| k.as_str() != "page")
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            q.push(format!("page={p}"));
            format!("{}/repositories/{REPO_ID}{sub}?{}", self.base, q.join("&"))
        };
        let mut links = Vec::new();
        if page < last {
            links.push(format!("<{}>; rel=\"next\"", link_for(page + 1)));
            links.push(format!("<{}>; rel=\"last\"", link_for(last)));
        }
        if page > 1 {
            links.push(format!("<{}>; rel=\"prev\"", link_for(page - 1)));
            links.push(format!("<{}>; rel=\"first\"", link_for(1)));
        }
        if !links.is_empty() {
            reply.headers.push(("link".into(), links.join(", ")));
        }
        reply
    }

    fn ensure_label(&mut self, name: &str) -> String {
        if let Some(l) = self
            .labels
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name))
        {
            return l.name.clone();
        }
        let id = self.id();
        self.labels.push(Label {
            id,
            name: name.to_string(),
            color: "ededed".into(),
            description: None,
        });
        name.to_string()
    }

    fn pick_fault(&mut self, method: &str, path: &str) -> Option<Fault> {
        if let Some(pos) = self
            .scripted
            .iter()
            .position(|s| s.method == method && path.contains(&s.path_contains))
        {
            let s = &mut self.scripted[pos];
            let f = s.fault;
            s.times -= 1;
            if s.times == 0 {
                self.scripted.remove(pos);
            }
            return Some(f);
        }
        let (rate, seed) = self.random?;
        // xorshift64*
        let mut x = seed;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.random = Some((rate, x));
        let r = x.wrapping_mul(0x2545F4914F6CDD1D);
        let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
        if unit < rate {
            let k = ((r >> 3) % self.random_kinds.len() as u64) as usize;
            Some(self.random_kinds[k])
        } else {
            None
        }
    }

    fn handle(
        &mut self,
        method: &str,
        target: &str,
        headers: &BTreeMap<String, String>,
        body: &str,
    ) -> Reply {
        let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
        let path = decode(raw_path);
        let query: BTreeMap<String, String> = raw_query
            .split('&')
            .filter(|s| !s.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (decode(k), decode(v))
            })
            .collect();
        let auth = headers.get("authorization").cloned().unwrap_or_default();
        let mut reply = if auth != format!("Bearer {}", self.token)
            && auth != format!("token {}", self.token)
        {
            message(401, "Bad credentials")
        } else {
            match self.pick_fault(method, &path) {
                Some(Fault::AppliedThen502) => {
                    let _ = self.route(method, &path, &query, headers, body);
                    Reply {
                        status: 502,
                        headers: vec![("content-type".into(), "text/html".into())],
                        body: "<html><body><h1>502 Bad Gateway</h1></body></html>".into(),
                    }
                }
                Some(Fault::Status(s)) => message(s, "Server Error"),
                Some(Fault::TooMany(secs)) => {
                    let mut r = message(429, "API rate limit exceeded for installation.");
                    r.headers.push(("retry-after".into(), secs.to_string()));
                    r
                }
                Some(Fault::Secondary(secs)) => {
                    let mut r = message(
                        403,
                        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                    );
                    r.headers.push(("retry-after".into(), secs.to_string()));
                    r
                }
                Some(Fault::PrimaryExhausted(secs)) => {
                    let mut r = message(403, "API rate limit exceeded for user ID 1.");
                    r.headers.push(("x-ratelimit-remaining".into(), "0".into()));
                    r.headers
                        .push(("x-ratelimit-reset".into(), (now_secs() + secs).to_string()));
                    r
                }
                Some(Fault::Reply(s, m)) => {
                    if s == 422 {
                        json_reply(
                            422,
                            &json!({"message": m, "errors": [{"resource": "Label", "code": "invalid", "field": "name"}], "documentation_url": DOCS}),
                        )
                    } else {
                        message(s, m)
                    }
                }
                None => self.route(method, &path, &query, headers, body),
            }
        };
        if !reply
            .headers
            .iter()
            .any(|(k, _)| k == "x-ratelimit-remaining")
        {
            self.remaining = self.remaining.saturating_sub(1);
            reply.headers.extend([
                ("x-ratelimit-limit".into(), "5000".into()),
                ("x-ratelimit-remaining".into(), self.remaining.to_string()),
                ("x-ratelimit-reset".into(), (now_secs() + 3600).to_string()),
                (
                    "x-ratelimit-used".into(),
                    (5000 - self.remaining).to_string(),
                ),
                ("x-ratelimit-resource".into(), "core".into()),
            ]);
        }
        reply.headers.push((
            "x-github-request-id".into(),
            format!("FAKE:{}", self.log.len()),
        ));
        self.log.push(Logged {
            method: method.to_string(),
            path,
            query: raw_query.to_string(),
            status: reply.status,
        });
        reply
    }

    fn route(
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
                Some(p) => json_reply(
                    200,
                    &json!({"permission": p, "role_name": p, "user": self.user(user)}),
                ),
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

    fn create_label(&mut self, input: &Value) -> Reply {
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

    fn issue_route(
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
                let labels = labels.map(|l| l.iter().map(|n| self.ensure_label(n)).collect());
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

/// The running fake; stops accepting when dropped.
pub struct FakeGithub {
    pub url: String,
    pub token: String,
    world: Arc<Mutex<World>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

fn read_request(
    reader: &mut BufReader<TcpStream>,
) -> Option<(String, String, BTreeMap<String, String>, String)> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_lowercase(), v.trim().to_string());
        }
    }
    let mut body = Vec::new();
    if let Some(len) = headers
        .get("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        body.resize(len, 0);
        reader.read_exact(&mut body).ok()?;
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.contains("chunked"))
    {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    Some((
        method,
        target,
        headers,
        String::from_utf8_lossy(&body).into_owned(),
    ))
}

fn serve(stream: TcpStream, world: Arc<Mutex<World>>) {
    let Ok(write_half) = stream.try_clone() else {
        return;
    };
    let mut writer = write_half;
    let mut reader = BufReader::new(stream);
    while let Some((method, target, headers, body)) = read_request(&mut reader) {
        let reply = world
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .handle(&method, &target, &headers, &body);
        let mut out = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
        for (k, v) in &reply.headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str(&format!("content-length: {}\r\n\r\n", reply.body.len()));
        out.push_str(&reply.body);
        if writer.write_all(out.as_bytes()).is_err() || writer.flush().is_err() {
            return;
        }
        if headers
            .get("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"))
        {
            return;
        }
    }
}

impl FakeGithub {
    /// Starts a fake for `repo` (`owner/name`) that accepts `token`.
    pub fn start(repo: &str, token: &str) -> FakeGithub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let (owner, name) = repo.split_once('/').unwrap();
        let world = Arc::new(Mutex::new(World {
            base: url.clone(),
            owner: owner.into(),
            name: name.into(),
            token: token.into(),
            labels: Vec::new(),
            issues: BTreeMap::new(),
            comments: BTreeMap::new(),
            next_id: 1000,
            tick: 0,
            log: Vec::new(),
            scripted: VecDeque::new(),
            random: None,
            random_kinds: ALL_FAULTS.to_vec(),
            remaining: 5000,
            comment_edits: BTreeMap::new(),
            issues_created: 0,
            comments_created: 0,
            permissions: BTreeMap::new(),
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (w, s) = (world.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                if let Ok(stream) = stream {
                    let w = w.clone();
                    std::thread::spawn(move || serve(stream, w));
                }
            }
        });
        FakeGithub {
            url,
            token: token.into(),
            world,
            stop,
            port,
        }
    }

    fn w(&self) -> std::sync::MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn add_label(&self, name: &str, color: &str) {
        let mut w = self.w();
        let id = w.id();
        w.labels.push(Label {
            id,
            name: name.into(),
            color: color.into(),
            description: None,
        });
    }

    /// Adds an open issue; returns its number.
    pub fn add_issue(&self, title: &str, labels: &[&str]) -> u64 {
        let mut w = self.w();
        let number = w.issues.keys().max().copied().unwrap_or(0) + 1;
        let now = w.now();
        let id = w.id();
        let labels = labels.iter().map(|l| w.ensure_label(l)).collect();
        w.issues.insert(
            number,
            Issue {
                id,
                number,
                title: title.into(),
                body: String::new(),
                state: "open".into(),
                state_reason: None,
                labels,
                created_at: now.clone(),
                updated_at: now,
                closed_at: None,
            },
        );
        number
    }

    pub fn add_comment(&self, issue: u64, body: &str, login: &str) -> u64 {
        let mut w = self.w();
        let id = w.id();
        let now = w.now();
        w.comments.insert(
            id,
            Comment {
                id,
                issue,
                body: body.into(),
                login: login.into(),
                created_at: now.clone(),
                updated_at: now,
            },
        );
        id
    }

    /// `(name, colour)` of every repository label.
    pub fn labels(&self) -> Vec<(String, String)> {
        self.w()
            .labels
            .iter()
            .map(|l| (l.name.clone(), l.color.clone()))
            .collect()
    }

    pub fn issue_labels(&self, n: u64) -> Vec<String> {
        self.w().issues[&n].labels.clone()
    }

    pub fn swarm_labels(&self, n: u64) -> Vec<String> {
        self.issue_labels(n)
            .into_iter()
            .filter(|l| l.starts_with("swarm:"))
            .collect()
    }

    pub fn is_open(&self, n: u64) -> bool {
        self.w().issues[&n].state == "open"
    }

    pub fn set_state(&self, n: u64, state: &str) {
        self.w().issues.get_mut(&n).unwrap().state = state.into();
    }

    /// `(id, body)` of an issue's comments, oldest first.
    pub fn comments(&self, n: u64) -> Vec<(u64, String)> {
        self.w()
            .comments
            .values()
            .filter(|c| c.issue == n)
            .map(|c| (c.id, c.body.clone()))
            .collect()
    }

    pub fn status_comments(&self, n: u64) -> Vec<(u64, String)> {
        self.comments(n)
            .into_iter()
            .filter(|(_, b)| b.starts_with("<!-- swarm-attack:status -->"))
            .collect()
    }

    /// Gives `user` a permission on the repository (`write`, `read`, ...).
    pub fn set_permission(&self, user: &str, permission: &str) {
        self.w().permissions.insert(user.into(), permission.into());
    }

    pub fn delete_comment(&self, id: u64) {
        self.w().comments.remove(&id);
    }

    /// `(number, title, body)` of every issue.
    pub fn issues(&self) -> Vec<(u64, String, String)> {
        self.w()
            .issues
            .values()
            .map(|i| (i.number, i.title.clone(), i.body.clone()))
            .collect()
    }

    pub fn issues_created(&self) -> u32 {
        self.w().issues_created
    }

    pub fn comments_created(&self) -> u32 {
        self.w().comments_created
    }

    pub fn comment_edits(&self, id: u64) -> u32 {
        self.w().comment_edits.get(&id).copied().unwrap_or(0)
    }

    pub fn log(&self) -> Vec<Logged> {
        self.w().log.clone()
    }

    pub fn clear_log(&self) {
        self.w().log.clear();
    }

    /// Requests whose method is `method` and whose path contains `path`.
    pub fn count(&self, method: &str, path: &str) -> usize {
        self.w()
            .log
            .iter()
            .filter(|l| l.method == method && l.path.contains(path))
            .count()
    }

    pub fn writes(&self) -> usize {
        self.w().log.iter().filter(|l| l.is_write()).count()
    }

    /// Injects `fault` on the next `times` requests with `method` whose path contains `path`.
    pub fn fail_next(&self, method: &str, path: &str, fault: Fault, times: u32) {
        self.w().scripted.push_back(Scripted {
            method: method.into(),
            path_contains: path.into(),
            fault,
            times,
        });
    }

    /// Injects a random fault (of every kind) into `rate` of the requests.
    pub fn random_faults(&self, rate: f64, seed: u64) {
        self.w().random = Some((rate, seed.max(1)));
    }

    pub fn no_faults(&self) {
        let mut w = self.w();
        w.random = None;
        w.scripted.clear();
    }
}

impl Drop for FakeGithub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}
