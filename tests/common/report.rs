//! The HTML report read back the way a machine would: the JSON data island
//! (`<script type="application/json" id="report-data">`), the `data-*` attributes of the
//! totals table and the timeline bars, and a check of all of them against the event log.

use super::TestEnv;
use regex::Regex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

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
