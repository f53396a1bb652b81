//! Learning from outcomes (docs/learning.md "Outcomes"): `.swarm/outcomes.jsonl` lines when issues
//! end and when a revert is seen; `coordination.learn: on` blends the proposals with them,
//! deterministically (`plan` and `run` agree); `plan --json` shows `learned`; `report` shows the
//! per agent and class table.

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::{Value, json};

fn outcomes(s: &Setup) -> Vec<Value> {
    std::fs::read_to_string(s.env.path(".swarm/outcomes.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_issue_that_ends_done_writes_one_outcome_line_with_its_class() {
    let s = Setup::new(
        "auth",
        json!([
            {"order": 1, "title": "Login", "labels": ["backend", "api"]},
            {"order": 2, "title": "Docs", "estimated_size": "small"},
            {"order": 3, "title": "Other"}
        ]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    let o = outcomes(&s);
    assert_eq!(o.len(), 3, "{o:?}");
    let first = &o[0];
    for k in [
        "ts",
        "feature",
        "issue",
        "class",
        "mode",
        "agents",
        "landed_by",
        "result",
        "attempts",
        "cost_usd",
        "minutes",
    ] {
        assert!(first.get(k).is_some(), "{k} in {first}");
    }
    assert_eq!(first["feature"], "auth");
    assert_eq!(first["issue"], 1);
    assert_eq!(first["class"], "backend");
    assert_eq!(first["result"], "done");
    assert_eq!(first["landed_by"], "fake");
    assert_eq!(first["agents"], json!(["fake"]));
    assert_eq!(first["mode"], "SOLO");
    assert_eq!(first["attempts"], 1);
    assert_eq!(first["cost_usd"], 0.25);
    assert_eq!(o[1]["class"], "small");
    assert_eq!(o[2]["class"], "default");
    // a second run with nothing to do writes nothing
    s.env.run(&["run", "auth"]).ok();
    s.env.run(&["status", "auth"]).ok();
    assert_eq!(outcomes(&s).len(), 3);
}

#[test]
fn a_blocked_issue_writes_a_blocked_line_naming_the_agents_that_tried() {
    let agent = r#"cat > /dev/null
mkdir -p src checks
echo "x" > "src/$SWARM_ISSUE.txt"
echo "exit 1" > "checks/t_$SWARM_ISSUE.sh"
"#;
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Login", "labels": ["backend"]}]),
        agent,
        "sessions:\n  max_implementation_retries: 1\n",
    );
    s.env.run(&["run", "auth"]).code(1);
    let o = outcomes(&s);
    assert_eq!(o.len(), 1, "{o:?}");
    assert_eq!(o[0]["result"], "blocked");
    assert_eq!(o[0]["landed_by"], Value::Null);
    assert_eq!(o[0]["agents"], json!(["fake"]));
    assert_eq!(o[0]["attempts"], 2);
}

#[test]
fn a_revert_of_a_done_issue_writes_a_reverted_line() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Login", "labels": ["backend"]}]),
        GOOD_AGENT,
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    s.env.git(&["revert", "--no-edit", "HEAD"]);
    s.env.run(&["status", "auth"]).ok();
    assert_eq!(s.env.stage("auth", 1), "READY");
    let o = outcomes(&s);
    assert_eq!(o.len(), 2, "{o:?}");
    assert_eq!(o[1]["result"], "reverted");
    assert_eq!(o[1]["issue"], 1);
    assert_eq!(o[1]["landed_by"], "fake");
    assert_eq!(o[1]["class"], "backend");
}

/// Two agents: `alpha` fits the issue by its angle, `beta` does not; both run the same
/// script, which logs who ran.
fn two_agents(learn: &str) -> Setup {
    let agent = r#"cat > /dev/null
echo "$SWARM_AGENT $SWARM_ISSUE" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
echo '{"result": "ok", "total_cost_usd": 0.1}'
"#;
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Add the backend api endpoint for sessions", "body": "A backend api endpoint.", "labels": ["backend"]}]),
        agent,
        "",
    );
    let script = s.env.tmp.path().join("agent.sh");
    let runner = s.env.tmp.path().join("runner.sh");
    s.env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\n{learn}agents:\n  - name: alpha\n    command: [\"{a}\"]\n    angle: backend api endpoint\n    covers: [backend, api, endpoint, sessions]\n  - name: beta\n    command: [\"{a}\"]\n    angle: documentation\n    covers: [docs]\ntests:\n  command: \"sh {r}\"\n",
            a = script.display(),
            r = runner.display()
        ),
    );
    s
}

/// Outcomes in class `backend`: `beta` landed 10, `alpha` was blocked 10 times.
fn write_history(s: &Setup) {
    let mut lines = String::new();
    for i in 0..10 {
        lines.push_str(
            &json!({"ts": "2026-01-01T00:00:00Z", "feature": "old", "issue": i, "class": "backend",
                    "mode": "SOLO", "agents": ["alpha"], "landed_by": null, "result": "blocked",
                    "attempts": 4, "cost_usd": 2.0, "minutes": 10.0})
            .to_string(),
        );
        lines.push('\n');
        lines.push_str(
            &json!({"ts": "2026-01-01T00:00:00Z", "feature": "old", "issue": 100 + i, "class": "backend",
                    "mode": "SOLO", "agents": ["beta"], "landed_by": "beta", "result": "done",
                    "attempts": 1, "cost_usd": 0.5, "minutes": 2.0})
            .to_string(),
        );
        lines.push('\n');
    }
    s.env.write(".swarm/outcomes.jsonl", &lines);
}

fn plan(s: &Setup) -> Value {
    let r = s.env.run(&["plan", "auth", "--json"]);
    r.ok();
    r.json()["decisions"][0].clone()
}

#[test]
fn without_outcomes_learning_changes_nothing() {
    let off = two_agents("");
    let before = plan(&off);
    assert_eq!(before["winner"], "alpha");
    let on = two_agents("  learn: on\n");
    let after = plan(&on);
    for k in ["mode", "winner", "runner_up", "reason", "proposals"] {
        assert_eq!(before[k], after[k], "{k}");
    }
    assert!(
        after["proposals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p.get("learned").is_none())
    );
}

#[test]
fn with_learn_off_recorded_outcomes_change_nothing() {
    let s = two_agents("");
    write_history(&s);
    let d = plan(&s);
    assert_eq!(d["winner"], "alpha");
    assert!(d["proposals"][0].get("learned").is_none());
}

#[test]
fn learning_routes_to_the_agent_that_succeeds_in_the_class_and_plan_and_run_agree() {
    let s = two_agents("  learn: on\n  learn_prior: 5\n");
    write_history(&s);
    let d = plan(&s);
    assert_eq!(d["winner"], "beta", "{d}");
    let beta = d["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["agent"] == "beta")
        .unwrap()
        .clone();
    let l = &beta["learned"];
    assert_eq!(l["n"], 10);
    assert_eq!(l["s"], 10);
    assert!((l["p"].as_f64().unwrap() - 11.0 / 12.0).abs() < 1e-9, "{l}");
    assert!((l["w"].as_f64().unwrap() - 10.0 / 15.0).abs() < 1e-9, "{l}");
    let before = l["confidence_before"].as_f64().unwrap();
    let want = (5.0 * before + 10.0 * 11.0 / 12.0) / 15.0;
    let got = beta["confidence"].as_f64().unwrap();
    assert!(
        (got - (want * 100.0).round() / 100.0).abs() < 1e-9,
        "{got} vs {want}"
    );
    // deterministic: the same plan again
    assert_eq!(plan(&s), d);
    // run follows the same decision
    s.env.run(&["run", "auth"]).ok();
    assert_eq!(s.calls(), vec!["beta 1".to_string()]);
    let selected: Vec<Value> = s
        .events_named("auth", "agents_selected")
        .into_iter()
        .filter(|e| e.get("preview").is_none())
        .collect();
    assert_eq!(selected.last().unwrap()["winner"], "beta");
    assert_eq!(selected.last().unwrap()["proposals"], d["proposals"]);
    // the text plan names what was learned
    let text = s.env.run(&["plan", "auth", "--issue", "1"]);
    text.ok();
    assert!(
        text.stdout.contains("learned (backend): n 11, s 11"),
        "{}",
        text.stdout
    );
    // the report's table per agent and class
    let out = s.env.tmp.path().join("r.html");
    s.env
        .run(&["report", "auth", "--out", out.to_str().unwrap()])
        .ok();
    let html = std::fs::read_to_string(out).unwrap();
    assert!(html.contains("Learned routing"), "report");
    assert!(
        html.contains("<td>beta</td><td>backend</td><td>11</td>"),
        "report rows"
    );
    assert!(
        html.contains("<td>alpha</td><td>backend</td><td>10</td><td>0%"),
        "report rows"
    );
}

#[test]
fn learn_accepts_on_off_and_rejects_other_values() {
    let s = two_agents("  learn: maybe\n");
    let r = s.env.run(&["plan", "auth"]);
    r.code(2);
    assert!(r.stderr.contains("coordination.learn"), "{}", r.stderr);
    assert!(r.stderr.contains("`on` or `off`"), "{}", r.stderr);
    let s = two_agents("  learn: off\n  learn_prior: 2\n");
    plan(&s);
}
