//! The one integration-test binary: each area is a module.

mod common;

mod fake_github;
mod foundation;
mod github;
