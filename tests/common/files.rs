//! Every file under a folder, to prove a command changed nothing (or only what it says).

use super::TestEnv;
use std::path::{Path, PathBuf};

/// A snapshot of every file under `dir` (path → bytes), to prove nothing was changed; `.git`
/// and `.swarm/locks` are left out.
pub fn snapshot_files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    fn walk(d: &Path, out: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            // .git, and the lock files (the tool's own, created once, never renamed or deleted)
            if p.file_name().is_some_and(|n| n == ".git" || n == "locks") {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else if let Ok(b) = std::fs::read(&p) {
                out.insert(p, b);
            }
        }
    }
    walk(dir, &mut out);
    out
}

/// The files under the repository except the lock files (whose holder text changes).
pub fn files_without_locks(env: &TestEnv) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    snapshot_files(&env.root)
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().contains("/.swarm/locks/"))
        .collect()
}

#[track_caller]
pub fn assert_same_files(a: &[(std::path::PathBuf, Vec<u8>)], b: &[(std::path::PathBuf, Vec<u8>)]) {
    let names =
        |v: &[(std::path::PathBuf, Vec<u8>)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(names(a), names(b));
    for ((p, x), (_, y)) in a.iter().zip(b) {
        assert!(x == y, "{} changed", p.display());
    }
}
