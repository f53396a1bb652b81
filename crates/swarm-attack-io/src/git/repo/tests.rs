//! The repository adapter against real temp repositories.

use super::*;

fn repo() -> (tempfile::TempDir, Git) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    std::fs::create_dir_all(&root).unwrap();
    let g = Git::init(
        &root,
        "main",
        "t",
        "t@e",
        &crate::ui::Ui::captured(Default::default()),
    )
    .unwrap();
    g.run(&root, &["commit", "-q", "--allow-empty", "-m", "init"], b"")
        .unwrap();
    (tmp, g)
}

#[test]
fn worktree_changes_commit_and_fast_forward() {
    let (_tmp, g) = repo();
    let base = g.head(&g.root).unwrap().unwrap();
    let wt = g.root.join(".swarm/worktrees/f/issue-1");
    g.add_worktree(&wt, &base).unwrap();
    std::fs::write(wt.join("a b.txt"), "x").unwrap();
    std::fs::write(wt.join("*.txt"), "glob-looking name").unwrap();
    let changes = g.changes_since(&wt, &base).unwrap();
    assert_eq!(
        changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        vec!["*.txt", "a b.txt"]
    );
    assert!(changes.iter().all(|c| c.kind == ChangeKind::Created));
    g.stage(&wt, &["a b.txt".to_string()]).unwrap();
    let c = g.commit(&wt, "feat: x\n").unwrap();
    // only the staged path is in the commit
    let files = g
        .run(&g.root, &["show", "--name-only", "--format=", &c], b"")
        .unwrap();
    assert_eq!(files.trim(), "a b.txt");
    // user stray file in the main tree survives the fast-forward
    std::fs::write(g.root.join("notes.txt"), "mine").unwrap();
    g.fast_forward(&c, &base, |_| {}).unwrap();
    assert!(g.root.join("a b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(g.root.join("notes.txt")).unwrap(),
        "mine"
    );
    g.remove_worktree(&wt);
    assert!(!wt.exists());
}
