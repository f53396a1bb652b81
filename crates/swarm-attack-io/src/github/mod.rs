//! The GitHub adapter: settings (token, API base, repository), the HTTP client with its
//! retry and rate-limit policy, the typed routes, the sync cache and the outbox. No
//! decisions here: what to write is decided in `core::github_plan`.

pub mod api;
pub mod cache;
pub mod client;
pub mod errors;
pub mod outbox;
pub mod pulls;
pub mod settings;
