//! End-to-end user journeys, black box: README's quick start done literally with a script
//! agent, every flag of the docs/cli.md "Commands" table, read commands that must not surprise, and
//! the README's own claims (config example, docs links, the workflow's inputs).

use crate::common::agents::{GOOD_AGENT, RUNNER};
use crate::common::{TestEnv, snapshot_files};
use serde_json::{Value, json};
use std::path::Path;

const FAILING_AGENT: &str = "#!/bin/sh\ncat > /dev/null\necho 'cannot do it'\nexit 1\n";

/// A repository with a config naming a script agent and the test runner (no GitHub).
fn repo_with_agent(agent_body: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write(".gitignore", ".swarm/\n");
    env.commit("chore: ignore .swarm");
    let trace = env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let agent = env.script(
        "agent.sh",
        &agent_body.replace("$TRACE", &trace.to_string_lossy()),
    );
    let runner = env.script("runner.sh", RUNNER);
    env.write(
        "config.yaml",
        &format!(
            "coordination: {{github_sync_enabled: false}}\nagents:\n  - name: coder\n    command: [\"{}\"]\n    angle: \"implementation and tests\"\n    covers: [\"rust\", \"api\"]\n    timeout_seconds: 30\ntests: {{command: \"sh {}\", timeout_seconds: 30}}\nsessions: {{max_implementation_retries: 1}}\n",
            agent.display(),
            runner.display()
        ),
    );
    env
}

fn three_issues() -> Value {
    json!({"feature_id": "auth", "generated_at": "2026-01-01T00:00:00Z",
    "issues": [
        {"order": 1, "title": "Login endpoint", "body": "Add login.", "labels": ["backend"],
         "estimated_size": "small", "dependencies": [], "github_issue": 42},
        {"order": 2, "title": "Logout", "body": "Add logout.", "dependencies": [1]},
        {"order": 3, "title": "Sessions", "body": "Keep sessions.", "dependencies": [2]}
    ]})
}

fn good_agent() -> String {
    format!("#!/bin/sh\n{GOOD_AGENT}")
}

#[test]
fn readme_quick_start_works_literally() {
    let env = repo_with_agent(&good_agent());
    // swarm-attack init auth — writes .swarm/.gitignore, specs/auth/issues.json, the state
    // (config.yaml exists here: it is kept as it is)
    let config = env.read("config.yaml");
    let init = env.run(&["init", "auth"]);
    init.ok();
    assert_eq!(env.read("config.yaml"), config);
    assert_eq!(env.read(".swarm/.gitignore"), "*\n");
    let created: Value = serde_json::from_str(&env.read("specs/auth/issues.json")).unwrap();
    assert_eq!(created["feature_id"], "auth");
    assert_eq!(created["issues"][0]["automation_type"], "manual");
    assert!(env.path(".swarm/state/auth.json").is_file());
    // $EDITOR specs/auth/issues.json
    env.write(
        "specs/auth/issues.json",
        &serde_json::to_string_pretty(&three_issues()).unwrap(),
    );
    // git add config.yaml specs && git commit
    env.git(&["add", "config.yaml", "specs"]);
    env.git(&["commit", "-q", "-m", "chore: swarm-attack setup"]);
    let gl = env.run(&["greenlight", "auth"]);
    gl.ok();
    assert!(gl.stdout.contains("#1") && gl.stdout.contains("READY"));
    assert!(gl.stdout.contains("waiting on #1"), "{}", gl.stdout);
    let run = env.run(&["run", "auth"]);
    run.ok();
    for n in 1..=3 {
        assert_eq!(env.stage("auth", n), "DONE");
    }
    let status = env.run(&["status", "auth"]);
    status.ok();
    assert_eq!(
        status.stdout.matches("DONE").count(),
        3,
        "{}",
        status.stdout
    );
    let audit = env.run(&["audit", "auth"]);
    audit.ok();
    assert!(audit.stdout.contains("3 done"), "{}", audit.stdout);
    // the tool never commits .swarm/ and leaves the tree clean
    let porcelain = env.git(&["status", "--porcelain"]);
    assert!(
        !porcelain.contains("src/")
            && !porcelain.contains("checks/")
            && !porcelain.contains(".swarm"),
        "{porcelain}"
    );
    let files = env.git(&["log", "--name-only", "--format="]);
    assert!(!files.contains(".swarm/"), "{files}");
}

#[test]
fn read_commands_leave_state_and_log_alone_except_what_is_documented() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    env.run(&["greenlight", "auth"]).ok();
    env.run(&["run", "auth", "--max-issues", "1"]).ok();
    // the first sync after a run scans the run's own commit (one git_sync, nothing synced)
    env.run(&["status", "auth"]).ok();
    let state_before = env.read_bytes(".swarm/state/auth.json");
    let log_before = env.events("auth").len();
    for args in [
        vec!["status", "auth"],
        vec!["status"],
        vec!["status", "auth", "--json"],
        vec!["status", "--json"],
        vec!["audit", "auth"],
        vec!["audit", "auth", "--json"],
        vec!["events", "auth"],
        vec!["events", "auth", "--json"],
    ] {
        env.run(&args).ok();
        assert_eq!(
            env.read_bytes(".swarm/state/auth.json"),
            state_before,
            "{args:?} rewrote the state"
        );
        let now = env.events("auth");
        assert_eq!(
            now.len(),
            log_before,
            "{args:?} appended events: {:?}",
            &now[log_before.min(now.len())..]
        );
    }
    // documented (docs/coordination.md, docs/prompt.md): plan logs agents_selected, prompt
    // logs context_injected — and nothing else, and neither touches the state.
    env.run(&["plan", "auth"]).ok();
    env.run(&["prompt", "auth", "--issue", "2"]).ok();
    assert_eq!(env.read_bytes(".swarm/state/auth.json"), state_before);
    let new: Vec<String> = env.events("auth")[log_before..]
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(new, ["agents_selected", "context_injected"]);
}

#[test]
fn dry_runs_write_nothing() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    let before = snapshot_files(&env.root);
    let gl = env.run(&["greenlight", "auth", "--dry-run"]);
    gl.ok();
    assert!(gl.stdout.contains("would add 3"), "{}", gl.stdout);
    assert_eq!(snapshot_files(&env.root), before);
    env.run(&["greenlight", "auth"]).ok();
    let before = snapshot_files(&env.root);
    let head = env.git(&["rev-parse", "HEAD"]);
    let dry = env.run(&["run", "auth", "--dry-run"]);
    dry.ok();
    assert!(dry.stdout.contains("nothing is written"), "{}", dry.stdout);
    assert!(dry.stdout.contains("after #1"), "{}", dry.stdout);
    let dry_json = env.run(&["run", "auth", "--dry-run", "--json"]);
    dry_json.ok();
    let steps = dry_json.json()["plan"]["steps"].as_array().unwrap().len();
    assert_eq!(steps, 3);
    assert_eq!(snapshot_files(&env.root), before);
    assert_eq!(env.git(&["rev-parse", "HEAD"]), head);
    assert!(!env.tmp.path().join("trace/calls.log").exists());
}

#[test]
fn run_flags_issue_max_issues_workers() {
    let env = repo_with_agent(&good_agent());
    env.issues(
        "auth",
        json!([
            {"order": 1, "title": "A", "body": "a"},
            {"order": 2, "title": "B", "body": "b"},
            {"order": 3, "title": "C", "body": "c", "dependencies": [1]}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    // --issue on a BACKLOG issue is a usage error naming what it waits on
    let r = env.run(&["run", "auth", "--issue", "3"]);
    r.code(2);
    assert!(r.stderr.contains("#1"), "{}", r.stderr);
    // --issue on an unknown issue is a usage error
    env.run(&["run", "auth", "--issue", "9"]).code(2);
    env.run(&["run", "auth", "--issue", "2"]).ok();
    assert_eq!(env.stage("auth", 2), "DONE");
    assert_eq!(env.stage("auth", 1), "READY");
    env.run(&["run", "auth", "--max-issues", "1"]).ok();
    assert_eq!(env.stage("auth", 1), "DONE");
    assert_eq!(env.stage("auth", 3), "READY");
    env.run(&["run", "auth", "--workers", "2"]).ok();
    assert_eq!(env.stage("auth", 3), "DONE");
    let again = env.run(&["run", "auth"]);
    again.ok();
    assert!(again.stdout.contains("nothing to do"), "{}", again.stdout);
}

#[test]
fn a_blocked_run_names_next_steps_that_work() {
    let env = repo_with_agent(FAILING_AGENT);
    env.issues(
        "f1",
        json!([{"order": 1, "title": "A", "body": "a"},
               {"order": 2, "title": "B", "body": "b", "dependencies": [1]}]),
    );
    env.run(&["greenlight", "f1"]).ok();
    let run = env.run(&["run", "f1"]);
    run.code(1);
    assert!(run.stdout.contains("BLOCKED"), "{}", run.stdout);
    assert!(
        run.stdout.contains("`swarm-attack unblock f1 --issue 1`"),
        "the run should name the way out:\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("`swarm-attack audit f1`"));
    // the named commands exist and do what they say
    env.run(&["audit", "f1"]).ok();
    let status = env.run(&["status", "f1", "--json"]).json();
    let t2 = &status["tasks"][1];
    assert_eq!(t2["stage"], "BACKLOG");
    assert_eq!(t2["waiting_on"], json!([1]));
    let unblock = env.run(&["unblock", "f1", "--issue", "1"]);
    unblock.ok();
    assert!(unblock.stdout.contains("READY"), "{}", unblock.stdout);
    assert_eq!(env.stage("f1", 1), "READY");
    // a second unblock only resets the retries of the READY issue (docs/cli.md "unblock")
    let again = env.run(&["unblock", "f1", "--issue", "1"]);
    again.ok();
    assert!(again.stdout.contains("READY → READY"), "{}", again.stdout);
}

#[test]
fn events_flags_filter_as_documented() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    env.run(&["greenlight", "auth"]).ok();
    env.run(&["run", "auth"]).ok();
    let all = env.events("auth");
    // --json is JSONL: one object per line, every line, oldest first
    let j = env.run(&["events", "auth", "--json"]);
    j.ok();
    let lines: Vec<Value> = j
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a JSON object"))
        .collect();
    assert_eq!(lines.len(), all.len());
    let seqs: Vec<u64> = lines.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    // --issue
    let i2 = env.run(&["events", "auth", "--issue", "2", "--json"]);
    assert!(
        i2.stdout
            .lines()
            .all(|l| serde_json::from_str::<Value>(l).unwrap()["issue"] == 2)
    );
    // --event, repeatable
    let ev = env.run(&[
        "events",
        "auth",
        "--event",
        "issue_done",
        "--event",
        "issue_started",
        "--json",
    ]);
    let names: Vec<String> = ev
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n == "issue_done" || n == "issue_started")
    );
    // -n: the last N
    let last = env.run(&["events", "auth", "-n", "2", "--json"]);
    let got: Vec<Value> = last
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got, all[all.len() - 2..].to_vec());
    // --since / --until
    let since = env.run(&["events", "auth", "--since", "1h", "--json"]);
    assert_eq!(since.stdout.lines().count(), all.len());
    let until = env.run(&[
        "events",
        "auth",
        "--until",
        "2000-01-01T00:00:00Z",
        "--json",
    ]);
    until.ok();
    assert_eq!(until.stdout.trim(), "");
    let bad = env.run(&["events", "auth", "--since", "yesterday-ish"]);
    bad.code(2);
    assert!(bad.stderr.contains("--since"), "{}", bad.stderr);
    // the table has a header and one row per event
    let table = env.run(&["events", "auth", "--issue", "1"]);
    table.ok();
    assert!(table.stdout.lines().next().unwrap().contains("EVENT"));
}

#[test]
fn events_help_says_json_is_jsonl() {
    let env = TestEnv::new();
    let help = env.run(&["events", "--help"]);
    help.ok();
    let line = help
        .stdout
        .lines()
        .find(|l| l.contains("--json"))
        .unwrap()
        .to_string();
    assert!(line.contains("JSONL"), "{line}");
    assert!(!line.contains("one JSON document"), "{line}");
}

#[test]
fn every_read_command_json_is_one_document_on_stdout() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    env.run(&["greenlight", "auth"]).ok();
    for args in [
        vec!["greenlight", "auth", "--dry-run", "--json"],
        vec!["status", "--json"],
        vec!["status", "auth", "--json"],
        vec!["plan", "auth", "--json"],
        vec!["plan", "auth", "--issue", "3", "--json"],
        vec!["prompt", "auth", "--issue", "1", "--json"],
        vec![
            "prompt", "auth", "--issue", "1", "--agent", "coder", "--json",
        ],
        vec!["audit", "auth", "--json"],
        vec!["run", "auth", "--dry-run", "--json"],
    ] {
        let r = env.run(&args);
        r.ok();
        let doc = r.json();
        assert!(doc.is_object(), "{args:?}: {}", r.stdout);
    }
    // prompt --agent with an unknown name is a usage error naming the agents
    let bad = env.run(&["prompt", "auth", "--issue", "1", "--agent", "nobody"]);
    bad.code(2);
    assert!(bad.stderr.contains("coder"), "{}", bad.stderr);
    // prompt without --json is the prompt itself, starting with the first section
    let p = env.run(&["prompt", "auth", "--issue", "1"]);
    assert!(p.stdout.starts_with("## Original Request"), "{}", p.stdout);
}

#[test]
fn global_options_project_config_quiet_no_color() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    env.run(&["greenlight", "auth"]).ok();
    // -p from another directory
    let root = env.root.to_string_lossy().to_string();
    let out = std::process::Command::new(crate::common::bin())
        .args(["-p", &root, "status", "auth", "--json"])
        .current_dir(env.tmp.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --config elsewhere; a missing config file is a usage error naming it
    std::fs::rename(env.path("config.yaml"), env.tmp.path().join("other.yaml")).unwrap();
    let other = env.tmp.path().join("other.yaml");
    env.run(&[
        "--config",
        &other.to_string_lossy(),
        "plan",
        "auth",
        "--json",
    ])
    .ok();
    let missing = env.run(&["--config", "nope.yaml", "status"]);
    missing.code(2);
    assert!(missing.stderr.contains("nope.yaml"), "{}", missing.stderr);
    // --no-color, -q, -v: accepted anywhere, no ANSI escapes in piped output
    for flag in ["--no-color", "-q", "-v"] {
        let r = env.run(&["--config", &other.to_string_lossy(), "status", "auth", flag]);
        r.ok();
        assert!(!r.stdout.contains('\u{1b}'), "{flag}: {}", r.stdout);
    }
}

#[test]
fn github_commands_without_github_are_usage_errors_naming_what_is_missing() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    env.run(&["greenlight", "auth"]).ok();
    for args in [
        vec!["github", "sync", "auth", "--dry-run"],
        vec!["github", "sync", "auth"],
        vec!["github", "publish", "auth"],
    ] {
        let r = env.run(&args);
        r.code(2);
        assert!(r.stderr.contains("GITHUB_TOKEN"), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    }
}

fn manifest(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn the_repository_config_yaml_and_readme_example_load_without_warnings() {
    let env = repo_with_agent(&good_agent());
    env.issues("auth", three_issues()["issues"].clone());
    let cfg = manifest("config.yaml");
    let r = env.run(&["--config", &cfg.to_string_lossy(), "status"]);
    r.ok();
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // README's configuration example
    let readme = std::fs::read_to_string(manifest("README.md")).unwrap();
    let start = readme.find("## Configuration").unwrap();
    let block = &readme[start..];
    let yaml_start = block.find("```yaml\n").unwrap() + "```yaml\n".len();
    let yaml = &block[yaml_start..yaml_start + block[yaml_start..].find("```").unwrap()];
    let p = env.tmp.path().join("readme.yaml");
    std::fs::write(&p, yaml).unwrap();
    let r = env.run(&["--config", &p.to_string_lossy(), "status"]);
    r.ok();
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

#[test]
fn readme_links_and_workflow_inputs_exist() {
    let readme = std::fs::read_to_string(manifest("README.md")).unwrap();
    let mut links = 0;
    for part in readme.split("](").skip(1) {
        let target = &part[..part.find(')').unwrap()];
        if target.starts_with("http") {
            continue;
        }
        links += 1;
        assert!(
            manifest(target).exists(),
            "README links to missing {target}"
        );
    }
    assert!(links >= 8);
    // the workflow's `with:` keys are inputs of action.yml
    let action = std::fs::read_to_string(manifest("action.yml")).unwrap();
    for key in ["github-token", "run-agents"] {
        assert!(readme.contains(&format!("{key}:")));
        assert!(
            action.contains(&format!("  {key}:")),
            "action.yml lacks {key}"
        );
    }
    // every command of the README table has a --help
    let env = TestEnv::new();
    for cmd in [
        "init",
        "greenlight",
        "status",
        "run",
        "unblock",
        "prompt",
        "plan",
        "events",
        "audit",
        "action",
        "demo",
    ] {
        env.run(&[cmd, "--help"]).ok();
        assert!(readme.contains(&format!("| `{cmd}")), "README lacks {cmd}");
    }
    env.run(&["github", "sync", "--help"]).ok();
    env.run(&["github", "publish", "--help"]).ok();
}

#[test]
fn run_for_an_unknown_issue_is_a_usage_error_before_anything_is_printed() {
    let env = crate::common::TestEnv::new();
    env.issues(
        "auth",
        serde_json::json!([{"order": 1, "title": "a"}, {"order": 2, "title": "b"}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    let r = env.run(&["run", "auth", "--issue", "9"]);
    r.code(2);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr.contains("no issue 9") && r.stderr.contains("1, 2"),
        "{}",
        r.stderr
    );
}
