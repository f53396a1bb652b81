//! `run` reuses one worktree per worker from issue to issue (issue 19): each issue and each
//! retry starts from a clean tree at its base, nothing of the previous agent's work leaks,
//! and worker worktrees left by a dead run are removed by the next run (a live run's are
//! kept).

use crate::common::agents::Setup;
use serde_json::json;
use std::fs::OpenOptions;

/// Logs where it runs and what it finds, then leaves every kind of leftover behind: an
/// ignored file, an untracked file in an ignored folder, a branch of its own with a
/// staged file. Issue 2's first attempt fails its check (it is retried in the same
/// worktree).
const LEAKY_AGENT: &str = r#"cat > /dev/null
{
  echo "$SWARM_ISSUE $SWARM_ATTEMPT $(pwd) $(git rev-parse HEAD)"
  git status --porcelain --ignored --untracked-files=all | sed 's/^/  found: /'
  git symbolic-ref -q HEAD | sed 's/^/  branch: /'
} >> "$TRACE/calls.log"
mkdir -p src checks build
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
if [ "$SWARM_ISSUE" = 2 ] && [ "$SWARM_ATTEMPT" = 1 ]; then
  echo "exit 1" > "checks/t_$SWARM_ISSUE.sh"
else
  echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
fi
echo "left by $SWARM_ISSUE" > "notes-$SWARM_ISSUE.log"
echo "cache" > build/cache.bin
git checkout -q -b "agent-$SWARM_ISSUE-$SWARM_ATTEMPT"
echo staged > "staged-$SWARM_ISSUE.log"
git add -f "staged-$SWARM_ISSUE.log"
"#;

fn setup_leaky() -> Setup {
    let s = Setup::new(
        "reuse",
        // a chain: each issue is claimed once its predecessor landed, so its base is known
        json!([
            {"order": 1, "title": "A"},
            {"order": 2, "title": "B", "dependencies": [1]},
            {"order": 3, "title": "C", "dependencies": [2]}
        ]),
        LEAKY_AGENT,
        "",
    );
    // `*.log` and build/ are ignored by the project
    s.env.write(".gitignore", "*.log\nbuild/\n.swarm/\n");
    s.env.git(&["add", ".gitignore"]);
    s.env.git(&["commit", "-q", "-m", "chore: ignore logs"]);
    s
}

#[test]
fn each_issue_and_retry_starts_clean_at_its_base_in_the_same_worktree() {
    let s = setup_leaky();
    s.env.run(&["run", "reuse"]).ok();
    for n in 1..=3 {
        assert_eq!(s.task("reuse", n)["stage"], "DONE", "issue {n}");
    }
    let calls = s.calls();
    let starts: Vec<Vec<&str>> = calls
        .iter()
        .filter(|l| !l.starts_with("  "))
        .map(|l| l.split(' ').collect())
        .collect();
    // issue 1, issue 2 twice (a retry), issue 3
    let order: Vec<(&str, &str)> = starts.iter().map(|c| (c[0], c[1])).collect();
    assert_eq!(order, vec![("1", "1"), ("2", "1"), ("2", "2"), ("3", "1")]);
    // every start saw a clean tree on no branch: nothing of the previous agent leaked
    let leaks: Vec<&String> = calls.iter().filter(|l| l.starts_with("  ")).collect();
    assert!(
        leaks.is_empty(),
        "leftovers seen by later agents: {leaks:?}"
    );
    // one worktree served every issue
    assert!(
        starts.iter().all(|c| c[2] == starts[0][2]),
        "worktrees: {starts:?}"
    );
    // each issue started at the commit its predecessor landed, the retry too
    let commit = |n: u64| s.task("reuse", n)["commit"].as_str().unwrap().to_string();
    assert_eq!(starts[1][3], commit(1));
    assert_eq!(starts[2][3], commit(1));
    assert_eq!(starts[3][3], commit(2));
    // only the agents' tracked work landed; the worktree is gone after the run
    let files = s.env.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(
        !files.contains(".log") && !files.contains("build/"),
        "{files}"
    );
    assert_eq!(s.env.git(&["worktree", "list"]).lines().count(), 1);
    assert!(!std::path::Path::new(starts[0][2]).exists());
}

#[test]
fn worker_worktrees_of_a_dead_run_are_removed_and_a_live_runs_kept() {
    let s = Setup::new(
        "left",
        json!([{"order": 1, "title": "A"}]),
        crate::common::agents::GOOD_AGENT,
        "",
    );
    let head = s.env.git(&["rev-parse", "HEAD"]);
    let add = |name: &str| {
        let p = s.env.path(&format!(".swarm/worktrees/left/{name}"));
        s.env.git(&[
            "worktree",
            "add",
            "-q",
            "--detach",
            p.to_str().unwrap(),
            &head,
        ]);
        std::fs::write(p.join("half-done.txt"), "a killed agent's work").unwrap();
        p
    };
    // killed with -9: its liveness lock file is left, unlocked
    let dead = add("worker-20260101T000000Z-999999-1");
    std::fs::create_dir_all(s.env.path(".swarm/locks")).unwrap();
    std::fs::write(
        s.env.path(".swarm/locks/run-20260101T000000Z-999999.lock"),
        "",
    )
    .unwrap();
    // alive: this test holds its liveness lock
    let live = add("worker-20260101T000000Z-4-2");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(s.env.path(".swarm/locks/run-20260101T000000Z-4.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    s.env.run(&["run", "left"]).ok();
    assert_eq!(s.task("left", 1)["stage"], "DONE");
    assert!(!dead.exists(), "the dead run's worktree was not removed");
    assert!(
        live.join("half-done.txt").exists(),
        "a live run's worktree was touched"
    );
    let list = s.env.git(&["worktree", "list"]);
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(
        !s.env
            .git(&["ls-tree", "-r", "--name-only", "HEAD"])
            .contains("half-done")
    );
}

/// `PWD` of an agent names its worktree, never the folder `run` was started from: tools that
/// take their folder from `$PWD` (OpenCode) would otherwise work in the user's checkout.
#[test]
fn an_agent_gets_pwd_set_to_its_worktree() {
    let mut s = Setup::new(
        "pwd",
        json!([{"order": 1, "title": "A"}]),
        r#"cat > /dev/null
# the environment the agent was started with (a shell would fix its own $PWD up)
given="$(tr '\0' '\n' < /proc/$$/environ | sed -n 's/^PWD=//p')"
echo "$given|$(cd "$given" && pwd -P)|$(pwd -P)" >> "$TRACE/calls.log"
mkdir -p checks
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
"#,
        "",
    );
    // started from a shell in the user's checkout
    let root = s.env.root.display().to_string();
    s.env.extra_env.push(("PWD".into(), root.clone()));
    s.env.run(&["run", "pwd"]).ok();
    assert_eq!(s.task("pwd", 1)["stage"], "DONE");
    let calls = s.calls();
    let parts: Vec<&str> = calls[0].split('|').collect();
    let [given, given_resolved, cwd] = parts[..] else {
        panic!("{calls:?}")
    };
    assert_ne!(given, root, "{calls:?}");
    assert_eq!(
        given_resolved, cwd,
        "PWD names the agent's folder: {calls:?}"
    );
    assert_ne!(
        std::path::PathBuf::from(cwd),
        std::fs::canonicalize(&s.env.root).unwrap()
    );
}
