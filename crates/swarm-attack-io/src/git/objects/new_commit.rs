//! Writing a worker's commit in the object store with gix (issue 19): the base commit's
//! tree edited at the changed paths, each file read as `git add` stages it. The policy that
//! decides when this is the commit git would make lives in
//! [`crate::git::Git::commit_changes`]; this module refuses (`None`) whatever it cannot
//! read exactly as git would: anything but a regular file or a symbolic link, a path
//! whose ancestor is not a folder in the base tree, a creation over an existing entry, a
//! `.gitattributes` file on the way (in the worktree or the base tree), a huge file, a
//! result equal to the base tree (git refuses an empty commit).

use super::{Entries, entries, full_id, with_repo};
use crate::git::{Change, ChangeKind};
use gix::hash::ObjectId;
use gix::objs::Write as _;
use gix::objs::tree::EntryKind;
use std::collections::HashMap;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The largest file committed in this process (bigger ones are left to git, which streams
/// them).
const MAX_FILE: u64 = 64 << 20;

/// The `author` and `committer` lines' values (`Name <email> <seconds> <offset>`) and the
/// cleaned message of a commit.
pub struct Header<'a> {
    pub author: &'a str,
    pub committer: &'a str,
    pub message: &'a str,
}

/// What a changed path becomes: removed, or an entry of this kind with this content.
enum Edit {
    Remove,
    Put(EntryKind, Vec<u8>),
}

/// `change` read in the worktree `dir` as `git add` stages it (core.fileMode and
/// core.symlinks on): a regular file is a blob, executable when the owner may execute it;
/// a symbolic link is a blob of its target. `None`: something else (a folder, a nested
/// repository, a path that is not where the change says).
fn read_change(dir: &Path, change: &Change) -> Option<Edit> {
    let full = dir.join(&change.path);
    let meta = match std::fs::symlink_metadata(&full) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (change.kind == ChangeKind::Deleted).then_some(Edit::Remove);
        }
        Err(_) => return None,
        Ok(m) => m,
    };
    if change.kind == ChangeKind::Deleted {
        return None;
    }
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(&full).ok()?.into_os_string().into_vec();
        return Some(Edit::Put(EntryKind::Link, target));
    }
    if !kind.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    let bytes = read_regular(&full, &meta)?;
    let kind = if meta.permissions().mode() & 0o100 != 0 {
        EntryKind::BlobExecutable
    } else {
        EntryKind::Blob
    };
    Some(Edit::Put(kind, bytes))
}

/// The bytes of the regular file at `path`, which `lstat` gave as `meta`: opened without
/// following a link and without blocking, and read only when it is still that file (a
/// file swapped for a link, a FIFO or another file meanwhile is left to git).
fn read_regular(path: &Path, meta: &std::fs::Metadata) -> Option<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let now = file.metadata().ok()?;
    if !now.file_type().is_file() || now.dev() != meta.dev() || now.ino() != meta.ino() {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(now.len()).ok()?);
    file.by_ref()
        .take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_FILE).then_some(bytes)
}

/// Whether the worktree has a `.gitattributes` in the folder `rel` (an unreadable one
/// counts).
fn attributes_in(dir: &Path, rel: &str) -> bool {
    let p = dir.join(rel).join(".gitattributes");
    !matches!(std::fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// Checks `change` against the base tree `root`: every ancestor is a folder there (or
/// absent), no `.gitattributes` on the way, and the entry itself is a file or a link for a
/// modification or deletion, absent for a creation. `trees` caches decoded trees.
fn fits_base(
    repo: &gix::Repository,
    root: ObjectId,
    dir: &Path,
    change: &Change,
    trees: &mut HashMap<ObjectId, Entries>,
) -> Option<()> {
    let names: Vec<&str> = change.path.split('/').collect();
    let mut tree = Some(root);
    let mut folder = String::new();
    for (i, name) in names.iter().enumerate() {
        if attributes_in(dir, &folder) {
            return None;
        }
        let found = match tree {
            Some(id) => {
                let here = match trees.entry(id) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(entries(repo, Some(id))?)
                    }
                };
                if here.contains_key(b".gitattributes".as_slice()) {
                    return None;
                }
                here.get(name.as_bytes()).copied()
            }
            None => None,
        };
        if i + 1 < names.len() {
            tree = match found {
                None => None,
                Some((EntryKind::Tree, id)) => Some(id),
                Some(_) => return None,
            };
            folder.push_str(name);
            folder.push('/');
            continue;
        }
        let file = |k: EntryKind| {
            matches!(
                k,
                EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link
            )
        };
        return match (found, change.kind) {
            (None, ChangeKind::Created) => Some(()),
            (Some((k, _)), ChangeKind::Modified | ChangeKind::Deleted) if file(k) => Some(()),
            _ => None,
        };
    }
    None
}

/// Writes the commit of `changes` (paths of the worktree `dir`) on `base` with `header`;
/// returns its id, or `None` when it cannot be sure it is git's commit (see the module
/// documentation). HEAD is not moved.
pub fn write_commit(
    root: &Path,
    dir: &Path,
    base: &str,
    changes: &[Change],
    header: &Header<'_>,
) -> Option<String> {
    let base_id = full_id(base)?;
    with_repo(root, |repo| {
        let base_commit = repo
            .try_find_object(base_id)
            .ok()??
            .try_into_commit()
            .ok()?;
        let base_tree = base_commit.tree_id().ok()?.detach();
        let mut trees = HashMap::new();
        let mut edits = Vec::with_capacity(changes.len());
        for change in changes {
            fits_base(repo, base_tree, dir, change, &mut trees)?;
            edits.push(read_change(dir, change)?);
        }
        // the plain editor: gix's own checks every entry of every tree it writes for
        // existence (a file lookup each: milliseconds for a wide tree); the names are
        // checked by the caller, the blobs were just written
        let mut editor = repo.edit_tree(base_tree).ok()?.detach();
        for (change, edit) in changes.iter().zip(edits) {
            let path = change.path.split('/');
            match edit {
                Edit::Remove => {
                    editor.remove(path).ok()?;
                }
                Edit::Put(kind, bytes) => {
                    let id = repo.write_blob(&bytes).ok()?.detach();
                    editor.upsert(path, kind, id).ok()?;
                }
            }
        }
        let tree = editor
            .write(|t| repo.write_object(t).map(gix::Id::detach))
            .ok()?;
        if tree == base_tree {
            return None;
        }
        let raw = format!(
            "tree {tree}\nparent {base}\nauthor {}\ncommitter {}\n\n{}",
            header.author, header.committer, header.message
        );
        let id = repo
            .objects
            .write_buf(gix::objs::Kind::Commit, raw.as_bytes())
            .ok()?;
        Some(id.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::read_regular;

    #[test]
    fn a_file_is_read_only_while_it_is_the_regular_file_lstat_saw() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("a.txt");
        std::fs::write(&file, "one\n").unwrap();
        let meta = std::fs::symlink_metadata(&file).unwrap();
        assert_eq!(read_regular(&file, &meta).as_deref(), Some(&b"one\n"[..]));
        // replaced by another file (another inode) after the lstat: left to git
        let other = d.path().join("b.txt");
        std::fs::write(&other, "two\n").unwrap();
        std::fs::rename(&other, &file).unwrap();
        assert_eq!(read_regular(&file, &meta), None);
        // replaced by a link: not followed
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), &file).unwrap();
        assert_eq!(read_regular(&file, &meta), None);
        // replaced by a FIFO: not opened for a blocking read (this would hang otherwise)
        std::fs::remove_file(&file).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(&file)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(read_regular(&file, &meta), None);
    }
}
