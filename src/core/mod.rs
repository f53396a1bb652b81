//! The pure core: rules with no I/O, no async, no clock. Every SPEC rule has exactly one
//! implementation here.

pub mod command_line;
pub mod commit_message;
pub mod coordination;
pub mod events;
pub mod evidence;
pub mod failure_verdict;
pub mod greenlight;
pub mod issues;
pub mod owner;
pub mod readiness;
pub mod stage;
pub mod state;
pub mod test_report;
