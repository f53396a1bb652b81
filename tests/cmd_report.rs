//! `report` (issue 18): the self-contained HTML report, read back the way a machine would —
//! the JSON data island (`<script type="application/json" id="report-data">`) and the
//! `data-*` attributes of the totals table and the timeline bars — and compared with the
//! event log. Also: escaping, the original tool's logs, `demo` ending with the report. The
//! Action's output and step summary are checked in `cmd_action_github`, PARALLEL/SYNTHESIS
//! runs in `cmd_run_modes`, the browser in `cmd_report_browser`.

use crate::common::TestEnv;
use regex::Regex;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The page's data island, parsed.
pub fn report_data(html: &str) -> Value {
    let open = r#"<script type="application/json" id="report-data">"#;
    let start = html.find(open).expect("the report has its data island") + open.len();
    let end = start
        + html[start..]
            .find("</script>")
            .expect("the data island ends");
    serde_json::from_str(&html[start..end]).expect("the data island is JSON")
}

/// The totals table: `data-total` → `data-value`.
pub fn table_totals(html: &str) -> BTreeMap<String, String> {
    let re = Regex::new(r#"data-total="([a-z_]+)" data-value="([^"]*)""#).unwrap();
    re.captures_iter(html)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect()
}

/// One timeline bar: its attributes.
#[derive(Debug, Clone)]
pub struct Bar {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub issue: u64,
    pub kind: String,
    pub agent: String,
    pub outcome: String,
}

/// Every run bar of the timeline (`<rect class="bar run" ...>`).
pub fn run_bars(html: &str) -> Vec<Bar> {
    let rect = Regex::new(r#"<rect class="bar run"([^>]*)>"#).unwrap();
    let attr = Regex::new(r#"([a-z-]+)="([^"]*)""#).unwrap();
    rect.captures_iter(html)
        .filter_map(|c| {
            let a: BTreeMap<String, String> = attr
                .captures_iter(&c[1])
                .map(|m| (m[1].to_string(), m[2].to_string()))
                .collect();
            Some(Bar {
                x: a.get("x")?.parse().ok()?,
                y: a.get("y")?.parse().ok()?,
                width: a.get("width")?.parse().ok()?,
                issue: a.get("data-issue")?.parse().ok()?,
                kind: a.get("data-kind")?.clone(),
                agent: a.get("data-agent").cloned().unwrap_or_default(),
                outcome: a.get("data-outcome").cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// Runs `report <feature>`, returns the page.
pub fn report_html(env: &TestEnv, feature: &str) -> String {
    let r = env.run(&["report", feature]);
    r.ok();
    let path = r.stdout.trim();
    assert!(
        path.ends_with(&format!(".swarm/reports/{feature}.html")),
        "{path}"
    );
    std::fs::read_to_string(path).unwrap()
}

/// Checks the report against the event log: every agent run (one per `agent_finished`),
/// every attempt (each `issue_started`/`retry_started` number), every test run and landing,
/// and the totals, in the data island, the totals table and the timeline bars. Returns the
/// data island.
pub fn check_against_events(html: &str, events: &[Value]) -> Value {
    let data = report_data(html);
    let issues = data["issues"].as_array().unwrap();
    let by_issue = |n: u64| {
        issues
            .iter()
            .find(|i| i["issue"] == n)
            .unwrap_or_else(|| panic!("issue {n} is in the report"))
    };
    let bars = run_bars(html);
    let mut agent_runs = 0u64;
    let mut finished: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    let mut attempts: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    let mut tests = 0u64;
    let mut landings = 0u64;
    for e in events {
        let issue = e["issue"].as_u64();
        match e["event"].as_str().unwrap_or("") {
            "agent_finished" => {
                agent_runs += 1;
                finished
                    .entry(issue.unwrap())
                    .or_default()
                    .push(e["agent"].as_str().unwrap().to_string());
            }
            "issue_started" | "retry_started" => {
                attempts
                    .entry(issue.unwrap())
                    .or_default()
                    .insert(e["attempt"].as_u64().unwrap());
            }
            "verification_passed" | "verification_failed" => tests += 1,
            "issue_done" if e["commit"].is_string() => landings += 1,
            _ => {}
        }
    }
    for (n, agents) in &finished {
        let i = by_issue(*n);
        let mut in_report: Vec<String> = i["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|a| a["runs"].as_array().unwrap().iter())
            .filter(|r| r["kind"] == "agent" && !r["end_ms"].is_null())
            .map(|r| r["agent"].as_str().unwrap().to_string())
            .collect();
        let mut expected = agents.clone();
        in_report.sort();
        expected.sort();
        assert_eq!(in_report, expected, "agent runs of #{n}");
        let mut drawn: Vec<String> = bars
            .iter()
            .filter(|b| b.issue == *n && b.kind == "agent")
            .map(|b| b.agent.clone())
            .collect();
        drawn.sort();
        assert_eq!(drawn, expected, "agent bars of #{n}");
    }
    for (n, numbers) in &attempts {
        let i = by_issue(*n);
        let in_report: BTreeSet<u64> = i["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["attempt"].as_u64().unwrap())
            .collect();
        assert_eq!(&in_report, numbers, "attempts of #{n}");
        assert_eq!(i["attempt_count"], numbers.len() as u64);
        for a in numbers {
            assert!(
                html.contains(&format!(
                    r#"data-issue="{n}" data-attempt="{a}" data-outcome="#
                )),
                "attempt row #{n}/{a} in the table"
            );
        }
    }
    let t = &data["totals"];
    assert_eq!(t["agent_runs"], agent_runs);
    assert_eq!(t["test_runs"], tests);
    assert_eq!(t["landings"], landings);
    assert_eq!(
        t["attempts"].as_u64().unwrap(),
        attempts.values().map(|s| s.len() as u64).sum::<u64>()
    );
    let table = table_totals(html);
    for key in [
        "agent_runs",
        "attempts",
        "retries",
        "test_runs",
        "landings",
        "agent_time_ms",
        "done",
        "blocked",
    ] {
        assert_eq!(table[key], t[key].to_string(), "total {key}");
    }
    assert_eq!(
        table["wall_ms"],
        data["wall_ms"].to_string(),
        "wall time in the table"
    );
    assert_eq!(
        bars.iter().filter(|b| b.kind == "test").count() as u64,
        tests
    );
    assert_eq!(
        bars.iter().filter(|b| b.kind == "landing").count() as u64,
        landings
    );
    data
}

#[test]
fn demo_ends_with_the_report_which_holds_every_agent_run_attempt_and_total() {
    let env = TestEnv::empty();
    let dir = env.tmp.path().join("demo");
    let r = env.run(&["demo", "--dir", dir.to_str().unwrap()]);
    r.ok();
    let last = r.stdout.trim_end().lines().last().unwrap();
    let path = last
        .strip_prefix("report: ")
        .unwrap_or_else(|| panic!("the demo ends with the report's path: {last}"));
    assert!(path.ends_with("/.swarm/reports/greeter.html"), "{path}");
    assert!(Path::new(path).is_absolute(), "{path}");
    let html = std::fs::read_to_string(path).unwrap();
    let events: Vec<Value> = std::fs::read_to_string(dir.join(".swarm/events/greeter.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let data = check_against_events(&html, &events);
    assert_eq!(data["feature"], "greeter");
    assert_eq!(data["totals"]["issues"], 4);
    assert_eq!(data["totals"]["done"], 4);
    // #1 was found in git: no attempt, evidence from history; #4 needs #2 and #3
    let issues = data["issues"].as_array().unwrap();
    assert_eq!(issues[0]["attempts"], json!([]));
    assert_eq!(issues[0]["stage"], "DONE");
    assert_eq!(issues[3]["dependencies"], json!([2, 3]));
    assert!(html.contains(r#"data-from="2" data-to="4""#));
    assert!(html.contains(r#"data-from="3" data-to="4""#));
    // the cost is what the agents reported: their sum, or unknown (null) when none did
    let costs: Vec<f64> = events
        .iter()
        .filter(|e| e["event"] == "agent_finished")
        .filter_map(|e| e["cost_usd"].as_f64())
        .collect();
    if costs.is_empty() {
        assert_eq!(data["totals"]["cost_usd"], Value::Null);
        assert_eq!(table_totals(&html)["cost_usd"], "null");
    } else {
        let sum: f64 = costs.iter().sum();
        assert!((data["totals"]["cost_usd"].as_f64().unwrap() - sum).abs() < 1e-6);
    }
    // self-contained: nothing is loaded from anywhere
    for needle in ["src=\"http", "href=\"http", "@import", "url(http", "<link"] {
        assert!(!html.contains(needle), "{needle}");
    }
    // the same report from the command
    let again = env.run(&[
        "-p",
        dir.to_str().unwrap(),
        "report",
        "greeter",
        "--out",
        env.tmp.path().join("r.html").to_str().unwrap(),
    ]);
    again.ok();
    let second = std::fs::read_to_string(env.tmp.path().join("r.html")).unwrap();
    assert_eq!(report_data(&second)["totals"], data["totals"]);
}

#[test]
fn a_script_title_and_agent_output_are_escaped() {
    let env = TestEnv::new();
    env.issues(
        "xss",
        json!([{"order": 1, "title": "<script>alert(1)</script> & \"quotes\"", "body": "b"}]),
    );
    env.run(&["greenlight", "xss"]).ok();
    let log = env.path(".swarm/events/xss.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap_or_default();
    for line in [
        json!({"ts": "2026-01-01T00:00:00Z", "event": "issue_started", "issue": 1, "attempt": 1}),
        json!({"ts": "2026-01-01T00:00:01Z", "event": "agent_started", "issue": 1, "agent": "<img src=x onerror=alert(3)>", "role": "coder"}),
        json!({"ts": "2026-01-01T00:00:05Z", "event": "agent_finished", "issue": 1, "agent": "<img src=x onerror=alert(3)>", "exit_code": 0, "duration_ms": 4000, "timed_out": false, "cost_usd": null}),
        json!({"ts": "2026-01-01T00:00:06Z", "event": "verification_failed", "issue": 1, "tests_failed": 1, "failures": "</script><script>alert(2)</script>"}),
    ] {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(&log, text).unwrap();
    let html = report_html(&env, "xss");
    assert!(!html.contains("<script>alert"), "a script got through");
    assert!(!html.contains("<img"), "markup got through");
    assert_eq!(
        html.matches("<script").count(),
        2,
        "only the page's own scripts"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
    // the data island keeps the exact text
    let data = report_data(&html);
    assert_eq!(
        data["issues"][0]["title"],
        "<script>alert(1)</script> & \"quotes\""
    );
    assert_eq!(
        data["issues"][0]["attempts"][0]["failure"],
        "</script><script>alert(2)</script>"
    );
}

#[test]
fn the_original_tools_log_without_feature_or_seq_is_reported() {
    let env = TestEnv::new();
    env.run(&["init", "legacy"]).ok();
    let lines = [
        json!({"ts": "2025-03-01T10:00:00.000000", "event": "issue_started", "issue": 5}),
        json!({"ts": "2025-03-01T10:00:01.000000", "event": "agent_started", "issue": 5, "agent": "coder"}),
        json!({"ts": "2025-03-01T10:02:00.000000", "event": "agent_finished", "issue": 5, "agent": "coder", "exit_code": 0, "duration_ms": 119000, "cost_usd": 0.42}),
        json!({"ts": "2025-03-01T10:02:30.000000", "event": "verification_failed", "issue": 5, "failures": ["test_a", "test_b"]}),
        json!({"ts": "2025-03-01T10:03:00.000000", "event": "issue_blocked", "issue": 5, "reason": "tests keep failing", "retries": 3}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    env.write(".swarm/events/legacy.jsonl", &text);
    let html = report_html(&env, "legacy");
    let data = report_data(&html);
    let i = &data["issues"][0];
    assert_eq!(i["outcome"], "blocked");
    assert_eq!(i["attempts"][0]["failure"], "test_a; test_b");
    assert_eq!(data["wall_ms"], 180_000);
    assert_eq!(data["totals"]["cost_usd"], 0.42);
    assert!(html.contains("tests keep failing"));
}

#[test]
fn an_unknown_feature_is_one_clear_sentence_and_exit_2() {
    let env = TestEnv::new();
    let r = env.run(&["report", "nope"]);
    r.code(2);
    assert!(r.stderr.contains("nope"), "{}", r.stderr);
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_report_of_a_run_feature_and_of_an_unknown_one() {
    let s = crate::common::agents::Setup::new_in(
        TestEnv::new().fixed_clock(),
        "auth",
        json!([{"order":1,"title":"a"}]),
        crate::common::agents::GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    let r = s.env.run(&["report", "auth"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 0
----- stdout -----
[TMP]/repo/.swarm/reports/auth.html
----- stderr -----
report of `auth`: 1 issues, 1 attempts, 1 agent runs, cost $0.2500
"#);
    let r = s.env.run(&["report", "nope"]);
    insta::assert_snapshot!(r.snapshot(&s.env), @r#"
exit: 2
----- stdout -----
----- stderr -----
error: feature `nope` has no events and no state (neither .swarm/events/nope.jsonl nor its state file exists); run `swarm-attack init nope` first
"#);
}
