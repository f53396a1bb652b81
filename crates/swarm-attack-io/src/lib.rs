//! Adapters: files (config, state, events), git history, GitHub, processes. No decisions here.

// Printing goes through `ui::Ui` (secrets masked); clippy's print lints deny `println!` and
// `eprintln!` everywhere else.
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// The pure floor: `crate::core::…` names it.
use swarm_attack_core as core;

pub mod agent;
pub mod agent_pid;
pub mod atomic;
pub mod browser;
pub mod clock;
pub mod config;
pub mod contain;
pub mod env;
pub mod event_index;
pub mod event_log;
pub mod event_reader;
pub mod file_error;
pub mod gh_actions;
pub mod git;
pub mod github;
pub mod history;
pub mod history_pack;
pub mod history_seen;
pub mod interrupt;
pub mod issues_file;
pub mod jsonl;
pub mod llm;
pub mod lock;
pub mod paths;
pub mod process;
pub mod program_path;
pub mod project_root;
pub mod repo_id;
pub mod run_lock;
pub mod secrets;
pub mod state_store;
pub mod state_writer;
pub mod test_hooks;
pub mod ui;

/// A feature id for unit tests (panics on an invalid one).
#[cfg(test)]
pub(crate) fn fid(id: &str) -> core::feature_id::FeatureId {
    core::feature_id::FeatureId::parse(id).expect("a valid feature id")
}
