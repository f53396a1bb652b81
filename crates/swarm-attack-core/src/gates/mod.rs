//! Gates before dispatch (docs/gates.md): the configuration of the two gates, and the rules
//! each applies. [`specify`] decides whether an issue is specified well enough to be worth an
//! attempt (the answer of `llm.command`, validated here, or the offline
//! [`specify_heuristic`] scorer); [`risk`] finds the signals that make an issue risky.
//! Pure: the callers run the LLM and record what these functions decide.

pub mod risk;
pub mod specify;
pub mod specify_heuristic;

use crate::config::Landing;
use serde::{Deserialize, Serialize};

/// `gates`: both gates, off by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct GatesConfig {
    pub specify: SpecifyConfig,
    pub risk: RiskConfig,
}

/// `gates.specify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpecifyConfig {
    pub enabled: bool,
    /// The lowest total (0–10) that is dispatched.
    pub min_score: u32,
}

impl Default for SpecifyConfig {
    fn default() -> Self {
        SpecifyConfig {
            enabled: false,
            min_score: 6,
        }
    }
}

/// The review strategy a risky issue gets (docs/review.md `review.strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RiskReview {
    Single,
    #[default]
    Cross,
}

impl RiskReview {
    pub fn as_str(self) -> &'static str {
        match self {
            RiskReview::Single => "single",
            RiskReview::Cross => "cross",
        }
    }
}

/// `gates.risk`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RiskConfig {
    pub enabled: bool,
    /// Words that make an issue risky when its title, body or labels hold one.
    pub keywords: Vec<String>,
    /// Globs on the issue's `files` that make it risky.
    pub paths: Vec<String>,
    /// How a risky issue is reviewed (even when `review.enabled` is false).
    pub review: RiskReview,
    /// How a risky issue lands (instead of `git.landing`).
    pub landing: Landing,
}

/// The default risk keywords (docs/gates.md "Risk routing").
pub const DEFAULT_RISK_KEYWORDS: &[&str] = &[
    "auth",
    "password",
    "secret",
    "token",
    "crypto",
    "payment",
    "migration",
    "permission",
    "security",
];

impl Default for RiskConfig {
    fn default() -> Self {
        RiskConfig {
            enabled: false,
            keywords: DEFAULT_RISK_KEYWORDS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            paths: Vec::new(),
            review: RiskReview::Cross,
            landing: Landing::Pr,
        }
    }
}
