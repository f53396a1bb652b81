//! The coordination filter (SPEC §6): proposals → SOLO / PARALLEL / SYNTHESIS.
//!
//! (Interface skeleton: the full rules land with the coordination work. Until then every
//! decision is SOLO with the first agent.)

use serde::{Deserialize, Serialize};

/// How the agents work on an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mode {
    Solo,
    Parallel,
    Synthesis,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Solo => "SOLO",
            Mode::Parallel => "PARALLEL",
            Mode::Synthesis => "SYNTHESIS",
        }
    }
}

/// One agent's micro-proposal for an issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub angle: String,
    pub confidence: f64,
    #[serde(default)]
    pub covers: Vec<String>,
    #[serde(default)]
    pub solo_sufficient: bool,
    #[serde(default)]
    pub builds_on_other: bool,
}

/// A proposal with the agent that made it and where it came from (`heuristic` / `llm`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedProposal {
    pub agent: String,
    pub source: String,
    #[serde(flatten)]
    pub proposal: Proposal,
}

/// The decision for one issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub mode: Mode,
    pub winner: String,
    pub runner_up: Option<String>,
    pub reason: String,
    pub proposals: Vec<NamedProposal>,
}

/// Decides who works on an issue from the proposals. `fallback_agent` is used when there
/// are no proposals at all.
pub fn decide(
    proposals: &[NamedProposal],
    _thresholds: &crate::io::config::Thresholds,
    fallback_agent: &str,
) -> Decision {
    let winner = proposals
        .first()
        .map(|p| p.agent.clone())
        .unwrap_or_else(|| fallback_agent.to_string());
    Decision {
        mode: Mode::Solo,
        winner,
        runner_up: None,
        reason: "SOLO: single agent".into(),
        proposals: proposals.to_vec(),
    }
}
