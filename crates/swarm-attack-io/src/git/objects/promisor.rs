//! Partial clones (`git clone --filter=tree:0`, what `actions/checkout` offers as
//! `filter: tree:0`): the commits are all there, the trees and blobs of old commits are
//! not, and git fetches each missing object from the promisor remote when a command needs
//! it — one request at a time. Reading the changed files of many old commits (the DONE
//! issues' summaries) would then cost one fetch per commit. [`prefetch_trees`] asks for
//! all the trees those commits need in one fetch instead, the way git's own lazy fetch
//! asks (`fetch --filter=blob:none --stdin`, no negotiation), so the reads that follow find
//! them locally.

use super::{ObjectId, full_id, with_repo};
use std::path::Path;

/// The name of the repository's promisor remote (`remote.<name>.promisor = true`, or
/// `extensions.partialClone`), when it is a partial clone.
pub fn promisor_remote(root: &Path) -> Option<String> {
    with_repo(root, |repo| {
        let config = repo.config_snapshot();
        if let Some(name) = config.string("extensions.partialClone") {
            return Some(name.to_string());
        }
        repo.remote_names()
            .into_iter()
            .map(|name| name.to_string())
            .find(|name| {
                config
                    .boolean(format!("remote.{name}.promisor").as_str())
                    .unwrap_or(false)
            })
    })
}

/// The root trees of `commits` and of their first parents that are missing from the object
/// store (full names only; commits that are themselves missing are left out).
pub fn missing_trees(root: &Path, commits: &[&str]) -> Vec<ObjectId> {
    with_repo(root, |repo| {
        let mut missing = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for name in commits {
            let Some(id) = full_id(name) else { continue };
            let Ok(Some(object)) = repo.try_find_object(id) else {
                continue;
            };
            let Ok(commit) = object.try_into_commit() else {
                continue;
            };
            let Ok(decoded) = commit.decode() else {
                continue;
            };
            let mut trees = vec![ObjectId::from_hex(decoded.tree).ok()];
            if let Some(parent) = decoded.parents.first() {
                trees.push(ObjectId::from_hex(parent).ok().and_then(|p| {
                    let parent = repo.try_find_object(p).ok()??.try_into_commit().ok()?;
                    Some(parent.tree_id().ok()?.detach())
                }));
            }
            for tree in trees.into_iter().flatten() {
                if seen.insert(tree) && !repo.has_object(tree) {
                    missing.push(tree);
                }
            }
        }
        Some(missing)
    })
    .unwrap_or_default()
}
