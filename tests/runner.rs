//! The one integration-test binary: each area is a module.

mod common;

mod acceptance_core;
mod acceptance_github;
mod acceptance_inputs;
mod acceptance_journeys;
mod acceptance_run;
mod action;
mod action_github;
mod architecture;
mod config;
mod events;
mod fake_github;
mod fake_model;
mod foundation;
mod github;
mod github_faults;
mod plan;
mod prompt;
mod real_agents;
mod run;
mod run_modes;
mod run_safety;
mod sync;
