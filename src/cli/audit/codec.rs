//! The byte encoding of what `audit` keeps in its temporary file while it streams the log:
//! timeline entries and finished attempts, each tagged, in one stream per issue.

use crate::core::audit::{AgentRun, Attempt, Entry};

const ENTRY: u8 = 0;
const ATTEMPT: u8 = 1;

/// One stored item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Entry(Entry),
    Attempt(Attempt),
}

struct Out<'a>(&'a mut Vec<u8>);

impl Out<'_> {
    fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.0.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: &Option<String>) {
        self.0.push(u8::from(s.is_some()));
        if let Some(s) = s {
            self.str(s);
        }
    }
    fn opt_u64(&mut self, n: Option<u64>) {
        self.0.push(u8::from(n.is_some()));
        if let Some(n) = n {
            self.u64(n);
        }
    }
}

/// Appends an entry.
pub fn put_entry(out: &mut Vec<u8>, e: &Entry) {
    out.push(ENTRY);
    let mut o = Out(out);
    o.opt_u64(e.seq);
    o.opt_str(&e.ts);
    o.str(&e.event);
    o.str(&e.detail);
}

/// Appends an attempt.
pub fn put_attempt(out: &mut Vec<u8>, a: &Attempt) {
    out.push(ATTEMPT);
    let mut o = Out(out);
    o.u64(a.attempt);
    o.opt_str(&a.started_at);
    o.opt_str(&a.ended_at);
    o.opt_u64(a.duration_ms);
    o.opt_str(&a.mode);
    o.u64(a.agents.len() as u64);
    for r in &a.agents {
        o.str(&r.agent);
        o.opt_str(&r.role);
        o.opt_u64(r.exit_code.map(|c| c as u64));
        o.opt_u64(r.duration_ms);
        o.0.push(u8::from(r.timed_out));
        o.opt_u64(r.cost_usd.map(f64::to_bits));
        o.opt_u64(r.tokens_in);
        o.opt_u64(r.tokens_out);
        o.opt_u64(r.tokens_cached);
        o.opt_str(&r.error_kind);
        o.u64(r.permission_denials);
        o.opt_str(&r.output);
        o.opt_str(&r.verification);
        o.u64(r.files.len() as u64);
        for f in &r.files {
            o.str(f);
        }
    }
    o.opt_str(&a.verification);
    o.opt_u64(a.tests_passed);
    o.opt_u64(a.tests_failed);
    o.opt_str(&a.failures);
    o.opt_str(&a.fallback);
    o.str(&a.outcome);
}

struct In<'a, 'b>(&'b mut &'a [u8]);

impl In<'_, '_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        *self.0 = rest;
        Some(head)
    }
    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    fn str(&mut self) -> Option<String> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        Some(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    fn opt_str(&mut self) -> Option<Option<String>> {
        Some(match self.byte()? {
            0 => None,
            _ => Some(self.str()?),
        })
    }
    fn opt_u64(&mut self) -> Option<Option<u64>> {
        Some(match self.byte()? {
            0 => None,
            _ => Some(self.u64()?),
        })
    }
}

/// Reads the next item (`None` when the data is damaged or ends).
pub fn get(data: &mut &[u8]) -> Option<Item> {
    let mut i = In(data);
    match i.byte()? {
        ENTRY => {
            let seq = i.opt_u64()?;
            let ts = i.opt_str()?;
            Some(Item::Entry(Entry {
                ts,
                seq,
                event: i.str()?,
                detail: i.str()?,
            }))
        }
        ATTEMPT => {
            let attempt = i.u64()?;
            let started_at = i.opt_str()?;
            let ended_at = i.opt_str()?;
            let duration_ms = i.opt_u64()?;
            let mode = i.opt_str()?;
            let n = i.len()?;
            let mut agents = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                // fields are read in the order they were written (a literal evaluates in order)
                let r = AgentRun {
                    agent: i.str()?,
                    role: i.opt_str()?,
                    exit_code: i.opt_u64()?.map(|c| c as i64),
                    duration_ms: i.opt_u64()?,
                    timed_out: i.byte()? != 0,
                    cost_usd: i.opt_u64()?.map(f64::from_bits),
                    tokens_in: i.opt_u64()?,
                    tokens_out: i.opt_u64()?,
                    tokens_cached: i.opt_u64()?,
                    error_kind: i.opt_str()?,
                    permission_denials: i.u64()?,
                    output: i.opt_str()?,
                    verification: i.opt_str()?,
                    files: {
                        let files = i.len()?;
                        (0..files).map(|_| i.str()).collect::<Option<_>>()?
                    },
                };
                agents.push(r);
            }
            Some(Item::Attempt(Attempt {
                attempt,
                started_at,
                ended_at,
                duration_ms,
                mode,
                agents,
                verification: i.opt_str()?,
                tests_passed: i.opt_u64()?,
                tests_failed: i.opt_u64()?,
                failures: i.opt_str()?,
                fallback: i.opt_str()?,
                outcome: i.str()?,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_attempts_come_back_as_they_went_in() {
        let run = AgentRun {
            agent: "claude".into(),
            role: Some("primary".into()),
            exit_code: Some(-9),
            duration_ms: Some(1200),
            timed_out: true,
            cost_usd: Some(0.1 + 0.2),
            tokens_in: Some(1),
            tokens_out: None,
            tokens_cached: Some(3),
            error_kind: Some("rate_limit".into()),
            permission_denials: 2,
            output: Some(".swarm/out/é.txt".into()),
            verification: Some("failed".into()),
            files: vec!["a.rs".into(), String::new()],
        };
        let attempt = Attempt {
            attempt: 7,
            started_at: Some("2026-01-01T00:00:00Z".into()),
            ended_at: None,
            duration_ms: Some(0),
            mode: Some("PARALLEL".into()),
            agents: vec![run, AgentRun::default()],
            verification: None,
            tests_passed: Some(u64::MAX),
            tests_failed: None,
            failures: Some("x\ny".into()),
            fallback: Some("solo: why".into()),
            outcome: "interrupted".into(),
        };
        let entry = Entry {
            ts: None,
            seq: Some(0),
            event: "issue_done".into(),
            detail: String::new(),
        };
        let mut buf = Vec::new();
        put_attempt(&mut buf, &attempt);
        put_entry(&mut buf, &entry);
        put_attempt(
            &mut buf,
            &Attempt {
                agents: Vec::new(),
                ..attempt.clone()
            },
        );
        let mut data = buf.as_slice();
        assert_eq!(get(&mut data), Some(Item::Attempt(attempt.clone())));
        assert_eq!(get(&mut data), Some(Item::Entry(entry)));
        assert!(matches!(get(&mut data), Some(Item::Attempt(a)) if a.agents.is_empty()));
        assert!(data.is_empty());
        let mut one = Vec::new();
        put_entry(
            &mut one,
            &Entry {
                ts: Some("t".into()),
                seq: None,
                event: "e".into(),
                detail: "d".into(),
            },
        );
        for cut in 0..one.len() {
            assert_eq!(get(&mut &one[..cut]), None, "cut at {cut}");
        }
    }
}
