//! Keeping the state's spend ledger (`core::budget`) in step with the event log: the records
//! appended since the ledger's `log_offset` are folded in (O(new records)); a log shorter
//! than the offset (replaced, truncated) is folded again from the start. So the saved ledger
//! is always the fold of the log up to its offset, and a lost state is rebuilt from the log.

use crate::core::budget::{Ledger, Price};
use crate::core::config::Config;
use crate::core::state::FeatureState;
use std::io::{BufRead, BufReader, Seek, SeekFrom};

/// The price of an agent run's tokens, looked up in `pricing` in this order: the model the
/// run reported (or its command line asked for, `agent_finished.model`), then the agent's
/// preset (`claude-code`, `codex`, ...), then the agent's name. `None`: the cost stays
/// unknown.
pub fn price_for(config: &Config, agent: &str, model: Option<&str>) -> Option<Price> {
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
pub fn priced_cost(
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

/// Whether a log line can be a record [`Ledger::relevant`] accepts: it names one of those
/// events, or has a `\u` escape (that could spell one). Every other line (most of a log:
/// syncs, prompts, tests) is skipped without parsing, so a `status` of a feature that has
/// no ledger yet, which reads the whole log, costs a byte scan, not a parse per line.
fn may_be_relevant(line: &[u8]) -> bool {
    const NAMES: [&[u8]; 5] = [
        b"agent_finished",
        b"issue_started",
        b"retry_started",
        b"budget_raised",
        b"\\u",
    ];
    NAMES
        .iter()
        .any(|n| memchr::memmem::find(line, n).is_some())
}

/// Folds the log records after the ledger's offset into `state.ledger`. The ledger is
/// created (and the state changed) only when there is something to record.
/// `events_file` is the feature's event log. (Takes plain values, not the project: the
/// feature transaction calls it, so this module stays below `app::project`.)
pub fn refresh(events_file: &std::path::Path, config: &Config, state: &mut FeatureState) {
    let Ok(file) = std::fs::File::open(events_file) else {
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
    let mut reader = BufReader::new(file);
    if reader.seek(SeekFrom::Start(start)).is_err() {
        return;
    }
    let price = |agent: &str, model: Option<&str>| price_for(config, agent, model);
    let mut offset = start;
    let mut changed = start == 0 && state.ledger.as_ref().is_some_and(|l| l.log_offset > len);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if line.last() != Some(&b'\n') {
                    break; // a torn tail: not a record yet
                }
                offset += n as u64;
                if !may_be_relevant(&line) {
                    continue;
                }
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line)
                    && Ledger::relevant(&v)
                {
                    ledger.apply(&v, &price);
                    changed = true;
                }
            }
        }
    }
    if changed {
        ledger.log_offset = offset;
        state.ledger = Some(ledger);
    }
}

#[cfg(test)]
mod tests {
    use super::may_be_relevant;
    use crate::core::budget::Ledger;
    use serde_json::json;

    #[test]
    fn the_byte_filter_keeps_every_relevant_record_and_skips_the_others() {
        for event in [
            "agent_finished",
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
}
