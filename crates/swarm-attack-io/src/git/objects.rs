//! Reading commits in this process with gix instead of starting git (issue 19: `run`
//! started a `git show`, a `git log --no-walk` and a `git cat-file` per issue only to read
//! a commit it had just made). Each reader gives what the git command gave, or `None` when
//! it cannot say for sure (an object it cannot find, an abbreviated name, a message in
//! another encoding, ...): the caller then asks git as before.
//!
//! One repository handle per process and root is kept (opening one reads its config);
//! objects that git writes later are still found (loose objects are looked up by file,
//! new packs are picked up on a miss).

use gix::bstr::ByteSlice;
use gix::hash::ObjectId;
use gix::objs::tree::EntryKind;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub mod new_commit;
pub mod promisor;

type Repos = HashMap<PathBuf, gix::ThreadSafeRepository>;
static REPOS: Mutex<Option<Repos>> = Mutex::new(None);

/// Runs `f` with the repository at `root` (opened once per process and root).
fn with_repo<R>(root: &Path, f: impl FnOnce(&gix::Repository) -> Option<R>) -> Option<R> {
    let shared = {
        let mut repos = REPOS.lock().ok()?;
        let repos = repos.get_or_insert_with(Default::default);
        match repos.get(root) {
            Some(r) => r.clone(),
            None => {
                let r = gix::ThreadSafeRepository::discover(root).ok()?;
                repos.insert(root.to_path_buf(), r.clone());
                r
            }
        }
    };
    f(&shared.to_thread_local())
}

/// A full object name (40 or 64 hex digits, lowercase).
fn full_id(name: &str) -> Option<ObjectId> {
    if !matches!(name.len(), 40 | 64) || name.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    ObjectId::from_hex(name.as_bytes()).ok()
}

/// The raw commit object `name` (what `git cat-file commit <name>` prints), if it is
/// valid UTF-8.
pub fn raw_commit(root: &Path, name: &str) -> Option<String> {
    let id = full_id(name)?;
    with_repo(root, |repo| {
        let object = repo.try_find_object(id).ok()??;
        if object.kind != gix::objs::Kind::Commit {
            return None;
        }
        String::from_utf8(object.data.clone()).ok()
    })
}

/// The committer time (seconds since the epoch, git's `%ct`) of commit `name`.
pub fn commit_time(root: &Path, name: &str) -> Option<i64> {
    let id = full_id(name)?;
    with_repo(root, |repo| {
        let commit = repo.try_find_object(id).ok()??.try_into_commit().ok()?;
        Some(commit.time().ok()?.seconds)
    })
}

/// How a path differs between a commit and its first parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Modified,
    Deleted,
}

/// The subject (git's `%s`) of commit `name` and the paths it changed against its first
/// parent, in git's order (`git show --name-status --no-renames
/// --diff-merges=first-parent`). `None` for a root commit or a message with an `encoding`
/// header (git would re-encode it): the caller asks git.
pub fn subject_and_changes(root: &Path, name: &str) -> Option<(String, Vec<(String, Status)>)> {
    let id = full_id(name)?;
    with_repo(root, |repo| {
        let commit = repo.try_find_object(id).ok()??.try_into_commit().ok()?;
        let decoded = commit.decode().ok()?;
        if decoded.encoding.is_some() {
            return None;
        }
        let subject = subject(decoded.message);
        let tree = ObjectId::from_hex(decoded.tree).ok()?;
        let parent = ObjectId::from_hex(decoded.parents.first()?).ok()?;
        let parent_commit = repo.try_find_object(parent).ok()??.try_into_commit().ok()?;
        let parent_tree = parent_commit.tree_id().ok()?.detach();
        let mut out = Vec::new();
        diff_trees(repo, b"", Some(parent_tree), Some(tree), &mut out)?;
        out.sort_by(|a, b| a.0.cmp(&b.0));
        let out = out
            .into_iter()
            .map(|(path, status)| (String::from_utf8_lossy(&path).into_owned(), status))
            .collect();
        Some((String::from_utf8_lossy(&subject).into_owned(), out))
    })
}

/// git's `%s`: the first paragraph of the message (blank lines before it skipped), its
/// lines without trailing whitespace, joined by spaces.
fn subject(message: &[u8]) -> Vec<u8> {
    let blank = |line: &[u8]| line.iter().all(|b| is_space(*b));
    let mut out = Vec::new();
    let mut started = false;
    for line in message.lines_with_terminator() {
        if blank(line) {
            if started {
                break;
            }
            continue;
        }
        let end = line
            .iter()
            .rposition(|b| !is_space(*b))
            .map_or(0, |i| i + 1);
        if started {
            out.push(b' ');
        }
        out.extend_from_slice(&line[..end]);
        started = true;
    }
    out
}

/// git's own `isspace` (space, tab, line feed, carriage return).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The entries of a tree by name: (kind, object).
type Entries = BTreeMap<Vec<u8>, (EntryKind, ObjectId)>;

fn entries(repo: &gix::Repository, tree: Option<ObjectId>) -> Option<Entries> {
    let Some(tree) = tree else {
        return Some(Entries::new());
    };
    let object = repo.try_find_object(tree).ok()??.try_into_tree().ok()?;
    let decoded = object.decode().ok()?;
    Some(
        decoded
            .entries
            .iter()
            .map(|e| (e.filename.to_vec(), (e.mode.kind(), e.oid.to_owned())))
            .collect(),
    )
}

/// Every file (blob, link or submodule) that differs between trees `old` and `new` under
/// `prefix`, as `git diff-tree -r --no-renames` sees them: a path that is a tree on one side
/// and a file on the other is a deletion plus additions (or the reverse); a file whose
/// object or kind changed is modified.
fn diff_trees(
    repo: &gix::Repository,
    prefix: &[u8],
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    out: &mut Vec<(Vec<u8>, Status)>,
) -> Option<()> {
    let (old, new) = (entries(repo, old)?, entries(repo, new)?);
    let mut names: Vec<&Vec<u8>> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        let mut path = prefix.to_vec();
        path.extend_from_slice(name);
        let (a, b) = (old.get(name), new.get(name));
        if a == b {
            continue;
        }
        let tree_of = |e: Option<&(EntryKind, ObjectId)>| {
            e.filter(|(k, _)| *k == EntryKind::Tree).map(|(_, id)| *id)
        };
        let is_file =
            |e: Option<&(EntryKind, ObjectId)>| e.is_some_and(|(k, _)| *k != EntryKind::Tree);
        let (a_tree, b_tree) = (tree_of(a), tree_of(b));
        if a_tree.is_some() || b_tree.is_some() {
            let mut sub = path.clone();
            sub.push(b'/');
            diff_trees(repo, &sub, a_tree, b_tree, out)?;
        }
        match (is_file(a), is_file(b)) {
            (true, true) => out.push((path, Status::Modified)),
            (true, false) => out.push((path, Status::Deleted)),
            (false, true) => out.push((path, Status::Added)),
            (false, false) => {}
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::testing::git;

    #[test]
    fn the_subject_is_gits_first_paragraph_joined() {
        assert_eq!(subject(b"feat: x\n\nbody\n"), b"feat: x");
        assert_eq!(subject(b"\n \nfirst  \nsecond\t\n\nbody"), b"first second");
        assert_eq!(subject(b"only"), b"only");
        assert_eq!(subject(b""), b"");
    }

    /// Subject and the paths added, modified and deleted, each list in order.
    type Facts = (String, [Vec<String>; 3]);

    /// What git says of `sha` (`git show`, the tool's own fallback).
    fn git_show(dir: &Path, sha: &str) -> Facts {
        let info = crate::git::commit_info::commit_info_by_git(dir, sha).unwrap();
        (info.subject, [info.added, info.modified, info.deleted])
    }

    /// What this module says of `sha`.
    fn ours(dir: &Path, sha: &str) -> Facts {
        let (subject, changes) = subject_and_changes(dir, sha).unwrap();
        let of = |want: Status| {
            changes
                .iter()
                .filter(|(_, s)| *s == want)
                .map(|(p, _)| p.clone())
                .collect()
        };
        let lists = [of(Status::Added), of(Status::Modified), of(Status::Deleted)];
        (subject, lists)
    }

    #[test]
    fn commits_read_in_process_are_what_git_says() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("r");
        std::fs::create_dir_all(&d).unwrap();
        git(&d, &["init", "-q", "-b", "main"]);
        let write = |p: &str, text: &str| {
            let p = d.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        let commit = |msg: &str| {
            git(&d, &["add", "-A"]);
            git(&d, &["commit", "-q", "--allow-empty", "-m", msg]);
            git(&d, &["rev-parse", "HEAD"])
        };
        write("a.txt", "a");
        write("a/b/c.txt", "c");
        write("ab", "ab");
        write("x", "file that becomes a folder");
        write("dir/f", "folder that becomes a file");
        let root = commit("root");
        let mut shas = Vec::new();
        write("a.txt", "changed");
        write("a/b/new file é.txt", "new");
        write("a-b/z", "z");
        std::fs::remove_file(d.join("ab")).unwrap();
        shas.push(commit("feat: several\n\nbody"));
        std::fs::remove_file(d.join("x")).unwrap();
        write("x/inside", "now a folder");
        std::fs::remove_dir_all(d.join("dir")).unwrap();
        write("dir", "now a file");
        shas.push(commit("  \n\nwrapped  \nsubject line\n\nbody"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(d.join("a.txt"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
            std::os::unix::fs::symlink("a.txt", d.join("link")).unwrap();
        }
        shas.push(commit("mode and link"));
        shas.push(commit("empty"));
        // a merge: against its first parent
        git(&d, &["checkout", "-q", "-b", "side", &root]);
        write("side.txt", "s");
        commit("side");
        git(&d, &["checkout", "-q", "main"]);
        git(&d, &["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
        shas.push(git(&d, &["rev-parse", "HEAD"]));
        for sha in &shas {
            assert_eq!(ours(&d, sha), git_show(&d, sha), "{sha}");
            let ct = git(&d, &["log", "-1", "--format=%ct", sha]);
            assert_eq!(commit_time(&d, sha), Some(ct.parse().unwrap()));
            let raw = git(&d, &["cat-file", "commit", sha]);
            assert_eq!(raw_commit(&d, sha).unwrap().trim_end(), raw);
        }
        assert!(!subject_and_changes(&d, &shas[0]).unwrap().1.is_empty());
        // left to git: a root commit, an abbreviated or unknown name
        assert_eq!(subject_and_changes(&d, &root), None);
        assert_eq!(commit_time(&d, &root[..10]), None);
        assert_eq!(commit_time(&d, &"0".repeat(40)), None);
    }
}
