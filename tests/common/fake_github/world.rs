//! The fake's state (labels, issues, comments) and request handling: faults, pagination,
//! ETags, the JSON shapes; the routes are in `repo_routes.rs`, `issue_routes.rs`, `pull_routes.rs`.

use super::{Fault, Logged};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::time::{SystemTime, UNIX_EPOCH};

pub(super) const REPO_ID: u64 = 1296269;
pub(super) const DOCS: &str = "https://docs.github.com/rest";

#[derive(Debug, Clone)]
pub(super) struct Label {
    pub(super) id: u64,
    pub(super) name: String,
    pub(super) color: String,
    pub(super) description: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct Issue {
    pub(super) id: u64,
    pub(super) number: u64,
    pub(super) title: String,
    pub(super) body: String,
    pub(super) state: String,
    pub(super) state_reason: Option<String>,
    pub(super) labels: Vec<String>,
    pub(super) created_at: String,
    pub(super) updated_at: String,
    pub(super) closed_at: Option<String>,
    /// A pull request: GitHub lists it among the issues with a `pull_request` key.
    pub(super) pull_request: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Comment {
    pub(super) id: u64,
    pub(super) issue: u64,
    pub(super) body: String,
    pub(super) login: String,
    /// `author_association` as GitHub reports it (`OWNER` unless a test says otherwise).
    pub(super) association: String,
    pub(super) created_at: String,
    pub(super) updated_at: String,
}

pub(super) struct Scripted {
    pub(super) method: String,
    pub(super) path_contains: String,
    pub(super) fault: Fault,
    pub(super) times: u32,
}

pub(super) struct World {
    pub(super) base: String,
    pub(super) owner: String,
    pub(super) name: String,
    pub(super) token: String,
    pub(super) labels: Vec<Label>,
    pub(super) issues: BTreeMap<u64, Issue>,
    pub(super) comments: BTreeMap<u64, Comment>,
    pub(super) next_id: u64,
    pub(super) tick: u64,
    pub(super) log: Vec<Logged>,
    pub(super) scripted: VecDeque<Scripted>,
    pub(super) random: Option<(f64, u64)>,
    pub(super) random_kinds: Vec<Fault>,
    pub(super) remaining: u64,
    pub(super) comment_edits: BTreeMap<u64, u32>,
    pub(super) issues_created: u32,
    pub(super) comments_created: u32,
    pub(super) permissions: BTreeMap<String, String>,
    /// Behave like a server that ignores `labels` in `PATCH /issues/{n}`.
    pub(super) ignore_patch_labels: bool,
    /// Pull-request data of the items that are pull requests (see `pull_routes`).
    pub(super) pulls: BTreeMap<u64, super::pull_routes::PullMeta>,
}

pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: String,
}

pub(super) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub(super) fn reason(status: u16) -> &'static str {
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

pub(super) fn decode(s: &str) -> String {
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

pub(super) fn etag_of(body: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut h);
    format!("W/\"{:016x}\"", h.finish())
}

pub(super) fn json_reply(status: u16, v: &Value) -> Reply {
    Reply {
        status,
        headers: vec![(
            "content-type".into(),
            "application/json; charset=utf-8".into(),
        )],
        body: v.to_string(),
    }
}

pub(super) fn message(status: u16, msg: &str) -> Reply {
    json_reply(
        status,
        &json!({"message": msg, "documentation_url": DOCS, "status": status.to_string()}),
    )
}

impl World {
    pub(super) fn now(&mut self) -> String {
        self.tick += 1;
        let t = self.tick;
        format!(
            "2026-01-01T{:02}:{:02}:{:02}Z",
            (t / 3600) % 24,
            (t / 60) % 60,
            t % 60
        )
    }

    pub(super) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(super) fn repo_url(&self) -> String {
        format!("{}/repos/{}/{}", self.base, self.owner, self.name)
    }

    pub(super) fn user(&self, login: &str) -> Value {
        json!({"login": login, "id": 1, "node_id": "MDQ6VXNlcjE=",
               "avatar_url": "https://github.com/images/error/octocat_happy.gif",
               "url": format!("{}/users/{login}", self.base), "type": "User", "site_admin": false})
    }

    pub(super) fn label_json(&self, l: &Label) -> Value {
        json!({"id": l.id, "node_id": format!("MDU6TGFiZWw{}", l.id),
               "url": format!("{}/labels/{}", self.repo_url(), l.name),
               "name": l.name, "color": l.color, "default": false, "description": l.description})
    }

    pub(super) fn issue_json(&self, i: &Issue) -> Value {
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
        // as GitHub: an issue without a body has `"body": null`
        let body = if i.body.is_empty() {
            Value::Null
        } else {
            Value::String(i.body.clone())
        };
        let mut v = json!({"url": url, "repository_url": self.repo_url(),
               "labels_url": format!("{url}/labels{{/name}}"),
               "comments_url": format!("{url}/comments"), "events_url": format!("{url}/events"),
               "html_url": format!("https://github.com/{}/{}/issues/{}", self.owner, self.name, i.number),
               "id": i.id, "node_id": format!("I_kwDO{}", i.id), "number": i.number,
               "title": i.title, "user": self.user("octocat"), "labels": labels, "state": i.state,
               "locked": false, "assignee": null, "assignees": [], "milestone": null,
               "comments": comments, "created_at": i.created_at, "updated_at": i.updated_at,
               "closed_at": i.closed_at, "author_association": "OWNER", "active_lock_reason": null,
               "body": body, "closed_by": null, "state_reason": i.state_reason,
               "performed_via_github_app": null,
               "timeline_url": format!("{url}/timeline")});
        if i.pull_request {
            let html = format!(
                "https://github.com/{}/{}/pull/{}",
                self.owner, self.name, i.number
            );
            v["pull_request"] = json!({"url": format!("{}/pulls/{}", self.repo_url(), i.number),
                "html_url": html, "diff_url": format!("{html}.diff"),
                "patch_url": format!("{html}.patch"), "merged_at": null});
        }
        v
    }

    pub(super) fn comment_json(&self, c: &Comment) -> Value {
        let url = format!("{}/issues/comments/{}", self.repo_url(), c.id);
        json!({"url": url,
               "html_url": format!("https://github.com/{}/{}/issues/{}#issuecomment-{}", self.owner, self.name, c.issue, c.id),
               "issue_url": format!("{}/issues/{}", self.repo_url(), c.issue),
               "id": c.id, "node_id": format!("IC_kwDO{}", c.id), "user": self.user(&c.login),
               "created_at": c.created_at, "updated_at": c.updated_at,
               "author_association": c.association, "body": c.body,
               "reactions": {"url": format!("{url}/reactions"), "total_count": 0, "+1": 0, "-1": 0,
                             "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
               "performed_via_github_app": null})
    }

    /// A page of `items` with a `Link` header (next pages under `/repositories/<id>`).
    pub(super) fn page(
        &self,
        items: Vec<Value>,
        sub: &str,
        query: &BTreeMap<String, String>,
    ) -> Reply {
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

    pub(super) fn ensure_label(&mut self, name: &str) -> String {
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

    pub(super) fn pick_fault(&mut self, method: &str, path: &str) -> Option<Fault> {
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

    pub(super) fn handle(
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
                Some(Fault::LastInWindow(secs)) => {
                    let mut r = self.route(method, &path, &query, headers, body);
                    r.headers.push(("x-ratelimit-remaining".into(), "0".into()));
                    r.headers
                        .push(("x-ratelimit-reset".into(), (now_secs() + secs).to_string()));
                    r
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
}
