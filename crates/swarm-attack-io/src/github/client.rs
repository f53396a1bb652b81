//! The HTTP client for the GitHub REST API: octocrab's transport (rustls, no OpenSSL) with
//! this tool's own retry policy, because octocrab's default retries a `POST` after a 5xx,
//! which duplicates a comment or an issue that GitHub created behind the error.
//!
//! Policy: rate limits (`429`, or `403` with `retry-after`, `x-ratelimit-remaining: 0` or a
//! "rate limit" message) wait for `retry-after` or `x-ratelimit-reset` and retry any request
//! (a rate-limited request was not applied); 5xx and broken connections retry with doubling
//! back-off only requests that are safe to repeat (reads, `PATCH`, `DELETE`, adding labels);
//! a create that failed that way is reported as maybe-applied so the caller looks before it
//! creates again. All waiting in one command is bounded by `Settings::max_wait`. Writes are
//! spaced by `Settings::min_write_interval`.

use crate::github::errors::{FailureKind, GithubError, kind_of_status, one_line};
use crate::github::settings::Settings;
use http::{HeaderMap, Method};
use octocrab::Octocrab;
use serde_json::Value;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One request to send.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    /// A path from the API base (`/repos/o/r/...`), with its query.
    pub path: String,
    pub body: Option<Value>,
    pub if_none_match: Option<String>,
    /// Whether sending it twice is harmless (reads, PATCH, DELETE, adding labels).
    pub idempotent: bool,
}

impl Request {
    pub fn get(path: impl Into<String>) -> Request {
        Request {
            method: Method::GET,
            path: path.into(),
            body: None,
            if_none_match: None,
            idempotent: true,
        }
    }
    pub fn write(method: Method, path: impl Into<String>, body: Option<Value>) -> Request {
        let idempotent = method != Method::POST;
        Request {
            method,
            path: path.into(),
            body,
            if_none_match: None,
            idempotent,
        }
    }
    pub fn is_write(&self) -> bool {
        self.method != Method::GET && self.method != Method::HEAD
    }
    /// `METHOD path` (no query), for messages and the outbox.
    pub fn describe(&self) -> String {
        let path = self.path.split('?').next().unwrap_or_default();
        format!("{} {path}", self.method)
    }
}

/// A successful answer (2xx or 304).
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub etag: Option<String>,
    /// The next page (a path from the API base), from the `Link` header.
    pub next: Option<String>,
    /// The JSON body (Null when empty, e.g. 204 or 304).
    pub body: Value,
}

impl Response {
    pub fn not_modified(&self) -> bool {
        self.status == 304
    }
}

/// One request sent (each attempt counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentRequest {
    pub method: String,
    pub path: String,
    pub status: Option<u16>,
}

/// The client. Blocking: it owns a small tokio runtime.
pub struct Client {
    rt: tokio::runtime::Runtime,
    octo: Octocrab,
    pub settings: Settings,
    sent: Vec<SentRequest>,
    last_write: Option<Instant>,
    waited: Duration,
    /// `(remaining, reset epoch seconds)` from the last response.
    limit: Option<(u64, u64)>,
    /// Set when a request could not reach GitHub after its retries: the rest of the run
    /// fails fast (to the outbox) instead of waiting again for each request.
    unreachable: Option<String>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("api_url", &self.settings.api_url)
            .field("repo", &self.settings.repo)
            .finish_non_exhaustive()
    }
}

struct Raw {
    status: u16,
    headers: HeaderMap,
    text: String,
}

fn header_u64(h: &HeaderMap, name: &str) -> Option<u64> {
    h.get(name)?.to_str().ok()?.trim().parse().ok()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `<url>; rel="next"` from a Link header.
fn link_next(h: &HeaderMap) -> Option<String> {
    let link = h.get("link")?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"")
            .then(|| {
                url.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string()
            })
    })
}

/// The path (and query) to request on the API base `api_url` for a link `url`.
fn relative_to(api_url: &str, url: &str) -> Option<String> {
    if let Some(rest) = url.strip_prefix(api_url) {
        if rest.is_empty() || rest.starts_with('/') || rest.starts_with('?') {
            return Some(if rest.starts_with('/') {
                rest.to_string()
            } else {
                format!("/{rest}")
            });
        }
        return None;
    }
    // The link names the API under another spelling of the host (`localhost` for
    // `127.0.0.1`, a proxy name, ...): follow its path and query on OUR API base, so the
    // token is never sent anywhere else.
    let uri: http::Uri = url.parse().ok()?;
    let pq = uri.path_and_query()?.as_str();
    let base_path = api_url
        .parse::<http::Uri>()
        .ok()
        .map(|b| b.path().trim_end_matches('/').to_string())
        .unwrap_or_default();
    let rest = if base_path.is_empty() {
        pq
    } else {
        pq.strip_prefix(base_path.as_str()).unwrap_or(pq)
    };
    rest.starts_with('/').then(|| rest.to_string())
}

/// Why the client could not be built (before any request): one sentence, token redacted.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ClientBuildError(pub String);

impl Client {
    /// Builds the client (no request is sent).
    pub fn new(settings: Settings) -> Result<Client, ClientBuildError> {
        let fail = ClientBuildError;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| fail(format!("cannot start the HTTP runtime: {e}")))?;
        let octo = {
            let _guard = rt.enter();
            Octocrab::builder()
                .personal_token(settings.token.expose().to_string())
                .base_uri(settings.api_url.as_str())
                .map_err(|e| fail(format!("bad API base {}: {e}", settings.api_url)))?
                .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
                .set_connect_timeout(Some(Duration::from_secs(10)))
                .set_read_timeout(Some(Duration::from_secs(30)))
                .set_write_timeout(Some(Duration::from_secs(30)))
                .build()
                .map_err(|e| {
                    fail(
                        settings
                            .token
                            .redact(&format!("cannot build the HTTP client: {e}")),
                    )
                })?
        };
        Ok(Client {
            rt,
            octo,
            settings,
            sent: Vec::new(),
            last_write: None,
            waited: Duration::ZERO,
            limit: None,
            unreachable: None,
        })
    }

    /// Every request sent so far (each attempt), in order.
    pub fn sent(&self) -> &[SentRequest] {
        &self.sent
    }

    /// `(reads, writes)` sent so far.
    pub fn counts(&self) -> (usize, usize) {
        let writes = self
            .sent
            .iter()
            .filter(|r| r.method != "GET" && r.method != "HEAD")
            .count();
        (self.sent.len() - writes, writes)
    }

    /// A `Link` URL as a path from the API base; None when it points elsewhere (the token
    /// is never sent to another host).
    pub fn relative(&self, url: &str) -> Option<String> {
        relative_to(&self.settings.api_url, url)
    }

    fn send_once(&mut self, req: &Request) -> Result<Raw, String> {
        let mut b = http::Request::builder()
            .method(req.method.clone())
            .uri(req.path.as_str())
            .header(http::header::ACCEPT, "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28");
        if let Some(tag) = &req.if_none_match {
            b = b.header(http::header::IF_NONE_MATCH, tag.as_str());
        }
        let body: octocrab::OctoBody = match &req.body {
            Some(v) => {
                b = b.header(http::header::CONTENT_TYPE, "application/json");
                // nothing the tool sends to GitHub carries a secret value
                crate::secrets::mask(&serde_json::to_string(v).unwrap_or_default())
                    .into_owned()
                    .into()
            }
            None => {
                if req.is_write() {
                    b = b.header(http::header::CONTENT_LENGTH, "0");
                }
                octocrab::OctoBody::empty()
            }
        };
        let request = b.body(body).map_err(|e| e.to_string())?;
        tracing::debug!("GitHub request: {} {}", req.method, req.path);
        let octo = &self.octo;
        self.rt.block_on(async {
            let run = async {
                let resp = octo.execute(request).await.map_err(|e| e.to_string())?;
                let status = resp.status().as_u16();
                tracing::debug!("GitHub answer: {} {} → {status}", req.method, req.path);
                let headers = resp.headers().clone();
                let text = octo.body_to_string(resp).await.map_err(|e| e.to_string())?;
                Ok::<_, String>(Raw {
                    status,
                    headers,
                    text,
                })
            };
            match tokio::time::timeout(Duration::from_secs(90), run).await {
                Ok(r) => r,
                Err(_) => Err("timed out after 90 s".to_string()),
            }
        })
    }

    fn budget_left(&self) -> Duration {
        self.settings.max_wait.saturating_sub(self.waited)
    }

    /// Waits `d` if the budget allows; false when it does not (nothing is waited then).
    fn wait(&mut self, d: Duration) -> bool {
        if d > self.budget_left() {
            return false;
        }
        if !d.is_zero() {
            std::thread::sleep(d);
        }
        self.waited += d;
        true
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.settings.backoff * 2u32.saturating_pow(attempt.saturating_sub(1).min(10))
    }

    /// How long a 403/429 asks to wait; None when it is not a rate limit.
    fn rate_limit_wait(&self, raw: &Raw, message: &str, attempt: u32) -> Option<Duration> {
        if raw.status != 403 && raw.status != 429 {
            return None;
        }
        if let Some(secs) = header_u64(&raw.headers, "retry-after") {
            return Some(Duration::from_secs(secs));
        }
        if header_u64(&raw.headers, "x-ratelimit-remaining") == Some(0)
            && let Some(reset) = header_u64(&raw.headers, "x-ratelimit-reset")
        {
            return Some(Duration::from_millis(
                (reset * 1000).saturating_sub(now_ms()) + 50,
            ));
        }
        let lower = message.to_lowercase();
        if raw.status == 429 || lower.contains("rate limit") || lower.contains("abuse") {
            return Some(self.backoff(attempt));
        }
        None
    }

    fn error(
        &self,
        req: &Request,
        kind: FailureKind,
        status: Option<u16>,
        msg: &str,
    ) -> GithubError {
        GithubError {
            kind,
            status,
            message: self.settings.token.redact(&one_line(msg, 300)),
            code: None,
            maybe_applied: false,
            request: req.describe(),
        }
    }

    /// Sends a request under the retry policy; Ok for 2xx and 304.
    pub fn send(&mut self, req: &Request) -> Result<Response, GithubError> {
        if let Some(why) = &self.unreachable {
            let mut err = self.error(
                req,
                FailureKind::Transport,
                None,
                &format!("not sent: GitHub was unreachable earlier in this run ({why})"),
            );
            err.maybe_applied = false;
            return Err(err);
        }
        let max = self.settings.max_attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            // A primary limit already known to be exhausted: wait for its reset first.
            if let Some((0, reset)) = self.limit {
                let now = now_ms();
                if reset * 1000 > now {
                    let d = Duration::from_millis(reset * 1000 - now + 50);
                    if !self.wait(d) {
                        return Err(self.error(
                            req,
                            FailureKind::RateLimited,
                            None,
                            &format!("rate limit exhausted until reset in {} s", d.as_secs()),
                        ));
                    }
                }
                self.limit = None;
            }
            if req.is_write()
                && let Some(t) = self.last_write
            {
                let since = t.elapsed();
                if since < self.settings.min_write_interval {
                    std::thread::sleep(self.settings.min_write_interval - since);
                }
            }
            let result = self.send_once(req);
            if req.is_write() {
                self.last_write = Some(Instant::now());
            }
            let raw = match result {
                Ok(raw) => raw,
                Err(e) => {
                    self.sent.push(SentRequest {
                        method: req.method.to_string(),
                        path: req.path.clone(),
                        status: None,
                    });
                    let retry = req.idempotent && attempt < max;
                    if retry && self.wait(self.backoff(attempt)) {
                        continue;
                    }
                    let mut err = self.error(req, FailureKind::Transport, None, &e);
                    err.maybe_applied = req.is_write();
                    if req.idempotent {
                        // retried to exhaustion: GitHub cannot be reached now
                        self.unreachable = Some(err.message.clone());
                    }
                    return Err(err);
                }
            };
            self.sent.push(SentRequest {
                method: req.method.to_string(),
                path: req.path.clone(),
                status: Some(raw.status),
            });
            if let (Some(rem), Some(reset)) = (
                header_u64(&raw.headers, "x-ratelimit-remaining"),
                header_u64(&raw.headers, "x-ratelimit-reset"),
            ) {
                self.limit = Some((rem, reset));
            }
            if (200..300).contains(&raw.status) || raw.status == 304 {
                let body = if raw.text.trim().is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(&raw.text).unwrap_or(Value::Null)
                };
                let next = link_next(&raw.headers).and_then(|u| self.relative(&u));
                return Ok(Response {
                    status: raw.status,
                    etag: raw
                        .headers
                        .get(http::header::ETAG)
                        .and_then(|v| v.to_str().ok())
                        .map(String::from),
                    next,
                    body,
                });
            }
            let parsed: Value = serde_json::from_str(&raw.text).unwrap_or(Value::Null);
            let message = parsed
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if let Some(d) = self.rate_limit_wait(&raw, &message, attempt) {
                // A rate-limited request was not applied: any request may be repeated.
                let why = if attempt >= max {
                    format!("still limited after {attempt} attempts")
                } else if self.wait(d) {
                    self.limit = None;
                    continue;
                } else {
                    format!(
                        "asked to wait {} s, beyond the wait budget of {} s",
                        d.as_secs(),
                        self.settings.max_wait.as_secs()
                    )
                };
                return Err(self.error(
                    req,
                    FailureKind::RateLimited,
                    Some(raw.status),
                    &format!("{message} ({why})"),
                ));
            }
            if raw.status >= 500 {
                if req.idempotent && attempt < max && self.wait(self.backoff(attempt)) {
                    continue;
                }
                let mut err = self.error(req, FailureKind::Server, Some(raw.status), &message);
                err.maybe_applied = req.is_write();
                return Err(err);
            }
            let mut err = self.error(req, kind_of_status(raw.status), Some(raw.status), &message);
            err.code = parsed
                .get("errors")
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .and_then(|e| e.get("code"))
                .and_then(Value::as_str)
                .map(String::from);
            return Err(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_header_next_is_found() {
        let mut h = HeaderMap::new();
        h.insert(
            "link",
            "<https://api.github.com/repositories/1/issues/1/comments?page=2>; rel=\"next\", <https://api.github.com/repositories/1/issues/1/comments?page=3>; rel=\"last\""
                .parse()
                .unwrap(),
        );
        assert_eq!(
            link_next(&h).as_deref(),
            Some("https://api.github.com/repositories/1/issues/1/comments?page=2")
        );
        let mut h = HeaderMap::new();
        h.insert(
            "link",
            "<https://x/y?page=1>; rel=\"prev\"".parse().unwrap(),
        );
        assert_eq!(link_next(&h), None);
    }

    #[test]
    fn next_links_are_followed_on_our_own_api_base() {
        let base = "http://127.0.0.1:4000";
        assert_eq!(
            relative_to(base, "http://127.0.0.1:4000/repositories/1/issues?page=2").as_deref(),
            Some("/repositories/1/issues?page=2")
        );
        // another spelling of the host: the path is requested on our base, never elsewhere
        assert_eq!(
            relative_to(base, "http://localhost:4000/repositories/1/issues?page=2").as_deref(),
            Some("/repositories/1/issues?page=2")
        );
        let ghe = "https://ghe.example.com/api/v3";
        assert_eq!(
            relative_to(
                ghe,
                "https://ghe.example.com/api/v3/repos/o/r/issues?page=3"
            )
            .as_deref(),
            Some("/repos/o/r/issues?page=3")
        );
        assert_eq!(
            relative_to(
                ghe,
                "https://other.example.com/api/v3/repos/o/r/issues?page=3"
            )
            .as_deref(),
            Some("/repos/o/r/issues?page=3")
        );
        assert_eq!(relative_to(base, "not a url"), None);
    }
}
