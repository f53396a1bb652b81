//! Keeping the state's spend ledger (`core::budget`) in step with the event log: the records
//! appended since the ledger's `log_offset` are folded in (O(new records)); a log shorter
//! than the offset (replaced, truncated) is folded again from the start. So the saved ledger
//! is always the fold of the log up to its offset, and a lost state is rebuilt from the log.
//! The state's legacy cost fields (`cost_total_usd`, a task's `cost_usd`) follow the ledger
//! (`core::budget::follow_ledger`).

use crate::core::budget::{Ledger, Price};
use crate::core::config::Config;
use crate::core::events::EventKind;
use crate::core::state::FeatureState;
use std::io::{Read, Seek, SeekFrom};

/// The price of an agent run's tokens, looked up in `pricing` in this order: the model the
/// run reported (or its command line asked for, `agent_finished.model`), then the agent's
/// preset (`claude-code`, `codex`, ...), then the agent's name. `None`: the cost stays
/// unknown.
pub(crate) fn price_for(config: &Config, agent: &str, model: Option<&str>) -> Option<Price> {
    let table = &config.pricing;
    let preset = || {
        config
            .agents
            .iter()
            .find(|a| a.name == agent)
            .and_then(|a| a.preset)
            .and_then(|p| table.get(p.as_str()))
    };
    model
        .and_then(|m| table.get(m))
        .or_else(preset)
        .or_else(|| table.get(agent))
        .copied()
}

/// The cost of an agent run that reported tokens but no cost, from `pricing`
/// ([`price_for`]); `None` (unknown) without tokens or without a price.
pub(crate) fn priced_cost(
    config: &Config,
    agent: &str,
    report: &crate::core::agent_report::AgentReport,
) -> Option<f64> {
    if report.cost_usd.is_some() {
        return None;
    }
    let (tin, tout) = (
        report.tokens_in.unwrap_or(0),
        report.tokens_out.unwrap_or(0),
    );
    if tin + tout == 0 {
        return None;
    }
    let price = price_for(config, agent, report.model.as_deref())?;
    Some(price.cost(tin, tout, report.tokens_cached.unwrap_or(0)))
}

/// The byte strings a record [`Ledger::relevant`] accepts must contain: one of those
/// events' names, or a `\u` escape (that could spell one).
const NEEDLES: [&[u8]; 6] = [
    EventKind::AgentFinished.as_str().as_bytes(),
    EventKind::LlmCalled.as_str().as_bytes(),
    EventKind::IssueStarted.as_str().as_bytes(),
    EventKind::RetryStarted.as_str().as_bytes(),
    EventKind::BudgetRaised.as_str().as_bytes(),
    b"\\u",
];

/// Whether a log line can be a record [`Ledger::relevant`] accepts (see [`NEEDLES`]).
/// Every other line (most of a log: syncs, prompts, tests) is skipped without parsing, so
/// a `status` of a feature that has no ledger yet, which reads the whole log, costs a byte
/// scan, not a parse per line.
#[cfg(test)]
fn may_be_relevant(line: &[u8]) -> bool {
    NEEDLES
        .iter()
        .any(|n| memchr::memmem::find(line, n).is_some())
}

/// The lines of `buf` (complete lines, each with its newline) that may be relevant, in
/// order, as byte ranges: each needle is searched over the whole buffer (one `memmem`
/// pass per needle, not five per line) and its hits mapped to their lines.
fn relevant_lines(buf: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut lines: Vec<std::ops::Range<usize>> = Vec::new();
    for needle in NEEDLES {
        let mut from = 0;
        while let Some(i) = memchr::memmem::find(&buf[from..], needle) {
            let at = from + i;
            let start = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |p| p + 1);
            let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |p| at + p + 1);
            lines.push(start..end);
            from = end;
        }
    }
    lines.sort_by_key(|r| r.start);
    lines.dedup_by_key(|r| r.start);
    lines
}

/// How much of the log is read at a time: bounded memory whatever the log's size.
const CHUNK: usize = 1 << 20;

/// Folds the log records after the ledger's offset into `state.ledger`. The ledger is
/// created (and the state changed) only when there is something to record.
/// `events_file` is the feature's event log. (Takes plain values, not the project: the
/// feature transaction calls it, so this module stays below `app::project`.)
pub(crate) fn refresh(events_file: &std::path::Path, config: &Config, state: &mut FeatureState) {
    let Ok(mut file) = std::fs::File::open(events_file) else {
        return;
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let current = state.ledger.clone().unwrap_or_default();
    let (mut ledger, start) = if current.log_offset > len {
        (Ledger::default(), 0)
    } else {
        let o = current.log_offset;
        (current, o)
    };
    if start == len || file.seek(SeekFrom::Start(start)).is_err() {
        return;
    }
    // the legacy cost fields follow what this fold adds (a first or rebuilt fold: see
    // `core::budget::follow_ledger`)
    let before = (state.ledger.is_some() && start > 0).then(|| ledger.clone());
    let price = |agent: &str, model: Option<&str>| price_for(config, agent, model);
    let mut offset = start;
    let mut changed = start == 0 && state.ledger.as_ref().is_some_and(|l| l.log_offset > len);
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK.min((len - start) as usize) + 1);
    let mut eof = false;
    while !eof {
        // keep the unfinished line from the last chunk, then read up to CHUNK more
        let want = buf.len() + CHUNK;
        while buf.len() < want {
            let before = buf.len();
            match (&mut file)
                .take((want - before) as u64)
                .read_to_end(&mut buf)
            {
                Ok(0) | Err(_) => {
                    eof = true;
                    break;
                }
                Ok(_) => {}
            }
        }
        // only complete lines count: a torn tail is not a record yet
        let Some(last_nl) = memchr::memrchr(b'\n', &buf) else {
            continue;
        };
        let complete = &buf[..=last_nl];
        for r in relevant_lines(complete) {
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&complete[r])
                && Ledger::relevant(&v)
            {
                ledger.apply(&v, &price);
                changed = true;
            }
        }
        offset += complete.len() as u64;
        buf.drain(..=last_nl);
    }
    if changed {
        ledger.log_offset = offset;
        crate::core::budget::follow_ledger(state, before.as_ref(), &ledger);
        state.ledger = Some(ledger);
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, may_be_relevant, refresh, relevant_lines};
    use crate::core::budget::Ledger;
    use crate::core::config::Config;
    use crate::core::state::FeatureState;
    use serde_json::json;

    #[test]
    fn the_byte_filter_keeps_every_relevant_record_and_skips_the_others() {
        for event in [
            "agent_finished",
            "llm_called",
            "issue_started",
            "retry_started",
            "budget_raised",
        ] {
            let line = format!("{{\"ts\":\"t\",\"event\":\"{event}\",\"issue\":3}}\n");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert!(Ledger::relevant(&v));
            assert!(may_be_relevant(line.as_bytes()), "{event}");
        }
        // an escaped name parses to a relevant record: kept
        let escaped = "{\"event\":\"agent\\u005ffinished\",\"issue\":3}\n";
        let v: serde_json::Value = serde_json::from_str(escaped).unwrap();
        assert!(Ledger::relevant(&v));
        assert!(may_be_relevant(escaped.as_bytes()));
        // the common records are skipped without parsing
        for v in [
            json!({"event": "git_sync", "synced_issues": [1], "commits_scanned": 3}),
            json!({"event": "context_injected", "issue": 2}),
        ] {
            let line = format!("{v}\n");
            assert!(!Ledger::relevant(&v));
            assert!(!may_be_relevant(line.as_bytes()), "{line}");
        }
    }

    /// A log of `lines` records: spend records (some with a `\u` escape) among many others,
    /// the spend sometimes named only inside another record's text.
    fn log(lines: usize, seed: u64) -> (Vec<u8>, f64) {
        let mut out = Vec::new();
        let mut total = 0.0;
        let mut x = seed | 1;
        for i in 0..lines {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let rec = match x % 7 {
                0 => {
                    total += 0.5;
                    json!({"ts": "t", "event": "agent_finished", "issue": 3, "agent": "a", "cost_usd": 0.5})
                        .to_string()
                }
                1 => {
                    total += 0.25;
                    "{\"ts\":\"t\",\"event\":\"agent\\u005ffinished\",\"issue\":4,\"agent\":\"a\",\"cost_usd\":0.25}".to_string()
                }
                2 => json!({"ts": "t", "event": "context_injected", "issue": 2, "note": "agent_finished"})
                    .to_string(),
                _ => json!({"ts": "t", "event": "git_sync", "n": i, "pad": "x".repeat((x % 300) as usize)})
                    .to_string(),
            };
            out.extend_from_slice(rec.as_bytes());
            out.push(b'\n');
        }
        (out, total)
    }

    #[test]
    fn the_whole_buffer_search_finds_exactly_the_lines_the_line_filter_keeps() {
        for seed in 1..40 {
            let (buf, _) = log(200, seed);
            let by_line: Vec<_> = buf
                .split_inclusive(|b| *b == b'\n')
                .scan(0usize, |at, l| {
                    let r = *at..*at + l.len();
                    *at += l.len();
                    Some((r, may_be_relevant(l)))
                })
                .filter(|(_, keep)| *keep)
                .map(|(r, _)| r)
                .collect();
            assert_eq!(relevant_lines(&buf), by_line, "seed {seed}");
        }
    }

    #[test]
    fn a_log_longer_than_a_chunk_folds_every_record_once_and_stops_before_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.jsonl");
        let (mut buf, total) = log(20_000, 7);
        assert!(buf.len() > 2 * CHUNK, "{}", buf.len());
        let whole = buf.len() as u64;
        buf.extend_from_slice(
            b"{\"ts\":\"t\",\"event\":\"agent_finished\",\"issue\":3,\"cost_usd\":9",
        );
        std::fs::write(&file, &buf).unwrap();
        let mut state = FeatureState::new("f", "t");
        refresh(&file, &Config::default(), &mut state);
        let ledger = state.ledger.clone().unwrap();
        assert_eq!(ledger.log_offset, whole);
        assert!(
            (ledger.feature.usd - total).abs() < 1e-6,
            "{} vs {total}",
            ledger.feature.usd
        );
        // read again from the offset: nothing new, nothing changes
        refresh(&file, &Config::default(), &mut state);
        assert_eq!(state.ledger.as_ref(), Some(&ledger));
    }
}
