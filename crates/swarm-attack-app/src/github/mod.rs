//! GitHub: the mirror of a feature's state on its linked issues (labels, status comments,
//! open/closed), `github sync`, `github publish`, and the Action's GitHub port.
//!
//! Layers, each using only the ones above it:
//! - [`report`]: what a sync or publish did (plain data, printed by the CLI);
//! - `session`: one run against one repository (settings, outbox, cache, failures, events);
//! - `reconcile`: bringing linked issues in line with the state;
//! - [`publish`]: creating issues for unlinked tasks (`github publish`);
//! - [`sync`]: `github sync` (outbox replay, then every linked issue);
//! - [`mirror`]: the finish hook run after a transaction marked for mirroring — the one
//!   place the automatic sync starts from;
//! - [`live`]: the Action's [`GithubPort`](crate::action::GithubPort) over the client.

pub mod live;
pub mod mirror;
pub mod publish;
pub(crate) mod reconcile;
pub mod report;
pub(crate) mod session;
pub mod sync;
