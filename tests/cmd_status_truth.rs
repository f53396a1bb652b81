//! `status`, `plan`, `events`, `audit` and `run` tell the truth: interrupted runs, unknown
//! features, broken state files, manual issues, previews, the `files` rule.

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, RUNNER};
use serde_json::{Value, json};

/// A repository with a script agent and the runner configured; `before` runs before the
/// issues are written and greenlit.
fn repo(issues: Value, before: impl FnOnce(&TestEnv)) -> (TestEnv, std::path::PathBuf) {
    let env = TestEnv::new();
    let trace = env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let agent = env.script(
        "agent.sh",
        &format!(
            "#!/bin/sh\n{}",
            GOOD_AGENT.replace("$TRACE", &trace.to_string_lossy())
        ),
    );
    let runner = env.script("runner.sh", RUNNER);
    env.write(
        "config.yaml",
        &format!(
            "coordination: {{github_sync_enabled: false}}\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests: {{command: \"sh {}\", timeout_seconds: 30}}\n",
            agent.display(),
            runner.display()
        ),
    );
    before(&env);
    env.issues("ft", issues);
    env.run(&["greenlight", "ft"]).ok();
    (env, trace)
}

fn calls(trace: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(trace.join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn edit_state(env: &TestEnv, f: impl FnOnce(&mut Value)) {
    let mut s = env.state("ft");
    f(&mut s);
    env.write(
        ".swarm/state/ft.json",
        &serde_json::to_string_pretty(&s).unwrap(),
    );
}

#[test]
fn an_in_progress_task_whose_run_is_gone_shows_interrupted_will_resume() {
    let (env, _) = repo(
        json!([{"order": 1, "title": "One"}, {"order": 2, "title": "Two"}]),
        |_| {},
    );
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    edit_state(&env, |s| {
        s["tasks"][0]["stage"] = json!("IN_PROGRESS");
        // a pid that cannot be running, and no liveness lock for its session
        s["tasks"][0]["owner"] = json!(format!(
            "4194999@{host} since 2026-01-01T00:00:00Z session s-dead"
        ));
    });
    let r = env.run(&["status", "ft"]);
    r.ok();
    let line = r.stdout.lines().find(|l| l.contains("#1")).unwrap();
    assert!(line.contains("IN_PROGRESS"), "{line}");
    assert!(line.contains("interrupted: will resume"), "{line}");
    let two = r.stdout.lines().find(|l| l.contains("#2")).unwrap();
    assert!(!two.contains("interrupted"), "{two}");
}

#[test]
fn events_and_audit_of_an_unknown_feature_exit_2_with_a_suggestion() {
    let (env, _) = repo(json!([{"order": 1, "title": "One"}]), |_| {});
    for cmd in ["events", "audit"] {
        let r = env.run(&[cmd, "fx"]);
        r.code(2);
        assert!(r.stderr.contains("feature `fx` is unknown"), "{}", r.stderr);
        assert!(r.stderr.contains("did you mean `ft`?"), "{}", r.stderr);
        assert_eq!(r.stdout, "");
    }
    env.run(&["events", "ft"]).ok();
    env.run(&["audit", "ft"]).ok();
}

#[test]
fn status_of_all_features_lists_the_healthy_ones_and_flags_the_broken_file() {
    let (env, _) = repo(json!([{"order": 1, "title": "One"}]), |_| {});
    env.issues("gg", json!([{"order": 1, "title": "G"}]));
    env.run(&["greenlight", "gg"]).ok();
    env.write(
        ".swarm/state/broken.json",
        "{\"feature_id\": \"broken\",\n oops}",
    );
    let r = env.run(&["status"]);
    r.code(2);
    assert!(
        r.stdout.lines().any(|l| l.starts_with("ft ")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.lines().any(|l| l.starts_with("gg ")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("broken") && r.stdout.contains("UNREADABLE"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains(".swarm/state/broken.json"),
        "{}",
        r.stderr
    );
    let j = env.run(&["status", "--json"]);
    j.code(2);
    let doc = j.json();
    assert_eq!(doc["features"].as_array().unwrap().len(), 2);
    assert_eq!(doc["errors"][0]["feature"], "broken");
}

#[test]
fn max_issues_0_is_rejected() {
    let (env, trace) = repo(json!([{"order": 1, "title": "One"}]), |_| {});
    let r = env.run(&["run", "ft", "--max-issues", "0"]);
    r.code(2);
    assert!(r.stderr.contains("--max-issues"), "{}", r.stderr);
    assert!(calls(&trace).is_empty());
}

#[test]
fn plan_and_prompt_are_previews_left_out_of_the_audit_timeline() {
    let (env, _) = repo(json!([{"order": 1, "title": "One"}]), |_| {});
    env.run(&["plan", "ft"]).ok();
    env.run(&["prompt", "ft", "--issue", "1"]).ok();
    let events = env.events("ft");
    for name in ["agents_selected", "context_injected"] {
        let e: Vec<&Value> = events.iter().filter(|e| e["event"] == name).collect();
        assert!(!e.is_empty(), "{name}");
        assert!(e.iter().all(|e| e["preview"] == true), "{name}: {e:?}");
    }
    let audit = env.run(&["audit", "ft", "--json"]);
    audit.ok();
    let issue = &audit.json()["issues"][0];
    assert_eq!(issue["timeline"], json!([]), "{issue}");
    assert_eq!(issue["attempts"], json!([]), "{issue}");
}

#[test]
fn manual_issues_are_never_dispatched_and_become_done_only_through_git() {
    let (env, trace) = repo(
        json!([{"order": 1, "title": "By hand", "automation_type": "manual"},
               {"order": 2, "title": "By agent"}]),
        |_| {},
    );
    let r = env.run(&["run", "ft"]);
    r.ok();
    assert_eq!(calls(&trace), vec!["2 1"]);
    assert_eq!(env.stage("ft", 1), "READY");
    let st = env.run(&["status", "ft"]);
    let line = st.stdout.lines().find(|l| l.contains("#1")).unwrap();
    assert!(line.contains("manual: waiting for a person"), "{line}");
    let plan = env.run(&["plan", "ft"]);
    plan.ok();
    assert!(
        plan.stdout.contains("waiting for a person"),
        "{}",
        plan.stdout
    );
    let one = env.run(&["run", "ft", "--issue", "1"]);
    one.code(2);
    assert!(one.stderr.contains("manual"), "{}", one.stderr);
    // a second run has nothing for an agent and says why
    let again = env.run(&["run", "ft"]);
    again.ok();
    assert!(
        again.stdout.contains("waiting for a person")
            || again.stderr.contains("waiting for a person"),
        "{}{}",
        again.stdout,
        again.stderr
    );
    assert_eq!(calls(&trace), vec!["2 1"]);
    env.commit("feat(ft): Implement issue #1");
    env.run(&["status", "ft"]).ok();
    assert_eq!(env.stage("ft", 1), "DONE");
}

#[test]
fn listing_files_that_already_exist_still_calls_the_agent() {
    let (env, trace) = repo(
        json!([{"order": 1, "title": "Modify a", "files": ["lib/a.txt"]}]),
        |env| {
            env.write("lib/a.txt", "a");
            env.git(&["add", "lib"]);
            env.commit("chore: a exists");
        },
    );
    assert!(env.state("ft")["first_greenlight_commit"].is_string());
    env.run(&["run", "ft"]).ok();
    assert_eq!(calls(&trace), vec!["1 1"]);
    assert_eq!(env.stage("ft", 1), "DONE");
    let dups: Vec<Value> = env
        .events("ft")
        .into_iter()
        .filter(|e| e["event"] == "duplicate_detected")
        .collect();
    assert!(dups.is_empty(), "{dups:?}");
}

#[test]
fn a_missing_title_or_an_unknown_size_warns() {
    let env = TestEnv::new();
    env.issues(
        "ft",
        json!([{"order": 1, "estimated_size": "huge"}, {"order": 2, "title": "ok", "estimated_size": "small"}]),
    );
    let r = env.run(&["greenlight", "ft"]);
    r.ok();
    assert!(r.stderr.contains("issue 1 has no `title`"), "{}", r.stderr);
    assert!(
        r.stderr.contains("`estimated_size` is `huge`"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("issue 2"), "{}", r.stderr);
}

#[test]
fn readme_rst_counts_as_project_instructions() {
    let (env, _) = repo(json!([{"order": 1, "title": "One"}]), |env| {
        env.write("README.rst", "Use tabs.\n");
    });
    let p = env.run(&["prompt", "ft", "--issue", "1"]);
    p.ok();
    assert!(p.stdout.contains("From `README.rst`:"), "{}", p.stdout);
    assert!(p.stdout.contains("Use tabs."));
}
