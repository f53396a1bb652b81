//! The client's own rules (Link headers, the API base) and its transport against a local
//! server that records what it receives: headers, redirects, no replayed write.

use super::*;
use crate::github::settings::Token;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

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

/// What the test server answers: status, extra headers, body.
type Answer = (u16, Vec<(&'static str, String)>, String);

/// One request as the server received it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A local HTTP/1.1 server answering each request with `answer(method, path)`: `(status,
/// extra headers, body)`. Returns its base URL and what it received.
fn serve(answer: fn(&str, &str) -> Answer) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut parts = line.split_whitespace();
                    let method = parts.next().unwrap_or_default().to_string();
                    let path = parts.next().unwrap_or_default().to_string();
                    let mut headers = Vec::new();
                    loop {
                        let mut h = String::new();
                        reader.read_line(&mut h).unwrap();
                        let h = h.trim_end();
                        if h.is_empty() {
                            break;
                        }
                        let (k, v) = h.split_once(':').unwrap();
                        headers.push((k.trim().to_lowercase(), v.trim().to_string()));
                    }
                    let len = headers
                        .iter()
                        .find(|(k, _)| k == "content-length")
                        .map(|(_, v)| v.parse().unwrap())
                        .unwrap_or(0);
                    let mut body = vec![0; len];
                    reader.read_exact(&mut body).unwrap();
                    let (status, extra, text) = answer(&method, &path);
                    log.lock().unwrap().push(Seen {
                        method,
                        path,
                        headers,
                        body: String::from_utf8_lossy(&body).into_owned(),
                    });
                    let mut reply =
                        format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", text.len());
                    for (k, v) in extra {
                        reply.push_str(&format!("{k}: {v}\r\n"));
                    }
                    reply.push_str("\r\n");
                    reply.push_str(&text);
                    if out.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (base, seen)
}

fn settings(api_url: &str) -> Settings {
    Settings {
        token: Token::new("ghp_testtokenvalue", "GITHUB_TOKEN"),
        api_url: api_url.to_string(),
        repo: "o/r".into(),
        min_write_interval: Duration::ZERO,
        max_wait: Duration::from_secs(2),
        backoff: Duration::from_millis(1),
        max_attempts: 3,
    }
}

fn client(api_url: &str) -> Client {
    Client::new(settings(api_url)).unwrap()
}

#[test]
fn every_request_carries_the_token_the_api_version_and_our_user_agent() {
    let (base, seen) = serve(|_, _| (200, vec![("etag", "\"abc\"".into())], "{\"ok\":1}".into()));
    let mut c = client(&base);
    let mut req = Request::get("/repos/o/r/issues/1");
    req.if_none_match = Some("\"old\"".into());
    let resp = c.send(&req).unwrap();
    assert_eq!(resp.status, 200);
    assert_eq!(resp.etag.as_deref(), Some("\"abc\""));
    assert_eq!(resp.body["ok"], 1);
    let seen = seen.lock().unwrap();
    let r = &seen[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/repos/o/r/issues/1")
    );
    assert_eq!(r.header("authorization"), Some("Bearer ghp_testtokenvalue"));
    assert_eq!(r.header("accept"), Some("application/vnd.github+json"));
    assert_eq!(r.header("x-github-api-version"), Some("2022-11-28"));
    assert_eq!(r.header("if-none-match"), Some("\"old\""));
    assert!(
        r.header("user-agent")
            .is_some_and(|ua| ua.starts_with("swarm-attack/"))
    );
}

#[test]
fn a_write_sends_its_json_body_and_an_empty_write_says_length_zero() {
    let (base, seen) = serve(|_, _| (201, vec![], "{}".into()));
    let mut c = client(&base);
    let body = serde_json::json!({"body": "hello"});
    c.send(&Request::write(
        Method::POST,
        "/repos/o/r/issues/1/comments",
        Some(body),
    ))
    .unwrap();
    c.send(&Request::write(
        Method::PUT,
        "/repos/o/r/issues/1/lock",
        None,
    ))
    .unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].body, "{\"body\":\"hello\"}");
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[1].method, "PUT");
    assert_eq!(seen[1].header("content-length"), Some("0"));
}

/// A renamed repository: its old paths answer 301 to the new one.
fn renamed_repository(_method: &str, path: &str) -> Answer {
    if path.starts_with("/repos/old/") {
        let to = "/repositories/9/issues/1".to_string();
        (301, vec![("location", to)], String::new())
    } else {
        (200, vec![], "{\"number\":1}".into())
    }
}

#[test]
fn a_read_follows_a_redirect_on_the_same_host_with_the_token() {
    let (base, seen) = serve(renamed_repository);
    let mut c = client(&base);
    let resp = c.send(&Request::get("/repos/old/name/issues/1")).unwrap();
    assert_eq!(resp.body["number"], 1);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].path, "/repositories/9/issues/1");
    assert_eq!(
        seen[1].header("authorization"),
        Some("Bearer ghp_testtokenvalue")
    );
}

#[test]
fn a_redirected_write_is_never_replayed_nor_turned_into_a_read() {
    let (base, seen) = serve(renamed_repository);
    let mut c = client(&base);
    let body = serde_json::json!({"state": "closed"});
    let err = c
        .send(&Request::write(
            Method::PATCH,
            "/repos/old/name/issues/1",
            Some(body),
        ))
        .unwrap_err();
    assert_eq!(err.status, Some(301));
    assert_eq!(err.kind, FailureKind::Other);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].method, "PATCH");
}

#[test]
fn a_post_after_a_5xx_is_sent_once_and_reported_maybe_applied() {
    let (base, seen) = serve(|_, _| (502, vec![], "{\"message\":\"Bad Gateway\"}".into()));
    let mut c = client(&base);
    let body = serde_json::json!({"body": "x"});
    let err = c
        .send(&Request::write(
            Method::POST,
            "/repos/o/r/issues/1/comments",
            Some(body),
        ))
        .unwrap_err();
    assert_eq!(err.kind, FailureKind::Server);
    assert!(err.maybe_applied);
    assert_eq!(seen.lock().unwrap().len(), 1);
    // a read is retried up to the attempts allowed
    let err = c.send(&Request::get("/repos/o/r/issues/1")).unwrap_err();
    assert_eq!(err.kind, FailureKind::Server);
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[test]
fn pagination_follows_the_link_header_on_our_base() {
    let (base, _seen) = serve(|_, _| {
        (
            200,
            vec![(
                "link",
                "<https://elsewhere.example/repos/o/r/issues?page=2>; rel=\"next\"".into(),
            )],
            "[]".into(),
        )
    });
    let mut c = client(&base);
    let resp = c.send(&Request::get("/repos/o/r/issues?page=1")).unwrap();
    assert_eq!(resp.next.as_deref(), Some("/repos/o/r/issues?page=2"));
}

#[test]
fn an_unreachable_github_is_a_transport_error_without_the_token() {
    // a port nobody listens on
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut c = client(&format!("http://127.0.0.1:{port}"));
    let err = c.send(&Request::get("/repos/o/r/issues/1")).unwrap_err();
    assert_eq!(err.kind, FailureKind::Transport);
    assert!(!err.message.contains("ghp_testtokenvalue"));
    assert!(!err.message.is_empty());
}

#[test]
fn only_http_and_https_api_bases_build_a_client() {
    assert!(Client::new(settings("https://api.github.com")).is_ok());
    assert!(Client::new(settings("http://127.0.0.1:9")).is_ok());
    for bad in ["ftp://api.github.com", "api.github.com", "file:///etc"] {
        let err = Client::new(settings(bad)).unwrap_err();
        assert!(err.0.contains("not an http(s) URL"), "{bad}: {err}");
    }
}
