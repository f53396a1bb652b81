//! The price table (`pricing: {<model or preset>: {input_per_mtok, output_per_mtok,
//! cached_input_per_mtok}}`): turns the tokens an agent reported into USD when it reported
//! no cost (Codex, Gemini, ...).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    /// Cached input; when unset (0) cached tokens cost `input_per_mtok`.
    pub cached_input_per_mtok: f64,
}

impl Price {
    /// The cost of a run: `tokens_in` counts all input tokens, `tokens_cached` of which were
    /// cached (docs/budgets.md "Pricing: tokens into USD").
    pub fn cost(&self, tokens_in: u64, tokens_out: u64, tokens_cached: u64) -> f64 {
        let cached = tokens_cached.min(tokens_in);
        let fresh = tokens_in - cached;
        let cached_rate = if self.cached_input_per_mtok > 0.0 {
            self.cached_input_per_mtok
        } else {
            self.input_per_mtok
        };
        (fresh as f64 * self.input_per_mtok
            + cached as f64 * cached_rate
            + tokens_out as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// `pricing`, keyed by model, preset or agent name.
pub type PriceTable = BTreeMap<String, Price>;
