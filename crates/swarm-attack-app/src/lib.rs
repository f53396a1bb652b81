//! Use cases: they orchestrate adapters and the core, and own no formats.

// Printing goes through `io::ui::Ui` (secrets masked).
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// The pure floor: `crate::core::…` names it.
pub(crate) use swarm_attack_core as core;
/// The adapters: `crate::io::…` names them.
pub(crate) use swarm_attack_io as io;

pub mod error;

pub mod action;
pub mod demo;
pub mod doctor;
pub(crate) mod gates;
pub mod github;
pub mod greenlight;
pub mod init;
pub(crate) mod ledger;
pub mod lessons;
pub(crate) mod llm_calls;
pub mod matrix;
pub(crate) mod outcomes;
pub mod plan;
pub mod project;
pub mod prompt;
pub(crate) mod pull_gate;
pub(crate) mod pull_reconcile;
pub mod report;
pub mod run;
pub mod setup;
pub mod status;
pub(crate) mod summary;
pub mod sync;
pub(crate) mod task_facts;
pub mod unblock;

/// A feature id for unit tests (panics on an invalid one).
#[cfg(test)]
pub(crate) fn fid(id: &str) -> core::feature_id::FeatureId {
    core::feature_id::FeatureId::parse(id).expect("a valid feature id")
}

/// `task` in `stage`, as a state file holding it would load (for unit tests: outside the
/// core a stage changes only through its transitions).
#[cfg(test)]
pub(crate) fn task_in(stage: core::stage::Stage, task: core::state::Task) -> core::state::Task {
    let mut v = serde_json::to_value(task).expect("a task serialises");
    v["stage"] = serde_json::to_value(stage).expect("a stage serialises");
    serde_json::from_value(v).expect("a task deserialises")
}
