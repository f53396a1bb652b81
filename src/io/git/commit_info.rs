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

/// The subject and changed files of `sha`.
pub fn commit_info(root: &Path, sha: &str) -> Option<CommitInfo> {
    if !is_sha_like(sha) {
        return None;
    }
    let (head, _) = git(
        root,
        &["show", "-s", "--format=%H%x00%s", sha, "--"],
        64 * 1024,
    )?;
    let head = String::from_utf8_lossy(&head);
    let (full, subject) = head.trim_end().split_once('\0')?;
    let (files, _) = git(
        root,
        &[
            "show",
            "--format=",
            "--name-status",
            "-z",
            "--no-renames",
            "--diff-merges=first-parent",
            sha,
            "--",
        ],
        4 * 1024 * 1024,
    )?;
    let mut info = CommitInfo {
        sha: full.to_string(),
        subject: subject.to_string(),
        ..Default::default()
    };
    let fields: Vec<String> = files
        .split(|b| *b == 0)
        .map(|f| {
            String::from_utf8_lossy(f)
                .trim_start_matches('\n')
                .to_string()
        })
        .collect();
    for pair in fields.chunks(2) {
        let [status, path] = pair else { break };
        match status.chars().next() {
            Some('A') => info.added.push(path.clone()),
            Some('D') => info.deleted.push(path.clone()),
            Some(_) if !path.is_empty() => info.modified.push(path.clone()),
            _ => {}
        }
    }
    Some(info)
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
pub fn commit_times(root: &Path, shas: &[String]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    let shas: Vec<&str> = shas
        .iter()
        .map(String::as_str)
        .filter(|s| is_sha_like(s))
        .collect();
    if shas.is_empty() {
        return out;
    }
    let mut args = vec![
        "log",
        "--no-walk=unsorted",
        "--ignore-missing",
        "--format=%H %ct",
    ];
    args.extend(shas.iter().copied());
    args.push("--");
    let Some((text, _)) = git(root, &args, 16 * 1024 * 1024) else {
        return out;
    };
    let text = String::from_utf8_lossy(&text);
    for line in text.lines() {
        if let Some((sha, t)) = line.split_once(' ')
            && let Ok(t) = t.trim().parse::<i64>()
        {
            // Keyed by every given name that is a prefix of the full sha.
            for s in &shas {
                if sha.starts_with(s) {
                    out.insert((*s).to_string(), t);
                }
            }
        }
    }
    out
}
