//! The one integration-test binary: each area is a module.

// the tests pass their own environment (PATH) to the command they run
#![allow(clippy::disallowed_methods)]

mod common;

mod acceptance_core;
mod acceptance_github;
mod acceptance_inputs;
mod acceptance_journeys;
mod acceptance_run;
mod action;
mod action_github;
mod action_install;
mod architecture;
mod cmd_matrix;
mod config;
mod events;
mod fake_github;
mod foundation;
mod github;
mod github_faults;
mod plan;
mod prompt;
mod run;
mod run_modes;
mod run_safety;
mod sync;
mod verbose;
mod workflows;
