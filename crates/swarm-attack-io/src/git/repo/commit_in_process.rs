//! The worker's commit made in this process (issue 19): `git add` and `git commit` each
//! refresh and rewrite the worktree's whole index (an lstat of every file), which made the
//! per-issue cost of `run` grow with the size of the tree. [`Git::commit_changes`] writes
//! the commit with gix instead ([`crate::git::objects::new_commit`]: the base tree
//! edited at the changed paths) and moves the worktree's detached HEAD itself, whenever the
//! result is provably the commit `git add` + `git commit -q -F -` would make; otherwise it
//! runs exactly those two commands.
//!
//! What makes it git's commit: one `git var -l` (run like every git command of the tool, so
//! with the same config, environment and `-c` options as the `git commit` it replaces)
//! gives the author and committer lines exactly as `git commit` would write them (names,
//! emails, `GIT_AUTHOR_DATE`/`GIT_COMMITTER_DATE`, the local offset), the repository's
//! config and the attribute files git would read. The message is cleaned as `-F` does by
//! default (`commit.cleanup` unset: trailing whitespace of every line, leading, trailing
//! and repeated blank lines dropped). HEAD is updated under git's lock file (`HEAD.lock`,
//! created exclusively; HEAD must still name the base) with the reflog entry git writes
//! (`commit: <subject>`, appended to the worktree's `logs/HEAD` when it exists or
//! `core.logAllRefUpdates` makes git create it).
//!
//! Left to git (the two commands, as before): hooks on (`git.run_hooks`: a commit runs
//! them), the tool's fallback identity, `GIT_REFLOG_ACTION`, `GIT_ATTR_SOURCE` or
//! `GIT_ICASE_PATHSPECS` set; config that could change the commit or what `git add`
//! stages: `core.eol`, `core.attributesFile`, `attr.tree`, `core.sharedRepository`,
//! `core.worktree`, any `extensions.*` but `worktreeConfig`; signing (`commit.gpgSign`),
//! `core.autocrlf`, `core.safecrlf`, `core.precomposeUnicode`, `core.protectHFS`,
//! `core.ignoreCase`, `core.bare` other than false; `core.fileMode`, `core.symlinks` other
//! than true; `commit.cleanup` other than `default`/`whitespace`; `i18n.commitEncoding`
//! other than UTF-8 (every value of a key listed more than once counts); attribute files (system, global, `info/attributes`, a `.gitattributes` on a
//! changed path's way); a worktree whose HEAD is not the detached base, with a merge,
//! cherry-pick, revert, rebase or sequencer in progress, a lock file, or an index that
//! changed since [`Git::changes_since`] read it (something staged meanwhile, which
//! `git commit` would include); paths git treats specially (a component starting with
//! `.git` or `git~`, or holding a backslash; a link whose name starts with a dot or holds
//! a `~`); a message with a NUL or a Unicode non-character (git rewrites those), or empty
//! once cleaned; anything [`new_commit`](crate::git::objects::new_commit) refuses.
//!
//! The index: git's commit also writes the worktree's index; this one leaves it as the
//! base had it (a stale index: git would see the commit's changes as staged-to-undo). Every
//! later git command in a worker worktree copes with that: the next issue's reset
//! (`clean -ffdxq` + `checkout -f --detach`) puts index and files at the new base from
//! whatever they are; [`Git::changes_since`] resets the index whenever HEAD is not the
//! base or something seems staged; [`Git::discard_changes`] is `reset --hard` + `clean`;
//! [`Git::cherry_pick_onto`] first puts the index back at HEAD (`reset -q`); SYNTHESIS
//! does the same before its runner-up starts in the winner's worktree
//! ([`Git::sync_index`]), so the agent sees what a `git commit` left. `COMMIT_EDITMSG` is
//! not written.

use super::super::exec::{GitError, Hooks};
use super::super::head;
use super::super::objects::new_commit::{self, Header};
use super::{Change, Git};
use std::io::Write as _;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What identifies one version of an index file (inode, size, modification and change
/// times).
pub(super) type IndexStamp = (u64, u64, i64, i64, i64, i64);

/// Files in a worktree's git directory that mean git's commit would differ (or fail).
const IN_PROGRESS: &[&str] = &[
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "rebase-merge",
    "rebase-apply",
    "sequencer",
    "index.lock",
    "HEAD.lock",
];

/// Config keys whose presence leaves the commit to git.
const GIT_DECIDES: &[&str] = &[
    "core.eol",
    "core.attributesfile",
    "attr.tree",
    "core.sharedrepository",
    "core.worktree",
];

/// Config keys that leave the commit to git unless every value they have is false (or
/// they have none).
const GIT_DECIDES_UNLESS_FALSE: &[&str] = &[
    "commit.gpgsign",
    "core.autocrlf",
    "core.safecrlf",
    "core.precomposeunicode",
    "core.protecthfs",
    "core.ignorecase",
    "core.bare",
];

/// Environment variables whose presence leaves the commit to git.
const GIT_DECIDES_ENV: &[&str] = &[
    "GIT_REFLOG_ACTION",
    "GIT_ATTR_SOURCE",
    "GIT_ICASE_PATHSPECS",
];

impl Git {
    /// Commits exactly `changes` (what [`Git::changes_since`] said changed in `dir` since
    /// `base`) with `message`; returns the new commit. In this process when that is
    /// provably git's commit (see the module documentation), else `git add` + `git commit`.
    pub fn commit_changes(
        &self,
        dir: &Path,
        base: &str,
        changes: &[Change],
        message: &str,
    ) -> Result<String, GitError> {
        if let Some(commit) = self.commit_in_process(dir, base, changes, message) {
            return Ok(commit);
        }
        let paths: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
        self.stage(dir, &paths)?;
        self.commit(dir, message)
    }

    /// The commit made in this process, or `None` (nothing changed) when git must make it.
    pub(super) fn commit_in_process(
        &self,
        dir: &Path,
        base: &str,
        changes: &[Change],
        message: &str,
    ) -> Option<String> {
        if self.hooks != Hooks::Off || !self.identity.is_empty() || changes.is_empty() {
            return None;
        }
        if GIT_DECIDES_ENV
            .iter()
            .any(|v| crate::env::var_os(v).is_some())
        {
            return None;
        }
        if !changes.iter().all(|c| plain_path(&c.path)) {
            return None;
        }
        let message = cleanup(message)?;
        if !dir.join(".git").is_file() {
            return None;
        }
        let gd = head::git_dir(dir)?;
        if IN_PROGRESS.iter().any(|f| !absent(&gd.join(f))) {
            return None;
        }
        let stamp = self.index_stamps.lock().ok()?.get(dir).copied();
        if stamp.is_none() || stamp != index_stamp(&gd) {
            return None;
        }
        if std::fs::read(gd.join("HEAD")).ok()? != format!("{base}\n").as_bytes() {
            return None;
        }
        let facts = facts(&self.run(dir, &["var", "-l"], b"").ok()?)?;
        let common = head::common_of(gd.clone());
        let info = [common.join("info/attributes"), gd.join("info/attributes")];
        if !facts.attributes.iter().chain(&info).all(|p| absent(p)) {
            return None;
        }
        let header = Header {
            author: &facts.author,
            committer: &facts.committer,
            message: &message,
        };
        let commit = new_commit::write_commit(&self.root, dir, base, changes, &header)?;
        let log = gd.join("logs/HEAD");
        let reflog = if absent(&log) {
            facts.create_reflog.then_some(log)
        } else {
            Some(log)
        };
        let entry = format!(
            "{base} {commit} {}\t{}\n",
            facts.committer,
            reflog_message(&message)
        );
        move_head(&gd, base, &commit, reflog.map(|p| (p, entry)))?;
        Some(commit)
    }

    /// Remembers the index of the worktree `dir` as [`Git::changes_since`] left it.
    pub(super) fn remember_index(&self, dir: &Path) {
        let stamp = head::git_dir(dir).and_then(|gd| index_stamp(&gd));
        if let Ok(mut stamps) = self.index_stamps.lock() {
            match stamp {
                Some(s) => stamps.insert(dir.to_path_buf(), s),
                None => stamps.remove(dir),
            };
        }
    }

    /// Puts the index of the worktree `dir` back at its HEAD, files kept (after a commit
    /// made in this process left it at the commit's parent; see the module documentation).
    /// Nothing to do (no process) with hooks on: no commit is made in process then.
    pub fn sync_index(&self, dir: &Path) -> Result<(), GitError> {
        if self.hooks != Hooks::Off {
            return Ok(());
        }
        self.run(dir, &["reset", "-q"], b"").map(|_| ())
    }
}

/// The index file of the git directory `gd` as it is now.
fn index_stamp(gd: &Path) -> Option<IndexStamp> {
    let m = std::fs::symlink_metadata(gd.join("index")).ok()?;
    Some((
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ))
}

/// Whether nothing is at `p` (an error other than "not found" counts as something).
fn absent(p: &Path) -> bool {
    matches!(std::fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// Whether git stages `path` like any other: no component git checks specially (`.git…`
/// and `.mailmap…` in any case, NTFS short names with a `~`, backslashes, empty, `.` or
/// `..`).
fn plain_path(path: &str) -> bool {
    path.split('/').all(|c| {
        let lower = c.to_ascii_lowercase();
        !c.is_empty()
            && c != "."
            && c != ".."
            && !lower.starts_with(".git")
            && !lower.starts_with(".mailmap")
            && !c.contains(['\\', '~'])
    })
}

/// git's `-F` message with the default cleanup ("whitespace"): every line without its
/// trailing whitespace, blank lines at the start and end dropped, runs of blank lines
/// made one, each line ending in a newline. `None` when git would refuse or rewrite it
/// (empty once cleaned, a NUL, a Unicode non-character).
pub(super) fn cleanup(message: &str) -> Option<String> {
    let bad = |c: char| {
        c == '\0' || ('\u{fdd0}'..='\u{fdef}').contains(&c) || (c as u32) & 0xfffe == 0xfffe
    };
    if message.chars().any(bad) {
        return None;
    }
    let space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let mut out = String::with_capacity(message.len() + 1);
    let mut blanks = 0;
    for line in message.split_inclusive('\n') {
        let text = line.trim_end_matches(space);
        if text.is_empty() {
            blanks += 1;
            continue;
        }
        if blanks > 0 && !out.is_empty() {
            out.push('\n');
        }
        blanks = 0;
        out.push_str(text);
        out.push('\n');
    }
    (!out.is_empty()).then_some(out)
}

/// The reflog message git writes for a commit: `commit: <first line>`, whitespace runs
/// made one space, trailing whitespace dropped (git's `copy_reflog_msg`).
fn reflog_message(message: &str) -> String {
    let first = message.split_inclusive('\n').next().unwrap_or("");
    let raw = format!("commit: {first}");
    let mut out = String::with_capacity(raw.len());
    let mut was_space = true;
    for c in raw.chars() {
        let space = matches!(c, ' ' | '\t' | '\n' | '\r');
        if was_space && space {
            continue;
        }
        was_space = space;
        out.push(if space { ' ' } else { c });
    }
    out.trim_end_matches(' ').to_string()
}

/// What `git var -l` says a commit in that worktree would be made with.
#[derive(Debug, PartialEq)]
pub(super) struct Facts {
    pub author: String,
    pub committer: String,
    /// Attribute files git reads besides `info/attributes` (system, global).
    pub attributes: Vec<PathBuf>,
    /// Whether a ref update creates a missing HEAD reflog (`core.logAllRefUpdates`).
    pub create_reflog: bool,
}

/// git's boolean config value (`None`: no `=`, which means true); `None` if not one.
fn config_bool(value: Option<&str>) -> Option<bool> {
    let Some(v) = value else {
        return Some(true);
    };
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" | "" => Some(false),
        other => other.parse::<i64>().ok().map(|n| n != 0),
    }
}

/// Parses `git var -l`: the config listing, then the variables. `None` when anything in it
/// leaves the commit to git (see the module documentation). A config value spanning lines
/// can only add lines that make this refuse, never hide one: every listed value of a key
/// counts.
pub(super) fn facts(out: &str) -> Option<Facts> {
    let split = if out.starts_with("GIT_COMMITTER_IDENT=") {
        0
    } else {
        out.rfind("\nGIT_COMMITTER_IDENT=")? + 1
    };
    let (config, vars) = out.split_at(split);
    let config: Vec<&str> = config.lines().collect();
    let values = |key: &str| -> Vec<Option<&str>> {
        config
            .iter()
            .filter_map(|l| match l.strip_prefix(key) {
                Some("") => Some(None),
                Some(rest) => rest.strip_prefix('=').map(Some),
                None => None,
            })
            .collect()
    };
    if GIT_DECIDES.iter().any(|k| !values(k).is_empty()) {
        return None;
    }
    let extension = |l: &&str| {
        l.starts_with("extensions.")
            && !l.starts_with("extensions.worktreeconfig=")
            && *l != "extensions.worktreeconfig"
    };
    if config.iter().any(extension) {
        return None;
    }
    let all = |key: &str, want: bool| {
        values(key)
            .into_iter()
            .all(|v| config_bool(v) == Some(want))
    };
    let fine =
        |key: &str, ok: &dyn Fn(&str) -> bool| values(key).into_iter().all(|v| v.is_some_and(ok));
    if !(all("core.filemode", true)
        && all("core.symlinks", true)
        && GIT_DECIDES_UNLESS_FALSE.iter().all(|k| all(k, false))
        && fine("commit.cleanup", &|v| matches!(v, "default" | "whitespace"))
        && fine("i18n.commitencoding", &|v| {
            v.eq_ignore_ascii_case("utf-8") || v.eq_ignore_ascii_case("utf8")
        }))
    {
        return None;
    }
    let mut log = values("core.logallrefupdates").into_iter().map(|v| {
        if v.is_some_and(|v| v.eq_ignore_ascii_case("always")) {
            Some(true)
        } else {
            config_bool(v)
        }
    });
    let create_reflog = match log.next() {
        None => true,
        Some(first) => {
            let first = first?;
            if !log.all(|v| v == Some(first)) {
                return None;
            }
            first
        }
    };
    let var = |name: &str| -> Vec<&str> {
        vars.lines()
            .filter_map(|l| l.strip_prefix(name)?.strip_prefix('='))
            .collect()
    };
    let single = |name: &str| -> Option<String> {
        match var(name).as_slice() {
            [one] if valid_ident(one) => Some(one.to_string()),
            _ => None,
        }
    };
    let attributes = var("GIT_ATTR_SYSTEM")
        .into_iter()
        .chain(var("GIT_ATTR_GLOBAL"))
        .map(PathBuf::from)
        .collect();
    Some(Facts {
        author: single("GIT_AUTHOR_IDENT")?,
        committer: single("GIT_COMMITTER_IDENT")?,
        attributes,
        create_reflog,
    })
}

/// `Name <email> <seconds> <+|-hhmm>`.
fn valid_ident(ident: &str) -> bool {
    let Some((who, date)) = ident.rsplit_once("> ") else {
        return false;
    };
    let Some((secs, offset)) = date.split_once(' ') else {
        return false;
    };
    who.contains(" <")
        && !secs.is_empty()
        && secs.bytes().all(|b| b.is_ascii_digit())
        && offset.len() == 5
        && matches!(offset.as_bytes()[0], b'+' | b'-')
        && offset[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Removes a lock file when dropped (unless it was renamed into place).
struct Lock(Option<PathBuf>);

impl Drop for Lock {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Moves the detached HEAD of the git directory `gd` from `base` to `commit` as git's
/// files backend does: `HEAD.lock` created exclusively, HEAD checked to still be `base`,
/// the reflog entry appended (`reflog`: the file and the line), the lock renamed over HEAD.
fn move_head(gd: &Path, base: &str, commit: &str, reflog: Option<(PathBuf, String)>) -> Option<()> {
    let head = gd.join("HEAD");
    let lock_path = gd.join("HEAD.lock");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock_path)
        .ok()?;
    let mut lock = Lock(Some(lock_path.clone()));
    if std::fs::read(&head).ok()? != format!("{base}\n").as_bytes() {
        return None;
    }
    file.write_all(format!("{commit}\n").as_bytes()).ok()?;
    drop(file);
    if let Some((log, line)) = reflog {
        if let Some(parent) = log.parent() {
            std::fs::create_dir_all(parent).ok()?;
        }
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&log)
            .ok()?;
        f.write_all(line.as_bytes()).ok()?;
    }
    std::fs::rename(&lock_path, &head).ok()?;
    lock.0 = None;
    Some(())
}

#[cfg(test)]
mod tests;
