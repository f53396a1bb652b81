//! Replaying a commit onto a moved tip without touching a working tree (issue 19): the
//! merge is computed in git's object store (`git merge-tree --write-tree`) and the new
//! commit written with `git commit-tree`, keeping the commit's author, date and message as
//! `git cherry-pick` does. `checkout` + `cherry-pick` in the worktree cost two passes over
//! the whole tree (index refresh, index and file writes) per landing, which grows with the
//! size of the tree.
//!
//! Only used when the result is the same as `cherry-pick`'s: the commit has one parent and
//! plain headers (no signature, no encoding), and hooks are off (a cherry-pick runs the
//! repository's `prepare-commit-msg` and `post-commit` hooks). Otherwise, or when this git
//! is too old for `merge-tree --write-tree --merge-base` (2.40), the caller cherry-picks.

use super::super::exec::{GitError, Hooks};
use super::Git;
use std::path::Path;

/// The parts of a commit object a replay keeps.
#[derive(Debug, PartialEq)]
struct CommitParts {
    author_name: String,
    author_email: String,
    /// git's internal form: `<seconds> <offset>`.
    author_date: String,
    message: String,
}

/// Parses `git cat-file commit` output; `None` for anything but one parent and the plain
/// `tree`, `parent`, `author`, `committer` headers (the caller then cherry-picks).
fn parse_commit(raw: &str) -> Option<CommitParts> {
    let (headers, message) = raw.split_once("\n\n")?;
    let mut author = None;
    let mut parents = 0;
    for line in headers.lines() {
        let (key, value) = line.split_once(' ')?;
        match key {
            "tree" | "committer" => {}
            "parent" => parents += 1,
            "author" => author = Some(value),
            _ => return None,
        }
    }
    if parents != 1 {
        return None;
    }
    let author = author?;
    let (ident, date) = author.rsplit_once("> ")?;
    let (name, email) = ident.split_once(" <")?;
    if name.is_empty() || date.split(' ').count() != 2 {
        return None;
    }
    Some(CommitParts {
        author_name: name.to_string(),
        author_email: email.to_string(),
        author_date: date.to_string(),
        message: message.to_string(),
    })
}

/// What a `merge-tree --write-tree --name-only` that found conflicts printed: the files
/// and git's messages, as one error text.
fn conflict_message(out: &str) -> String {
    let mut parts = out.splitn(2, "\n\n");
    let files: Vec<&str> = parts
        .next()
        .unwrap_or("")
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .collect();
    let messages = parts.next().unwrap_or("").trim();
    let mut text = format!("conflicts in {}", files.join(", "));
    if !messages.is_empty() {
        text.push('\n');
        text.push_str(messages);
    }
    text
}

impl Git {
    /// [`Git::replay_onto`] without a worktree (`dir` is any folder of the repository): the
    /// commit itself when `onto` is its parent, else the replay in the object store.
    /// `None`: not applicable here (see the module documentation), cherry-pick instead
    /// ([`Git::cherry_pick_onto`]). `Some(Err)`: a conflict, naming the files.
    pub fn replay_in_store(
        &self,
        dir: &Path,
        commit: &str,
        parent: &str,
        onto: &str,
    ) -> Option<Result<String, GitError>> {
        if parent == onto {
            return Some(Ok(commit.to_string()));
        }
        if self.hooks != Hooks::Off {
            return None;
        }
        // the commit object, read in this process when it can be (the same bytes)
        let raw = match crate::git::objects::raw_commit(&self.root, commit) {
            Some(raw) => raw,
            None => self.run(dir, &["cat-file", "commit", commit], b"").ok()?,
        };
        let parts = parse_commit(&raw)?;
        let base = format!("--merge-base={parent}");
        let args = [
            "merge-tree",
            "--write-tree",
            "--name-only",
            base.as_str(),
            onto,
            commit,
        ];
        let tree = match self.run(dir, &args, b"") {
            Ok(out) => out.lines().next()?.trim().to_string(),
            Err(GitError::Failed {
                message,
                code: Some(1),
                ..
            }) => {
                return Some(Err(GitError::failed(
                    dir,
                    &args,
                    conflict_message(&message),
                )));
            }
            // an older git (no `--write-tree` / `--merge-base`) or another failure
            Err(_) => return None,
        };
        let env = [
            ("GIT_AUTHOR_NAME".to_string(), parts.author_name),
            ("GIT_AUTHOR_EMAIL".to_string(), parts.author_email),
            ("GIT_AUTHOR_DATE".to_string(), parts.author_date),
        ];
        let made = self
            .run_with_env(
                dir,
                &["commit-tree", &tree, "-p", onto, "-F", "-"],
                parts.message.as_bytes(),
                &env,
                |_| {},
            )
            .ok()?;
        let made = made.trim();
        (!made.is_empty()).then(|| Ok(made.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::exec::{self, Invocation};
    use super::*;

    #[test]
    fn only_a_plain_one_parent_commit_is_replayed_in_the_store() {
        let plain = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\
                     parent 1111111111111111111111111111111111111111\n\
                     author Ann O'Neil <ann@example.com> 1700000000 +0130\n\
                     committer C <c@example.com> 1700000001 +0000\n\
                     \n\
                     feat(f): Implement issue #1\n\nbody\n";
        assert_eq!(
            parse_commit(plain),
            Some(CommitParts {
                author_name: "Ann O'Neil".into(),
                author_email: "ann@example.com".into(),
                author_date: "1700000000 +0130".into(),
                message: "feat(f): Implement issue #1\n\nbody\n".into(),
            })
        );
        let signed = plain.replace("committer", "gpgsig -----BEGIN-----\ncommitter");
        assert_eq!(parse_commit(&signed), None);
        let merge = plain.replace("parent", "parent 2222\nparent");
        assert_eq!(parse_commit(&merge), None);
        let root = plain.replace("parent 1111111111111111111111111111111111111111\n", "");
        assert_eq!(parse_commit(&root), None);
        let encoded = plain.replace("committer", "encoding ISO-8859-1\ncommitter");
        assert_eq!(parse_commit(&encoded), None);
    }

    /// `git <args>` in `dir` as a test author.
    fn git(dir: &Path, args: &[&str]) -> String {
        let options = [
            "-c".to_string(),
            "user.name=Test Author".to_string(),
            "-c".to_string(),
            "user.email=author@example.com".to_string(),
        ];
        let inv = Invocation {
            options: &options,
            ..Invocation::new(dir, args)
        };
        exec::run(&inv, |_| {}).unwrap().trim().to_string()
    }

    /// A repository with `base`, a commit `work` on it (a.txt changed, dated 2001) and a
    /// moved tip `tip` on base that changes `tip_file`.
    fn repo(tip_file: &str) -> (tempfile::TempDir, Git, [String; 3]) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        git(root, &["init", "-q", "-b", "main"]);
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        std::fs::write(root.join("b.txt"), "two\n").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "base"]);
        let base = git(root, &["rev-parse", "HEAD"]);
        std::fs::write(root.join("a.txt"), "one\nmore\n").unwrap();
        git(root, &["add", "-A"]);
        let inv_env = [(
            "GIT_AUTHOR_DATE".to_string(),
            "1000000000 +0200".to_string(),
        )];
        let args = [
            "commit",
            "-q",
            "-m",
            "feat(f): Implement issue #1\n\nThe body.",
        ];
        let options = [
            "-c".to_string(),
            "user.name=Agent Smith".to_string(),
            "-c".to_string(),
            "user.email=agent@example.com".to_string(),
        ];
        exec::run(
            &Invocation {
                options: &options,
                env: &inv_env,
                ..Invocation::new(root, &args)
            },
            |_| {},
        )
        .unwrap();
        let work = git(root, &["rev-parse", "HEAD"]);
        git(root, &["checkout", "-q", "--detach", &base]);
        std::fs::write(root.join(tip_file), "changed on the tip\n").unwrap();
        git(root, &["commit", "-q", "-am", "tip"]);
        let tip = git(root, &["rev-parse", "HEAD"]);
        let (g, _) = Git::open(
            root,
            Hooks::Off,
            &crate::ui::Ui::captured(Default::default()),
        )
        .unwrap();
        (tmp, g, [base, work, tip])
    }

    #[test]
    fn a_replay_in_the_store_makes_the_commit_a_cherry_pick_makes_and_leaves_the_tree() {
        let (tmp, g, [base, work, tip]) = repo("b.txt");
        let root = tmp.path();
        let replayed = g
            .replay_in_store(root, &work, &base, &tip)
            .expect("applicable")
            .unwrap();
        // the worktree and HEAD are as they were
        assert_eq!(git(root, &["rev-parse", "HEAD"]), tip);
        assert_eq!(git(root, &["status", "--porcelain"]), "");
        // the same commit as a cherry-pick onto the tip (committer aside)
        git(root, &["cherry-pick", "--allow-empty", &work]);
        let picked = git(root, &["rev-parse", "HEAD"]);
        let show = |c: &str| {
            git(
                root,
                &[
                    "show",
                    "-s",
                    "--format=%T%n%P%n%an%n%ae%n%ad%n%B",
                    "--date=raw",
                    c,
                ],
            )
        };
        assert_eq!(show(&replayed), show(&picked));
        assert!(show(&replayed).contains("Agent Smith\nagent@example.com\n1000000000 +0200"));
        // the public entry point takes the same way (compared without the committer: its
        // date may be a second later, and so the commit id)
        let again = g.replay_onto(root, &work, &base, &tip).unwrap();
        assert_eq!(show(&again), show(&replayed));
        assert_eq!(git(root, &["rev-parse", "HEAD"]), picked);
    }

    #[test]
    fn a_conflicting_replay_in_the_store_names_the_file_and_leaves_the_tree() {
        let (tmp, g, [base, work, tip]) = repo("a.txt");
        let root = tmp.path();
        let err = g
            .replay_in_store(root, &work, &base, &tip)
            .expect("applicable")
            .unwrap_err();
        assert!(err.message().starts_with("conflicts in a.txt"), "{err}");
        assert_eq!(git(root, &["rev-parse", "HEAD"]), tip);
        assert_eq!(git(root, &["status", "--porcelain"]), "");
    }

    #[test]
    fn a_conflict_names_the_files_and_gits_messages() {
        let out = "abc123\nsrc/a.rs\nsrc/b.rs\n\nAuto-merging src/a.rs\nCONFLICT (content): Merge conflict in src/a.rs\n";
        assert_eq!(
            conflict_message(out),
            "conflicts in src/a.rs, src/b.rs\nAuto-merging src/a.rs\nCONFLICT (content): Merge conflict in src/a.rs"
        );
    }
}
