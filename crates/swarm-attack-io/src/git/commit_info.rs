//! What a commit did, read with the git CLI (argv, never a shell): subject, files added /
//! modified / deleted, diffstat, a capped patch, commit times. Used for semantic summaries
//! and to order DONE issues newest first. Every function returns `None` (or leaves a commit
//! out) when git fails; callers fall back.

use super::exec::read_capped as git;
use std::collections::BTreeMap;
use std::path::Path;

/// The subject and changed files of one commit (merges: against the first parent).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommitInfo {
    pub sha: String,
    pub subject: String,
    pub added: Vec<String>,
    pub modified: Vec<String>,
    pub deleted: Vec<String>,
}

fn is_sha_like(s: &str) -> bool {
    (4..=64).contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The subject and changed files of `sha`: read in this process when `sha` is a full
/// name (see the module `objects`), else one git process.
pub fn commit_info(root: &Path, sha: &str) -> Option<CommitInfo> {
    if !is_sha_like(sha) {
        return None;
    }
    if let Some((subject, changes)) = super::objects::subject_and_changes(root, sha) {
        use super::objects::Status;
        let mut info = CommitInfo {
            sha: sha.to_string(),
            subject,
            ..Default::default()
        };
        for (path, status) in changes {
            match status {
                Status::Added => info.added.push(path),
                Status::Modified => info.modified.push(path),
                Status::Deleted => info.deleted.push(path),
            }
        }
        return Some(info);
    }
    commit_info_by_git(root, sha)
}

/// [`commit_info`] asked of git (`git show`).
pub(super) fn commit_info_by_git(root: &Path, sha: &str) -> Option<CommitInfo> {
    let (out, _) = git(
        root,
        &[
            "show",
            "--format=%H%x00%s%x00",
            "--name-status",
            "-z",
            "--no-renames",
            "--diff-merges=first-parent",
            sha,
            "--",
        ],
        4 * 1024 * 1024,
    )?;
    let mut parts = out.splitn(3, |b| *b == 0);
    let full = String::from_utf8_lossy(parts.next()?).trim().to_string();
    let subject = String::from_utf8_lossy(parts.next()?).into_owned();
    if full.is_empty() {
        return None;
    }
    let mut info = CommitInfo {
        sha: full,
        subject,
        ..Default::default()
    };
    add_files(&mut info, parts.next().unwrap_or_default());
    Some(info)
}

/// Parses `--name-status -z` fields (status, path pairs) into `info`.
fn add_files(info: &mut CommitInfo, fields: &[u8]) {
    let fields: Vec<String> = fields
        .split(|b| *b == 0)
        .map(|f| {
            String::from_utf8_lossy(f)
                .trim_start_matches('\n')
                .to_string()
        })
        .filter(|f| !f.is_empty())
        .collect();
    for pair in fields.chunks(2) {
        let [status, path] = pair else { break };
        match status.chars().next() {
            Some('A') => info.added.push(path.clone()),
            Some('D') => info.deleted.push(path.clone()),
            Some(_) => info.modified.push(path.clone()),
            None => {}
        }
    }
}

/// [`commit_info`] of many commits with one `git log` per 500 of them (a sync that finds
/// many DONE tasks without summaries must not start two processes per task). Keyed by
/// every given name (full or abbreviated sha); unknown commits are left out.
pub fn commit_infos(root: &Path, shas: &[String]) -> BTreeMap<String, CommitInfo> {
    let mut out = BTreeMap::new();
    let mut names: Vec<&str> = shas
        .iter()
        .map(String::as_str)
        .filter(|s| is_sha_like(s))
        .collect();
    names.sort_unstable();
    names.dedup();
    let names = with_trees_at_hand(root, names);
    for chunk in names.chunks(500) {
        let mut args = vec![
            "log",
            "--no-walk=unsorted",
            "--ignore-missing",
            "--format=%x01%H%x02%s%x02",
            "--name-status",
            "-z",
            "--no-renames",
            "--diff-merges=first-parent",
        ];
        args.extend(chunk.iter().copied());
        args.push("--");
        let Some((text, false)) = git(root, &args, 256 * 1024 * 1024) else {
            continue;
        };
        for record in text.split(|b| *b == 1).skip(1) {
            let mut parts = record.splitn(3, |b| *b == 2);
            let (Some(full), Some(subject)) = (parts.next(), parts.next()) else {
                continue;
            };
            let full = String::from_utf8_lossy(full).into_owned();
            let mut info = CommitInfo {
                sha: full.clone(),
                subject: String::from_utf8_lossy(subject).trim_end().to_string(),
                ..Default::default()
            };
            add_files(&mut info, parts.next().unwrap_or_default());
            for name in chunk.iter().filter(|n| full.starts_with(**n)) {
                out.insert((*name).to_string(), info.clone());
            }
        }
    }
    out
}

/// `names` whose trees can be read without one lazy fetch per commit. In a partial clone
/// (see [`super::objects::promisor`]) the missing trees of all of them are fetched from the
/// promisor remote in one request first; when that fails, the commits whose trees are still
/// missing are left out (their callers fall back as for an unknown commit) rather than
/// fetched one at a time. In any other repository: `names` as they are.
fn with_trees_at_hand<'a>(root: &Path, names: Vec<&'a str>) -> Vec<&'a str> {
    use super::objects::promisor;
    let Some(remote) = promisor::promisor_remote(root) else {
        return names;
    };
    let missing = promisor::missing_trees(root, &names);
    if missing.is_empty() {
        return names;
    }
    let wants: String = missing.iter().map(|id| format!("{id}\n")).collect();
    let args = [
        "fetch",
        remote.as_str(),
        "--no-tags",
        "--no-write-fetch-head",
        "--recurse-submodules=no",
        "--filter=blob:none",
        "--stdin",
    ];
    let options = [
        "-c".to_string(),
        "fetch.negotiationAlgorithm=noop".to_string(),
    ];
    let inv = super::exec::Invocation {
        options: &options,
        stdin: wants.as_bytes(),
        ..super::exec::Invocation::new(root, &args)
    };
    if let Err(e) = super::exec::run(&inv, |_| {}) {
        tracing::warn!(
            "partial clone: fetching the trees of {} commit(s) from `{remote}` failed ({}); their changed files are left out",
            names.len(),
            e.message()
        );
        return names
            .into_iter()
            .filter(|n| promisor::missing_trees(root, &[n]).is_empty())
            .collect();
    }
    names
}

/// The diffstat of `sha` (`git show --stat`), at most `cap` bytes.
pub fn diffstat(root: &Path, sha: &str, cap: usize) -> Option<String> {
    if !is_sha_like(sha) {
        return None;
    }
    let (out, _) = git(
        root,
        &[
            "show",
            "--no-color",
            "--format=",
            "--stat=120",
            "--diff-merges=first-parent",
            sha,
            "--",
        ],
        cap,
    )?;
    Some(String::from_utf8_lossy(&out).trim().to_string())
}

/// The patch of `sha`, at most `cap` bytes; the flag says whether it was cut.
pub fn patch(root: &Path, sha: &str, cap: usize) -> Option<(String, bool)> {
    if !is_sha_like(sha) {
        return None;
    }
    let (out, capped) = git(
        root,
        &[
            "show",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--format=",
            "--patch",
            "--diff-merges=first-parent",
            sha,
            "--",
        ],
        cap,
    )?;
    Some((String::from_utf8_lossy(&out).into_owned(), capped))
}

/// Commit times (seconds since the epoch) of the given commits; unknown ones are left out.
/// A commit's time never changes, so each process asks git only for names it has not
/// resolved yet: a `run` builds a prompt per issue over every DONE issue's commit, and
/// each prompt then costs the commits that are new since the last one, not all of them.
pub fn commit_times(root: &Path, shas: &[String]) -> BTreeMap<String, i64> {
    type Known = std::collections::HashMap<(std::path::PathBuf, String), i64>;
    static KNOWN: std::sync::Mutex<Option<Known>> = std::sync::Mutex::new(None);
    let remember = |found: Vec<(String, i64)>| {
        if let Ok(mut known) = KNOWN.lock() {
            let known = known.get_or_insert_with(Default::default);
            for (s, t) in found {
                known.insert((root.to_path_buf(), s), t);
            }
        }
    };
    let mut out = BTreeMap::new();
    let mut ask: Vec<&str> = Vec::new();
    {
        let known = KNOWN.lock().ok();
        let known = known.as_ref().and_then(|k| k.as_ref());
        for s in shas.iter().map(String::as_str).filter(|s| is_sha_like(s)) {
            match known.and_then(|k| k.get(&(root.to_path_buf(), s.to_string()))) {
                Some(t) => {
                    out.insert(s.to_string(), *t);
                }
                None => ask.push(s),
            }
        }
    }
    // full names are read in this process; git is asked only for the rest
    let mut found = Vec::new();
    ask.retain(|s| match super::objects::commit_time(root, s) {
        Some(t) => {
            out.insert(s.to_string(), t);
            found.push((s.to_string(), t));
            false
        }
        None => true,
    });
    if ask.is_empty() {
        remember(found);
        return out;
    }
    let mut args = vec![
        "log",
        "--no-walk=unsorted",
        "--ignore-missing",
        "--format=%H %ct",
    ];
    args.extend(ask.iter().copied());
    args.push("--");
    let Some((text, _)) = git(root, &args, 16 * 1024 * 1024) else {
        remember(found);
        return out;
    };
    let text = String::from_utf8_lossy(&text);
    let mut times: std::collections::HashMap<&str, i64> = Default::default();
    for line in text.lines() {
        if let Some((sha, t)) = line.split_once(' ')
            && let Ok(t) = t.trim().parse::<i64>()
        {
            times.insert(sha, t);
        }
    }
    for s in ask {
        // keyed by the given name: a full sha, or a prefix of one
        let t = times.get(s).copied().or_else(|| {
            times
                .iter()
                .find(|(sha, _)| sha.starts_with(s))
                .map(|(_, t)| *t)
        });
        if let Some(t) = t {
            out.insert(s.to_string(), t);
            found.push((s.to_string(), t));
        }
    }
    remember(found);
    out
}

/// Which of `paths` exist (as files or links) in the tree of `rev`; `None` when git cannot
/// tell (no such commit, no repository).
pub fn paths_at(
    root: &Path,
    rev: &str,
    paths: &[String],
) -> Option<std::collections::BTreeSet<String>> {
    let mut out = std::collections::BTreeSet::new();
    if paths.is_empty() {
        return Some(out);
    }
    let mut args: Vec<&str> = vec!["ls-tree", "-z", "--name-only", "--full-tree", rev, "--"];
    args.extend(paths.iter().map(String::as_str));
    let (bytes, _) = git(root, &args, 4 << 20)?;
    for name in bytes.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        out.insert(String::from_utf8_lossy(name).into_owned());
    }
    Some(out)
}
