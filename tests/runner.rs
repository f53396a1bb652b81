//! The one integration-test binary: each area is a module.

mod common;

mod cli;
mod cmd_action;
mod cmd_action_github;
mod cmd_events;
mod cmd_github;
mod cmd_github_faults;
mod cmd_github_spec;
mod cmd_greenlight;
mod cmd_plan;
mod cmd_prompt;
mod cmd_run;
mod cmd_run_modes;
mod cmd_run_safety;
mod cmd_run_spec;
mod config;
mod git_sync;
mod inputs;
mod journeys;
