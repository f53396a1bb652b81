//! Test support as an API: every helper a test module uses lives here, split by what it owns.
//! Test modules import from `crate::common` only, never from one another.
#![allow(dead_code)]

pub mod env;
pub mod fake_github;

pub use env::{Run, TestEnv, bin, snapshot_files};
