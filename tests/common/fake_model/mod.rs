//! A fake model server on 127.0.0.1 for driving the REAL agent CLIs in tests: the Anthropic
//! Messages API (SSE and plain JSON) for Claude Code, the OpenAI Responses API (SSE) for
//! Codex, the Gemini API (`streamGenerateContent?alt=sse`, `generateContent`) for Gemini CLI
//! (module `gemini`) and OpenAI Chat Completions (streamed and not) for OpenCode and aider
//! (module `chat`). Every streamed answer ends with `Connection: close` (the CLIs wait for
//! the close).
//!
//! The model is scripted by [`WriteRule`]s: when a conversation's user text contains a rule's
//! `needle` and no tool has run yet, the model calls the CLI's own file-writing tool (Claude:
//! `Write` with an absolute path under the "Primary working directory" the CLI reports;
//! Codex: its `exec_command` shell tool; Gemini CLI: `write_file`; OpenCode: `write`; aider,
//! which has no tools: a whole-file listing) for every matching rule; once a tool result is
//! back, it answers "Done." and ends the turn — or, on the Messages API (Claude Code), the text
//! of the first [`ReplyRule`] whose needles are all in the user text (a reviewer's answer,
//! [`FakeModel::set_replies`]). Every request is recorded (method, path, JSON body). [`Mode`]
//! makes it refuse every model call (401), never answer, or answer Claude Code's calls with
//! 529 overloaded.
#![allow(dead_code)]

mod chat;
mod gemini;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::fake_github::read_request;

/// Write `content` to `path` (relative to the agent's working directory) when the user text
/// contains `needle`.
#[derive(Debug, Clone)]
pub struct WriteRule {
    pub needle: String,
    pub path: String,
    pub content: String,
}

impl WriteRule {
    pub fn new(needle: &str, path: &str, content: &str) -> Self {
        WriteRule {
            needle: needle.into(),
            path: path.into(),
            content: content.into(),
        }
    }

    /// Not a write: when the user text contains `needle`, the model answers `text` and ends
    /// its turn, calling no tool (Claude Code's Messages API only; e.g. a reviewer's JSON).
    pub fn reply(needle: &str, text: &str) -> Self {
        WriteRule::new(needle, "", text)
    }
}

/// On the Messages API, the final text of a turn whose user text contains every one of
/// `needles` (instead of "Done."); the first matching rule wins.
#[derive(Debug, Clone)]
pub struct ReplyRule {
    pub needles: Vec<String>,
    pub text: String,
}

impl ReplyRule {
    pub fn new(needles: &[&str], text: &str) -> Self {
        ReplyRule {
            needles: needles.iter().map(|n| n.to_string()).collect(),
            text: text.into(),
        }
    }
}

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

/// Token usage the fake reports for every model call.
pub const USAGE_IN: u64 = 120;
pub const USAGE_CACHED: u64 = 30;
pub const USAGE_OUT: u64 = 15;

/// How the fake answers model calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// As scripted by the rules.
    Answer,
    /// 401 with an "Invalid API key" error, in each API's shape.
    Unauthorized,
    /// Never, to a model call (a POST): the connection stays open without a byte of answer.
    Hang,
    /// 529 `overloaded_error` to every Anthropic Messages call (Claude Code); every other
    /// API answers as scripted (so another vendor's CLI can take over).
    Overloaded,
}

struct Shared {
    rules: Vec<WriteRule>,
    replies: Vec<ReplyRule>,
    log: Vec<Recorded>,
    mode: Mode,
}

/// The running fake; stops accepting when dropped.
pub struct FakeModel {
    pub url: String,
    shared: Arc<Mutex<Shared>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl FakeModel {
    pub fn start(rules: Vec<WriteRule>) -> FakeModel {
        Self::start_mode(rules, Mode::Answer)
    }

    pub fn start_mode(rules: Vec<WriteRule>, mode: Mode) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Mutex::new(Shared {
            rules,
            replies: Vec::new(),
            log: Vec::new(),
            mode,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (sh, st) = (shared.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if st.load(Ordering::Relaxed) {
                    break;
                }
                if let Ok(stream) = stream {
                    let sh = sh.clone();
                    std::thread::spawn(move || serve(stream, sh));
                }
            }
        });
        FakeModel {
            url: format!("http://127.0.0.1:{port}"),
            shared,
            stop,
            port,
        }
    }

    /// The final texts of Messages API turns from now on (see [`ReplyRule`]).
    pub fn set_replies(&self, replies: Vec<ReplyRule>) {
        self.shared.lock().unwrap().replies = replies;
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().unwrap().log.clone()
    }

    /// The model calls (Messages, Responses, Gemini or Chat Completions requests) so far.
    pub fn model_calls(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| {
                r.method == "POST"
                    && (r.path == "/v1/messages"
                        || r.path.ends_with("/responses")
                        || r.path.ends_with("/chat/completions")
                        || r.path.contains(":streamGenerateContent")
                        || r.path.contains(":generateContent"))
            })
            .collect()
    }

    /// Whether some model call carries `prompt` as one whole user text block, byte for byte.
    pub fn received_prompt(&self, prompt: &str) -> bool {
        self.model_calls()
            .iter()
            .any(|r| user_texts(&r.body).iter().any(|t| t == prompt))
    }

    /// Whether some model call carries `prompt` byte for byte inside one user text block
    /// (aider appends its edit-format reminder to the user's message).
    pub fn received_prompt_within(&self, prompt: &str) -> bool {
        self.model_calls()
            .iter()
            .any(|r| user_texts(&r.body).iter().any(|t| t.contains(prompt)))
    }

    /// Every user text block of every model call (for failure messages).
    pub fn all_user_texts(&self) -> Vec<String> {
        self.model_calls()
            .iter()
            .flat_map(|r| user_texts(&r.body))
            .collect()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// The text blocks of the user messages in a Messages or Chat Completions (`messages`),
/// Responses (`input`) or Gemini (`contents`) request body.
pub fn user_texts(body: &Value) -> Vec<String> {
    if let Some(contents) = body.get("contents").and_then(Value::as_array) {
        return contents
            .iter()
            .filter(|c| c["role"] == "user")
            .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
            .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_string))
            .collect();
    }
    let items = body
        .get("messages")
        .or_else(|| body.get("input"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    for m in items.iter().filter(|m| m["role"] == "user") {
        match &m["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(blocks) => {
                for b in blocks {
                    if let Some(t) = b.get("text").and_then(Value::as_str) {
                        out.push(t.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn serve(stream: TcpStream, shared: Arc<Mutex<Shared>>) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some((method, target, headers, body)) = read_request(&mut reader) {
        let path = target.split('?').next().unwrap_or("").to_string();
        let json: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let reply = {
            let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
            sh.log.push(Recorded {
                method: method.clone(),
                path: path.clone(),
                headers: headers.clone(),
                body: json.clone(),
            });
            match sh.mode {
                Mode::Answer => answer(&method, &path, &json, &sh),
                Mode::Unauthorized if method == "POST" => unauthorized(),
                Mode::Unauthorized => answer(&method, &path, &json, &sh),
                Mode::Overloaded if method == "POST" && path.starts_with("/v1/messages") => {
                    overloaded()
                }
                Mode::Overloaded => answer(&method, &path, &json, &sh),
                Mode::Hang if method != "POST" => answer(&method, &path, &json, &sh),
                Mode::Hang => {
                    drop(sh);
                    // hold the connection, answer nothing (the test ends first)
                    std::thread::sleep(std::time::Duration::from_secs(900));
                    return;
                }
            }
        };
        let mut out = format!("HTTP/1.1 {} OK\r\ncontent-type: {}\r\n", reply.0, reply.1);
        let close = reply.1 == "text/event-stream";
        if close {
            out.push_str("connection: close\r\n\r\n");
        } else {
            out.push_str(&format!("content-length: {}\r\n\r\n", reply.2.len()));
        }
        out.push_str(&reply.2);
        if writer.write_all(out.as_bytes()).is_err() || writer.flush().is_err() || close {
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

/// (status, content type, body).
pub(super) type Reply = (u16, &'static str, String);

fn answer(method: &str, path: &str, body: &Value, sh: &Shared) -> Reply {
    let rules = &sh.rules;
    match (method, path) {
        ("POST", "/v1/messages") => anthropic(body, rules, &sh.replies),
        ("POST", "/v1/messages/count_tokens") => (
            200,
            "application/json",
            json!({"input_tokens": USAGE_IN}).to_string(),
        ),
        ("POST", p) if p.ends_with("/responses") => openai(body, rules),
        ("POST", p) if p.ends_with("/chat/completions") => chat::answer(body, rules),
        ("POST", p) if p.contains(":streamGenerateContent") => gemini::stream(body, rules),
        ("POST", p) if p.contains(":generateContent") => gemini::generate(body),
        ("POST", p) if p.contains(":countTokens") => (
            200,
            "application/json",
            json!({"totalTokens": USAGE_IN}).to_string(),
        ),
        ("GET", p) if p.ends_with("/models") => (
            200,
            "application/json",
            json!({"object": "list", "data": [], "models": []}).to_string(),
        ),
        ("GET", _) => (
            404,
            "application/json",
            json!({"error": {"type": "not_found_error", "message": "not found"}}).to_string(),
        ),
        _ => (200, "application/json", "{}".into()),
    }
}

/// A 401 every API's client reads as an authentication failure: Gemini's `error.code` and
/// `status`, OpenAI's and Anthropic's `type` and `code`.
fn unauthorized() -> Reply {
    (
        401,
        "application/json",
        json!({"error": {"code": 401, "status": "UNAUTHENTICATED", "type": "authentication_error",
            "message": "Invalid API key"}})
        .to_string(),
    )
}

/// Anthropic's 529: the API is overloaded (not a rate limit).
fn overloaded() -> Reply {
    (
        529,
        "application/json",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
            .to_string(),
    )
}

/// The write rules whose needle is in the last user message's text.
pub(super) fn matching<'a>(body: &Value, rules: &'a [WriteRule]) -> Vec<&'a WriteRule> {
    let texts = user_texts(body).join("\n");
    rules
        .iter()
        .filter(|r| !r.path.is_empty() && texts.contains(&r.needle))
        .collect()
}

/// The text of the first reply rule ([`WriteRule::reply`]) whose needle is in the user text.
fn reply_for<'a>(body: &Value, rules: &'a [WriteRule]) -> Option<&'a str> {
    let texts = user_texts(body).join("\n");
    rules
        .iter()
        .find(|r| r.path.is_empty() && texts.contains(&r.needle))
        .map(|r| r.content.as_str())
}

fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}

fn anthropic(body: &Value, rules: &[WriteRule], replies: &[ReplyRule]) -> Reply {
    let has_tools = body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "Write"));
    let last_is_result = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
    let reply = reply_for(body, rules);
    let writes = if has_tools && !last_is_result && reply.is_none() {
        matching(body, rules)
    } else {
        Vec::new()
    };
    let raw = body.to_string();
    let cwd = raw
        .split("Primary working directory: ")
        .nth(1)
        .and_then(|s| s.split("\\n").next())
        .unwrap_or(".")
        .to_string();
    let mut blocks = Vec::new();
    for (i, w) in writes.iter().enumerate() {
        blocks.push(
            json!({"type": "tool_use", "id": format!("toolu_{i:02}"), "name": "Write",
            "input": {"file_path": format!("{cwd}/{}", w.path), "content": w.content}}),
        );
    }
    if blocks.is_empty() {
        // a reply rule of the write rules first, then one of the reply rules, else "Done."
        let texts = user_texts(body).join("\n");
        let text = reply.unwrap_or_else(|| {
            replies
                .iter()
                .find(|r| r.needles.iter().all(|n| texts.contains(n)))
                .map_or("Done.", |r| r.text.as_str())
        });
        blocks.push(json!({"type": "text", "text": text}));
    }
    let stop = if writes.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    let usage = json!({"input_tokens": USAGE_IN - USAGE_CACHED, "cache_read_input_tokens": USAGE_CACHED,
        "cache_creation_input_tokens": 0, "output_tokens": USAGE_OUT});
    let model = body["model"].as_str().unwrap_or("claude-fake");
    if body["stream"] != true {
        let msg = json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "stop_sequence": null, "usage": usage});
        return (200, "application/json", msg.to_string());
    }
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_fake",
        "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": USAGE_IN - USAGE_CACHED, "cache_read_input_tokens": USAGE_CACHED,
                  "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
    ];
    for (index, b) in blocks.iter().enumerate() {
        let (start, delta) = if b["type"] == "tool_use" {
            (
                json!({"type": "tool_use", "id": b["id"], "name": "Write", "input": {}}),
                json!({"type": "input_json_delta", "partial_json": b["input"].to_string()}),
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": b["text"]}),
            )
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": {"output_tokens": USAGE_OUT}}),
    );
    events.push(json!({"type": "message_stop"}));
    (200, "text/event-stream", sse(&events))
}

/// A POSIX shell single-quoted word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn openai(body: &Value, rules: &[WriteRule]) -> Reply {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let has_output = input
        .iter()
        .any(|i| i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output");
    let has_shell = body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "exec_command"));
    let writes = if has_shell && !has_output {
        matching(body, rules)
    } else {
        Vec::new()
    };
    let mut events = vec![json!({"type": "response.created", "response": {"id": "resp_fake"}})];
    if writes.is_empty() {
        events.push(
            json!({"type": "response.output_item.done", "item": {"type": "message",
            "role": "assistant", "id": "msg_fake",
            "content": [{"type": "output_text", "text": "Done."}]}}),
        );
    }
    for (i, w) in writes.iter().enumerate() {
        let dir = std::path::Path::new(&w.path)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mkdir = if dir.is_empty() {
            String::new()
        } else {
            format!("mkdir -p {} && ", quote(&dir))
        };
        let cmd = format!(
            "{mkdir}printf '%s' {} > {}",
            quote(&w.content),
            quote(&w.path)
        );
        events.push(
            json!({"type": "response.output_item.done", "item": {"type": "function_call",
            "name": "exec_command", "call_id": format!("call_{i}"),
            "arguments": json!({"cmd": cmd}).to_string()}}),
        );
    }
    events.push(
        json!({"type": "response.completed", "response": {"id": "resp_fake",
        "usage": {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": USAGE_CACHED},
                  "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": USAGE_IN + USAGE_OUT}}}),
    );
    (200, "text/event-stream", sse(&events))
}
