//! swarm-attack: run a swarm of coding agents over a feature's issues, without ever redoing
//! finished work.
//!
//! Three floors (docs/architecture.md): [`core`] (the crate `swarm-attack-core`) holds the
//! pure rules — the state model and the task state machine, readiness, evidence, prompt,
//! GitHub plans, config types — with no I/O; [`io`] the adapters (files, git, GitHub,
//! processes); [`app`] the use cases that orchestrate them, each module importing only the
//! ones below it (`project` at the bottom, `github::mirror` the finish hook that mirrors a
//! committed transaction to GitHub); and [`cli`] the command-line surface: arguments and
//! printing. `architecture_tests` checks what the compiler does not: no import cycle in
//! `app`, no stage assigned outside the core, one place that triggers the GitHub mirror.

// Printing goes through the command's `io::ui::Ui` (secrets masked); clippy's print lints
// deny `println!` and `eprintln!` everywhere.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod app;
pub mod cli;
pub mod error;
pub mod io;

/// The pure floor, its own crate (`crates/swarm-attack-core`) so that it cannot import
/// the adapters: re-exported here so that `crate::core::…` names it.
pub use swarm_attack_core as core;

#[cfg(test)]
mod architecture_tests;

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
