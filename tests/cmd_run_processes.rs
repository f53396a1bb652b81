//! `run` starts only the git processes its work needs (issue 19: the per-issue and fixed
//! cost of a run is mostly process starts). What the tool reads of its own commits (the
//! summary's commit facts, commit times, the commit a landing replays) is read in-process;
//! the results are checked against git here and in `io::git::objects`'s unit tests.

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

/// The git commands a `-vv` run logged, as their argument strings without git's `-c`
/// options.
fn git_commands(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("running `git ")?.1;
            let args = rest.split_once("` in ").map_or(rest, |(args, _)| args);
            let mut words = args.split_whitespace().peekable();
            let mut kept = Vec::new();
            while let Some(w) = words.next() {
                if w == "-c" {
                    words.next();
                } else {
                    kept.push(w);
                }
            }
            Some(kept.join(" "))
        })
        .collect()
}

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
    assert!(
        commands.iter().any(|c| c.starts_with("commit")),
        "{}",
        r.stderr
    );
    let started = |sub: &str| commands.iter().filter(|c| c.starts_with(sub)).count();
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
