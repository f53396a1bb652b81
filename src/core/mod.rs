//! The pure core: rules with no I/O, no async, no clock. Every SPEC rule has exactly one
//! implementation here.

pub mod action;
pub mod audit;
pub mod command_line;
pub mod commit_message;
pub mod convergence;
pub mod coordination;
pub mod event_filter;
pub mod events;
pub mod evidence;
pub mod failure_verdict;
pub mod github_plan;
pub mod github_status;
pub mod greenlight;
pub mod heuristic;
pub mod issues;
pub mod ledger;
pub mod llm_proposal;
pub mod owner;
pub mod prompt;
pub mod readiness;
pub mod registry;
pub mod stage;
pub mod state;
pub mod summary;
pub mod test_report;
