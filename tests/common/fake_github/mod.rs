//! A stateful fake GitHub REST API on 127.0.0.1 for the integration tests: HTTP/1.1 with
//! keep-alive on std threads. It keeps labels, issues and comments with GitHub's JSON shapes,
//! paginates with `Link` headers (`per_page`, `page`; next pages under
//! `/repositories/<id>/...` as GitHub does), answers `304` to a matching `If-None-Match`,
//! sends rate-limit headers, auto-creates unknown labels on issues with colour `ededed` (as
//! GitHub does), and can inject faults: 500/502/503, 429, secondary and primary rate limits,
//! and the "applied, then 502" trap. Every request is logged (method, path, status).
//! Shapes checked against `@octokit/fixtures` (recorded from api.github.com): an empty issue
//! body is `null`, pull requests are listed among the issues with a `pull_request` key, and
//! the permission endpoint answers the legacy `permission` (maintain → write, triage → read)
//! with the role in `role_name`.
#![allow(dead_code)]

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

mod issue_routes;
mod pull_routes;
mod repo_routes;
mod world;

use world::{Comment, Issue, Label, Scripted, World, reason};

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
    /// Apply and answer normally, but with `x-ratelimit-remaining: 0` and a reset `<secs>`
    /// from now (the last request of the window).
    LastInWindow(u64),
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

/// The running fake; stops accepting when dropped.
pub struct FakeGithub {
    pub url: String,
    pub token: String,
    world: Arc<Mutex<World>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

pub fn read_request(
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
            ignore_patch_labels: false,
            pulls: BTreeMap::new(),
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
        self.add_item(title, labels, "", false)
    }

    /// Adds an open pull request (listed among the issues, as GitHub does); returns its number.
    pub fn add_pull_request(&self, title: &str, labels: &[&str], body: &str) -> u64 {
        self.add_item(title, labels, body, true)
    }

    /// Sets an issue's body.
    pub fn set_body(&self, n: u64, body: &str) {
        self.w().issues.get_mut(&n).unwrap().body = body.into();
    }

    fn add_item(&self, title: &str, labels: &[&str], body: &str, pull_request: bool) -> u64 {
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
                body: body.into(),
                state: "open".into(),
                state_reason: None,
                labels,
                created_at: now.clone(),
                updated_at: now,
                closed_at: None,
                pull_request,
            },
        );
        number
    }

    pub fn add_comment(&self, issue: u64, body: &str, login: &str) -> u64 {
        self.add_comment_as(issue, body, login, "OWNER")
    }

    /// A comment by `login` whose `author_association` is `association` (`NONE`,
    /// `CONTRIBUTOR`, `MEMBER`, ...).
    pub fn add_comment_as(&self, issue: u64, body: &str, login: &str, association: &str) -> u64 {
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
                association: association.into(),
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

    /// Replaces an issue's labels (as a person editing it would), touching `updated_at`.
    pub fn set_labels(&self, n: u64, labels: &[&str]) {
        let mut w = self.w();
        let names = labels.iter().map(|l| w.ensure_label(l)).collect();
        let now = w.now();
        let issue = w.issues.get_mut(&n).unwrap();
        issue.labels = names;
        issue.updated_at = now;
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

    /// Makes `PATCH /issues/{n}` ignore `labels` (as some servers do).
    pub fn ignore_labels_in_issue_updates(&self) {
        self.w().ignore_patch_labels = true;
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

/// One pull request as the tests see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullView {
    pub number: u64,
    pub head: String,
    pub base: String,
    pub state: String,
    pub merged: bool,
    pub title: String,
    pub body: String,
}

impl FakeGithub {
    /// Every pull request, oldest first.
    pub fn pulls(&self) -> Vec<PullView> {
        let w = self.w();
        w.pulls
            .iter()
            .map(|(n, m)| PullView {
                number: *n,
                head: m.head_ref.clone(),
                base: m.base_ref.clone(),
                state: w.issues[n].state.clone(),
                merged: m.merged_at.is_some(),
                title: w.issues[n].title.clone(),
                body: w.issues[n].body.clone(),
            })
            .collect()
    }

    /// The reviews posted on pull request `n` (GitHub's shape, with the posted
    /// `comments`), oldest first.
    pub fn pull_reviews(&self, n: u64) -> Vec<serde_json::Value> {
        self.w()
            .pulls
            .get(&n)
            .map(|m| m.reviews.clone())
            .unwrap_or_default()
    }

    /// Opens a pull request as a person would (not through the tool).
    pub fn open_pull(&self, title: &str, head: &str, base: &str, body: &str) -> u64 {
        let n = self.add_item(title, &[], body, true);
        self.w().pulls.insert(
            n,
            pull_routes::PullMeta {
                head_ref: head.into(),
                base_ref: base.into(),
                merged_at: None,
                merge_method: None,
                commits: Vec::new(),
                reviews: Vec::new(),
            },
        );
        n
    }

    /// Pushes commits (their messages, oldest first) to an open pull request's head, as a
    /// teammate would; its `head.sha` becomes the last one's.
    pub fn push_pull_commits(&self, n: u64, messages: &[&str]) {
        let mut w = self.w();
        let m = w.pulls.get_mut(&n).expect("a pull request");
        for msg in messages {
            let k = m.commits.len() + 1;
            let sha = format!("{:040x}", n * 1_000_000 + k as u64);
            m.commits.push((sha, msg.to_string()));
        }
    }

    /// Marks a pull request merged (the test makes the git side of the merge).
    pub fn merge_pull(&self, n: u64, method: &str) {
        self.w().merge(n, method);
    }

    /// Closes a pull request without merging.
    pub fn close_pull(&self, n: u64) {
        let mut w = self.w();
        let now = w.now();
        let i = w.issues.get_mut(&n).unwrap();
        i.state = "closed".into();
        i.closed_at = Some(now);
    }
}
