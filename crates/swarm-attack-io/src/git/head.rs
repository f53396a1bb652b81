//! Reading which commit HEAD points to from the repository's files, without starting git,
//! in the common cases: a worktree with a detached HEAD (the file holds the commit), and a
//! branch whose ref is a loose file. Anything else (packed refs, reftable, a symbolic ref
//! chain, an unreadable file) returns `None` and the caller asks git.

use std::path::{Path, PathBuf};

/// The git directory of the working tree at `dir` (`.git` itself, or where the `.git`
/// file of a linked worktree points).
pub(super) fn git_dir(dir: &Path) -> Option<PathBuf> {
    let dot = dir.join(".git");
    if dot.is_dir() {
        return Some(dot);
    }
    let text = std::fs::read_to_string(&dot).ok()?;
    let target = text
        .strip_prefix("gitdir: ")?
        .trim_end_matches(['\n', '\r']);
    let p = Path::new(target);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    })
}

/// A full object id (40 or 64 lowercase hex digits).
fn object_id(text: &str) -> Option<String> {
    let t = text.trim_end_matches(['\n', '\r']);
    ((t.len() == 40 || t.len() == 64) && t.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| t.to_string())
}

/// The common directory of the git directory `gd` (where branch refs live, shared by
/// linked worktrees).
pub(super) fn common_of(gd: PathBuf) -> PathBuf {
    match std::fs::read_to_string(gd.join("commondir")) {
        Ok(c) => {
            let c = Path::new(c.trim_end_matches(['\n', '\r']));
            if c.is_absolute() {
                c.to_path_buf()
            } else {
                gd.join(c)
            }
        }
        Err(_) => gd,
    }
}

/// The commit HEAD of the working tree at `dir` points to, when the files say it plainly.
pub fn read_head(dir: &Path) -> Option<String> {
    let gd = git_dir(dir)?;
    let head = std::fs::read_to_string(gd.join("HEAD")).ok()?;
    if let Some(id) = object_id(&head) {
        return Some(id);
    }
    let name = head.strip_prefix("ref: ")?.trim_end_matches(['\n', '\r']);
    if !name.starts_with("refs/heads/") || name.contains("..") {
        return None;
    }
    object_id(&std::fs::read_to_string(common_of(gd).join(name)).ok()?)
}

/// The branch checked out in the working tree at `dir` as `git symbolic-ref --short -q
/// HEAD` names it (`Some(None)`: detached), when the files say it plainly: HEAD names a
/// branch, the refs are files (no reftable), and no other ref git would also shorten to
/// that name exists (git then says `heads/<name>`). Otherwise `None`: ask git.
pub fn read_branch(dir: &Path) -> Option<Option<String>> {
    let gd = git_dir(dir)?;
    let head = std::fs::read_to_string(gd.join("HEAD")).ok()?;
    if object_id(&head).is_some() {
        return Some(None);
    }
    let name = head
        .strip_prefix("ref: refs/heads/")?
        .trim_end_matches(['\n', '\r']);
    if name.is_empty() || name.contains("..") || name.contains(char::is_whitespace) {
        return None;
    }
    let common = common_of(gd.clone());
    if common.join("reftable").exists() {
        return None;
    }
    // the names `git` tries for a short name besides `refs/heads/<name>`
    let others = [
        name.to_string(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ];
    if others
        .iter()
        .any(|r| common.join(r).exists() || gd.join(r).exists())
    {
        return None;
    }
    match std::fs::read_to_string(common.join("packed-refs")) {
        Ok(packed) => {
            let ambiguous = packed.lines().any(|l| {
                l.split_once(' ')
                    .is_some_and(|(_, r)| others.iter().any(|o| o == r))
            });
            if ambiguous {
                return None;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    Some(Some(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::testing::git;

    #[test]
    fn head_from_files_equals_git_or_is_left_to_git() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("r");
        std::fs::create_dir_all(&root).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        // unborn: the ref file does not exist
        assert_eq!(read_head(&root), None);
        git(&root, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let one = git(&root, &["rev-parse", "HEAD"]);
        assert_eq!(read_head(&root).as_deref(), Some(one.as_str()));
        // a linked worktree, detached, then moved by a commit in it
        let wt = tmp.path().join("wt");
        git(
            &root,
            &["worktree", "add", "-q", "--detach", wt.to_str().unwrap()],
        );
        assert_eq!(read_head(&wt).as_deref(), Some(one.as_str()));
        git(&wt, &["commit", "-q", "--allow-empty", "-m", "two"]);
        let two = git(&wt, &["rev-parse", "HEAD"]);
        assert_eq!(read_head(&wt).as_deref(), Some(two.as_str()));
        // a branch in the worktree: its ref is in the common directory
        git(&wt, &["checkout", "-q", "-b", "side"]);
        assert_eq!(read_head(&wt).as_deref(), Some(two.as_str()));
        // the branch, as `symbolic-ref --short` names it (detached: none)
        let branch = |d: &Path| {
            let b = git(d, &["symbolic-ref", "--short", "-q", "HEAD"]);
            (!b.is_empty()).then_some(b)
        };
        assert_eq!(read_branch(&root), Some(branch(&root)));
        assert_eq!(read_branch(&wt), Some(branch(&wt)));
        git(&wt, &["checkout", "-q", "--detach"]);
        assert_eq!(read_branch(&wt), Some(None));
        git(&wt, &["checkout", "-q", "side"]);
        // a tag of the branch's name makes git say `heads/main`: left to git, loose or packed
        git(&root, &["tag", "main"]);
        assert_eq!(branch(&root).as_deref(), Some("heads/main"));
        assert_eq!(read_branch(&root), None);
        git(&root, &["pack-refs", "--all"]);
        assert_eq!(read_branch(&root), None);
        git(&root, &["tag", "-d", "main"]);
        assert_eq!(read_branch(&root), Some(branch(&root)));
        // packed refs: left to git
        git(&root, &["pack-refs", "--all"]);
        assert_eq!(read_head(&root), None);
        assert_eq!(read_head(&wt), None);
    }
}
