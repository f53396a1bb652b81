//! Git sync (docs/git-sync.md "The four rules") against real temp repositories: evidence, reverts,
//! readiness, shallow clones, rewritten history, the incremental scan. Each rule at its edges:
//! `git_sync_rules.rs`.

use crate::common::{TestEnv, snapshot_files};
use serde_json::{Value, json};

/// Commits a file change (so `git revert` has something to revert); returns the sha.
fn commit_file(env: &TestEnv, rel: &str, content: &str, message: &str) -> String {
    env.write(rel, content);
    env.git(&["add", rel]);
    env.git(&["commit", "-q", "-m", message]);
    env.git(&["rev-parse", "HEAD"])
}

/// `status <feature> --json`, the task with `issue`.
fn task(env: &TestEnv, feature: &str, issue: u64) -> Value {
    let out = env.run(&["status", feature, "--json"]);
    out.ok();
    let doc = out.json();
    doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["issue"] == issue)
        .unwrap_or_else(|| panic!("no task {issue} in {doc}"))
        .clone()
}

fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

fn three_issues(env: &TestEnv) {
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"},{"order":22,"title":"c"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
}

#[test]
fn sync_marks_done_with_commit_and_evidence() {
    let env = TestEnv::new();
    three_issues(&env);
    let sha = env.commit("feat(auth): Implement issue #2 (#17)");
    let t = task(&env, "auth", 2);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["commit"], sha.as_str());
    assert_eq!(t["evidence"][0]["source"], "subject");
    assert_eq!(t["evidence"][0]["commit"], sha.as_str());
    // the prefix trap: #2 is not #22, and nothing else moved
    assert_eq!(env.stage("auth", 22), "READY");
    assert_eq!(env.stage("auth", 1), "READY");
    let events = env.events("auth");
    let sync = named(&events, "git_sync");
    let last = sync.last().unwrap();
    assert_eq!(last["synced_issues"], json!([2]));
    assert_eq!(last["commits_scanned"], 1);
    assert_eq!(last["head"], sha.as_str());
}

#[test]
fn trailers_in_the_last_paragraph_mark_done() {
    let env = TestEnv::new();
    three_issues(&env);
    env.commit("add login\n\nSome body.\n\nSwarm-Feature: auth\nSwarm-Issue: 22");
    env.commit("add more\n\nSwarm-Feature: auth\nSwarm-Issue: 1\n\nSigned-off-by: x <x@y>");
    let t = task(&env, "auth", 22);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["evidence"][0]["source"], "trailers");
    assert_eq!(env.stage("auth", 1), "READY");
}

#[test]
fn revert_returns_to_ready_and_revert_of_revert_restores_done() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    let implementing = commit_file(&env, "src/a.rs", "a\n", "feat(auth): Implement issue #1");
    assert_eq!(task(&env, "auth", 1)["stage"], "DONE");
    assert_eq!(env.stage("auth", 2), "READY");

    env.git(&["revert", "--no-edit", &implementing]);
    let revert = env.git(&["rev-parse", "HEAD"]);
    let t = task(&env, "auth", 1);
    assert_eq!(t["stage"], "READY");
    assert_eq!(t["commit"], Value::Null);
    assert_eq!(t["evidence"], json!([]));
    // the dependent goes back to waiting
    assert_eq!(env.stage("auth", 2), "BACKLOG");
    let events = env.events("auth");
    let reverted = named(&events, "state_reverted");
    assert_eq!(reverted.len(), 1);
    assert_eq!(reverted[0]["issue"], 1);
    assert_eq!(reverted[0]["commit"], revert.as_str());
    assert_eq!(
        named(&events, "git_sync").last().unwrap()["reverted_issues"],
        json!([1])
    );

    // a later sync does not undo the revert
    env.commit("chore: unrelated");
    assert_eq!(task(&env, "auth", 1)["stage"], "READY");

    env.git(&["revert", "--no-edit", &revert]);
    let t = task(&env, "auth", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["commit"], implementing.as_str());
    assert_eq!(env.stage("auth", 2), "READY");
    assert_eq!(named(&env.events("auth"), "state_reverted").len(), 1);
}

#[test]
fn revert_by_abbreviated_sha() {
    let env = TestEnv::new();
    three_issues(&env);
    let sha = env.commit("feat(auth): Implement issue #1");
    assert_eq!(task(&env, "auth", 1)["stage"], "DONE");
    env.commit(&format!("Revert it\n\nThis reverts commit {}.", &sha[..7]));
    assert_eq!(task(&env, "auth", 1)["stage"], "READY");
}

#[test]
fn other_features_prefix_traps_and_bare_references_do_not_count() {
    let env = TestEnv::new();
    three_issues(&env);
    for msg in [
        "feat(auth2): Implement issue #1",
        "feat(au): Implement issue #1",
        "feat(auth): Implement issue #11",
        "feat(auth): Implement issue #1x",
        "feat(auth): Implement issue #222",
        "Revert \"feat(auth): Implement issue #1\"",
        "chore: #1 and Ref #2",
        "fix: Fixes #1",
        "docs\n\nSwarm-Feature: auth2\nSwarm-Issue: 1",
        "docs\n\nSwarm-Issue: 2",
    ] {
        env.commit(msg);
    }
    for n in [1, 2, 22] {
        assert_eq!(task(&env, "auth", n)["stage"], "READY", "issue {n}");
    }
    let events = env.events("auth");
    let sync = named(&events, "git_sync");
    assert_eq!(sync.last().unwrap()["synced_issues"], json!([]));
    assert_eq!(sync.last().unwrap()["commits_scanned"], 10);
}

#[test]
fn feature_ids_with_dots_and_dashes_match_literally() {
    let env = TestEnv::new();
    env.issues(
        "v1.2-x",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"}]),
    );
    env.run(&["greenlight", "v1.2-x"]).ok();
    env.commit("feat(v1x2-x): Implement issue #1");
    env.commit("feat(v1.2-x): Implement issue #2");
    assert_eq!(task(&env, "v1.2-x", 1)["stage"], "READY");
    assert_eq!(task(&env, "v1.2-x", 2)["stage"], "DONE");
}

#[test]
fn closing_keywords_count_only_for_linked_issues() {
    let env = TestEnv::new();
    env.write("config.yaml", "github:\n  repo: acme/app\n");
    env.issues(
        "auth",
        json!([
            {"order":1,"title":"a","github_issue":42},
            {"order":2,"title":"b"},
            {"order":3,"title":"c","github_issue":43},
            {"order":4,"title":"d","github_issue":44},
            {"order":5,"title":"e","github_issue":45}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    env.commit("fix login\n\nFixes: #42");
    env.commit("fix b\n\nFixes #2");
    env.commit("fix c\n\nCloses acme/app#43");
    env.commit("fix d\n\nCloses other/app#44");
    env.commit("see #45, Ref #45");
    let stages: Vec<String> = (1..=5)
        .map(|n| task(&env, "auth", n)["stage"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(stages, ["DONE", "READY", "DONE", "READY", "READY"]);
    assert_eq!(
        task(&env, "auth", 1)["evidence"][0]["source"],
        "closing_keyword"
    );
}

#[test]
fn linking_an_issue_later_rescans_and_finds_an_old_closing_commit() {
    let env = TestEnv::new();
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    env.run(&["greenlight", "auth"]).ok();
    env.commit("fix login\n\nResolves #42");
    assert_eq!(task(&env, "auth", 1)["stage"], "READY");
    env.issues("auth", json!([{"order":1,"title":"a","github_issue":42}]));
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 1), "DONE");
}

#[test]
fn done_patterns_from_config_yaml() {
    let env = TestEnv::new();
    env.write(
        "config.yaml",
        "git:\n  done_patterns:\n    - '^Done: (?P<feature>[a-z0-9._-]+)/(?P<issue>\\d+)$'\n",
    );
    three_issues(&env);
    env.commit("wip\n\nDone: auth/22\nDone: billing/1");
    let t = task(&env, "auth", 22);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["evidence"][0]["source"], "pattern");
    assert_eq!(env.stage("auth", 1), "READY");
}

#[test]
fn invalid_done_pattern_is_exit_2_naming_it() {
    let env = TestEnv::new();
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    env.write(
        "config.yaml",
        "git:\n  done_patterns:\n    - '(?P<feature>\\w+)#(?P<issue>\\d+)'\n    - '(unclosed'\n",
    );
    let before = snapshot_files(&env.root);
    let r = env.run(&["greenlight", "auth"]);
    r.code(2);
    assert!(r.stderr.contains("git.done_patterns[1]"), "{}", r.stderr);
    assert_eq!(before, snapshot_files(&env.root));
}

#[test]
fn merge_commits_are_ordinary_commits() {
    let env = TestEnv::new();
    three_issues(&env);
    env.git(&["checkout", "-q", "-b", "topic"]);
    commit_file(&env, "b.txt", "b\n", "work on b");
    env.git(&["checkout", "-q", "main"]);
    commit_file(&env, "c.txt", "c\n", "work on main");
    env.git(&[
        "merge",
        "--no-ff",
        "-q",
        "topic",
        "-m",
        "Merge topic\n\nSwarm-Feature: auth\nSwarm-Issue: 2",
    ]);
    assert_eq!(task(&env, "auth", 2)["stage"], "DONE");
    // all parents are walked: evidence on the merged side branch counts too
    env.git(&["checkout", "-q", "-b", "topic2", "HEAD~1"]);
    env.commit("feat(auth): Implement issue #1");
    env.git(&["checkout", "-q", "main"]);
    env.git(&["merge", "--no-ff", "-q", "topic2", "-m", "Merge topic2"]);
    assert_eq!(task(&env, "auth", 1)["stage"], "DONE");
}

#[test]
fn blocked_dependency_keeps_dependents_in_backlog_until_done_by_commit() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]},{"order":3,"title":"c","dependencies":[2]}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    let mut s = env.state("auth");
    s["tasks"][0]["stage"] = json!("BLOCKED");
    s["tasks"][0]["blocked_reason"] = json!("tests fail");
    env.write(
        ".swarm/state/auth.json",
        &serde_json::to_string_pretty(&s).unwrap(),
    );
    env.commit("chore: something");
    assert_eq!(task(&env, "auth", 2)["stage"], "BACKLOG");
    assert_eq!(env.stage("auth", 1), "BLOCKED");
    env.commit("feat(auth): Implement issue #1");
    assert_eq!(task(&env, "auth", 1)["stage"], "DONE");
    assert_eq!(env.stage("auth", 2), "READY");
    assert_eq!(env.stage("auth", 3), "BACKLOG");
}

#[test]
fn shallow_clone_is_reported_and_exit_stays_0() {
    let origin = TestEnv::new();
    origin.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"}]),
    );
    origin.git(&["add", "specs"]);
    origin.git(&["commit", "-q", "-m", "feat(auth): Implement issue #1"]);
    origin.commit("chore: later");
    let clone = origin.tmp.path().join("shallow");
    let url = format!("file://{}", origin.root.display());
    origin.git(&["clone", "-q", "--depth", "1", &url, clone.to_str().unwrap()]);
    let p = clone.to_str().unwrap();
    let r = origin.run(&["-p", p, "greenlight", "auth"]);
    r.ok();
    assert!(r.stderr.contains("shallow clone"), "{}", r.stderr);
    assert!(r.stderr.contains("git fetch --unshallow"), "{}", r.stderr);
    assert!(r.stderr.contains("fetch-depth: 0"), "{}", r.stderr);
    let r = origin.run(&["-p", p, "status", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["sync"]["shallow"], true);
    // the implementing commit is not in the clone: not DONE
    assert!(
        r.json()["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["stage"] == "READY"),
        "{}",
        r.stdout
    );
    // deepening the clone rescans and finds it
    origin.git_in(&clone, &["fetch", "-q", "--unshallow"]);
    let r = origin.run(&["-p", p, "status", "auth", "--json"]);
    r.ok();
    assert!(!r.stderr.contains("shallow clone"), "{}", r.stderr);
    assert_eq!(r.json()["tasks"][0]["stage"], "DONE", "{}", r.stdout);
}

#[test]
fn rewritten_history_triggers_a_full_rescan() {
    let env = TestEnv::new();
    three_issues(&env);
    let base = env.git(&["rev-parse", "HEAD"]);
    env.commit("feat(auth): Implement issue #1");
    env.commit("chore: a");
    env.commit("chore: b");
    assert_eq!(task(&env, "auth", 1)["stage"], "DONE");
    env.git(&["reset", "-q", "--hard", &base]);
    env.commit("chore: c");
    env.commit("feat(auth): Implement issue #2");
    let t = task(&env, "auth", 2);
    assert_eq!(t["stage"], "DONE");
    // a task never leaves DONE because its commit disappeared
    assert_eq!(env.stage("auth", 1), "DONE");
    let total: u64 = env.git(&["rev-list", "--count", "HEAD"]).parse().unwrap();
    let events = env.events("auth");
    let last = named(&events, "git_sync").last().cloned().unwrap();
    assert_eq!(last["commits_scanned"], total);
    assert_eq!(last["synced_issues"], json!([2]));
}

#[test]
fn incremental_scan_writes_nothing_when_nothing_is_new_and_scans_only_new_commits() {
    let env = TestEnv::new();
    three_issues(&env);
    for i in 0..5 {
        env.commit(&format!("chore: {i}"));
    }
    env.commit("feat(auth): Implement issue #1");
    env.run(&["status", "auth"]).ok();
    let state_path = env.path(".swarm/state/auth.json");
    let bytes = env.read_bytes(".swarm/state/auth.json");
    let mtime = std::fs::metadata(&state_path).unwrap().modified().unwrap();
    let events = env.events("auth").len();
    let before = snapshot_files(&env.root);

    let r = env.run(&["status", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["sync"]["commits_scanned"], 0);
    assert_eq!(bytes, env.read_bytes(".swarm/state/auth.json"));
    assert_eq!(
        mtime,
        std::fs::metadata(&state_path).unwrap().modified().unwrap()
    );
    assert_eq!(events, env.events("auth").len());
    assert_eq!(before, snapshot_files(&env.root));

    env.commit("chore: one more");
    env.run(&["status", "auth"]).ok();
    let all = env.events("auth");
    assert_eq!(all.len(), events + 1);
    assert_eq!(all.last().unwrap()["event"], "git_sync");
    assert_eq!(all.last().unwrap()["commits_scanned"], 1);
    assert_eq!(all.last().unwrap()["synced_issues"], json!([]));
    assert_eq!(bytes, env.read_bytes(".swarm/state/auth.json"));
}

#[test]
fn greenlight_dry_run_writes_no_history_cache() {
    let env = TestEnv::new();
    three_issues(&env);
    env.commit("feat(auth): Implement issue #1");
    let before = snapshot_files(&env.root);
    env.run(&["greenlight", "auth", "--dry-run"]).ok();
    assert_eq!(before, snapshot_files(&env.root));
}

#[test]
fn configured_refs_are_scanned_and_a_missing_ref_is_a_warning() {
    let env = TestEnv::new();
    three_issues(&env);
    env.git(&["checkout", "-q", "-b", "other"]);
    env.commit("feat(auth): Implement issue #22");
    env.git(&["checkout", "-q", "main"]);
    assert_eq!(task(&env, "auth", 22)["stage"], "READY");
    env.write("config.yaml", "git:\n  sync_refs: [HEAD, other, nope]\n");
    let r = env.run(&["status", "auth"]);
    r.ok();
    assert!(
        r.stderr.contains("git.sync_refs[2]") && r.stderr.contains("nope"),
        "{}",
        r.stderr
    );
    assert_eq!(env.stage("auth", 22), "DONE");
}

#[test]
fn unborn_head_is_not_an_error() {
    let env = TestEnv::empty();
    env.git(&["init", "-q", "-b", "main"]);
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    env.run(&["greenlight", "auth"]).ok();
    let r = env.run(&["status", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["sync"]["head"], Value::Null);
    assert_eq!(env.stage("auth", 1), "READY");
}

#[test]
fn not_a_git_repository_is_exit_2_naming_the_directory() {
    let env = TestEnv::empty();
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    let r = env.run(&["greenlight", "auth"]);
    r.code(2);
    assert!(r.stderr.contains("not a git repository"), "{}", r.stderr);
    assert!(
        r.stderr.contains(env.root.to_str().unwrap()),
        "{}",
        r.stderr
    );
}

/// Commits `message` (empty) on the current branch with both dates at `epoch` seconds, or
/// a merge of `merge` when given; returns the sha.
fn dated_commit(env: &TestEnv, epoch: i64, message: &str, merge: Option<&str>) -> String {
    let date = format!("@{epoch} +0000");
    let mut args = vec!["-c", "user.name=T", "-c", "user.email=t@example.com"];
    match merge {
        Some(branch) => args.extend(["merge", "-q", "--no-ff", "-m", message, branch]),
        None => args.extend(["commit", "-q", "--allow-empty", "-m", message]),
    }
    let out = std::process::Command::new("git")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .current_dir(&env.root)
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env.git(&["rev-parse", "HEAD"])
}

/// The tasks' sync results in the state file: (issue, stage, commit, evidence).
fn synced(env: &TestEnv, feature: &str) -> Vec<Value> {
    env.state(feature)["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!([t["issue_number"], t["stage"], t["commit"], t["evidence"]]))
        .collect()
}

#[test]
fn skewed_dates_incremental_scan_reads_only_new_commits_and_equals_a_full_scan() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b"},{"order":3,"title":"c"},
               {"order":4,"title":"d"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    let day = 86_400;
    let t0 = 1_700_000_000;
    let mut fork = String::new();
    let mut first = String::new();
    for i in 0..40 {
        let msg = match i {
            3 => "feat(auth): Implement issue #1".to_string(),
            _ => format!("chore: noise {i} mentions #2 and #3"),
        };
        let sha = dated_commit(&env, t0 + i * day, &msg, None);
        if i == 3 {
            first = sha.clone();
        }
        if i == 5 {
            fork = sha;
        }
    }
    // a side branch from deep in the history, not merged yet: scanned once merged
    env.git(&["checkout", "-q", "-b", "side", &fork]);
    dated_commit(&env, t0 - 900 * day, "feat(auth): Implement issue #2", None);
    dated_commit(&env, t0 - 800 * day, "chore: side work", None);
    env.git(&["checkout", "-q", "main"]);
    let r = env.run(&["status", "auth", "--json"]);
    r.ok();
    // the 40 new ones (greenlight scanned the initial commit)
    assert_eq!(r.json()["sync"]["commits_scanned"], 40);
    assert_eq!(env.stage("auth", 1), "DONE");
    assert_eq!(env.stage("auth", 2), "READY");

    // new commits dated before most of the history (clock skew, imported history)
    dated_commit(
        &env,
        t0 - 1000 * day,
        "feat(auth): Implement issue #3",
        None,
    );
    dated_commit(&env, t0 - 999 * day, "merge side", Some("side"));
    dated_commit(
        &env,
        t0 - 998 * day,
        &format!("Revert \"feat(auth): Implement issue #1\"\n\nThis reverts commit {first}."),
        None,
    );
    let r = env.run(&["status", "auth", "--json"]);
    r.ok();
    // exactly the five new commits (three on main, two on the merged branch)
    assert_eq!(r.json()["sync"]["commits_scanned"], 5, "{}", r.stdout);
    let incremental = synced(&env, "auth");
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 2), "DONE");
    assert_eq!(env.stage("auth", 3), "DONE");
    let cache = |env: &TestEnv| -> Value {
        serde_json::from_str(&env.read(".swarm/cache/history/auth.ledger")).unwrap()
    };
    let keys = |c: &Value, k: &str| -> Vec<String> {
        c["ledger"][k]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let inc_cache = cache(&env);

    // the same history scanned from scratch says the same
    std::fs::remove_dir_all(env.path(".swarm/cache/history")).unwrap();
    let r = env.run(&["status", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["sync"]["commits_scanned"], 46);
    assert_eq!(synced(&env, "auth"), incremental);
    let full_cache = cache(&env);
    assert_eq!(keys(&inc_cache, "evidence"), keys(&full_cache, "evidence"));
    assert_eq!(keys(&inc_cache, "reverts"), keys(&full_cache, "reverts"));

    // and the next incremental scan after a full one reads only the new commit again
    dated_commit(
        &env,
        t0 - 2000 * day,
        "feat(auth): Implement issue #4",
        None,
    );
    let r = env.run(&["status", "auth", "--json"]);
    assert_eq!(r.json()["sync"]["commits_scanned"], 1);
    assert_eq!(env.stage("auth", 4), "DONE");
    // and once more on top of an appended one
    dated_commit(&env, t0 - 3000 * day, "chore: older still", None);
    let r = env.run(&["status", "auth", "--json"]);
    assert_eq!(r.json()["sync"]["commits_scanned"], 1);
}
