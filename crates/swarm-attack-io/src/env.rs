//! The one module that reads the process environment: clippy's `disallowed-methods`
//! (clippy.toml) keeps `std::env::var` and `std::env::var_os` out of every other module, so
//! what the tool reads from the environment is listed by the callers of these two.
#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;

/// `std::env::var`: the variable's value, if set and valid UTF-8.
pub fn var(name: &str) -> Result<String, std::env::VarError> {
    std::env::var(name)
}

/// `std::env::var_os`: the variable's raw value, if set.
pub fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}
