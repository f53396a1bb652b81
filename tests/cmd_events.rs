//! The event log: `events` (filters, JSONL, follow), `audit`, the original format, tokens;
//! the scripted log is `common/event_log.rs`, damage and concurrency `cmd_events_durability.rs`.

use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::event_log::{LOG, env_with_log, scripted_log, seqs, stdout_lines, write_log};
use crate::common::{Run, TestEnv};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn events_json_prints_every_record_exactly_as_in_the_file() {
    let env = env_with_log();
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    let file = env.read(LOG);
    let file_lines: Vec<&str> = file.lines().collect();
    assert_eq!(stdout_lines(&r), file_lines, "verbatim, in file order");
    for (out, inn) in r.stdout.lines().zip(file_lines) {
        let a: Value = serde_json::from_str(out).unwrap();
        let b: Value = serde_json::from_str(inn).unwrap();
        assert_eq!(a, b);
    }
    assert_eq!(r.stderr, "");
}

#[test]
fn events_filters_apart() {
    let env = env_with_log();
    let q = |args: &[&str]| {
        let mut all = vec!["events", "auth", "--json"];
        all.extend_from_slice(args);
        let r = env.run(&all);
        r.ok();
        seqs(&r)
    };
    assert_eq!(
        q(&["--issue", "2"]),
        [17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28, 31]
    );
    // `issue` is matched as written (action_received carries a GitHub number there).
    assert_eq!(q(&["--issue", "42"]), [30]);
    assert_eq!(q(&["--event", "issue_done"]), [15]);
    assert_eq!(
        q(&["--event", "issue_done", "--event", "issue_blocked"]),
        [15, 26]
    );
    assert_eq!(
        q(&["--since", "2026-01-01T10:09:11Z"]),
        [26, 27, 28, 29, 30, 31]
    );
    // Relative to SWARM_ATTACK_NOW (10:30:00): 21m → 10:09:00.
    assert_eq!(q(&["--since", "21m"]), [24, 25, 26, 27, 28, 29, 30, 31]);
    assert_eq!(q(&["--until", "2026-01-01T10:00:02Z"]), [1, 2, 3, 4]);
    assert_eq!(q(&["--until", "29m59s"]), [1, 2]);
    assert_eq!(q(&["-n", "3"]), [29, 30, 31]);
    assert_eq!(q(&["-n", "0"]), Vec::<u64>::new());
}

#[test]
fn events_filters_together() {
    let env = env_with_log();
    let q = |args: &[&str]| {
        let mut all = vec!["events", "auth", "--json"];
        all.extend_from_slice(args);
        let r = env.run(&all);
        r.ok();
        seqs(&r)
    };
    assert_eq!(
        q(&[
            "--issue",
            "1",
            "--event",
            "agent_finished",
            "--event",
            "agent_started"
        ]),
        [6, 7, 8, 9, 12, 13]
    );
    assert_eq!(
        q(&["--issue", "1", "--event", "agent_finished", "-n", "1"]),
        [13]
    );
    assert_eq!(
        q(&[
            "--issue",
            "2",
            "--since",
            "2026-01-01T10:08:00Z",
            "--until",
            "2026-01-01T10:09:10Z"
        ]),
        [20, 21, 22, 23, 24, 25]
    );
    assert_eq!(
        q(&[
            "--event",
            "verification_failed",
            "--since",
            "2026-01-01T10:05:00Z",
            "-n",
            "1"
        ]),
        [25]
    );
    assert_eq!(
        q(&["--issue", "3", "--event", "issue_done"]),
        Vec::<u64>::new()
    );
}

#[test]
fn events_table_is_readable_and_plain_when_not_a_tty() {
    let env = env_with_log();
    let r: Run = env
        .command()
        .env_remove("NO_COLOR")
        .args(["events", "auth", "--issue", "1", "-n", "2"])
        .output()
        .unwrap()
        .into();
    r.ok();
    assert!(
        !r.stdout.contains('\x1b'),
        "no colour without a TTY: {}",
        r.stdout
    );
    let lines = stdout_lines(&r);
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0].contains("SEQ") && lines[0].contains("EVENT") && lines[0].contains("ISSUE"));
    assert!(lines[1].contains("issue_done"), "{}", lines[1]);
    assert!(lines[1].contains("#1"), "{}", lines[1]);
    assert!(lines[1].contains("commit 0123456789ab"), "{}", lines[1]);
    assert!(lines[2].contains("github_sync"), "{}", lines[2]);
}

#[test]
fn events_rejects_a_bad_since_with_exit_2_naming_the_option_and_forms() {
    let env = env_with_log();
    let r = env.run(&["events", "auth", "--since", "yesterday"]);
    r.code(2);
    assert!(r.stderr.contains("--since yesterday"), "{}", r.stderr);
    assert!(
        r.stderr.contains("RFC 3339") && r.stderr.contains("2h"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "");
    env.run(&["events", "auth", "--until", "5x"]).code(2);
}

#[test]
fn a_feature_without_a_log_prints_nothing_and_exits_0() {
    let env = TestEnv::new();
    env.issues("auth", json!([{"order": 1, "title": "a"}]));
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    assert_eq!(r.stdout, "");
    let r = env.run(&["events", "auth"]);
    r.ok();
    assert_eq!(r.stdout, "");
    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    assert_eq!(r.json()["events"], 0);
    assert_eq!(r.json()["issues"], json!([]));
}

#[test]
fn audit_of_a_scripted_log_snapshot() {
    let env = env_with_log();
    env.issues(
        "auth",
        json!([
            {"order": 1, "title": "Login endpoint"},
            {"order": 2, "title": "Logout endpoint"},
            {"order": 3, "title": "Sessions", "dependencies": [2]},
            {"order": 4, "title": "Password hashing"},
            {"order": 5, "title": "Five"}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    // greenlight appends its own events; audit the scripted log only.
    write_log(&env, &scripted_log());
    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    let doc = r.json();
    let by = |n: u64| {
        doc["issues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["issue"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by(1)["outcome"], "done");
    assert_eq!(by(1)["attempt_count"], 2);
    assert_eq!(by(1)["duration_ms"], 168_000);
    assert_eq!(by(1)["cost_usd"], 0.75);
    assert_eq!(by(1)["title"], "Login endpoint");
    assert_eq!(by(2)["outcome"], "ready");
    assert_eq!(by(2)["attempts"][0]["agents"][0]["timed_out"], true);
    assert_eq!(by(2)["attempts"][1]["outcome"], "failed");
    assert_eq!(by(3)["outcome"], "skipped");
    assert_eq!(by(4)["outcome"], "done");
    assert_eq!(by(5)["outcome"], "done");
    assert_eq!(doc["totals"]["attempts"], 4);
    assert_eq!(doc["totals"]["cost_usd"], 1.15);
    insta::assert_snapshot!("audit_json", r.stdout);
    let r = env.run(&["audit", "auth"]);
    r.ok();
    insta::assert_snapshot!("audit_text", r.stdout);
}

/// Lines as the original Python tool wrote them (`json.dumps`: `": "` and `", "`, no
/// `feature`/`seq`, microsecond timestamps, `failures` as a list).
const ORIGINAL: &str = r#"{"ts": "2025-05-01T09:00:00.123456Z", "event": "issue_started", "issue": 1, "session": "sess-abc"}
{"ts": "2025-05-01T09:00:01.000000Z", "event": "context_injected", "has_claude_md": true, "summaries_count": 0}
{"ts": "2025-05-01T09:04:00.123456Z", "event": "verification_failed", "issue": 1, "tests_failed": 2, "failures": ["test_a: boom", "test_b: bang"]}
{"ts": "2025-05-01T09:04:01.000000Z", "event": "retry_started", "issue": 1, "attempt": 2}
{"ts": "2025-05-01T09:09:00.123456Z", "event": "issue_done", "issue": 1, "commit": "abc1234", "cost_usd": 1.25}
{"ts": "2025-05-01T09:09:01.000000Z", "event": "issue_blocked", "issue": 2, "reason": "tests failed", "retries": 3}
{"ts": "2025-05-01T09:09:02.000000Z", "event": "issue_skipped", "issue": 3, "blocking_issue": 2}
"#;

#[test]
fn an_original_format_log_is_read_by_events_and_audit() {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("SWARM_ATTACK_NOW".into(), "2025-05-01T10:00:00Z".into()));
    env.write(LOG, ORIGINAL);
    let r = env.run(&["events", "auth", "--json"]);
    r.ok();
    assert_eq!(r.stdout, ORIGINAL, "verbatim");
    assert_eq!(r.stderr, "");
    let r = env.run(&[
        "events",
        "auth",
        "--json",
        "--issue",
        "1",
        "--event",
        "issue_done",
    ]);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    assert!(r.stdout.contains("abc1234"));
    let r = env.run(&["events", "auth", "--json", "--since", "51m"]);
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stdout);
    let r = env.run(&["events", "auth"]);
    r.ok();
    assert_eq!(r.stdout.lines().count(), 8, "header + 7 rows: {}", r.stdout);
    assert!(
        r.stdout
            .contains("verification failed (2 failing): test_a: boom; test_b: bang")
    );

    let r = env.run(&["audit", "auth", "--json"]);
    r.ok();
    let doc = r.json();
    assert_eq!(doc["events"], 7);
    let i1 = &doc["issues"][0];
    assert_eq!(i1["outcome"], "done");
    assert_eq!(i1["attempt_count"], 2);
    assert_eq!(i1["commit"], "abc1234");
    assert_eq!(i1["cost_usd"], 1.25);
    assert_eq!(i1["duration_ms"], 540_000);
    assert_eq!(doc["issues"][1]["outcome"], "blocked");
    assert_eq!(doc["issues"][2]["outcome"], "skipped");
    let r = env.run(&["audit", "auth"]);
    r.ok();
    assert!(r.stdout.contains("#1  DONE  2 attempts"), "{}", r.stdout);

    // Appending to an original log: seq starts at 1, the old lines stay as they are.
    env.run(&["debug-append-events", "auth", "--count", "2"])
        .ok();
    let text = env.read(LOG);
    assert!(text.starts_with(ORIGINAL));
    let events = env.events("auth");
    assert_eq!(events[7]["seq"], 1);
    assert_eq!(events[8]["seq"], 2);
}

#[test]
fn follow_prints_new_events_as_they_come_and_exits_0_on_ctrl_c() {
    let env = TestEnv::new();
    env.run(&[
        "debug-append-events",
        "auth",
        "--count",
        "2",
        "--issue",
        "7",
    ])
    .ok();
    let mut child = env
        .command()
        .args([
            "events", "auth", "--follow", "--json", "--issue", "7", "-n", "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The last existing record for issue 7 first; then two appends for it, one for another
    // issue.
    std::thread::sleep(Duration::from_millis(300));
    env.run(&[
        "debug-append-events",
        "auth",
        "--count",
        "2",
        "--issue",
        "7",
    ])
    .ok();
    env.run(&[
        "debug-append-events",
        "auth",
        "--count",
        "1",
        "--issue",
        "8",
    ])
    .ok();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut got = Vec::new();
    while got.len() < 3 && Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            got.push(l);
        }
    }
    assert_eq!(got.len(), 3, "follow printed {got:?}");
    let s: Vec<u64> = got
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(s, [2, 3, 4]);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(rx.try_recv().is_err(), "nothing for issue 8");
}

#[test]
fn no_output_and_no_file_under_swarm_ever_contains_the_token() {
    let mut env = TestEnv::new();
    let token = format!(
        "ghp_TESTTOKEN{}x{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    );
    let gh = format!("gho_OTHERTOKEN{}", std::process::id());
    env.extra_env.push(("GITHUB_TOKEN".into(), token.clone()));
    env.extra_env.push(("GH_TOKEN".into(), gh.clone()));
    env.issues(
        "auth",
        json!([{"order": 1, "title": "a"}, {"order": 2, "title": "b", "dependencies": [1]}]),
    );
    let mut runs = vec![
        env.run(&["init", "auth"]),
        env.run(&["greenlight", "auth"]),
        env.run(&["greenlight", "auth", "--json"]),
        env.run(&["status", "auth"]),
        env.run(&["status", "auth", "--json"]),
        env.run(&["status"]),
        env.run(&["debug-append-events", "auth", "--count", "3"]),
    ];
    env.commit("feat(auth): Implement issue #1");
    runs.push(env.run(&["status", "auth", "--json"]));
    runs.push(env.run(&["events", "auth"]));
    runs.push(env.run(&["events", "auth", "--json"]));
    runs.push(env.run(&["audit", "auth"]));
    runs.push(env.run(&["audit", "auth", "--json"]));
    for r in &runs {
        for secret in [&token, &gh] {
            assert!(
                !r.stdout.contains(secret.as_str()),
                "token in stdout: {}",
                r.stdout
            );
            assert!(
                !r.stderr.contains(secret.as_str()),
                "token in stderr: {}",
                r.stderr
            );
        }
    }
    let files = crate::common::snapshot_files(&env.path(".swarm"));
    assert!(!files.is_empty());
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        for secret in [&token, &gh] {
            assert!(
                !text.contains(secret.as_str()),
                "token in {}",
                path.display()
            );
        }
    }
    assert!(!env.events("auth").is_empty());
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_events_and_audit_after_a_run() {
    let s = Setup::new_in(
        TestEnv::new().fixed_clock(),
        "auth",
        json!([{"order":1,"title":"a"}]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    let r = s.env.run(&["events", "auth"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
   SEQ  TIME                      EVENT                    ISSUE  DETAIL
     1  2026-01-02T03:04:05.000Z  git_sync                        git sync: 1 commits scanned, head [SHA]
     2  2026-01-02T03:04:05.000Z  greenlight                      added=[1] kept=[] ready=[1]
     3  2026-01-02T03:04:05.000Z  agents_selected             #1  SOLO — winner fake (one eligible agent (fake 0.35) → SOLO fake)
     4  2026-01-02T03:04:05.000Z  issue_started               #1  attempt 1 started
     5  2026-01-02T03:04:05.000Z  agents_selected             #1  SOLO — winner fake (one eligible agent (fake 0.35) → SOLO fake)
     6  2026-01-02T03:04:05.000Z  context_injected            #1  prompt 1235 bytes, CLAUDE.md no, 0 summaries
     7  2026-01-02T03:04:05.000Z  agent_started               #1  fake started (primary)
     8  2026-01-02T03:04:05.000Z  agent_finished              #1  fake exited 0 after [DURATION], $0.25
     9  2026-01-02T03:04:05.000Z  implementation_complete     #1  created: checks/t_1.sh, src/1.txt; modified: -
    10  2026-01-02T03:04:05.000Z  verification_passed         #1  verification passed (1 tests)
    11  2026-01-02T03:04:05.000Z  issue_done                  #1  DONE, commit [SHA], $0.25: Issue #1 (a) was implemented in commit [SHA] "feat(auth): Implement issue #1".…
    12  2026-01-02T03:04:05.000Z  git_sync                        git sync: 1 commits scanned, head [SHA]
----- stderr -----
"#);
    let r = s.env.run(&["events", "auth", "--issue", "1", "--json"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
{"ts":"2026-01-02T03:04:05.000Z","event":"agents_selected","feature":"auth","session":"20260102T030405Z-[PID]","seq":3,"issue":1,"mode":"SOLO","winner":"fake","runner_up":null,"reason":"one eligible agent (fake 0.35) → SOLO fake","proposals":[{"agent":"fake","source":"heuristic","angle":"","confidence":0.35,"covers":[],"solo_sufficient":false,"builds_on_other":false}],"preview":true}
{"ts":"2026-01-02T03:04:05.000Z","event":"issue_started","feature":"auth","session":"20260102T030405Z-[PID]","seq":4,"issue":1,"attempt":1}
{"ts":"2026-01-02T03:04:05.000Z","event":"agents_selected","feature":"auth","session":"20260102T030405Z-[PID]","seq":5,"issue":1,"mode":"SOLO","winner":"fake","runner_up":null,"reason":"one eligible agent (fake 0.35) → SOLO fake","proposals":[{"agent":"fake","source":"heuristic","angle":"","confidence":0.35,"covers":[],"solo_sufficient":false,"builds_on_other":false}]}
{"ts":"2026-01-02T03:04:05.000Z","event":"context_injected","feature":"auth","session":"20260102T030405Z-[PID]","seq":6,"issue":1,"has_claude_md":false,"summaries_count":0,"prompt_bytes":1235,"truncated":[]}
{"ts":"2026-01-02T03:04:05.000Z","event":"agent_started","feature":"auth","session":"20260102T030405Z-[PID]","seq":7,"issue":1,"agent":"fake","role":"primary"}
{"ts":"2026-01-02T03:04:05.000Z","event":"agent_finished","feature":"auth","session":"20260102T030405Z-[PID]","seq":8,"issue":1,"agent":"fake","exit_code":0,"duration_ms":[DURATION],"timed_out":false,"cost_usd":0.25,"tokens_in":null,"tokens_out":null,"tokens_cached":null,"turns":null,"session_id":null,"error_kind":null,"permission_denials":0,"output":".swarm/runs/auth/issue-1/attempt-1/agent.stdout"}
{"ts":"2026-01-02T03:04:05.000Z","event":"implementation_complete","feature":"auth","session":"20260102T030405Z-[PID]","seq":9,"issue":1,"files_created":["checks/t_1.sh","src/1.txt"],"files_modified":[]}
{"ts":"2026-01-02T03:04:05.000Z","event":"verification_passed","feature":"auth","session":"20260102T030405Z-[PID]","seq":10,"issue":1,"tests_passed":1}
{"ts":"2026-01-02T03:04:05.000Z","event":"issue_done","feature":"auth","session":"20260102T030405Z-[PID]","seq":11,"issue":1,"commit":"[SHA]","cost_usd":0.25,"summary":"Issue #1 (a) was implemented in commit [SHA] \"feat(auth): Implement issue #1\". It adds `checks/t_1.sh` and `src/1.txt`."}
----- stderr -----
"#);
    let r = s.env.run(&["audit", "auth"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
audit auth: 12 events, 2 sessions, 2026-01-02T03:04:05.000Z → 2026-01-02T03:04:05.000Z ([DURATION])
issues: 1 (1 done, 0 blocked, 0 skipped, 0 in progress, 0 ready, 0 not started); attempts 1 (0 retries); agent runs 1 ([DURATION]); cost $0.25

#1 a  DONE  1 attempt, SOLO (fake), [DURATION], cost $0.25, commit [SHA]
  attempt 1 SOLO: done in [DURATION]; fake exit 0 [DURATION] cost $0.25; tests passed (1)
    output of fake: .swarm/runs/auth/issue-1/attempt-1/agent.stdout
    2026-01-02T03:04:05.000Z  issue_started            attempt 1 started
    2026-01-02T03:04:05.000Z  agents_selected          SOLO — winner fake (one eligible agent (fake 0.35) → SOLO fake)
    2026-01-02T03:04:05.000Z  context_injected         prompt 1235 bytes, CLAUDE.md no, 0 summaries
    2026-01-02T03:04:05.000Z  agent_started            fake started (primary)
    2026-01-02T03:04:05.000Z  agent_finished           fake exited 0 after [DURATION], $0.25
    2026-01-02T03:04:05.000Z  implementation_complete  created: checks/t_1.sh, src/1.txt; modified: -
    2026-01-02T03:04:05.000Z  verification_passed      verification passed (1 tests)
    2026-01-02T03:04:05.000Z  issue_done               DONE, commit [SHA], $0.25: Issue #1 (a) was implemented in commit [SHA] "feat(auth): Implement issue #1".…
----- stderr -----
"#);
}
