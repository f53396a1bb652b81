//! `run` in a repository with a long history: nothing per issue reads the history (issue
//! 19: the 200k-commit repository must cost what a one-commit one with the same tree costs).

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

/// Appends `n` commits to `main` with `git fast-import` (same tree, so the checkout stays
/// clean): noise full of `#k` mentions, other features' implementing commits for the same
/// issue numbers, and reverts.
fn long_history(env: &TestEnv, n: u32) {
    let tip = env.git(&["rev-parse", "HEAD"]);
    let mut stream = String::new();
    for i in 1..=n {
        let k = i % 3 + 1;
        let msg = match i % 4 {
            0 => format!("feat(other): Implement issue #{k}\n\nSwarm-Issue: {k}\n"),
            1 => format!("fix: change {i}, see #{k}\n"),
            2 => format!("docs: implement issue #{k} of the old plan\n"),
            _ => format!(
                "Revert \"fix: change {}\"\n\nThis reverts commit {:040x}.\n",
                i - 2,
                i
            ),
        };
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter Dev <dev@example.com> {} +0000\ndata {}\n{msg}\n",
            1_600_000_000 + u64::from(i) * 60,
            msg.len()
        ));
        if i == 1 {
            stream.push_str(&format!("from {tip}\n"));
        }
    }
    let input = env.tmp.path().join("history.fi");
    std::fs::write(&input, stream).unwrap();
    let imported = env
        .bash()
        .args(["-c", "git fast-import --quiet < \"$1\"", "-"])
        .arg(&input)
        .status()
        .unwrap();
    assert!(imported.success(), "git fast-import failed: {imported}");
}

/// The git commands a `-vv` run logged, as their argument strings.
fn git_commands(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("running `git ")?.1;
            Some(rest.split_once("` in ").map_or(rest, |(args, _)| args))
        })
        .collect()
}

/// Why a logged git command would read history that grows with the repository, if it does.
fn walks_history(args: &str) -> Option<&'static str> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let sub = words
        .iter()
        .scan(false, |skip, w| {
            let take = !*skip && !w.starts_with('-');
            *skip = *w == "-c" || *w == "-C";
            Some((take, *w))
        })
        .find(|(take, _)| *take)
        .map(|(_, w)| w)?;
    let has = |flag: &str| {
        words
            .iter()
            .any(|w| *w == flag || w.starts_with(&format!("{flag}=")))
    };
    match sub {
        "rev-list" | "gc" | "maintenance" | "repack" | "commit-graph" | "fsck" => {
            Some("a whole-repository command")
        }
        "merge-base" if !has("--is-ancestor") => Some("a merge-base search"),
        "log" | "shortlog" | "whatchanged"
            if !has("--no-walk") && !words.iter().any(|w| w.contains("..")) =>
        {
            Some("a log over everything reachable")
        }
        _ if has("--all") => Some("--all"),
        _ => None,
    }
}

#[test]
fn the_history_check_recognises_whole_history_commands() {
    assert!(walks_history("log --format=%H -F -i --grep=x HEAD --").is_some());
    assert!(walks_history("-c core.quotepath=off rev-list --count HEAD").is_some());
    assert!(walks_history("merge-base HEAD main").is_some());
    assert!(walks_history("-c a=b log --no-walk=unsorted --format=%H x --").is_none());
    assert!(walks_history("log --format= --name-only a..HEAD -- f").is_none());
    assert!(walks_history("merge-base --is-ancestor a b").is_none());
    assert!(walks_history("commit -q -F -").is_none());
    assert!(walks_history("cherry-pick --allow-empty abc").is_none());
    assert!(walks_history("for-each-ref --all").is_some());
}

#[test]
fn a_run_in_a_long_history_reads_no_history_per_issue_and_takes_no_others_evidence() {
    let s = Setup::new(
        "hist",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"}, {"order": 3, "title": "C"}]),
        GOOD_AGENT,
        "",
    );
    long_history(&s.env, 400);
    let r = s.env.run(&["-vv", "run", "hist"]);
    r.ok();
    // other features' implementing commits and loose mentions are no evidence: every
    // issue was worked on by the agent and landed by the tool
    assert_eq!(s.calls(), vec!["1 1", "2 1", "3 1"]);
    for issue in 1..=3 {
        let t = s.task("hist", issue);
        assert_eq!(t["stage"], "DONE", "{t}");
        let msg = s
            .env
            .git(&["log", "-1", "--format=%B", t["commit"].as_str().unwrap()]);
        assert!(msg.contains(&format!("Implement issue #{issue}")), "{msg}");
    }
    let commands = git_commands(&r.stderr);
    assert!(commands.len() >= 3 * 4, "{}", r.stderr);
    let walking: Vec<(&str, &str)> = commands
        .iter()
        .filter_map(|c| walks_history(c).map(|why| (*c, why)))
        .collect();
    assert!(
        walking.is_empty(),
        "history-walking git commands: {walking:#?}"
    );
}
