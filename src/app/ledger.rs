//! Keeping the state's spend ledger (`core::budget`) in step with the event log: the records
//! appended since the ledger's `log_offset` are folded in (O(new records)); a log shorter
//! than the offset (replaced, truncated) is folded again from the start. So the saved ledger
//! is always the fold of the log up to its offset, and a lost state is rebuilt from the log.

use crate::app::project::Project;
use crate::core::budget::{Ledger, Price};
use crate::core::config::Config;
use crate::core::state::FeatureState;
use std::io::{BufRead, BufReader, Seek, SeekFrom};

/// The price of an agent's tokens: `pricing.<agent name>`, else `pricing.<preset>`.
pub fn price_for(config: &Config, agent: &str) -> Option<Price> {
    config.pricing.get(agent).copied()
}

/// Folds the log records after the ledger's offset into `state.ledger`. The ledger is
/// created (and the state changed) only when there is something to record.
pub fn refresh(project: &Project, feature: &str, state: &mut FeatureState) {
    let path = project.paths.events_file(feature);
    let Ok(file) = std::fs::File::open(&path) else {
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
    let price = |agent: &str| price_for(&project.config, agent);
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
