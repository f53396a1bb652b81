//! `run` starts only the git processes its work needs (issue 19: the per-issue and fixed
//! cost of a run is mostly process starts). What the tool reads of its own commits (the
//! summary's commit facts, commit times, the commit a landing replays) is read in-process;
//! the results are checked against git here and in `io::git::objects`'s unit tests. The
//! worker's commit is written in-process too (`io::git::repo::commit_in_process`).

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::output::git_commands;
use serde_json::json;

#[test]
fn a_run_reads_its_own_commits_in_process_and_starts_no_needless_git() {
    let s = Setup::new(
        "procs",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}, {"order": 3, "title": "C"}]),
        GOOD_AGENT,
        "",
    );
    let r = s.env.run(&["-vv", "run", "procs"]);
    r.ok();
    let commands = git_commands(&r.stderr);
    let started = |sub: &str| commands.iter().filter(|c| c.starts_with(sub)).count();
    // each worker's commit is written in-process (one `git var -l` for its identity, date
    // and config): no `git add`, no `git commit`
    assert_eq!(started("var -l"), 3, "{}", r.stderr);
    assert_eq!(started("commit "), 0, "{commands:#?}");
    assert_eq!(started("add "), 0, "{commands:#?}");
    assert_eq!(started("--literal-pathspecs add"), 0, "{commands:#?}");
    // the summary's commit facts, commit times and the replayed commit: read in-process
    assert_eq!(started("show"), 0, "{commands:#?}");
    assert_eq!(started("log"), 0, "{commands:#?}");
    assert_eq!(started("cat-file"), 0, "{commands:#?}");
    // nothing to prune when the repository records no linked worktree
    assert_eq!(started("worktree prune"), 0, "{commands:#?}");
    // one process finds the repository and its common dir, for the whole run
    assert_eq!(started("rev-parse"), 1, "{commands:#?}");
    // the checked-out branch is read from the repository's files
    assert_eq!(started("symbolic-ref"), 0, "{commands:#?}");
    // every issue landed with the summary built from its landed commit
    for issue in 1..=3u64 {
        let t = s.task("procs", issue);
        assert_eq!(t["stage"], "DONE", "{t}");
        let summary = t["completion_summary"].as_str().unwrap_or_default();
        assert!(summary.contains(&format!("src/{issue}.txt")), "{summary}");
        let commit = t["commit"].as_str().unwrap();
        assert!(summary.contains(&commit[..7]), "{summary}");
        let subject = s.env.git(&["log", "-1", "--format=%s", commit]);
        assert!(summary.contains(&format!("\"{subject}\"")), "{summary}");
    }
}

#[test]
fn one_worker_makes_one_worktree_and_each_issue_reuses_it_while_the_last_one_lands() {
    let s = Setup::new(
        "reuse",
        json!([
            {"order": 1, "title": "A"}, {"order": 2, "title": "B"},
            {"order": 3, "title": "C"}, {"order": 4, "title": "D"}
        ]),
        GOOD_AGENT,
        "",
    );
    let r = s.env.run(&["-vv", "run", "reuse", "--workers", "1"]);
    r.ok();
    let commands = git_commands(&r.stderr);
    let started = |sub: &str| commands.iter().filter(|c| c.starts_with(sub)).count();
    // the worktree is handed back once a commit passed: the next issue resets it, none
    // is checked out a second time
    assert_eq!(started("worktree add"), 1, "{commands:#?}");
    assert_eq!(started("worktree remove"), 1, "{commands:#?}");
    for issue in 1..=4u64 {
        let t = s.task("reuse", issue);
        assert_eq!(t["stage"], "DONE", "{t}");
        let file = format!("src/{issue}.txt");
        assert!(s.env.path(&file).is_file(), "{file}");
        let summary = t["completion_summary"].as_str().unwrap_or_default();
        assert!(summary.contains(&file), "{summary}");
    }
    // the four commits landed one after the other on the branch
    let log = s.env.git(&["log", "--format=%s", "-4"]);
    for issue in 1..=4 {
        assert!(log.contains(&format!("Implement issue #{issue}")), "{log}");
    }
}

#[test]
fn a_handed_back_worktree_is_reset_at_its_commit_while_it_lands_and_the_next_issue_starts_there() {
    // the reset's clean + checkout run in the background as soon as an issue hands its
    // worktree back (at the issue's own commit, which the landing fast-forwards to), so the
    // next issue, based on that commit, starts without resetting it again. (Issue 2 depends
    // on issue 1, so it is claimed after issue 1 landed; an independent one may be claimed
    // while issue 1 lands, from the tip before it.)
    let s = Setup::new(
        "early",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B", "dependencies": [1]}]),
        GOOD_AGENT,
        "",
    );
    let r = s.env.run(&["-vv", "run", "early", "--workers", "1"]);
    r.ok();
    let commands = git_commands(&r.stderr);
    let checkouts: Vec<&String> = commands
        .iter()
        .filter(|c| c.starts_with("checkout"))
        .collect();
    let cleans = commands.iter().filter(|c| c.starts_with("clean")).count();
    for issue in 1..=2u64 {
        let t = s.task("early", issue);
        assert_eq!(t["stage"], "DONE", "{t}");
        let commit = t["commit"].as_str().unwrap();
        let at_commit = format!("checkout -q -f --detach {commit}");
        // each issue's worktree is reset once, at its own commit: issue 2 started from
        // issue 1's reset and reset nothing itself
        assert_eq!(
            checkouts.iter().filter(|c| **c == &at_commit).count(),
            1,
            "{commands:#?}"
        );
    }
    assert_eq!(checkouts.len(), 2, "{commands:#?}");
    assert_eq!(cleans, 2, "{commands:#?}");
    // and the worktree is gone when the run ends (its reset finished first)
    let left = std::fs::read_dir(s.env.path(".swarm/worktrees/early"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(left, 0);
}

#[test]
fn an_issue_whose_base_is_not_where_the_background_reset_went_starts_from_its_base() {
    // issue 1's agent commits on the branch as someone else would: issue 1 lands replayed
    // onto that commit, so its worktree's background reset (at issue 1's own commit) is not
    // issue 2's base (the replayed commit: issue 2 depends on issue 1, so it is claimed
    // after the landing); issue 2's agent must still see the other commit's file
    let env = TestEnv::new();
    let root = env.root.display().to_string();
    let agent = format!(
        r#"cat > /dev/null
mkdir -p src
if [ "$SWARM_ISSUE" = 1 ]; then
  echo other > "{root}/other.txt"
  git -C "{root}" add other.txt
  git -C "{root}" -c user.name=O -c user.email=o@example.com commit -qm "chore: someone else"
fi
if [ -f other.txt ]; then seen=yes; else seen=no; fi
echo "issue $SWARM_ISSUE saw other.txt: $seen" > "src/$SWARM_ISSUE.txt"
echo '{{"result": "ok"}}'
"#
    );
    let s = Setup::new_in(
        env,
        "moved",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B", "dependencies": [1]}]),
        &agent,
        "",
    );
    let r = s.env.run(&["-vv", "run", "moved", "--workers", "1"]);
    r.ok();
    let commands = git_commands(&r.stderr);
    for issue in 1..=2u64 {
        assert_eq!(s.task("moved", issue)["stage"], "DONE");
    }
    let seen =
        |issue: u32| std::fs::read_to_string(s.env.path(&format!("src/{issue}.txt"))).unwrap();
    assert_eq!(seen(1), "issue 1 saw other.txt: no\n");
    assert_eq!(seen(2), "issue 2 saw other.txt: yes\n", "{commands:#?}");
    // issue 2 moved the worktree to its base itself: one checkout, no clean (its background
    // reset left it clean); the only cleans are the two hand-backs' resets
    let base = s.task("moved", 1)["commit"].as_str().unwrap().to_string();
    assert!(
        commands.contains(&format!("checkout -q -f --detach {base}")),
        "{commands:#?}"
    );
    assert_eq!(
        commands.iter().filter(|c| c.starts_with("clean")).count(),
        2,
        "{commands:#?}"
    );
}

#[test]
fn a_landing_that_must_cherry_pick_takes_a_worktree_of_its_own_after_handing_the_issues_back() {
    // with hooks on, a replay onto a moved branch is a cherry-pick in a worktree (the object
    // store way runs no hooks); the issue's own worktree was already handed back to the run.
    // The agent of issue 2 moves the branch (as someone else would) while it works.
    let env = TestEnv::new();
    let root = env.root.display().to_string();
    let agent = format!(
        r#"cat > /dev/null
mkdir -p src
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
if [ "$SWARM_ISSUE" = 2 ]; then
  echo other > "{root}/other.txt"
  git -C "{root}" add other.txt
  git -C "{root}" -c user.name=O -c user.email=o@example.com commit -qm "chore: someone else"
fi
echo '{{"result": "ok"}}'
"#
    );
    let s = Setup::new_in(
        env,
        "picks",
        json!([
            {"order": 1, "title": "A"}, {"order": 2, "title": "B"}, {"order": 3, "title": "C"}
        ]),
        &agent,
        "git:\n  run_hooks: true\n",
    );
    let r = s.env.run(&["-vv", "run", "picks", "--workers", "1"]);
    r.ok();
    let commands = git_commands(&r.stderr);
    let picks = commands
        .iter()
        .filter(|c| c.starts_with("cherry-pick"))
        .count();
    assert!(
        picks >= 1,
        "no landing replayed by cherry-pick: {commands:#?}"
    );
    for issue in 1..=3u64 {
        let t = s.task("picks", issue);
        assert_eq!(t["stage"], "DONE", "{t}");
        assert!(s.env.path(&format!("src/{issue}.txt")).is_file());
    }
    assert!(s.env.path("other.txt").is_file());
    assert_eq!(
        s.env
            .git(&["status", "--porcelain", "--untracked-files=no"]),
        ""
    );
}

/// The byte ranges `-vv` says the event-log index read: `(from, bytes)`.
fn index_scans(stderr: &str) -> Vec<(u64, u64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("event index: ")?.1;
            let (bytes, rest) = rest.split_once(" byte(s) of the log indexed from byte ")?;
            Some((rest.trim().parse().ok()?, bytes.parse().ok()?))
        })
        .collect()
}

#[test]
fn outcome_records_read_each_byte_of_the_event_log_once_per_run_not_once_per_issue() {
    let s = Setup::new(
        "outc",
        json!([
            {"order": 1, "title": "A"}, {"order": 2, "title": "B"},
            {"order": 3, "title": "C"}, {"order": 4, "title": "D"}
        ]),
        GOOD_AGENT,
        "",
    );
    let r = s.env.run(&["-vv", "run", "outc", "--workers", "1"]);
    r.ok();
    let scans = index_scans(&r.stderr);
    // one look at the log per ended issue: the first from its start, each next one from
    // where the last stopped (only what was appended in between)
    assert_eq!(scans.len(), 4, "{}", r.stderr);
    assert_eq!(scans[0].0, 0, "{scans:?}");
    for w in scans.windows(2) {
        assert_eq!(w[1].0, w[0].0 + w[0].1, "{scans:?}");
        assert!(w[1].0 > 0, "{scans:?}");
    }
    let log = std::fs::metadata(s.env.path(".swarm/events/outc.jsonl"))
        .unwrap()
        .len();
    let read: u64 = scans.iter().map(|(_, b)| b).sum();
    assert!(read <= log, "read {read} bytes of a {log}-byte log");
    // every outcome record is there, built from its issue's records
    let outcomes = s.env.read(".swarm/outcomes.jsonl");
    let records: Vec<serde_json::Value> = outcomes
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 4, "{outcomes}");
    for (k, rec) in records.iter().enumerate() {
        assert_eq!(rec["issue"], k as u64 + 1, "{rec}");
        assert_eq!(rec["result"], "done", "{rec}");
        assert_eq!(rec["attempts"], 1, "{rec}");
        assert_eq!(rec["landed_by"], "fake", "{rec}");
        assert_eq!(rec["cost_usd"], 0.25, "{rec}");
    }
}

/// Three issues in a chain, each implemented by an agent that adds `src/<n>.txt` and a
/// test for it (`tests/test_<n>.sh`, failing without the file); the test runner logs each
/// run (`<dir>|<args>`). Runs `run --workers 1 -vv` with `verify` set by `verify`; returns
/// the git commands, the runner's log and each issue's commit.
fn integrity_run(verify: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let env = TestEnv::new();
    env.write("README.md", "x\n");
    env.git(&["add", "."]);
    env.git(&["commit", "-q", "-m", "chore: start"]);
    let trace = env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let t = trace.display();
    let agent = env.script(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\nmkdir -p src tests\necho ok > \"src/$SWARM_ISSUE.txt\"\necho \"[ -f src/$SWARM_ISSUE.txt ]\" > \"tests/test_$SWARM_ISSUE.sh\"\necho '{\"result\": \"ok\"}'\n",
    );
    let runner = env.script(
        "runner.sh",
        &format!(
            "#!/bin/sh\necho \"$(pwd)|$*\" >> {t}/runs.log\nif [ $# -gt 0 ]; then files=\"$*\"; else files=$(ls tests/*.sh 2>/dev/null); fi\nfor f in $files; do sh \"$f\" || exit 1; done\n"
        ),
    );
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\n{verify}",
            agent.display(),
            runner.display()
        ),
    );
    env.issues(
        "chain",
        json!([
            {"order": 1, "title": "A"},
            {"order": 2, "title": "B", "dependencies": [1]},
            {"order": 3, "title": "C", "dependencies": [2]}
        ]),
    );
    env.run(&["greenlight", "chain"]).ok();
    let r = env.run(&["-vv", "run", "chain", "--workers", "1"]);
    r.ok();
    let state = env.state("chain");
    let commits: Vec<String> = (0..3)
        .map(|i| {
            let t = &state["tasks"][i];
            assert_eq!(t["stage"], "DONE", "{t}");
            t["commit"].as_str().unwrap().to_string()
        })
        .collect();
    let runs = std::fs::read_to_string(trace.join("runs.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    (git_commands(&r.stderr), runs, commits)
}

/// The git subcommands (the first word or two), sorted: what ran, not where.
fn kinds(commands: &[String]) -> Vec<String> {
    let mut v: Vec<String> = commands
        .iter()
        .map(|c| {
            let w: Vec<&str> = c.split_whitespace().take(2).collect();
            if w.first() == Some(&"worktree") {
                w.join(" ")
            } else {
                w[0].to_string()
            }
        })
        .collect();
    v.sort();
    v
}

#[test]
fn test_integrity_adds_one_test_run_per_new_test_and_no_process_on_the_critical_path() {
    let off = "verify: {protect_tests: false, fail_before: false, skip_markers: false}\n";
    let (off_git, off_runs, _) = integrity_run(off);
    assert_eq!(off_runs.len(), 3, "{off_runs:#?}");
    // the checks other than fail_before start no process (new test files are read from disk)
    let statics = "verify: {protect_tests: true, fail_before: false, skip_markers: true, require_tests: true}\n";
    let (st_git, st_runs, _) = integrity_run(statics);
    assert_eq!(kinds(&st_git), kinds(&off_git), "{st_git:#?}");
    assert_eq!(st_runs.len(), 3, "{st_runs:#?}");
    // fail_before: one run of the new test file per issue, in the scratch worktree ...
    let (on_git, on_runs, commits) = integrity_run("");
    assert_eq!(on_runs.len(), 6, "{on_runs:#?}");
    for n in 1..=3 {
        let before: Vec<&String> = on_runs
            .iter()
            .filter(|l| l.ends_with(&format!("|tests/test_{n}.sh")))
            .collect();
        assert_eq!(before.len(), 1, "{on_runs:#?}");
    }
    // ... added once per run; each issue's scratch tree goes back reset at the issue's own
    // commit (the next issue's start), in the background: no reset of it at the start
    // commit, none on the next issue's critical path
    let mut extra = kinds(&on_git);
    for k in kinds(&off_git) {
        let i = extra
            .iter()
            .position(|e| *e == k)
            .unwrap_or_else(|| panic!("{k}: {on_git:#?}"));
        extra.remove(i);
    }
    assert_eq!(
        extra,
        [
            "checkout",
            "checkout",
            "checkout",
            "clean",
            "clean",
            "clean",
            "worktree add",
            "worktree remove"
        ],
        "{on_git:#?}"
    );
    for c in on_git.iter().filter(|c| c.starts_with("checkout")) {
        let at = c.rsplit(' ').next().unwrap();
        assert!(
            commits.iter().any(|k| k == at),
            "a reset not at an issue's commit: {c}\n{on_git:#?}"
        );
    }
}
