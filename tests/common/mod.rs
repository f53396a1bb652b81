//! Test support as an API: every helper a test module uses lives here, split by what it owns.
//! Test modules import from `crate::common` only, never from one another.
#![allow(dead_code)]

pub mod action;
pub mod agents;
pub mod argv_watch;
pub mod env;
pub mod event_log;
pub mod fake_github;
pub mod fake_model;
pub mod files;
pub mod fixtures;
pub mod gates;
pub mod github;
pub mod modes;
pub mod output;
pub mod procs;
pub mod real_clis;
pub mod report;
pub mod review;
pub mod rng;
pub mod snapshot;
pub mod state;

pub use env::{Run, TestEnv, bin};
pub use files::snapshot_files;
