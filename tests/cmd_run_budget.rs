//! `budgets` (docs/budgets.md "Limits"): the ledger sums every agent run across attempts and runs;
//! an attempt never starts once the amount spent reached a limit (the agent is not called): an
//! issue limit blocks the issue with a reason beginning `budget` (`budget_exceeded`), a feature
//! limit stops the run with exit 1 and leaves the unstarted issues as they were; `unblock --budget
//! +USD` raises one issue's limit; the saved ledger equals the one the event log rebuilds.

use crate::common::agents::Setup;
use serde_json::{Value, json};

/// An agent that reports $0.60 (Claude's `result` shape) and writes a failing check.
const COSTLY_FAILING: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE $SWARM_ATTEMPT" > "src/$SWARM_ISSUE.txt"
echo "exit 1" > "checks/t_$SWARM_ISSUE.sh"
echo '{"type": "result", "subtype": "success", "is_error": false, "total_cost_usd": 0.6}'
"#;

/// The same, passing.
const COSTLY_PASSING: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
echo '{"type": "result", "subtype": "success", "is_error": false, "total_cost_usd": 0.6}'
"#;

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap_or(0.0) * 100.0).round() as i64
}

/// The USD the event log says was spent on `issue`.
fn logged_usd(s: &Setup, issue: u64) -> i64 {
    s.events_named("auth", "agent_finished")
        .iter()
        .filter(|e| e["issue"] == issue)
        .map(|e| cents(&e["cost_usd"]))
        .sum()
}

#[test]
fn an_attempt_over_the_issue_budget_never_starts_and_the_issue_is_blocked() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model"}]),
        COSTLY_FAILING,
        "sessions:\n  max_implementation_retries: 5\nbudgets:\n  issue_usd: 1.0\n",
    );
    let r = s.env.run(&["run", "auth"]);
    r.code(1);
    // attempt 1 ($0.60) and 2 ($1.20 ≥ $1.00): the third never starts
    assert_eq!(s.calls(), vec!["1 1".to_string(), "1 2".to_string()]);
    assert_eq!(s.env.stage("auth", 1), "BLOCKED");
    let t = s.task("auth", 1);
    let reason = t["blocked_reason"].as_str().unwrap();
    assert!(reason.starts_with("budget issue_usd"), "{reason}");
    assert!(
        reason.contains("$1.20") && reason.contains("$1.00"),
        "{reason}"
    );
    let ex = s.events_named("auth", "budget_exceeded");
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0]["issue"], 1);
    assert_eq!(ex[0]["kind"], "issue_usd");
    assert_eq!(cents(&ex[0]["spent"]), 120);
    assert_eq!(cents(&ex[0]["limit"]), 100);
    // the saved ledger is the log's
    let ledger = &s.env.state("auth")["ledger"];
    assert_eq!(cents(&ledger["issues"]["1"]["usd"]), 120);
    assert_eq!(cents(&ledger["issues"]["1"]["usd"]), logged_usd(&s, 1));
    assert_eq!(ledger["issues"]["1"]["attempts"], 2);

    // a second run does not start it either (it is BLOCKED); raising the budget does
    let r = s
        .env
        .run(&["unblock", "auth", "--issue", "1", "--budget", "+1"]);
    r.ok();
    assert_eq!(s.env.stage("auth", 1), "READY");
    s.env.run(&["run", "auth"]).code(1);
    // $1.20 spent of $2.00: attempts at $1.20 and $1.80 start, the next does not
    assert_eq!(s.calls().len(), 4, "{:?}", s.calls());
    let ledger = &s.env.state("auth")["ledger"];
    assert_eq!(
        cents(&ledger["issues"]["1"]["usd"]),
        240,
        "cumulative across runs"
    );
    assert_eq!(cents(&ledger["issues"]["1"]["usd"]), logged_usd(&s, 1));
    assert_eq!(s.events_named("auth", "budget_raised").len(), 1);
}

#[test]
fn the_feature_budget_stops_the_run_and_leaves_unstarted_issues_as_they_were() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model"}, {"order": 2, "title": "Docs"}]),
        COSTLY_PASSING,
        "budgets:\n  feature_usd: 0.5\n",
    );
    let r = s.env.run(&["run", "auth"]);
    r.code(1);
    assert!(r.stderr.contains("budget feature_usd"), "{}", r.stderr);
    assert_eq!(s.calls(), vec!["1 1".to_string()], "issue 2 never started");
    assert_eq!(s.env.stage("auth", 1), "DONE");
    assert_eq!(s.env.stage("auth", 2), "READY", "left as it was");
    let ex = s.events_named("auth", "budget_exceeded");
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0]["kind"], "feature_usd");
    assert_eq!(ex[0]["issue"], 2);
}

#[test]
fn budget_flag_rejects_what_is_not_an_amount() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model"}]),
        COSTLY_PASSING,
        "",
    );
    for bad in ["-3", "abc", "+0"] {
        let r = s.env.run(&[
            "unblock",
            "auth",
            "--issue",
            "1",
            &format!("--budget={bad}"),
        ]);
        r.code(2);
        assert!(r.stderr.contains("--budget"), "{bad}: {}", r.stderr);
    }
    assert!(s.events_named("auth", "budget_raised").is_empty());
}

#[test]
fn dry_run_prints_the_worst_case_spend_under_the_limits() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model"}, {"order": 2, "title": "Docs"}]),
        COSTLY_FAILING,
        "sessions:\n  max_implementation_retries: 2\nbudgets:\n  issue_usd: 1.0\n  feature_usd: 1.5\n",
    );
    // issue 1 fails twice ($1.20) and is blocked by its budget
    s.env.run(&["run", "auth", "--issue", "1"]).code(1);
    let r = s.env.run(&["run", "auth", "--dry-run", "--json"]);
    r.ok();
    let plan = &r.json()["plan"];
    let steps = plan["steps"].as_array().unwrap();
    let one = steps.iter().find(|x| x["issue"] == 2).unwrap();
    assert_eq!(cents(&one["worst_case_usd"]), 100);
    assert_eq!(one["attempts_left"], 3);
    // the feature has $0.30 left of $1.50: that caps the plan
    assert_eq!(cents(&plan["worst_case_usd"]), 30, "{plan}");
    let text = s.env.run(&["run", "auth", "--dry-run"]);
    assert!(
        text.stdout.contains("worst case under the budgets: $0.30"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("at most $1.00 more in 3 attempt(s)"),
        "{}",
        text.stdout
    );
}

#[test]
fn status_and_the_github_comment_show_the_ledger_spend_against_the_limit() {
    let gh = crate::common::github::setup(false);
    let g = gh.fake.add_issue("model", &[]);
    let trace = gh.env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let agent = gh.env.script(
        "agent.sh",
        &format!(
            "#!/bin/sh\n{}",
            COSTLY_FAILING.replace("$TRACE", &trace.to_string_lossy())
        ),
    );
    let runner = gh.env.script("runner.sh", crate::common::agents::RUNNER);
    gh.env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\ngithub:\n  repo: {}\n  min_write_interval_ms: 0\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\nsessions:\n  max_implementation_retries: 5\nbudgets:\n  issue_usd: 1.0\n  feature_usd: 10\n",
            crate::common::github::REPO,
            agent.display(),
            runner.display()
        ),
    );
    gh.env.issues(
        "auth",
        json!([{"order": 1, "title": "model", "github_issue": g},
               {"order": 2, "title": "docs", "dependencies": [1]}]),
    );
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.env.run(&["run", "auth"]).code(1);
    assert_eq!(gh.env.stage("auth", 1), "BLOCKED");
    let ledger = &gh.env.state("auth")["ledger"];
    assert_eq!(cents(&ledger["issues"]["1"]["usd"]), 120);

    // the status comment: the ledger's number against the issue's limit
    gh.sync().ok();
    let body = &gh.fake.status_comments(g)[0].1;
    assert!(body.contains("**Budget:** spent $1.20 of $1.00"), "{body}");
    // raising the limit shows the raised limit, the same spend
    gh.env
        .run(&["unblock", "auth", "--issue", "1", "--budget", "+0.5"])
        .ok();
    gh.sync().ok();
    let body = &gh.fake.status_comments(g)[0].1;
    assert!(body.contains("**Budget:** spent $1.20 of $1.50"), "{body}");

    // status: the feature's total and each issue's spent/limit
    let st = gh.env.run(&["status", "auth"]);
    st.ok();
    for line in [
        "budget: feature spent $1.20 of $10.00",
        "#1    spent $1.20 of $1.50",
        "#2    spent $0.00 of $1.00",
    ] {
        assert!(st.stdout.contains(line), "{line}:\n{}", st.stdout);
    }
    let j = gh.env.run(&["status", "auth", "--json"]).json();
    let one = &j["tasks"][0]["budget"];
    assert_eq!(cents(&one["spent_usd"]), 120, "{one}");
    assert_eq!(cents(&one["limit_usd"]), 150);
    assert_eq!(one["attempts"], 2);
    assert_eq!(one["unknown_cost_runs"], 0);
    assert_eq!(cents(&j["budget"]["spent_usd"]), 120);
    assert_eq!(cents(&j["budget"]["limit_usd"]), 1000);
    // the list of features carries the total too
    let all = gh.env.run(&["status"]);
    assert!(
        all.stdout.contains("spent $1.20 of $10.00"),
        "{}",
        all.stdout
    );
}
