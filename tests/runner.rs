//! The one integration-test binary: each area is a module.

mod common;

mod action;
mod config;
mod foundation;
mod plan;
mod prompt;
mod sync;
