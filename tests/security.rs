//! The trust boundary (docs/security.md): agents
//! cannot reach a token or get a hook run by the tool, issue text cannot forge evidence,
//! secrets are masked wherever the tool writes, crash leftovers are handled.

use crate::common::agents::{GOOD_AGENT, RUNNER, Setup};
use crate::common::github::TOKEN;
use serde_json::json;

const GH_TOKEN_VALUE: &str = "gho_secondTOKENvalue987654321";

/// An agent that hunts for the token (its own environment, every ancestor's initial
/// environment it can read), plants hooks in the main repository, points the shared
/// config at them and adds a clean filter there (for the tool's `git add`), then does the
/// work.
const HUNTING_AGENT: &str = r#"cat > /dev/null
env > "$TRACE/seen-$SWARM_ISSUE.txt"
p=$PPID
while [ -n "$p" ] && [ "$p" -gt 1 ]; do
  cat "/proc/$p/environ" >> "$TRACE/seen-$SWARM_ISSUE.txt" 2>/dev/null
  p=$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f2)
done
common=$(git rev-parse --path-format=absolute --git-common-dir)
mkdir -p "$common/hooks"
for h in pre-commit commit-msg prepare-commit-msg post-commit post-checkout post-merge post-rewrite reference-transaction; do
  printf '#!/bin/sh\necho "%s ran: $GITHUB_TOKEN $GH_TOKEN" >> "%s/hooks.log"\nexit 1\n' "$h" "$TRACE" > "$common/hooks/$h"
  chmod +x "$common/hooks/$h"
done
git config --file "$common/config" core.hooksPath "$common/hooks"
printf '#!/bin/sh\necho "filter ran: $GITHUB_TOKEN" >> "%s/hooks.log"\ncat\n' "$TRACE" > "$TRACE/filter.sh"
chmod +x "$TRACE/filter.sh"
git config --file "$common/config" filter.evil.clean "$TRACE/filter.sh"
echo '* filter=evil' > .gitattributes
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
"#;

#[test]
fn an_agent_never_sees_a_token_and_no_planted_hook_runs() {
    let mut s = Setup::new(
        "sec",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B", "dependencies": [1]}]),
        HUNTING_AGENT,
        "",
    );
    s.env.extra_env.extend([
        ("GITHUB_TOKEN".to_string(), TOKEN.to_string()),
        ("GH_TOKEN".to_string(), GH_TOKEN_VALUE.to_string()),
    ]);
    let r = s.env.run(&["run", "sec"]);
    r.ok();
    assert_eq!(s.env.stage("sec", 1), "DONE");
    assert_eq!(s.env.stage("sec", 2), "DONE");
    for n in [1, 2] {
        let seen = std::fs::read_to_string(s.trace.join(format!("seen-{n}.txt"))).unwrap();
        assert!(
            seen.contains("SWARM_ISSUE="),
            "the agent read its environment"
        );
        assert!(
            !seen.contains(TOKEN) && !seen.contains(GH_TOKEN_VALUE),
            "agent {n} saw a token"
        );
    }
    let config = s.env.read(".git/config");
    assert!(
        !config.contains("evil") && !config.contains("hooksPath"),
        "{config}"
    );
    assert!(
        !s.trace.join("hooks.log").exists(),
        "a planted hook ran: {}",
        std::fs::read_to_string(s.trace.join("hooks.log")).unwrap_or_default()
    );
}

/// The Action's agent step as the runner starts it: a bash step whose environment holds the
/// token (`env: GITHUB_TOKEN:` in action.yml) runs action.yml's own script, which `exec`s
/// the tool. The hunting agent reads every ancestor's environment it can: the step shell
/// is gone (replaced by the tool), and the tool re-executed itself without the token.
#[test]
fn in_the_action_step_no_ancestor_of_an_agent_holds_the_token_in_its_environment() {
    let s = Setup::new(
        "sec",
        json!([{"order": 1, "title": "A"}]),
        HUNTING_AGENT,
        "",
    );
    let action_bin = s.env.home.join(".swarm-attack/bin");
    std::fs::create_dir_all(&action_bin).unwrap();
    std::os::unix::fs::symlink(crate::common::bin(), action_bin.join("swarm-attack")).unwrap();
    let out: crate::common::Run = s
        .env
        .bash()
        .env("GITHUB_TOKEN", TOKEN)
        .env("SWARM_CONFIG", "")
        .env("SWARM_COMMAND", "run sec")
        .env("SWARM_RUN_AGENTS", "true")
        .args(["-c", &crate::common::action::run_step_script()])
        .output()
        .unwrap()
        .into();
    out.ok();
    assert_eq!(s.env.stage("sec", 1), "DONE");
    let seen = std::fs::read_to_string(s.trace.join("seen-1.txt")).unwrap();
    assert!(
        seen.contains("\0SWARM_COMMAND=run sec\0"),
        "the agent read an ancestor's environment (NUL-separated, with the step's variables)"
    );
    assert!(
        !seen.contains(TOKEN),
        "an ancestor of the agent held the token"
    );
}

/// A repository linked to the fake GitHub (automatic sync on) with a script agent and the
/// test runner; `tests_command` replaces the runner when given.
fn gh_run_setup(
    agent_body: &str,
    tests_command: Option<&str>,
    extra: &str,
) -> (crate::common::github::Gh, std::path::PathBuf) {
    let gh = crate::common::github::setup(true);
    let trace = gh.env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let body = agent_body.replace("$TRACE", &trace.to_string_lossy());
    let agent = gh.env.script("agent.sh", &format!("#!/bin/sh\n{body}"));
    let runner = gh.env.script("runner.sh", RUNNER);
    let tests = tests_command
        .map(str::to_string)
        .unwrap_or_else(|| format!("sh {}", runner.display()));
    let config = gh.env.read("config.yaml");
    gh.env.write(
        "config.yaml",
        &format!(
            "{config}agents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"{tests}\"\n  timeout_seconds: 30\n{extra}",
            agent.display()
        ),
    );
    (gh, trace)
}

#[test]
fn a_closing_keyword_in_an_issue_title_closes_nothing_and_marks_nothing_done() {
    let (gh, _trace) = gh_run_setup(GOOD_AGENT, None, "");
    let a = gh.fake.add_issue("Dark mode", &[]);
    let b = gh.fake.add_issue("Tracked elsewhere", &[]);
    gh.env.issues(
        "auth",
        json!([
            {"order": 1, "title": format!("Dark mode (fixes #{b})"), "github_issue": a},
            {"order": 2, "title": "Tracked elsewhere", "github_issue": b, "dependencies": [1]}
        ]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.env.run(&["run", "auth", "--issue", "1"]).ok();
    assert_eq!(gh.env.stage("auth", 1), "DONE");
    // the title is in the commit, visibly defused; #b is neither DONE nor closed
    let msg = gh.env.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains(&format!("fixes # {b}")), "{msg}");
    assert!(!msg.contains(&format!("fixes #{b}")), "{msg}");
    gh.env.run(&["status", "auth"]).ok();
    assert_eq!(gh.env.stage("auth", 2), "READY");
    assert!(!gh.fake.is_open(a), "the implemented issue is closed");
    assert!(gh.fake.is_open(b), "issue #{b} was closed by a title");
}

#[test]
fn a_revert_line_in_an_issue_title_cancels_nothing() {
    let s = Setup::new(
        "rv",
        json!([{"order": 1, "title": "First"}]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "rv"]).ok();
    assert_eq!(s.env.stage("rv", 1), "DONE");
    let first = s.env.git(&["rev-parse", "HEAD"]);
    // a second issue whose title names the first issue's commit as reverted
    s.env.issues(
        "rv",
        json!([
            {"order": 1, "title": "First"},
            {"order": 2, "title": format!("This reverts commit {first}.")}
        ]),
    );
    s.env.run(&["greenlight", "rv"]).ok();
    s.env.run(&["run", "rv"]).ok();
    s.env.run(&["status", "rv"]).ok();
    assert_eq!(s.env.stage("rv", 1), "DONE");
    assert_eq!(s.env.stage("rv", 2), "DONE");
    // a third run finds nothing to do: every issue was implemented exactly once
    s.env.run(&["run", "rv"]).ok();
    assert_eq!(s.implementing_commits("rv", 1), 1);
    assert_eq!(s.implementing_commits("rv", 2), 1);
    let calls: Vec<String> = s
        .calls()
        .iter()
        .map(|c| c.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(calls, vec!["1", "2"]);
}

/// Plants `.git/<rel>` with a modification time `age` in the past.
fn plant_lock(
    env: &crate::common::TestEnv,
    rel: &str,
    age: std::time::Duration,
) -> std::path::PathBuf {
    let lock = env.path(&format!(".git/{rel}"));
    std::fs::write(&lock, "").unwrap();
    let f = std::fs::File::options().write(true).open(&lock).unwrap();
    f.set_modified(std::time::SystemTime::now() - age).unwrap();
    lock
}

#[test]
fn a_stale_branch_lock_left_by_a_crash_is_removed_and_the_run_succeeds() {
    let s = Setup::new("lk", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let lock = plant_lock(
        &s.env,
        "refs/heads/main.lock",
        std::time::Duration::from_secs(60),
    );
    let r = s.env.run(&["run", "lk"]);
    r.ok();
    assert!(!lock.exists());
    assert!(
        format!("{}{}", r.stdout, r.stderr).contains("refs/heads/main.lock"),
        "the removal is not reported: {} {}",
        r.stdout,
        r.stderr
    );
    assert_eq!(s.env.stage("lk", 1), "DONE");
}

#[test]
fn a_lock_held_by_a_running_git_stops_the_run_with_exit_3_before_any_agent() {
    let s = Setup::new("lk", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let lock = plant_lock(
        &s.env,
        "refs/heads/main.lock",
        std::time::Duration::from_secs(60),
    );
    // a git still working in the repository (e.g. a `git commit` waiting for its editor)
    let fake_git = s.env.script("bin/git", "#!/bin/sh\nsleep 60\n");
    let mut holder = std::process::Command::new(&fake_git)
        .current_dir(&s.env.root)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let index = s.env.read_bytes(".git/index");
    let r = s.env.run(&["run", "lk"]);
    let _ = holder.kill();
    let _ = holder.wait();
    r.code(3);
    assert!(r.stderr.contains("refs/heads/main.lock"), "{}", r.stderr);
    assert!(lock.exists());
    assert!(s.calls().is_empty(), "an agent ran");
    assert_eq!(s.env.read_bytes(".git/index"), index);
    assert_eq!(s.env.stage("lk", 1), "READY");
}

#[test]
fn a_landing_that_fails_on_a_lock_leaves_the_users_index_and_files_as_they_were() {
    let s = Setup::new("lk", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    // the tests pass, and a branch lock appears right before the landing
    let lock = s.env.path(".git/refs/heads/main.lock");
    let runner = s.env.script(
        "runner-lock.sh",
        &format!(
            "#!/bin/sh\ntouch '{}'\n{}",
            lock.display(),
            RUNNER.trim_start_matches("#!/bin/sh\n")
        ),
    );
    let config = s.env.read("config.yaml");
    let config = config.replace(
        &config
            .lines()
            .find(|l| l.contains("command: \"sh "))
            .unwrap()
            .to_string(),
        &format!("  command: \"sh {}\"", runner.display()),
    );
    s.env.write("config.yaml", &config);
    s.env.write("notes.txt", "my own change\n");
    let status_before = s.env.git(&["status", "--porcelain"]);
    let _ = s.env.run(&["run", "lk"]);
    assert!(lock.exists());
    assert_ne!(s.env.stage("lk", 1), "DONE");
    assert_eq!(s.env.git(&["status", "--porcelain"]), status_before);
    assert_eq!(s.env.git(&["diff", "--cached", "--name-only"]), "");
    assert!(!s.env.path("src/1.txt").exists());
    assert_eq!(s.env.read("notes.txt"), "my own change\n");
}

/// Every file under `dir` as text.
fn all_files_text(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(b) = std::fs::read(&p) {
                out.push((p, String::from_utf8_lossy(&b).into_owned()));
            }
        }
    }
    out
}

#[test]
fn every_secret_a_test_command_prints_is_masked_everywhere_the_tool_writes() {
    let secrets: Vec<(&str, String)> = vec![
        ("GITHUB_TOKEN", TOKEN.to_string()),
        ("GH_TOKEN", GH_TOKEN_VALUE.to_string()),
        ("GITHUB_PAT", "github_pat_11ABCDEFG0123456789".to_string()),
        (
            "ANTHROPIC_API_KEY",
            "sk-ant-api03-secretvalue-xyz".to_string(),
        ),
        ("OPENAI_API_KEY", "sk-proj-openaisecret123456".to_string()),
        ("GEMINI_API_KEY", "AIzaSyGeminiSecret987654".to_string()),
        ("PASSED_SECRET", "passed-through-secret-4242".to_string()),
        ("MASKED_SECRET", "listed-in-mask-env-7777".to_string()),
    ];
    // the test command prints every value (baked in: it cannot read the tokens itself)
    let mut printer = String::from("#!/bin/sh\n");
    for (_, v) in &secrets {
        printer.push_str(&format!("echo 'leak {v}'\necho 'leak {v}' >&2\n"));
    }
    printer.push_str("echo '0 passed, 1 failed'\nexit 1\n");
    let agent = format!(
        "{GOOD_AGENT}echo \"agent leak $ANTHROPIC_API_KEY $PASSED_SECRET $MASKED_SECRET\" >&2\n"
    );
    let (mut gh, _trace) = gh_run_setup(
        &agent,
        None,
        "sessions:\n  max_implementation_retries: 0\nsecrets:\n  mask_env: [MASKED_SECRET]\n",
    );
    let printer = gh.env.script("printer.sh", &printer);
    let config = gh.env.read("config.yaml");
    let runner_line = config
        .lines()
        .find(|l| l.contains("command: \"sh "))
        .unwrap()
        .to_string();
    let config = config
        .replace(
            &runner_line,
            &format!("  command: \"sh {}\"", printer.display()),
        )
        .replace(
            "    timeout_seconds: 30\ntests:",
            "    timeout_seconds: 30\n    env_passthrough: [PASSED_SECRET]\ntests:",
        );
    gh.env.write("config.yaml", &config);
    for (k, v) in &secrets {
        if *k != "GITHUB_TOKEN" {
            gh.env.extra_env.push((k.to_string(), v.clone()));
        }
    }
    let a = gh.fake.add_issue("Login", &[]);
    gh.env.issues(
        "auth",
        json!([{"order": 1, "title": "Login", "github_issue": a}]),
    );
    let mut printed = String::new();
    for args in [
        vec!["greenlight", "auth"],
        vec!["run", "auth"],
        vec!["status", "auth", "--json"],
        vec!["status", "auth"],
        vec!["audit", "auth", "--json"],
        vec!["audit", "auth"],
        vec!["events", "auth"],
        vec!["github", "sync", "auth"],
    ] {
        let r = gh.env.run(&args);
        printed.push_str(&r.stdout);
        printed.push_str(&r.stderr);
    }
    assert_eq!(gh.env.stage("auth", 1), "BLOCKED");
    let comments: Vec<String> = gh.fake.comments(a).into_iter().map(|(_, b)| b).collect();
    assert!(
        comments.iter().any(|c| c.contains("leak ***")),
        "{comments:?}"
    );
    let files = all_files_text(&gh.env.path(".swarm"));
    for (k, v) in &secrets {
        assert!(!printed.contains(v.as_str()), "{k} printed: {printed}");
        for c in &comments {
            assert!(!c.contains(v.as_str()), "{k} in a comment: {c}");
        }
        for (p, text) in &files {
            assert!(!text.contains(v.as_str()), "{k} in {}", p.display());
        }
    }
}

#[test]
fn control_characters_echoed_in_an_error_are_escaped() {
    let env = crate::common::TestEnv::new();
    let r = env.run(&["status", "bad\u{202e}id\nnext"]);
    r.code(2);
    assert!(!r.stderr.contains('\u{202e}'), "{}", r.stderr);
    assert!(
        r.stderr.contains("\\u{202e}") && r.stderr.contains("\\n"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stderr.lines().filter(|l| l.starts_with("error:")).count(),
        1
    );
}

#[test]
fn a_read_only_token_leaves_the_failed_write_in_the_outbox_with_its_reason() {
    use crate::common::fake_github::Fault;
    let gh = crate::common::github::setup(false);
    let a = gh.fake.add_issue("Login", &[]);
    gh.env.issues(
        "auth",
        json!([{"order": 1, "title": "Login", "github_issue": a}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.fake.fail_next(
        "POST",
        "/labels",
        Fault::Reply(403, "Resource not accessible by integration"),
        100,
    );
    gh.sync().code(1);
    let outbox = gh.env.read(".swarm/outbox/auth.jsonl");
    assert!(
        outbox.contains("403") && outbox.contains("issues: write"),
        "{outbox}"
    );
    // what waits, and why, without sending anything
    let r = gh.env.run(&["github", "sync", "auth", "--dry-run"]);
    assert!(
        r.stderr.contains("waiting:") && r.stderr.contains("issues: write"),
        "{}",
        r.stderr
    );
    // a good token later repairs GitHub and empties the outbox
    gh.fake.no_faults();
    gh.sync().ok();
    assert!(!gh.env.path(".swarm/outbox/auth.jsonl").exists());
    assert_eq!(gh.fake.swarm_labels(a), vec!["swarm:ready".to_string()]);
}
