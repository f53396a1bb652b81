//! What a DONE task left in the repository, as the prompt and the semantic summaries read
//! it: its files, its implementing commit, the public items of a file.

use crate::core::registry::{Symbol, detect_symbols};
use crate::core::state::Task;
use std::path::Path;

/// The largest file read for the module registry.
pub(crate) const MAX_REGISTRY_FILE_BYTES: u64 = 256 * 1024;

/// Whether `rel` is a plain relative path inside the repository (no `..`, not absolute).
fn is_inside(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty()
        && p.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
}

/// The public items of the repository file `rel` (read from the working tree, capped);
/// `None` when it cannot be read.
pub(crate) fn file_symbols(root: &Path, rel: &str) -> Option<Vec<Symbol>> {
    file_symbols_under(root, &root.canonicalize().ok()?, rel)
}

/// [`file_symbols`] with the root's canonical path found once by the caller (a prompt reads
/// up to 200 files).
pub(crate) fn file_symbols_under(root: &Path, canon_root: &Path, rel: &str) -> Option<Vec<Symbol>> {
    if !is_inside(rel) {
        return None;
    }
    let path = root.join(rel);
    let canon = path.canonicalize().ok()?;
    if !canon.starts_with(canon_root) || !canon.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    use std::io::Read;
    std::fs::File::open(&canon)
        .ok()?
        .take(MAX_REGISTRY_FILE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(detect_symbols(rel, &String::from_utf8_lossy(&bytes)))
}

/// The files a DONE task created: `outputs.files_created`, else the files it declares.
pub(crate) fn task_files(task: &Task) -> &[String] {
    if task.outputs.files_created.is_empty() {
        &task.files
    } else {
        &task.outputs.files_created
    }
}

/// The implementing commit of a task: `commit`, else the newest evidence commit.
pub(crate) fn task_commit(task: &Task) -> Option<&str> {
    task.commit
        .as_deref()
        .or_else(|| task.evidence.iter().rev().find_map(|e| e.commit.as_deref()))
}
