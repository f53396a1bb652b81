//! swarm-attack: run a swarm of coding agents over a feature's issues, without ever redoing
//! finished work.
//!
//! Three floors (see ARCHITECTURE.md): [`core`] holds the pure rules, [`io`] the adapters
//! (files, git, GitHub, processes), [`app`] the use cases that orchestrate them, and [`cli`]
//! the command-line surface.

pub mod app;
pub mod cli;
pub mod error;
pub mod io;

/// The pure floor, its own crate (`crates/swarm-attack-core`) so that it cannot import
/// the adapters: re-exported here so that `crate::core::…` names it.
pub use swarm_attack_core as core;
