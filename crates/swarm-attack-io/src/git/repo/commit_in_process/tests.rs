use super::*;
use crate::git::exec::{self, Invocation};
use crate::git::testing::git;
use std::os::unix::fs::PermissionsExt;

/// `git <args>` in `dir` with the repository's own identity, `stdin` and `env`.
fn git_with(dir: &Path, args: &[&str], stdin: &[u8], env: &[(String, String)]) -> String {
    let inv = Invocation {
        stdin,
        env,
        ..Invocation::new(dir, args)
    };
    exec::run(&inv, |_| {}).unwrap().trim().to_string()
}

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A repository with a base commit and two worktrees at it: ours (committed in process)
/// and theirs (committed by git).
struct Twin {
    _tmp: tempfile::TempDir,
    g: Git,
    base: String,
    ours: PathBuf,
    theirs: PathBuf,
}

fn twin(hooks: Hooks, configure: &[(&str, &str)]) -> Twin {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    std::fs::create_dir_all(&root).unwrap();
    Git::init(
        &root,
        "main",
        "Ann O'Author",
        "ann@example.com",
        &crate::ui::Ui::captured(Default::default()),
    )
    .unwrap();
    for f in [
        "keep.txt",
        "mod.txt",
        "script.sh",
        "dir/a.txt",
        "dir/sub/b.txt",
        "only/last.txt",
        "x y/z.txt",
        "attr/.gitattributes",
    ] {
        write(&root, f, &format!("{f}\n"));
    }
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    for (k, v) in configure {
        git(&root, &["config", k, v]);
    }
    let (g, fallback) =
        Git::open(&root, hooks, &crate::ui::Ui::captured(Default::default())).unwrap();
    assert!(!fallback);
    let base = g.head(&root).unwrap().unwrap();
    let ours = tmp.path().join("ours");
    let theirs = tmp.path().join("theirs");
    g.add_worktree(&ours, &base).unwrap();
    g.add_worktree(&theirs, &base).unwrap();
    Twin {
        _tmp: tmp,
        g,
        base,
        ours,
        theirs,
    }
}

impl Twin {
    fn both(&self, change: impl Fn(&Path)) {
        change(&self.ours);
        change(&self.theirs);
    }

    /// Our commit of what changed in `ours`, if made in process.
    fn ours(&self, message: &str) -> Option<String> {
        let changes = self.g.changes_since(&self.ours, &self.base).unwrap();
        self.g
            .commit_in_process(&self.ours, &self.base, &changes, message)
    }

    /// git's commit (`add` + `commit -F -`) of what changed in `theirs`, dated `dates`.
    fn theirs(&self, message: &str, dates: (&str, &str)) -> String {
        let changes = self.g.changes_since(&self.theirs, &self.base).unwrap();
        let paths: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
        self.g.stage(&self.theirs, &paths).unwrap();
        let env = [
            ("GIT_AUTHOR_DATE".to_string(), dates.0.to_string()),
            ("GIT_COMMITTER_DATE".to_string(), dates.1.to_string()),
        ];
        git_with(
            &self.theirs,
            &["commit", "-q", "-F", "-"],
            message.as_bytes(),
            &env,
        );
        git(&self.theirs, &["rev-parse", "HEAD"])
    }

    /// Commits in both worktrees and asserts the same commit (so tree, identities, dates,
    /// message), the same HEAD and reflog entry, and a sound repository.
    fn same_as_git(&self, message: &str) -> String {
        let ours = self.ours(message).expect("committed in process");
        let raw = git(&self.ours, &["cat-file", "commit", &ours]);
        let date = |who: &str| {
            let line = raw.lines().find(|l| l.starts_with(who)).unwrap();
            line.rsplit_once("> ").unwrap().1.to_string()
        };
        let (author, committer) = (date("author "), date("committer "));
        let theirs = self.theirs(message, (&author, &committer));
        let tree = |c: &str| git(&self.ours, &["rev-parse", &format!("{c}^{{tree}}")]);
        assert_eq!(tree(&ours), tree(&theirs), "tree of {message:?}");
        assert_eq!(
            raw,
            git(&self.ours, &["cat-file", "commit", &theirs]),
            "commit of {message:?}"
        );
        assert_eq!(ours, theirs);
        assert_eq!(git(&self.ours, &["rev-parse", "HEAD"]), ours);
        let last_log = |dir: &Path| {
            let gd = head::git_dir(dir).unwrap();
            let text = std::fs::read_to_string(gd.join("logs/HEAD")).unwrap();
            text.lines().last().unwrap().to_string()
        };
        assert_eq!(last_log(&self.ours), last_log(&self.theirs));
        assert!(!self.ours.join(".git").exists() || !head_lock(&self.ours).exists());
        git(&self.ours, &["fsck", "--no-progress"]);
        ours
    }
}

fn head_lock(dir: &Path) -> PathBuf {
    head::git_dir(dir).unwrap().join("HEAD.lock")
}

fn chmod(dir: &Path, path: &str, mode: u32) {
    std::fs::set_permissions(dir.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn the_commit_made_in_process_is_the_one_git_makes() {
    type Change = fn(&Path);
    let cases: [(&str, Change); 9] = [
        ("create in the root, names sorting around a folder", |d| {
            write(d, "new.txt", "new\n");
            write(d, "dir.txt", "dir.txt\n");
            write(d, "dir-", "dash\n");
            write(d, "dir0", "zero\n");
        }),
        ("create in new nested folders", |d| {
            write(d, "n1/n2/n3/f.txt", "deep\n");
            write(d, "dir/sub/new/c.txt", "under an existing folder\n");
        }),
        ("modify", |d| write(d, "mod.txt", "changed\n")),
        ("delete the last file of a folder", |d| {
            std::fs::remove_file(d.join("only/last.txt")).unwrap();
            std::fs::remove_file(d.join("dir/sub/b.txt")).unwrap();
        }),
        ("executable files", |d| {
            write(d, "run.sh", "#!/bin/sh\n");
            chmod(d, "run.sh", 0o755);
            chmod(d, "script.sh", 0o744);
        }),
        ("symbolic links", |d| {
            std::os::unix::fs::symlink("keep.txt", d.join("link")).unwrap();
            std::os::unix::fs::symlink("../nowhere", d.join("dir/dangling")).unwrap();
            std::fs::remove_file(d.join("mod.txt")).unwrap();
            std::os::unix::fs::symlink("keep.txt", d.join("mod.txt")).unwrap();
        }),
        ("spaces and unicode", |d| {
            write(d, "a b/ç é.txt", "accents\n");
            write(d, "ünï cödé.txt", "unicode\n");
            write(d, "x y/z.txt", "changed\n");
        }),
        ("many paths", |d| {
            for i in 0..300 {
                write(d, &format!("many/{}/f{i}.txt", i % 7), &format!("{i}\n"));
            }
            write(d, "dir/a.txt", "modified\n");
            std::fs::remove_file(d.join("keep.txt")).unwrap();
        }),
        ("an empty file", |d| write(d, "empty", "")),
    ];
    for (what, change) in cases {
        let t = twin(Hooks::Off, &[]);
        t.both(change);
        t.same_as_git(&format!("feat(f): {what}\n\nbody of {what}.\n"));
    }
}

#[test]
fn messages_are_cleaned_like_git() {
    let messages = [
        "feat: trailing spaces   \nbody\t \n",
        "\n\n  \nfeat: leading blank lines\n\n\n\nbody after blank lines\n\n\n",
        "feat: crlf\r\n\r\nbody\r\nline two\r\n",
        "no newline at the end",
        "  indented subject  \n    indented body\n",
    ];
    for m in messages {
        let t = twin(Hooks::Off, &[]);
        t.both(|d| write(d, "m.txt", "m\n"));
        t.same_as_git(m);
    }
    assert_eq!(cleanup("a  \r\n\n\n b\n\n"), Some("a\n\n b\n".to_string()));
    assert_eq!(cleanup(" \n\t\n"), None);
    assert_eq!(cleanup("nul\0"), None);
    assert_eq!(cleanup("non-character \u{fffe}"), None);
    assert_eq!(reflog_message("feat:  a\tb  \n\nbody"), "commit: feat: a b");
}

/// Whether the commit is left to git once `prepare` ran (in the root and in `ours`),
/// changing `path`; and (when git can commit there) that `commit_changes` still commits.
fn left_to_git(hooks: Hooks, configure: &[(&str, &str)], prepare: fn(&Twin), path: &str) -> bool {
    let t = twin(hooks, configure);
    prepare(&t);
    write(&t.ours, path, "x\n");
    let changes = t.g.changes_since(&t.ours, &t.base).unwrap();
    let made =
        t.g.commit_in_process(&t.ours, &t.base, &changes, "feat: x\n");
    if made.is_none() && hooks == Hooks::Off && configure.is_empty() {
        // git's own verdict: committed, or refused (a path git will not stage)
        match t.g.commit_changes(&t.ours, &t.base, &changes, "feat: x\n") {
            Ok(c) => assert_eq!(git(&t.ours, &["rev-parse", "HEAD"]), c),
            Err(e) => assert!(e.message().contains("invalid path"), "{e}"),
        }
    }
    made.is_none()
}

#[test]
fn each_fallback_condition_leaves_the_commit_to_git() {
    let nothing: fn(&Twin) = |_| {};
    // the control: in process
    assert!(!left_to_git(Hooks::Off, &[], nothing, "top.txt"));
    assert!(left_to_git(Hooks::On, &[], nothing, "top.txt"));
    let config = [
        ("commit.gpgSign", "true", true),
        ("commit.gpgSign", "false", false),
        ("core.autocrlf", "true", true),
        ("core.autocrlf", "input", true),
        ("core.autocrlf", "false", false),
        ("core.eol", "crlf", true),
        ("commit.cleanup", "strip", true),
        ("commit.cleanup", "whitespace", false),
        ("i18n.commitEncoding", "ISO-8859-1", true),
        ("i18n.commitEncoding", "UTF-8", false),
        ("core.fileMode", "false", true),
        ("core.symlinks", "false", true),
        ("core.ignoreCase", "true", true),
        ("core.attributesFile", "/nonexistent", true),
    ];
    for (key, value, git_decides) in config {
        let left = left_to_git(Hooks::Off, &[(key, value)], nothing, "top.txt");
        assert_eq!(left, git_decides, "{key}={value}");
    }
    // a .gitattributes on the path's way: in the base tree, or only in the worktree (ignored)
    assert!(left_to_git(Hooks::Off, &[], nothing, "attr/sub/new.txt"));
    let attributes: fn(&Twin) = |t| {
        write(&t.ours, "dir/.gitattributes", "*.txt text\n");
        let common = crate::git::common_dir(&t.g.root).unwrap();
        write(&common, "info/exclude", "/dir/.gitattributes\n");
    };
    assert!(left_to_git(Hooks::Off, &[], attributes, "dir/sub/new.txt"));
    assert!(!left_to_git(
        Hooks::Off,
        &[],
        attributes,
        "elsewhere/new.txt"
    ));
    let info: fn(&Twin) = |t| {
        let common = crate::git::common_dir(&t.g.root).unwrap();
        write(&common, "info/attributes", "* -text\n");
    };
    assert!(left_to_git(Hooks::Off, &[], info, "top.txt"));
    // a nested repository
    let nested: fn(&Twin) = |t| {
        let n = t.ours.join("nested");
        std::fs::create_dir_all(&n).unwrap();
        git(&n, &["init", "-q"]);
        git(&n, &["commit", "-q", "--allow-empty", "-m", "n"]);
    };
    assert!(left_to_git(Hooks::Off, &[], nested, "top.txt"));
    // a path whose parent is a file in the base tree
    let file_parent: fn(&Twin) = |t| std::fs::remove_file(t.ours.join("keep.txt")).unwrap();
    assert!(left_to_git(Hooks::Off, &[], file_parent, "keep.txt/inside"));
    // special names
    assert!(left_to_git(Hooks::Off, &[], nothing, ".gitignore"));
    assert!(left_to_git(Hooks::Off, &[], nothing, "GIT~1/x"));
}

#[test]
fn a_moved_head_or_a_changed_index_leaves_the_commit_to_git() {
    let t = twin(Hooks::Off, &[]);
    write(&t.ours, "a.txt", "a\n");
    let changes = t.g.changes_since(&t.ours, &t.base).unwrap();
    // something staged after the status (git's commit would include it)
    write(&t.ours, "other.txt", "o\n");
    git(&t.ours, &["add", "other.txt"]);
    assert_eq!(t.g.commit_in_process(&t.ours, &t.base, &changes, "x"), None);
    git(&t.ours, &["reset", "-q"]);
    let changes = t.g.changes_since(&t.ours, &t.base).unwrap();
    // a lock git holds
    std::fs::write(head_lock(&t.ours), "").unwrap();
    assert_eq!(t.g.commit_in_process(&t.ours, &t.base, &changes, "x"), None);
    assert!(head_lock(&t.ours).exists());
    std::fs::remove_file(head_lock(&t.ours)).unwrap();
    // HEAD no longer the base
    git(&t.ours, &["commit", "-q", "--allow-empty", "-m", "moved"]);
    assert_eq!(t.g.commit_in_process(&t.ours, &t.base, &changes, "x"), None);
}

#[test]
fn a_worktree_left_with_a_stale_index_resets_and_cherry_picks() {
    let t = twin(Hooks::Off, &[]);
    write(&t.ours, "new/file.txt", "new\n");
    write(&t.ours, "mod.txt", "changed\n");
    std::fs::remove_file(t.ours.join("keep.txt")).unwrap();
    let commit = t.ours("feat: stale index").expect("in process");
    // the tip moves: the commit is cherry-picked inside its own worktree
    write(&t.theirs, "tip.txt", "tip\n");
    git(&t.theirs, &["add", "-A"]);
    git(&t.theirs, &["commit", "-q", "-m", "tip"]);
    let tip = git(&t.theirs, &["rev-parse", "HEAD"]);
    let picked = t.g.cherry_pick_onto(&t.ours, &commit, &tip).unwrap();
    assert_eq!(git(&t.ours, &["status", "--porcelain"]), "");
    let files = git(&t.ours, &["ls-tree", "-r", "--name-only", &picked]);
    assert!(files.contains("new/file.txt") && files.contains("tip.txt"));
    assert!(!files.contains("keep.txt"));
    // a second in-process commit there, then the worktree reused for another base
    write(&t.ours, "second.txt", "2\n");
    let changes = t.g.changes_since(&t.ours, &picked).unwrap();
    assert!(
        t.g.commit_in_process(&t.ours, &picked, &changes, "second")
            .is_some()
    );
    // reset at its own commit (a handed-back worktree's background reset), then elsewhere
    let second = git(&t.ours, &["rev-parse", "HEAD"]);
    t.g.reset_worktree(&t.ours, &second).unwrap();
    assert_eq!(git(&t.ours, &["status", "--porcelain"]), "");
    assert!(t.ours.join("second.txt").exists() && t.ours.join("new/file.txt").exists());
    t.g.reset_worktree(&t.ours, &t.base).unwrap();
    assert_eq!(git(&t.ours, &["status", "--porcelain"]), "");
    assert!(t.ours.join("keep.txt").exists() && !t.ours.join("new").exists());
    assert_eq!(t.g.changes_since(&t.ours, &t.base).unwrap(), vec![]);
    // a tree known clean moves with one checkout and stays clean, ignored files included
    t.g.switch_clean_worktree(&t.ours, &second).unwrap();
    assert_eq!(git(&t.ours, &["status", "--porcelain", "--ignored"]), "");
    assert!(t.ours.join("second.txt").exists() && t.ours.join("new/file.txt").exists());
    t.g.switch_clean_worktree(&t.ours, &t.base).unwrap();
    assert_eq!(git(&t.ours, &["status", "--porcelain", "--ignored"]), "");
    assert!(!t.ours.join("second.txt").exists() && !t.ours.join("new").exists());
    assert!(
        t.g.switch_clean_worktree(&t.ours.join("new"), &t.base)
            .is_err()
    );
}

#[test]
fn git_var_is_read_conservatively() {
    let vars = "GIT_COMMITTER_IDENT=C <c@e> 1700000000 +0100\nGIT_AUTHOR_IDENT=A B <a@e> 1700000000 -0230\nGIT_ATTR_SYSTEM=/etc/gitattributes\nGIT_ATTR_GLOBAL=/h/.config/git/attributes\n";
    let plain = format!("core.filemode=true\ncore.bare=false\ncore.logallrefupdates=true\n{vars}");
    let f = facts(&plain).unwrap();
    assert_eq!(f.author, "A B <a@e> 1700000000 -0230");
    assert_eq!(f.committer, "C <c@e> 1700000000 +0100");
    assert_eq!(f.attributes.len(), 2);
    assert!(f.create_reflog);
    let no_log = plain.replace("logallrefupdates=true", "logallrefupdates=false");
    assert!(!facts(&no_log).unwrap().create_reflog);
    // a value spanning lines can only make it refuse
    let spanning = format!("core.filemode=true\nuser.x=a\ncore.filemode=false\n{vars}");
    assert_eq!(facts(&spanning), None);
    let both = plain.replace("core.bare=false\n", "core.logallrefupdates=false\n");
    assert_eq!(facts(&both), None);
    let extension = format!("extensions.refstorage=reftable\n{vars}");
    assert_eq!(facts(&extension), None);
    let worktree_config = format!("extensions.worktreeconfig=true\n{vars}");
    assert!(facts(&worktree_config).is_some());
    assert_eq!(
        facts(&vars.replace("A B <a@e> 1700000000 -0230", "bad")),
        None
    );
}
