//! swarm-attack: run a swarm of coding agents over a feature's issues, without ever redoing
//! finished work.
//!
//! Four floors, four crates (docs/architecture.md): [`core`] (`swarm-attack-core`) holds the
//! pure rules — the state model and the task state machine, readiness, evidence, prompt,
//! GitHub plans, config types — with no I/O; [`io`] (`swarm-attack-io`) the adapters
//! (files, git, GitHub, processes); [`app`] (`swarm-attack-app`) the use cases that
//! orchestrate them, each module importing only the ones below it (`project` at the bottom,
//! `github::mirror` the finish hook that mirrors a committed transaction to GitHub); and
//! [`cli`], this crate, the command-line surface: arguments and printing. Each crate can
//! only import the ones below it; `architecture_tests` checks what the compiler does not:
//! no import cycle inside `app`, no stage assigned outside the core, one place that
//! triggers the GitHub mirror.

// Printing goes through the command's `io::ui::Ui` (secrets masked); clippy's print lints
// deny `println!` and `eprintln!` everywhere.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;

/// The use cases (`crates/swarm-attack-app`): `crate::app::…` names them.
pub use swarm_attack_app as app;
/// The command error and its exit codes, the use cases' error type.
pub use swarm_attack_app::error;
/// The pure floor (`crates/swarm-attack-core`): `crate::core::…` names it.
pub use swarm_attack_core as core;
/// The adapters (`crates/swarm-attack-io`): `crate::io::…` names them.
pub use swarm_attack_io as io;

#[cfg(test)]
mod architecture_tests;
