//! swarm-attack: run a swarm of coding agents over a feature's issues, without ever redoing
//! finished work.
//!
//! Three floors (see ARCHITECTURE.md): [`core`] holds the pure rules, [`io`] the adapters
//! (files, git, GitHub, processes), [`app`] the use cases that orchestrate them, and [`cli`]
//! the command-line surface.

pub mod app;
pub mod cli;
pub mod core;
pub mod error;
pub mod io;

#[cfg(test)]
mod architecture_tests;
