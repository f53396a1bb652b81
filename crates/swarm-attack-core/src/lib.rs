//! The pure core: rules with no I/O, no async, no clock. Every rule of the docs has exactly one
//! implementation here.

pub mod action;
pub mod agent_limits;
pub mod agent_preset;
pub mod agent_report;
pub mod audit;
pub mod budget;
pub mod command_line;
pub mod commit_message;
pub mod config;
pub mod convergence;
pub mod coordination;
pub mod event_filter;
pub mod events;
pub mod evidence;
pub mod failure_analysis;
pub mod failure_class;
pub mod fallback_chain;
pub mod feature_id;
pub mod files_rule;
pub mod fold;
pub mod gates;
pub mod github_plan;
pub mod github_status;
pub mod governor;
pub mod greenlight;
pub mod handoff;
pub mod heuristic;
pub mod integrity;
pub mod issue_warnings;
pub mod issues;
pub mod json_text;
pub mod ledger;
pub mod lessons;
pub mod line_shape;
pub mod llm_proposal;
pub mod log_issues;
pub mod matrix;
pub mod outcomes;
pub mod owner;
pub mod path_glob;
pub mod prompt;
pub mod pull_body;
pub mod pull_link;
pub mod readiness;
pub mod record;
pub mod registry;
pub mod report;
pub mod review;
pub mod secrets;
pub mod shell_programs;
pub mod stage;
pub mod state;
pub mod state_nulls;
pub mod summary;
pub mod test_report;
pub mod transition;
pub mod unified_diff;

/// A feature id for unit tests (panics on an invalid one).
#[cfg(test)]
pub(crate) fn fid(id: &str) -> feature_id::FeatureId {
    feature_id::FeatureId::parse(id).expect("a valid feature id")
}
