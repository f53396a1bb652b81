//! One-line texts for the audit and the event timeline: event descriptions, durations,
//! short commits, fallback and convergence summaries.

use super::fields::{b, f, list, s_ref, text, u, value};
use crate::event_filter::parse_ts;
use crate::events::EventKind;
use crate::record::Fields;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Milliseconds from `a` to `b` (None when either is unreadable or `b` is before `a`).
pub fn millis_between(a: &str, b: &str) -> Option<u64> {
    let d = parse_ts(b)? - parse_ts(a)?;
    u64::try_from(d.whole_milliseconds()).ok()
}

/// The first line of a text, cut to `max` characters.
pub fn short(text: &str, max: usize) -> String {
    let mut out = String::new();
    short_into(&mut out, text, max);
    out
}

/// [`short`], appended to `out`.
pub fn short_into(out: &mut String, text: &str, max: usize) {
    // One line (the usual case, found with a byte search): the whole text, trimmed.
    let single = memchr::memchr(b'\n', text.as_bytes()).is_none();
    let line = if single {
        text.trim()
    } else {
        text.lines().next().unwrap_or("").trim()
    };
    // Cut at the byte where the character `max` starts: no per-character copying (and no
    // counting when the line has no more bytes than `max`).
    let (cut, longer) = match (line.len() > max).then(|| line.char_indices().nth(max)) {
        Some(Some((at, _))) => (&line[..at], true),
        _ => (line, false),
    };
    out.reserve(cut.len() + 3);
    out.push_str(cut);
    if longer || (!single && text.trim().lines().nth(1).is_some()) {
        out.push('…');
    }
}

fn secs(out: &mut String, ms: u64) {
    if ms < 1000 {
        let _ = write!(out, "{ms}ms");
    } else if ms < 60_000 {
        let _ = write!(out, "{:.1}s", ms as f64 / 1000.0);
    } else {
        let total = ms / 1000;
        let _ = write!(out, "{}m{:02}s", total / 60, total % 60);
    }
}

/// A one-line description of an event for a timeline.
pub fn describe<R: Fields + ?Sized>(kind: Option<EventKind>, rec: &R) -> String {
    let mut d = String::with_capacity(128);
    describe_into(&mut d, kind, rec);
    d
}

/// [`describe`], appended to `d` (no allocation but the buffer's growth for the frequent
/// events).
pub fn describe_into<R: Fields + ?Sized>(d: &mut String, kind: Option<EventKind>, rec: &R) {
    let opt = |k: &str| s_ref(rec, k).unwrap_or(Cow::Borrowed("-"));
    match kind {
        Some(EventKind::IssueStarted) => match u(rec, "attempt") {
            Some(n) => {
                let _ = write!(d, "attempt {n} started");
            }
            None => d.push_str("started"),
        },
        Some(EventKind::RetryStarted) => {
            d.push_str("retry: attempt ");
            d.push_str(&opt("attempt"));
            d.push_str(" started");
        }
        Some(EventKind::AgentsSelected) => {
            d.push_str(&opt("mode"));
            d.push_str(" — winner ");
            d.push_str(&opt("winner"));
            if let Some(r) = s_ref(rec, "runner_up") {
                d.push_str(", runner-up ");
                d.push_str(&r);
            }
            if let Some(r) = s_ref(rec, "reason") {
                d.push_str(" (");
                short_into(d, &r, 80);
                d.push(')');
            }
            if let Some(fb) = fallback_text(rec) {
                d.push_str("; fallback ");
                short_into(d, &fb, 160);
            }
        }
        Some(EventKind::ContextInjected) => {
            let _ = write!(
                d,
                "prompt {} bytes, CLAUDE.md {}, {} summaries",
                opt("prompt_bytes"),
                if b(rec, "has_claude_md") { "yes" } else { "no" },
                u(rec, "summaries_count").unwrap_or(0)
            );
            let cut = list(rec, "truncated");
            if !cut.is_empty() {
                d.push_str("; cut: ");
                d.push_str(&cut);
            }
        }
        Some(EventKind::AgentStarted) => {
            d.push_str(&opt("agent"));
            d.push_str(" started");
            if let Some(r) = s_ref(rec, "role") {
                d.push_str(" (");
                d.push_str(&r);
                d.push(')');
            }
        }
        Some(EventKind::AgentFinished) => {
            d.push_str(&opt("agent"));
            d.push(' ');
            if b(rec, "timed_out") {
                d.push_str("timed out");
            } else {
                d.push_str("exited ");
                d.push_str(&opt("exit_code"));
            }
            if let Some(ms) = u(rec, "duration_ms") {
                d.push_str(" after ");
                secs(d, ms);
            }
            if let Some(c) = f(rec, "cost_usd") {
                let _ = write!(d, ", ${c:.2}");
            }
        }
        Some(EventKind::TestsWritten) => {
            d.push_str(&opt("count"));
            d.push_str(" tests written to ");
            d.push_str(&opt("path"));
        }
        Some(EventKind::IntegrityFailed) => {
            let _ = write!(
                d,
                "test integrity failed ({}, {}): ",
                opt("kind"),
                opt("agent")
            );
            short_into(d, &s_ref(rec, "detail").unwrap_or_default(), 120);
        }
        Some(EventKind::ImplementationComplete) => {
            agent_prefix(d, rec);
            let created = list(rec, "files_created");
            let modified = list(rec, "files_modified");
            d.push_str("created: ");
            d.push_str(if created.is_empty() { "-" } else { &created });
            d.push_str("; modified: ");
            d.push_str(if modified.is_empty() { "-" } else { &modified });
        }
        Some(EventKind::VerificationPassed) => {
            agent_prefix(d, rec);
            match u(rec, "tests_passed") {
                Some(n) => {
                    let _ = write!(d, "verification passed ({n} tests)");
                }
                None => d.push_str("verification passed"),
            }
        }
        Some(EventKind::VerificationFailed) => {
            agent_prefix(d, rec);
            match u(rec, "tests_failed") {
                Some(n) => {
                    let _ = write!(d, "verification failed ({n} failing)");
                }
                None => d.push_str("verification failed"),
            }
            if let Some(t) = text(rec, "failures") {
                d.push_str(": ");
                short_into(d, &t, 100);
            }
        }
        Some(EventKind::IssueBlocked) => {
            let _ = write!(
                d,
                "BLOCKED after {} retries: ",
                u(rec, "retries").unwrap_or(0)
            );
            short_into(d, &s_ref(rec, "reason").unwrap_or_default(), 120);
        }
        Some(EventKind::IssueDone) => {
            d.push_str("DONE");
            if let Some(c) = s_ref(rec, "commit").filter(|c| !c.is_empty()) {
                d.push_str(", commit ");
                d.push_str(sha_prefix(&c));
            }
            if let Some(c) = f(rec, "cost_usd") {
                let _ = write!(d, ", ${c:.2}");
            }
            if let Some(c) = value(rec, "convergence").filter(Value::is_object) {
                let _ = write!(d, " [{}]", convergence_text(&c));
            }
            if let Some(sm) = s_ref(rec, "summary") {
                d.push_str(": ");
                short_into(d, &sm, 80);
            }
        }
        Some(EventKind::IssueSkipped) => match u(rec, "blocking_issue") {
            Some(n) => {
                let _ = write!(d, "skipped (blocked by #{n})");
            }
            None => {
                d.push_str("skipped");
                if let Some(r) = s_ref(rec, "reason") {
                    d.push_str(": ");
                    short_into(d, &r, 100);
                }
            }
        },
        Some(EventKind::IssueUnblocked) => d.push_str("unblocked (back to READY)"),
        Some(EventKind::FailureAnalyzed) => {
            let _ = write!(
                d,
                "attempt {} failed: {}/{}",
                opt("attempt"),
                opt("class"),
                opt("kind")
            );
            if let Some(diag) = s_ref(rec, "diagnosis") {
                d.push_str(", ");
                d.push_str(&diag);
            }
            let _ = write!(d, " → {} ({}): ", opt("recommendation"), opt("source"));
            short_into(d, &opt("reason"), 100);
        }
        Some(EventKind::DependencyAdded) => {
            let _ = write!(d, "now depends on #{}: ", opt("depends_on"));
            short_into(d, &opt("reason"), 100);
        }
        Some(EventKind::AgentFallback) => {
            let _ = write!(
                d,
                "fallback: attempt {} by {} instead of {} (",
                opt("attempt"),
                opt("to"),
                opt("from")
            );
            short_into(d, &opt("reason"), 80);
            d.push(')');
        }
        Some(EventKind::StateReverted) => {
            d.push_str("back to READY: its commit ");
            d.push_str(sha_prefix(&opt("commit")));
            d.push_str(" was reverted");
        }
        Some(EventKind::DuplicateDetected) => {
            let parts: Vec<String> = ["git", "tests", "files"]
                .iter()
                .filter_map(|k| match value(rec, k) {
                    None | Some(Value::Null) | Some(Value::Bool(false)) => None,
                    Some(v) => Some(format!("{k}: {}", short(&v.to_string(), 60))),
                })
                .collect();
            let _ = write!(d, "already implemented ({})", parts.join("; "));
        }
        Some(EventKind::GithubSync) => {
            d.push_str("GitHub #");
            d.push_str(&opt("github_issue"));
            d.push(' ');
            d.push_str(&opt("action"));
            d.push_str(if b(rec, "success") {
                ": ok"
            } else {
                ": failed"
            });
        }
        Some(EventKind::GithubError) => {
            let _ = write!(d, "GitHub {} failed ({}): ", opt("op"), opt("status"));
            short_into(d, &opt("message"), 100);
        }
        Some(EventKind::GitSync) => {
            let _ = write!(
                d,
                "git sync: {} commits scanned, head {}",
                opt("commits_scanned"),
                sha_prefix(&opt("head"))
            );
        }
        _ => {
            let mut first = true;
            for (k, v) in rec.entries() {
                if matches!(k, "ts" | "event" | "feature" | "session" | "seq" | "issue") {
                    continue;
                }
                if !first {
                    d.push(' ');
                }
                first = false;
                d.push_str(k);
                d.push('=');
                short_into(d, &v.json_text(), 40);
            }
        }
    }
}

/// `<agent>: ` when the record names a candidate agent (two-agent runs).
fn agent_prefix<R: Fields + ?Sized>(d: &mut String, rec: &R) {
    if let Some(a) = s_ref(rec, "agent") {
        d.push_str(&a);
        d.push_str(": ");
    }
}

pub(super) fn short_sha(c: &str) -> String {
    sha_prefix(c).to_string()
}

/// The first 12 characters of a full hexadecimal commit id; anything else as it is.
fn sha_prefix(c: &str) -> &str {
    // every byte looked at (no early exit), so the check runs on whole vectors
    if c.len() > 12 && c.bytes().fold(true, |ok, b| ok & b.is_ascii_hexdigit()) {
        &c[..12]
    } else {
        c
    }
}

/// `agents_selected.fallback` as `"<to>: <reason>"` (an object `{to, reason}`), or the text.
pub fn fallback_text<R: Fields + ?Sized>(rec: &R) -> Option<String> {
    match value(rec, "fallback")? {
        Value::Null => None,
        Value::Object(o) => {
            let to = o.get("to").and_then(Value::as_str).unwrap_or("?");
            let reason = o.get("reason").and_then(Value::as_str).unwrap_or("");
            Some(format!("{to}: {reason}"))
        }
        Value::String(t) => Some(t),
        other => Some(other.to_string()),
    }
}

/// `quorum reached` or `no quorum` for a join-`quorum` record (`issue_done.convergence`).
pub fn quorum_text(c: &Value) -> Option<&'static str> {
    let q = c.get("quorum").filter(|q| q.is_object())?;
    Some(match q.get("reached").and_then(Value::as_bool) {
        Some(true) => "quorum reached",
        _ => "no quorum",
    })
}

/// One line on how a two-agent run converged (`issue_done.convergence`).
pub fn convergence_text(c: &Value) -> String {
    let mut parts = Vec::new();
    let mode = c.get("mode").and_then(Value::as_str).unwrap_or("");
    let mut head = mode.to_string();
    if let Some(j) = c.get("join").and_then(Value::as_str) {
        head.push_str(&format!(" (join {j})"));
    }
    parts.push(head);
    if let Some(cands) = c.get("candidates").and_then(Value::as_array) {
        for cand in cands {
            let name = cand.get("agent").and_then(Value::as_str).unwrap_or("?");
            let result = cand.get("result").and_then(Value::as_str).unwrap_or("?");
            let mut d = format!("{name} {result}");
            let files = cand
                .get("added_files")
                .or_else(|| cand.get("files"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            if !files.is_empty() {
                d.push_str(&format!(" [{files}]"));
            }
            parts.push(d);
        }
    }
    if let Some(w) = c.get("winner").and_then(Value::as_str) {
        match c.get("selected_by").and_then(Value::as_str) {
            Some(by) if by != "only_passing" => parts.push(format!("landed: {w} (by {by})")),
            _ => parts.push(format!("landed: {w}")),
        }
    }
    if let Some(sc) = c.get("score").and_then(Value::as_f64) {
        parts.push(format!("convergence {sc:.2}"));
    }
    if let Some(q) = quorum_text(c) {
        parts.push(q.to_string());
    }
    if let Some(low) = c.get("low_convergence").filter(|l| l.is_object()) {
        let action = low.get("action").and_then(Value::as_str).unwrap_or("?");
        parts.push(format!("low convergence → {action}"));
    }
    if let Some(fb) = c.get("fallback").and_then(Value::as_object) {
        parts.push(format!(
            "fallback {}",
            fb.get("to").and_then(Value::as_str).unwrap_or("?")
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::short;
    use proptest::prelude::*;

    /// The definition: the first line, trimmed, its first `max` characters, and `…` when
    /// anything was left out.
    fn short_by_chars(text: &str, max: usize) -> String {
        let line = text.lines().next().unwrap_or("").trim();
        let mut out: String = line.chars().take(max).collect();
        if line.chars().count() > max || text.trim().lines().count() > 1 {
            out.push('…');
        }
        out
    }

    #[test]
    fn short_cuts_at_characters_not_bytes() {
        assert_eq!(short("héllo wörld", 4), "héll…");
        assert_eq!(short("  done  ", 80), "done");
        assert_eq!(short("one\ntwo", 80), "one…");
        assert_eq!(short("abc", 3), "abc");
        assert_eq!(short("", 3), "");
    }

    proptest! {
        #[test]
        fn short_is_the_character_definition(text in "[a-zé€😀 \\n\\r\\t\u{a0}\u{2028}]{0,40}", max in 0usize..30) {
            prop_assert_eq!(short(&text, max), short_by_chars(&text, max));
        }
    }
}
