//! `status` and `run` in a treeless partial clone (`git clone --filter=tree:0`, what
//! `actions/checkout` offers as `filter: tree:0`): the commits are there, the trees of old
//! commits are not, and git would fetch each one from the promisor remote on its own. The
//! sync reads commit messages only; the DONE issues' changed files (for the summaries) are
//! fetched in one request, never one lazy fetch per commit; the worker's commit is still
//! written in-process.

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::fake_github::FakeGithub;
use crate::common::output::git_commands;
use serde_json::json;
use std::path::Path;

/// How many packs the clone holds (each fetch from the promisor remote adds one).
fn packs(root: &Path) -> usize {
    std::fs::read_dir(root.join(".git/objects/pack"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "pack")
        })
        .count()
}

#[test]
fn a_run_in_a_treeless_clone_fetches_old_trees_in_one_request_and_commits_in_process() {
    const DONE: u32 = 8;
    let issues: Vec<_> = (1..=DONE + 2)
        .map(|i| json!({"order": i, "title": format!("T{i}")}))
        .collect();
    let s = Setup::new("pc", json!(issues), GOOD_AGENT, "");
    // the origin's history: config and issues committed, then DONE implementing commits,
    // each changing files in folders of their own (trees a treeless clone lacks)
    s.env.git(&["add", "config.yaml", "specs"]);
    s.env.commit("chore: the feature");
    for i in 1..=DONE {
        s.env
            .write(&format!("lib/m{i}/impl.txt"), &format!("issue {i}\n"));
        s.env.write(&format!("lib/shared/n{i}.txt"), "noise\n");
        s.env.git(&["add", "lib"]);
        s.env.commit(&format!("feat(pc): Implement issue #{i}"));
    }
    let origin = s.env.tmp.path().join("origin.git");
    let origin_s = origin.to_string_lossy().to_string();
    s.env.git(&["clone", "-q", "--bare", ".", &origin_s]);
    s.env
        .git(&["-C", &origin_s, "config", "uploadpack.allowFilter", "true"]);

    let clone = TestEnv::empty();
    let url = format!("file://{origin_s}");
    let root = clone.root.to_string_lossy().to_string();
    clone.git_in(
        clone.tmp.path(),
        &["clone", "-q", "--filter=tree:0", &url, &root],
    );
    assert_eq!(clone.git(&["config", "remote.origin.promisor"]), "true");

    clone.run(&["greenlight", "pc"]).ok();
    let before = packs(&clone.root);
    let status = clone.run(&["status", "pc", "--json"]);
    status.ok();
    for i in 1..=DONE {
        assert_eq!(clone.stage("pc", u64::from(i)), "DONE", "#{i}");
    }
    assert_eq!(
        packs(&clone.root),
        before,
        "status fetched from the promisor remote"
    );

    let r = clone.run(&["-vv", "run", "pc"]);
    r.ok();
    for i in DONE + 1..=DONE + 2 {
        assert_eq!(
            clone.stage("pc", u64::from(i)),
            "DONE",
            "#{i}: {}",
            r.stderr
        );
    }
    // the DONE issues' changed files: one fetch for all of them, not one per commit
    let fetched = packs(&clone.root) - before;
    assert!(
        fetched <= 1,
        "{fetched} fetches from the promisor remote (one per old commit?)\n{}",
        r.stderr
    );
    let commands = git_commands(&r.stderr);
    let fetches: Vec<&String> = commands
        .iter()
        .filter(|c| c.starts_with("fetch "))
        .collect();
    assert!(fetches.len() <= 1, "{fetches:#?}");
    // the worker's commit is written in-process in a partial clone too
    assert!(
        !commands.iter().any(|c| c.starts_with("commit ")),
        "{commands:#?}"
    );
    // the summaries of the DONE issues still name their files
    let state = clone.state("pc");
    let first = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["issue_number"] == 1)
        .unwrap();
    assert!(first.to_string().contains("lib/m1/impl.txt"), "{first}");
}

#[test]
fn a_pull_request_landing_from_a_treeless_clone_pushes_the_issue_branch() {
    const REPO: &str = "octo/app";
    const TOKEN: &str = "ghs_partialclonetoken000000000000000000";
    let fake = FakeGithub::start(REPO, TOKEN);
    // the origin: config and a DONE issue whose trees the clone will lack
    let src = TestEnv::new();
    let agent = src.script(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\nmkdir -p src\necho \"issue $SWARM_ISSUE\" > \"src/issue_$SWARM_ISSUE.txt\"\n",
    );
    src.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: true\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"true\"\ngit:\n  landing: pr\ngithub:\n  repo: {REPO}\n  min_write_interval_ms: 0\n",
            agent.display()
        ),
    );
    let g1 = fake.add_issue("Model", &["swarm"]);
    let g2 = fake.add_issue("API", &["swarm"]);
    src.issues(
        "auth",
        json!([
            {"order": 1, "title": "Model", "github_issue": g1},
            {"order": 2, "title": "API", "github_issue": g2}
        ]),
    );
    src.write("lib/model/model.txt", "model\n");
    src.git(&["add", "config.yaml", "specs", "lib"]);
    src.commit("feat(auth): Implement issue #1");
    let origin = src.tmp.path().join("origin.git");
    let origin_s = origin.to_string_lossy().to_string();
    src.git(&["clone", "-q", "--bare", ".", &origin_s]);
    src.git(&["-C", &origin_s, "config", "uploadpack.allowFilter", "true"]);

    let mut clone = TestEnv::empty();
    clone.extra_env.extend([
        ("GITHUB_API_URL".to_string(), fake.url.clone()),
        ("GITHUB_TOKEN".to_string(), TOKEN.to_string()),
        (
            "SWARM_ATTACK_GITHUB_BACKOFF_MS".to_string(),
            "1".to_string(),
        ),
    ]);
    let root = clone.root.to_string_lossy().to_string();
    clone.git_in(
        clone.tmp.path(),
        &[
            "clone",
            "-q",
            "--filter=tree:0",
            &format!("file://{origin_s}"),
            &root,
        ],
    );
    clone.run(&["greenlight", "auth"]).ok();
    assert_eq!(clone.stage("auth", 1), "DONE");
    let r = clone.run(&["run", "auth"]);
    r.ok();
    assert_eq!(clone.stage("auth", 2), "IN_REVIEW", "{}", r.stderr);
    let pulls = fake.pulls();
    assert_eq!(pulls.len(), 1, "{}", r.stderr);
    // the issue's branch reached the origin with the agent's file
    let file = clone.git_in(
        &origin,
        &["show", "refs/heads/swarm/auth/issue-2:src/issue_2.txt"],
    );
    assert_eq!(file, "issue 2");
}
