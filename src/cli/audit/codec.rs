//! The byte encoding of the timeline entries `audit` keeps in its temporary file while it
//! streams the log, one stream per issue. Compact, so that little goes through the file:
//! numbers and lengths as LEB128 varints, each `ts` as the length of the prefix it shares
//! with the previous `ts` and the rest, the event names the tool writes as one byte.
//! Decoding borrows the strings from the stream (no allocation per entry).

use crate::core::audit::Entry;
use crate::core::events::Event;

/// The event names the tool writes, stored as their index (a name not in the list is
/// stored in full). The order is part of the encoding of one run only (the file is
/// temporary).
const EVENTS: &[&str] = Event::NAMES;

const HAS_SEQ: u8 = 1;
const HAS_TS: u8 = 2;
/// The event name is `EVENTS[tag >> 2]`, or written in full when that is `EVENTS.len()`.
const EVENT_SHIFT: u32 = 2;
const _: () = assert!(
    EVENTS.len() < 1 << (8 - EVENT_SHIFT),
    "event codes fit in a tag"
);

/// One timeline entry, borrowed from where it is (the auditor's entry or the stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef<'a> {
    pub ts: Option<&'a str>,
    pub seq: Option<u64>,
    pub event: &'a str,
    pub detail: &'a str,
}

impl<'a> From<&'a Entry> for EntryRef<'a> {
    fn from(e: &'a Entry) -> Self {
        EntryRef {
            ts: e.ts.as_deref(),
            seq: e.seq,
            event: &e.event,
            detail: &e.detail,
        }
    }
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// The length of the longest common prefix of `a` and `b` that ends on a character
/// boundary of both.
fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// The encoder of one issue's stream: remembers the previous `ts`.
#[derive(Debug, Default)]
pub struct Encoder {
    last_ts: String,
}

impl Encoder {
    /// Appends an entry.
    pub fn put(&mut self, out: &mut Vec<u8>, e: EntryRef<'_>) {
        let code = EVENTS
            .iter()
            .position(|n| *n == e.event)
            .unwrap_or(EVENTS.len());
        let mut tag = (code as u8) << EVENT_SHIFT;
        if e.seq.is_some() {
            tag |= HAS_SEQ;
        }
        if e.ts.is_some() {
            tag |= HAS_TS;
        }
        out.push(tag);
        if let Some(seq) = e.seq {
            put_varint(out, seq);
        }
        if let Some(ts) = e.ts {
            let shared = shared_prefix(&self.last_ts, ts);
            put_varint(out, shared as u64);
            put_str(out, &ts[shared..]);
            self.last_ts.truncate(shared);
            self.last_ts.push_str(&ts[shared..]);
        }
        if code == EVENTS.len() {
            put_str(out, e.event);
        }
        put_str(out, e.detail);
    }
}

/// The decoder of one issue's stream, fed its chunks in order.
#[derive(Debug, Default)]
pub struct Decoder {
    ts: String,
}

/// The stream is damaged (it is never, unless the temporary file was changed under us).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damaged;

impl From<Damaged> for std::io::Error {
    fn from(_: Damaged) -> Self {
        std::io::Error::other("the audit's temporary timeline file is damaged")
    }
}

struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Damaged> {
        if self.0.len() < n {
            return Err(Damaged);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn byte(&mut self) -> Result<u8, Damaged> {
        Ok(self.take(1)?[0])
    }
    fn varint(&mut self) -> Result<u64, Damaged> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(n);
            }
        }
        Err(Damaged)
    }
    fn str(&mut self) -> Result<&'a str, Damaged> {
        let n = usize::try_from(self.varint()?).map_err(|_| Damaged)?;
        std::str::from_utf8(self.take(n)?).map_err(|_| Damaged)
    }
}

impl Decoder {
    /// Hands each entry of `chunk` (whole entries, in order) to `f`.
    pub fn each<E: From<Damaged>>(
        &mut self,
        chunk: &[u8],
        f: &mut dyn FnMut(EntryRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut i = In(chunk);
        while !i.0.is_empty() {
            let tag = i.byte()?;
            let seq = if tag & HAS_SEQ != 0 {
                Some(i.varint()?)
            } else {
                None
            };
            let has_ts = tag & HAS_TS != 0;
            if has_ts {
                let shared = usize::try_from(i.varint()?).map_err(|_| Damaged)?;
                let rest = i.str()?;
                if shared > self.ts.len() || !self.ts.is_char_boundary(shared) {
                    return Err(Damaged.into());
                }
                self.ts.truncate(shared);
                self.ts.push_str(rest);
            }
            let code = usize::from(tag >> EVENT_SHIFT);
            let event = match EVENTS.get(code) {
                Some(name) => name,
                None if code == EVENTS.len() => i.str()?,
                None => return Err(Damaged.into()),
            };
            let detail = i.str()?;
            f(EntryRef {
                ts: has_ts.then_some(self.ts.as_str()),
                seq,
                event,
                detail,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn owned(e: EntryRef<'_>) -> (Option<String>, Option<u64>, String, String) {
        (
            e.ts.map(str::to_string),
            e.seq,
            e.event.to_string(),
            e.detail.to_string(),
        )
    }

    fn round_trip(entries: &[(Option<String>, Option<u64>, String, String)], cut_every: usize) {
        let mut enc = Encoder::default();
        // chunks as the store cuts them: whole entries
        let mut chunks = vec![Vec::new()];
        for (k, (ts, seq, event, detail)) in entries.iter().enumerate() {
            if k % cut_every == 0 {
                chunks.push(Vec::new());
            }
            let out = chunks.last_mut().unwrap();
            enc.put(
                out,
                EntryRef {
                    ts: ts.as_deref(),
                    seq: *seq,
                    event,
                    detail,
                },
            );
        }
        let mut dec = Decoder::default();
        let mut got = Vec::new();
        for c in &chunks {
            dec.each::<Damaged>(c, &mut |e| {
                got.push(owned(e));
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(got, entries);
    }

    #[test]
    fn entries_come_back_as_they_went_in() {
        let e = |ts: Option<&str>, seq, ev: &str, d: &str| {
            (ts.map(str::to_string), seq, ev.to_string(), d.to_string())
        };
        let entries = vec![
            e(Some("2026-01-01T00:00:00Z"), Some(0), "issue_done", ""),
            e(Some("2026-01-01T00:00:09Z"), None, "custom_thing", "x=1"),
            e(None, Some(u64::MAX), "agent_finished", "é\n\"q\""),
            e(Some("2026-01-01T00:00:09Z"), Some(300), "", "same ts"),
            e(Some("2026-é"), Some(1), "worker_finished", "cut inside é"),
            e(
                Some("2026-è"),
                Some(1),
                "issue_started",
                "shares 5 bytes + half a char",
            ),
            e(Some(""), None, "git_sync", "empty ts"),
        ];
        for cut in 1..=entries.len() {
            round_trip(&entries, cut);
        }
    }

    #[test]
    fn a_damaged_stream_is_an_error_not_a_panic() {
        let mut one = Vec::new();
        Encoder::default().put(
            &mut one,
            EntryRef {
                ts: Some("t"),
                seq: Some(300),
                event: "not listed",
                detail: "d",
            },
        );
        for cut in 1..one.len() {
            let r = Decoder::default().each::<Damaged>(&one[..cut], &mut |_| Ok(()));
            assert_eq!(r, Err(Damaged), "cut at {cut}");
        }
        assert_eq!(
            Decoder::default().each::<Damaged>(&[0xff], &mut |_| Ok(())),
            Err(Damaged)
        );
    }

    proptest! {
        #[test]
        fn any_entries_round_trip(
            entries in prop::collection::vec(
                (
                    prop::option::of("2026-0[1-2]-[0-9]{2}T[0-9é:.]{0,12}Z?"),
                    prop::option::of(any::<u64>()),
                    prop::sample::select(vec!["issue_done", "git_sync", "x", "", "émoji😀"]),
                    ".{0,20}",
                ),
                0..40,
            ),
            cut in 1usize..8,
        ) {
            let entries: Vec<_> = entries
                .into_iter()
                .map(|(ts, seq, ev, d)| (ts, seq, ev.to_string(), d))
                .collect();
            round_trip(&entries, cut);
        }
    }
}
