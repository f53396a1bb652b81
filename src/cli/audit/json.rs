//! `audit --json`: the report as one pretty JSON document (what `serde_json` prints for the
//! whole report), written issue by issue: each issue's stored attempts come back as the
//! items [`attempt_item`] wrote when they were stored, its timeline entries straight from the
//! store's stream.

use super::codec::{Decoder, EntryRef};
use super::store::AuditStore;
use crate::core::audit::{Attempt, AuditReport, IssueAudit};
use std::io::Write;

/// Output is handed to the writer in pieces about this large.
const PIECE: usize = 1 << 16;

fn damaged(what: &str) -> std::io::Error {
    std::io::Error::other(format!("the audit's JSON {what} has an unexpected shape"))
}

/// `text` (pretty JSON) with `indent` spaces after each newline, appended to `o`.
fn indented(o: &mut Vec<u8>, text: &str, indent: usize) {
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            o.push(b'\n');
            o.resize(o.len() + indent, b' ');
        }
        o.extend_from_slice(line.as_bytes());
    }
}

/// An attempt as an item of an issue's `attempts` list (a newline, the indentation, the
/// object), appended to `o`.
pub fn attempt_item(o: &mut Vec<u8>, a: &Attempt) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(a)?;
    o.extend_from_slice(b"\n        ");
    indented(o, &text, 8);
    Ok(())
}

/// A timeline entry as an item of an issue's `timeline` list, appended to `o`.
fn entry_item(o: &mut Vec<u8>, e: EntryRef<'_>) -> std::io::Result<()> {
    o.extend_from_slice(b"\n        {\n          \"ts\": ");
    match e.ts {
        Some(ts) => serde_json::to_writer(&mut *o, ts)?,
        None => o.extend_from_slice(b"null"),
    }
    o.extend_from_slice(b",\n          \"seq\": ");
    match e.seq {
        Some(n) => write!(o, "{n}")?,
        None => o.extend_from_slice(b"null"),
    }
    o.extend_from_slice(b",\n          \"event\": ");
    serde_json::to_writer(&mut *o, e.event)?;
    o.extend_from_slice(b",\n          \"detail\": ");
    serde_json::to_writer(&mut *o, e.detail)?;
    o.extend_from_slice(b"\n        }");
    Ok(())
}

/// The document (without a final newline): the report's issues, each with its stored
/// attempts and timeline (from `store`, before the ones the report holds).
pub fn write(
    out: &mut dyn Write,
    r: &AuditReport,
    mut store: Option<&mut AuditStore>,
) -> std::io::Result<()> {
    let top = AuditReport {
        feature: r.feature.clone(),
        events: r.events,
        sessions: r.sessions,
        first_ts: r.first_ts.clone(),
        last_ts: r.last_ts.clone(),
        duration_ms: r.duration_ms,
        totals: r.totals.clone(),
        issues: Vec::new(),
    };
    let text = serde_json::to_string_pretty(&top)?;
    let head = text
        .strip_suffix("\"issues\": []\n}")
        .ok_or_else(|| damaged("report"))?;
    out.write_all(head.as_bytes())?;
    out.write_all(b"\"issues\": [")?;
    let mut o = Vec::with_capacity(PIECE + 1024);
    for (k, i) in r.issues.iter().enumerate() {
        o.extend_from_slice(if k == 0 { b"\n    " } else { b",\n    " });
        issue(out, &mut o, i, store.as_deref_mut())?;
    }
    o.extend_from_slice(if r.issues.is_empty() {
        b"]\n}"
    } else {
        b"\n  ]\n}"
    });
    out.write_all(&o)
}

fn issue(
    out: &mut dyn Write,
    o: &mut Vec<u8>,
    i: &IssueAudit,
    store: Option<&mut AuditStore>,
) -> std::io::Result<()> {
    let bare = IssueAudit {
        attempts: Vec::new(),
        timeline: Vec::new(),
        ..i.clone()
    };
    let text = serde_json::to_string_pretty(&bare)?;
    let body = text
        .strip_suffix("\"attempts\": [],\n  \"timeline\": []\n}")
        .ok_or_else(|| damaged("issue"))?;
    indented(o, body, 4);
    o.extend_from_slice(b"\"attempts\": [");
    let stored = store.map(|s| (s.take(i.issue), s));
    let mut any = false;
    if let Some((taken, s)) = &stored
        && !taken.attempts.is_empty()
    {
        out.write_all(o)?;
        o.clear();
        // each stored item starts with its comma: the first one is left out
        let mut first = true;
        s.read::<std::io::Error>(&taken.attempts, &mut |chunk| {
            let chunk = if std::mem::take(&mut first) {
                chunk.strip_prefix(b",").ok_or_else(|| damaged("attempt"))?
            } else {
                chunk
            };
            out.write_all(chunk)
        })?;
        any = true;
    }
    for a in &i.attempts {
        if std::mem::replace(&mut any, true) {
            o.push(b',');
        }
        attempt_item(o, a)?;
    }
    o.extend_from_slice(if any { b"\n      ]" } else { b"]" });
    o.extend_from_slice(b",\n      \"timeline\": [");
    let mut any = false;
    if let Some((taken, s)) = &stored {
        let mut dec = Decoder::default();
        s.read::<std::io::Error>(&taken.timeline, &mut |chunk| {
            dec.each::<std::io::Error>(chunk, &mut |e| {
                if std::mem::replace(&mut any, true) {
                    o.push(b',');
                }
                entry_item(o, e)?;
                if o.len() >= PIECE {
                    out.write_all(o)?;
                    o.clear();
                }
                Ok(())
            })
        })?;
    }
    for e in &i.timeline {
        if std::mem::replace(&mut any, true) {
            o.push(b',');
        }
        let e = EntryRef::from(e);
        entry_item(o, e)?;
    }
    o.extend_from_slice(if any { b"\n      ]" } else { b"]" });
    o.extend_from_slice(b"\n    }");
    if o.len() >= PIECE {
        out.write_all(o)?;
        o.clear();
    }
    Ok(())
}
