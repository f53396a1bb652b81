//! Summaries against a real temp git repository: deterministic content, the `llm.command`
//! path with a script, and the fallbacks when the command fails or answers nothing.

use super::*;
use crate::fid;
use crate::project::ProjectOptions;
use std::path::Path;

fn git(dir: &Path, args: &[&str]) -> String {
    crate::io::git::testing::git(dir, args)
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A repo whose last commit implements issue 3 (adds src/login.rs, changes src/lib.rs).
fn repo() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    write(d, "src/lib.rs", "pub mod user;\n");
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "chore: start"]);
    write(d, "src/lib.rs", "pub mod user;\npub mod login;\n");
    write(
        d,
        "src/login.rs",
        "pub struct Session;\npub fn login() -> Session { Session }\nfn helper() {}\n",
    );
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "feat(auth): Implement issue #3"]);
    let sha = git(d, &["rev-parse", "HEAD"]);
    (dir, sha)
}

fn project(dir: &Path) -> Project {
    Project::open(
        &ProjectOptions {
            project_dir: Some(dir.to_path_buf()),
            config_file: None,
        },
        &crate::io::ui::Ui::captured(Default::default()),
    )
    .unwrap()
}

fn done_task(sha: &str) -> Task {
    let mut t = crate::task_in(Stage::Done, Task::new(3, "Add login"));
    t.commit = Some(sha.to_string());
    t
}

fn script(dir: &Path, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("llm.sh");
    std::fs::write(&p, body).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

#[test]
fn deterministic_summary_from_the_commit_and_outputs_filled() {
    let (dir, sha) = repo();
    let p = project(dir.path());
    let mut t = done_task(&sha);
    assert!(ensure_summary(&p, &fid("auth"), &mut t));
    let expected = format!(
        "Issue #3 (Add login) was implemented in commit {} \"feat(auth): Implement issue #3\". It adds `src/login.rs` (Session and login); changes `src/lib.rs`.",
        &sha[..7]
    );
    assert_eq!(t.completion_summary.as_deref(), Some(expected.as_str()));
    assert_eq!(
        t.outputs.semantic_summary.as_deref(),
        Some(expected.as_str())
    );
    assert_eq!(t.outputs.files_created, vec!["src/login.rs".to_string()]);
    assert_eq!(
        t.outputs.classes_defined,
        serde_json::json!({"src/login.rs": ["Session", "login"]})
    );
    // Idempotent: a task with a summary is left alone.
    assert!(!ensure_summary(&p, &fid("auth"), &mut t));
}

#[test]
fn llm_command_is_asked_with_diffstat_and_patch() {
    let (dir, sha) = repo();
    let tmp = tempfile::tempdir().unwrap();
    let seen = tmp.path().join("seen.txt");
    let cmd = script(
        tmp.path(),
        &format!(
            "#!/bin/sh\n{{ echo \"purpose=$SWARM_PURPOSE issue=$SWARM_ISSUE feature=$SWARM_FEATURE\"; cat; }} > '{}'\necho 'Adds `login()` returning a `Session`.'\necho\n",
            seen.display()
        ),
    );
    let mut p = project(dir.path());
    p.config.llm.command = Some(vec![cmd]);
    let mut t = done_task(&sha);
    assert!(ensure_summary(&p, &fid("auth"), &mut t));
    assert_eq!(
        t.outputs.semantic_summary.as_deref(),
        Some("Adds `login()` returning a `Session`.")
    );
    assert_eq!(t.completion_summary, t.outputs.semantic_summary);
    let asked = std::fs::read_to_string(seen).unwrap();
    assert!(
        asked.starts_with("purpose=summary issue=3 feature=auth\n"),
        "{asked}"
    );
    assert!(
        asked.contains("src/login.rs | 3 +++"),
        "diffstat missing: {asked}"
    );
    assert!(
        asked.contains("+pub fn login() -> Session { Session }"),
        "patch missing: {asked}"
    );
}

#[test]
fn failing_or_silent_llm_falls_back_to_the_deterministic_summary() {
    let (dir, sha) = repo();
    let tmp = tempfile::tempdir().unwrap();
    for body in [
        "#!/bin/sh\necho boom >&2\nexit 3\n",
        "#!/bin/sh\ncat >/dev/null\necho '   '\n",
    ] {
        let mut p = project(dir.path());
        p.config.llm.command = Some(vec![script(tmp.path(), body)]);
        let mut t = done_task(&sha);
        assert!(ensure_summary(&p, &fid("auth"), &mut t));
        let s = t.completion_summary.unwrap();
        assert!(
            s.starts_with("Issue #3 (Add login) was implemented in commit "),
            "{s}"
        );
    }
    // A command that does not exist, and one that times out.
    let mut p = project(dir.path());
    p.config.llm.command = Some(vec!["/definitely/not/here".into()]);
    let mut t = done_task(&sha);
    assert!(ensure_summary(&p, &fid("auth"), &mut t));
    assert!(
        t.completion_summary
            .unwrap()
            .starts_with("Issue #3 (Add login)")
    );
    let mut p = project(dir.path());
    p.config.llm.command = Some(vec![script(tmp.path(), "#!/bin/sh\nsleep 5\n")]);
    p.config.llm.timeout_seconds = 1;
    let mut t = done_task(&sha);
    assert!(ensure_summary(&p, &fid("auth"), &mut t));
    assert!(
        t.completion_summary
            .unwrap()
            .starts_with("Issue #3 (Add login)")
    );
}

#[test]
fn nothing_happens_when_disabled_not_done_or_already_summarised() {
    let (dir, sha) = repo();
    let mut p = project(dir.path());
    let mut t = crate::task_in(Stage::Ready, done_task(&sha));
    assert!(!ensure_summary(&p, &fid("auth"), &mut t));
    let mut t = done_task(&sha);
    t.outputs.semantic_summary = Some("Already there.".into());
    assert!(!ensure_summary(&p, &fid("auth"), &mut t));
    assert!(t.completion_summary.is_none());
    p.config.coordination.generate_summaries = false;
    let mut t = done_task(&sha);
    assert!(!ensure_summary(&p, &fid("auth"), &mut t));
    assert!(t.summary().is_none());
}

#[test]
fn ensure_summaries_fills_every_done_task_and_a_task_without_commit() {
    let (dir, sha) = repo();
    let p = project(dir.path());
    let mut s = FeatureState::new("auth", "2026-01-01T00:00:00Z");
    let mut no_commit = crate::task_in(Stage::Done, Task::new(1, "Model"));
    no_commit.files = vec!["src/lib.rs".into()];
    s.tasks = vec![no_commit, done_task(&sha), Task::new(4, "Later")];
    assert_eq!(ensure_summaries(&p, &fid("auth"), &mut s), vec![1, 3]);
    assert_eq!(
        s.task(1).unwrap().completion_summary.as_deref(),
        Some("Issue #1 (Model) is done. Files: `src/lib.rs` (user and login).")
    );
    assert!(s.task(4).unwrap().summary().is_none());
}

#[test]
fn summaries_during_a_sync_give_llm_command_at_most_half_the_lock_timeout_in_all() {
    let (dir, sha) = repo();
    let tmp = tempfile::tempdir().unwrap();
    let calls = tmp.path().join("calls.txt");
    // a helper slower than the whole budget: the first call is cut at the budget, the
    // second is not made at all
    let cmd = script(
        tmp.path(),
        &format!("#!/bin/sh\necho call >> '{}'\nsleep 30\n", calls.display()),
    );
    let mut p = project(dir.path());
    p.config.llm.command = Some(vec![cmd]);
    p.config.sessions.lock_timeout_seconds = 2;
    let mut state = FeatureState::new("auth", "t");
    let mut a = done_task(&sha);
    a.issue_number = 3;
    let mut b = done_task(&sha);
    b.issue_number = 4;
    state.tasks = vec![a, b];
    let changed = ensure_summaries(&p, &fid("auth"), &mut state);
    assert_eq!(changed, vec![3, 4]);
    let made = std::fs::read_to_string(&calls).unwrap_or_default();
    assert_eq!(
        made.lines().count(),
        1,
        "only one llm.command call fits the budget"
    );
    // both still have a summary, built from the commit
    for t in &state.tasks {
        assert!(
            t.summary().is_some_and(|s| s.contains("login")),
            "{:?}",
            t.summary()
        );
    }
}

/// Commits of every shape a summary reads: adds, changes, deletes, a rename (read as delete
/// and add), a path with spaces and non-ASCII letters, an empty commit, a merge.
fn varied_repo() -> (tempfile::TempDir, Vec<String>) {
    let (dir, first) = repo();
    let d = dir.path();
    let head = |d: &Path| git(d, &["rev-parse", "HEAD"]);
    let mut shas = vec![first];
    write(
        d,
        "src/user.rs",
        "pub struct User;\nimpl User { pub fn new() -> Self { User } }\n",
    );
    write(d, "docs/naïve file.md", "# doc\n");
    git(d, &["add", "."]);
    git(
        d,
        &["commit", "-q", "-m", "feat(auth): Implement issue #4  "],
    );
    shas.push(head(d));
    git(d, &["mv", "src/login.rs", "src/session.rs"]);
    std::fs::remove_file(d.join("docs/naïve file.md")).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "refactor: rename\n\nbody line"]);
    shas.push(head(d));
    git(
        d,
        &["commit", "-q", "--allow-empty", "-m", "chore: nothing"],
    );
    shas.push(head(d));
    git(d, &["checkout", "-q", "-b", "side", "HEAD~2"]);
    write(d, "src/side.rs", "pub fn side() {}\n");
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "feat(auth): Implement issue #5"]);
    shas.push(head(d));
    git(d, &["checkout", "-q", "main"]);
    git(d, &["merge", "-q", "--no-ff", "-m", "Merge side", "side"]);
    shas.push(head(d));
    (dir, shas)
}

#[test]
fn commit_infos_in_one_process_equal_the_per_commit_ones() {
    let (dir, shas) = varied_repo();
    let d = dir.path();
    let mut names = shas.clone();
    names.push(shas[1][..9].to_string());
    names.push("0123456789abcdef0123456789abcdef01234567".into());
    let batch = commit_info::commit_infos(d, &names);
    for name in &names {
        assert_eq!(
            batch.get(name),
            commit_info::commit_info(d, name).as_ref(),
            "{name}"
        );
    }
    assert_eq!(batch.len(), names.len() - 1);
}

#[test]
fn summaries_of_a_sync_are_the_same_text_as_one_by_one() {
    let (dir, shas) = varied_repo();
    let p = project(dir.path());
    let tasks: Vec<Task> = shas
        .iter()
        .enumerate()
        .map(|(i, sha)| {
            let mut t = crate::task_in(Stage::Done, Task::new(i as u32 + 1, format!("Task {i}")));
            t.commit = Some(if i == 1 {
                sha[..8].to_string()
            } else {
                sha.clone()
            });
            t
        })
        .collect();
    let mut all = FeatureState::new("auth", "2026-01-01T00:00:00Z");
    all.tasks = tasks.clone();
    assert_eq!(
        ensure_summaries(&p, &fid("auth"), &mut all).len(),
        tasks.len()
    );
    for (mut one, batched) in tasks.into_iter().zip(&all.tasks) {
        assert!(ensure_summary(&p, &fid("auth"), &mut one));
        assert_eq!(&one, batched, "issue {}", one.issue_number);
        assert!(one.summary().is_some());
    }
}
