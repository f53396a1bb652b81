//! The HTTP client for the GitHub REST API: a small blocking client (`ureq`, rustls with the
//! platform's root certificates, no OpenSSL) under this tool's own retry policy, because a
//! generic client's retries would repeat a `POST` after a 5xx, which duplicates a comment or an
//! issue that GitHub created behind the error.
//!
//! Policy: rate limits (`429`, or `403` with `retry-after`, `x-ratelimit-remaining: 0` or a
//! "rate limit" message) wait for `retry-after` or `x-ratelimit-reset` and retry any request
//! (a rate-limited request was not applied); 5xx and broken connections retry with doubling
//! back-off only requests that are safe to repeat (reads, `PATCH`, `DELETE`, adding labels);
//! a create that failed that way is reported as maybe-applied so the caller looks before it
//! creates again. All waiting in one command is bounded by `Settings::max_wait`. Writes are
//! spaced by `Settings::min_write_interval`.
//!
//! Transport (docs/github.md "The HTTP client"): connect within 10 s, each read and write
//! within 30 s, a whole request within 90 s; reads follow up to 20 redirects (the token only
//! to the same host), writes follow none (a redirected write is answered as it came, never
//! replayed as a `GET`); no proxy from the environment; the token only in the
//! `Authorization` header, never in a log line.

use crate::github::errors::{FailureKind, GithubError, kind_of_status, one_line};
use crate::github::settings::Settings;
use http::{HeaderMap, Method};
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

/// The client. Blocking, one connection pool per client.
pub struct Client {
    agent: ureq::Agent,
    /// `Bearer <token>`, marked sensitive.
    authorization: http::HeaderValue,
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

/// The most one answer may weigh (a page of 100 issues with the longest bodies is ~26 MB).
const MAX_BODY_BYTES: u64 = 256 * 1024 * 1024;

/// The transport: timeouts, redirects, TLS roots, headers every request carries.
fn agent() -> ureq::Agent {
    let tls = ureq::tls::TlsConfig::builder()
        // the system's roots, as git and curl use them (a GHES behind a private CA works)
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_per_read(Some(Duration::from_secs(30)))
        .timeout_per_write(Some(Duration::from_secs(30)))
        .timeout_global(Some(Duration::from_secs(90)))
        .max_redirects(20)
        .max_redirects_will_error(false)
        .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
        .proxy(None)
        .user_agent(concat!("swarm-attack/", env!("CARGO_PKG_VERSION")))
        .accept("application/vnd.github+json")
        .tls_config(tls)
        .build()
        .new_agent()
}

/// Why the client could not be built (before any request): one sentence, token redacted.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ClientBuildError(pub String);

impl Client {
    /// Builds the client (no request is sent).
    pub fn new(settings: Settings) -> Result<Client, ClientBuildError> {
        let base_ok = settings
            .api_url
            .parse::<http::Uri>()
            .is_ok_and(|u| matches!(u.scheme_str(), Some("https" | "http")) && u.host().is_some());
        if !base_ok {
            return Err(ClientBuildError(format!(
                "bad API base {}: not an http(s) URL",
                settings.api_url
            )));
        }
        let mut authorization = http::HeaderValue::from_str(&format!(
            "Bearer {}",
            settings.token.expose()
        ))
        .map_err(|_| {
            ClientBuildError("the GitHub token contains characters a header cannot carry".into())
        })?;
        authorization.set_sensitive(true);
        Ok(Client {
            agent: agent(),
            authorization,
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
        let url = format!("{}{}", self.settings.api_url, req.path);
        let mut b = http::Request::builder()
            .method(req.method.clone())
            .uri(url.as_str())
            .header(http::header::AUTHORIZATION, self.authorization.clone())
            .header("x-github-api-version", "2022-11-28");
        if let Some(tag) = &req.if_none_match {
            b = b.header(http::header::IF_NONE_MATCH, tag.as_str());
        }
        tracing::debug!("GitHub request: {} {}", req.method, req.path);
        let answer = if req.is_write() {
            let body = match &req.body {
                Some(v) => {
                    b = b.header(http::header::CONTENT_TYPE, "application/json");
                    // nothing the tool sends to GitHub carries a secret value
                    crate::secrets::mask(&serde_json::to_string(v).unwrap_or_default())
                        .into_owned()
                        .into_bytes()
                }
                None => Vec::new(),
            };
            let request = b.body(body).map_err(|e| e.to_string())?;
            // a redirected write is answered as it came: never replayed, never turned into a GET
            let request = self
                .agent
                .configure_request(request)
                .max_redirects(0)
                .build();
            self.agent.run(request)
        } else {
            let request = b.body(()).map_err(|e| e.to_string())?;
            self.agent.run(request)
        };
        let mut resp = answer.map_err(|e| e.to_string())?;
        let status = resp.status().as_u16();
        tracing::debug!("GitHub answer: {} {} → {status}", req.method, req.path);
        let headers = std::mem::take(resp.headers_mut());
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_string()
            .map_err(|e| e.to_string())?;
        Ok(Raw {
            status,
            headers,
            text,
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
mod tests;
