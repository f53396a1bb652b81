//! The pack reader ([`history_pack`]) against gix's walk on real temp repositories: two
//! packs, loose commits, commits stored as deltas, merges, several refs, a revert.

use super::*;

fn git(dir: &Path, args: &[&str]) -> String {
    crate::git::testing::git(dir, args)
}

fn commit(dir: &Path, message: &str) -> String {
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A long body that differs little from one commit to the next, so `git repack -f` stores
/// those commits as deltas.
fn big(n: usize) -> String {
    let body: Vec<String> = (0..300)
        .map(|i| format!("line {i} of a long body that repeats itself"))
        .collect();
    format!("chore: big {n}\n\n{}", body.join("\n"))
}

fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    commit(dir, "chore: root");
    let first = commit(dir, "feat(auth): Implement issue #1");
    commit(dir, "chore: noise mentions #2 and #3");
    git(dir, &["checkout", "-q", "-b", "side"]);
    commit(dir, "feat(auth): Implement issue #2");
    commit(dir, "chore: side work");
    git(dir, &["checkout", "-q", "main"]);
    commit(dir, "chore: main work");
    git(dir, &["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    for n in 0..4 {
        commit(dir, &big(n));
    }
    git(
        dir,
        &[
            "repack",
            "-q",
            "-a",
            "-d",
            "-f",
            "--window=50",
            "--depth=50",
        ],
    );
    commit(
        dir,
        &format!("Revert \"feat(auth): Implement issue #1\"\n\nThis reverts commit {first}."),
    );
    git(dir, &["checkout", "-q", "-b", "other"]);
    commit(dir, "feat(auth): Implement issue #3");
    git(dir, &["checkout", "-q", "main"]);
    commit(dir, "chore: after the other branch");
    git(dir, &["repack", "-q", "-d"]);
    // loose: a merge of `other`, and a commit on a branch no other ref reaches
    git(
        dir,
        &["merge", "-q", "--no-ff", "-m", "merge other", "other"],
    );
    git(dir, &["checkout", "-q", "-b", "loose"]);
    commit(dir, "feat(auth): Implement issue #4");
    git(dir, &["checkout", "-q", "main"]);
    tmp
}

fn tips(repo: &gix::Repository, names: &[&str]) -> Vec<ObjectId> {
    names
        .iter()
        .map(|n| resolve_ref(repo, n, None).unwrap().unwrap())
        .collect()
}

/// gix's walk and the pack reader over `tips`: (ids, found) of each.
type Walked = (Vec<ObjectId>, Vec<Found>);

fn both(dir: &Path, tips: &[ObjectId]) -> (Walked, Option<Walked>) {
    let repo = gix::discover(dir).unwrap();
    let rule = EvidenceRule::new("auth");
    let mut scanner = Scanner::new(&repo, dir, &rule, repo.is_shallow().unwrap()).unwrap();
    let mut ids = Vec::new();
    let found = scanner.walk_gix(tips.to_vec(), &mut ids).unwrap();
    let packed = history_pack::walk(&repo, tips, |id, data| examine(&rule, id, data))
        .map(|w| (w.ids, w.found));
    ((ids, found), packed)
}

#[test]
fn the_pack_reader_walks_as_gix_does_across_packs_loose_objects_and_deltas() {
    let tmp = repo();
    let dir = tmp.path();
    // the repository has what the reader must handle: two packs, a commit stored as a
    // delta, loose commits
    let packs = std::fs::read_dir(dir.join(".git/objects/pack"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "idx")
        .count();
    assert_eq!(packs, 2);
    let mut deltified = 0;
    for entry in std::fs::read_dir(dir.join(".git/objects/pack")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().unwrap() == "idx" {
            let listing = git(dir, &["verify-pack", "-v", path.to_str().unwrap()]);
            deltified += listing
                .lines()
                .filter(|l| l.split(' ').nth(1) == Some("commit") && l.split(' ').count() >= 7)
                .count();
        }
    }
    assert!(deltified >= 1, "no commit stored as a delta");
    let loose = git(dir, &["count-objects", "-v"]);
    assert!(!loose.starts_with("count: 0"), "{loose}");

    let repo = gix::discover(dir).unwrap();
    for names in [
        &["main"][..],
        &["main", "loose", "side"],
        &["loose", "main", "other", "main"],
        &["side"],
    ] {
        let tips = tips(&repo, names);
        let (gix_walk, packed) = both(dir, &tips);
        let packed = packed.expect("the pack reader applies");
        assert_eq!(packed.0, gix_walk.0, "walk order from {names:?}");
        assert_eq!(packed.1, gix_walk.1, "what the rule found from {names:?}");
    }
    let all = tips(&repo, &["main", "loose"]);
    let ((ids, found), _) = both(dir, &all);
    assert_eq!(
        ids.len(),
        git(dir, &["rev-list", "--count", "--all"])
            .parse::<usize>()
            .unwrap()
    );
    // issues 1-4, and the revert
    assert_eq!(found.len(), 5);

    // the whole scan: the same ledger as gix's walk folded by the same code
    let rule = EvidenceRule::new("auth");
    let refs = vec!["HEAD".to_string(), "loose".to_string()];
    let scanned = scan(dir, &refs, &rule, None, None).unwrap();
    let mut scanner = Scanner::new(&repo, dir, &rule, false).unwrap();
    let mut ids = Vec::new();
    let found = scanner.walk_gix(all, &mut ids).unwrap();
    let mut ledger = Ledger::default();
    scanner.fold(found, &mut ledger);
    assert_eq!(scanned.ledger, Some(ledger));
    assert_eq!(scanned.commits_scanned, ids.len() as u64);
}

#[test]
fn the_pack_reader_declines_shallow_clones_replace_refs_and_unpacked_repositories() {
    let tmp = repo();
    let dir = tmp.path();
    let repo = gix::discover(dir).unwrap();
    let main = tips(&repo, &["main"]);

    // only loose objects
    let unpacked = tempfile::tempdir().unwrap();
    git(unpacked.path(), &["init", "-q", "-b", "main"]);
    commit(unpacked.path(), "feat(auth): Implement issue #1");
    let loose = gix::discover(unpacked.path()).unwrap();
    let (gix_walk, packed) = both(unpacked.path(), &tips(&loose, &["main"]));
    assert!(packed.is_none());
    assert_eq!(gix_walk.0.len(), 1);

    // a shallow clone
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.display());
    git(
        clone.path(),
        &["clone", "-q", "--depth", "2", &url, "shallow"],
    );
    let shallow = clone.path().join("shallow");
    let shallow_repo = gix::discover(&shallow).unwrap();
    let (gix_walk, packed) = both(&shallow, &tips(&shallow_repo, &["main"]));
    assert!(packed.is_none());
    assert!(!gix_walk.0.is_empty());

    // a replace ref: gix reads the replacement, so the reader leaves it to gix
    let (_, packed) = both(dir, &main);
    assert!(packed.is_some());
    let side = git(dir, &["rev-parse", "side"]);
    let root = git(dir, &["rev-list", "--max-parents=0", "main"]);
    git(dir, &["replace", &side, &root]);
    let (_, packed) = both(dir, &main);
    assert!(packed.is_none());
}
