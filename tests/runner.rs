//! The one integration-test binary: each area is a module.

mod common;

mod foundation;
mod run;
mod run_safety;
