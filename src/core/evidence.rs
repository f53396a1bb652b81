//! The git-history rule (SPEC §3): when is a commit evidence that issue N of feature F is
//! implemented, and how reverts cancel and restore evidence.
//!
//! (Skeleton: the rule is implemented by the history-sync work.)

use std::collections::BTreeMap;

/// What the rule needs to know about the feature.
#[derive(Debug, Clone, Default)]
pub struct EvidenceRule {
    /// The feature id F (matched exactly).
    pub feature: String,
    /// Task issue number → linked GitHub issue G (rule 3).
    pub links: BTreeMap<u32, u64>,
    /// `owner/repo` of this repository (rule 3's `owner/repo#G`), if known.
    pub repo: Option<String>,
    /// The user's extra patterns (rule 4), with named groups `feature` and `issue`.
    pub done_patterns: Vec<regex::Regex>,
}
