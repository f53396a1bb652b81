//! `plan` and the plan printed by `greenlight`: the coordination filter end to end, with the
//! `heuristic` source and with the `llm` source answered by a script.

use crate::common::{TestEnv, snapshot_files};
use serde_json::{Value, json};

const AGENTS_YAML: &str = r#"agents:
  - name: alpha
    command: ["true"]
    angle: "user interface and styling"
    covers: ["css", "html", "frontend"]
    builds_on_other: false
  - name: beta
    command: ["true"]
    angle: "data modelling and migrations"
    covers: ["sql", "database", "migration", "schema"]
    builds_on_other: true
"#;

/// A sh script answering fixed proposals per `$SWARM_ISSUE` and `$SWARM_AGENT`; it records
/// each request (purpose, agent, issue) and the last prompt.
const LLM_SCRIPT: &str = r#"#!/bin/sh
log="$(dirname "$0")/llm-calls.log"
cat > "$(dirname "$0")/last-prompt-$SWARM_AGENT.txt"
echo "$SWARM_PURPOSE $SWARM_AGENT $SWARM_FEATURE $SWARM_ISSUE" >> "$log"
case "$SWARM_ISSUE/$SWARM_AGENT" in
  1/alpha) echo '{"angle":"restyle the page","confidence":0.9,"covers":["css"],"solo_sufficient":true,"builds_on_other":false}' ;;
  1/beta)  echo '{"angle":"nothing for me","confidence":0.2,"covers":[],"solo_sufficient":false,"builds_on_other":false}' ;;
  2/alpha) echo 'Here is my proposal: {"angle":"frontend form","confidence":0.8,"covers":["css","html"],"solo_sufficient":false,"builds_on_other":false} -- done' ;;
  2/beta)  echo '{"angle":"database table","confidence":0.75,"covers":["sql","schema"],"solo_sufficient":false,"builds_on_other":false}' ;;
  3/alpha) echo '{"angle":"api handlers","confidence":0.9,"covers":["rust","tests"],"solo_sufficient":false,"builds_on_other":false}' ;;
  3/beta)  echo '{"angle":"api handlers","confidence":0.8,"covers":["rust","tests"],"solo_sufficient":false,"builds_on_other":true}' ;;
  4/alpha) echo '{"angle":"ui","confidence":0.6,"covers":["css"],"solo_sufficient":true,"builds_on_other":false}' ;;
  4/beta)  echo 'I cannot answer in JSON, sorry.' ;;
  5/alpha) echo '{"angle":"ui","confidence":0.6,"covers":["css"],"solo_sufficient":true,"builds_on_other":false}' ;;
  5/beta)  echo 'boom' >&2; exit 3 ;;
  6/alpha) echo '{"angle":"ui","confidence":0.6,"covers":["css"],"solo_sufficient":true}' ;;
  6/beta)  sleep 5; echo '{}' ;;
  *) echo '{}' ;;
esac
"#;

fn llm_env(issues: Value) -> TestEnv {
    let env = TestEnv::new();
    let script = env.script("bin/llm.sh", LLM_SCRIPT);
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  proposal_source: llm\n{AGENTS_YAML}llm:\n  command: [\"{}\"]\n  timeout_seconds: 1\n",
            script.display()
        ),
    );
    env.issues("shop", issues);
    env
}

fn issue(n: u32, title: &str) -> Value {
    json!({"order": n, "title": title, "body": format!("body of {n}"), "labels": []})
}

fn decision(doc: &Value, n: u64) -> &Value {
    doc["decisions"]
        .as_array()
        .expect("decisions")
        .iter()
        .find(|d| d["issue"] == n)
        .unwrap_or_else(|| panic!("no decision for issue {n}: {doc}"))
}

fn proposal<'a>(d: &'a Value, agent: &str) -> &'a Value {
    d["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["agent"] == agent)
        .unwrap_or_else(|| panic!("no proposal of {agent}: {d}"))
}

fn selected(env: &TestEnv, feature: &str) -> Vec<Value> {
    env.events(feature)
        .into_iter()
        .filter(|e| e["event"] == "agents_selected")
        .collect()
}

#[test]
fn llm_proposals_reach_every_mode() {
    let env = llm_env(json!([
        issue(1, "Restyle the landing page"),
        issue(2, "Signup form with its table"),
        issue(3, "API handlers"),
    ]));
    env.run(&["greenlight", "shop"]).ok();
    let before = selected(&env, "shop").len();
    let run = env.run(&["plan", "shop", "--json"]);
    run.ok();
    let doc = run.json();
    assert_eq!(doc["feature"], "shop");
    assert_eq!(doc["decisions"].as_array().unwrap().len(), 3);

    let d1 = decision(&doc, 1);
    assert_eq!(
        (d1["mode"].as_str(), d1["winner"].as_str()),
        (Some("SOLO"), Some("alpha"))
    );
    assert!(d1["runner_up"].is_null());
    assert!(
        d1["reason"]
            .as_str()
            .unwrap()
            .starts_with("rule 1: gap 0.70"),
        "{d1}"
    );

    let d2 = decision(&doc, 2);
    assert_eq!(d2["mode"], "PARALLEL", "{d2}");
    assert_eq!(
        (d2["winner"].as_str(), d2["runner_up"].as_str()),
        (Some("alpha"), Some("beta"))
    );
    assert!(
        d2["reason"].as_str().unwrap().starts_with("rule 2: "),
        "{d2}"
    );
    // text around the JSON object is tolerated
    assert_eq!(proposal(d2, "alpha")["source"], "llm");
    assert_eq!(proposal(d2, "alpha")["covers"], json!(["css", "html"]));

    let d3 = decision(&doc, 3);
    assert_eq!(d3["mode"], "SYNTHESIS", "{d3}");
    assert_eq!(
        (d3["winner"].as_str(), d3["runner_up"].as_str()),
        (Some("alpha"), Some("beta"))
    );
    assert_eq!(d3["overlap"], 1.0);
    assert!(
        d3["reason"]
            .as_str()
            .unwrap()
            .contains("beta builds on the other"),
        "{d3}"
    );
    for d in [d1, d2, d3] {
        for p in d["proposals"].as_array().unwrap() {
            assert_eq!(p["source"], "llm", "{p}");
        }
    }

    // one agents_selected per decision, carrying the decision
    let events = selected(&env, "shop");
    assert_eq!(events.len(), before + 3);
    let modes: Vec<&str> = events[before..]
        .iter()
        .map(|e| e["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, vec!["SOLO", "PARALLEL", "SYNTHESIS"]);
    let e3 = &events[before + 2];
    assert_eq!(
        (
            e3["issue"].as_u64(),
            e3["winner"].as_str(),
            e3["runner_up"].as_str()
        ),
        (Some(3), Some("alpha"), Some("beta"))
    );
    assert_eq!(e3["reason"], d3["reason"]);
    assert_eq!(e3["proposals"], d3["proposals"]);

    // the helper got the environment of docs/run.md "External commands" and a prompt asking for the
    // JSON object
    let calls = std::fs::read_to_string(env.tmp.path().join("bin/llm-calls.log")).unwrap();
    assert!(
        calls.lines().any(|l| l == "proposal beta shop 3"),
        "{calls}"
    );
    let prompt = std::fs::read_to_string(env.tmp.path().join("bin/last-prompt-beta.txt")).unwrap();
    assert!(prompt.contains("builds_on_other"), "{prompt}");
    assert!(prompt.contains("would your response be meaningfully better if you could read the other agent's response first?"));
    assert!(prompt.contains("You are `beta`"));
}

#[test]
fn an_unusable_llm_answer_falls_back_to_the_heuristic_for_that_agent() {
    let env = llm_env(json!([
        issue(4, "Fix the header CSS"),
        issue(5, "Footer css"),
        issue(6, "Sidebar css"),
    ]));
    env.run(&["greenlight", "shop"]).ok();
    let run = env.run(&["plan", "shop", "--json"]);
    run.ok();
    let doc = run.json();

    let d4 = decision(&doc, 4);
    assert_eq!(proposal(d4, "alpha")["source"], "llm");
    let beta = proposal(d4, "beta");
    let source = beta["source"].as_str().unwrap();
    assert!(
        source.starts_with("heuristic (llm fallback: no JSON object"),
        "{source}"
    );
    // the heuristic proposal: configured angle, base confidence (nothing of beta's covers)
    assert_eq!(beta["angle"], "data modelling and migrations");
    assert_eq!(beta["confidence"], 0.35);
    assert_eq!(d4["winner"], "alpha");

    let beta5 = proposal(decision(&doc, 5), "beta");
    assert!(
        beta5["source"].as_str().unwrap().contains("exited with"),
        "{beta5}"
    );

    // issue 6: alpha's answer lacks a field, beta's answer is late
    let d6 = decision(&doc, 6);
    let alpha6 = proposal(d6, "alpha")["source"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        alpha6.contains("missing field `builds_on_other`"),
        "{alpha6}"
    );
    let beta6 = proposal(d6, "beta")["source"].as_str().unwrap().to_string();
    assert!(beta6.contains("timed out"), "{beta6}");
    // the heuristic reads the issue: alpha covers css (in the title)
    assert_eq!(d6["winner"], "alpha");
    assert_eq!(proposal(d6, "alpha")["covers"], json!(["css"]));

    assert!(
        run.stderr
            .contains("the llm proposal of agent `beta` is unusable"),
        "{}",
        run.stderr
    );
}

#[test]
fn plan_one_issue_of_any_stage_and_unknown_issue() {
    let env = TestEnv::new();
    env.write("config.yaml", AGENTS_YAML);
    env.issues(
        "shop",
        json!([
            {"order": 1, "title": "Create the orders table", "body": "Add a migration.", "labels": ["database"]},
            {"order": 2, "title": "Style the orders page", "body": "CSS for the list.", "labels": ["frontend"], "dependencies": [1]},
        ]),
    );
    env.run(&["greenlight", "shop"]).ok();
    let run = env.run(&["plan", "shop", "--issue", "2", "--json"]);
    run.ok();
    let doc = run.json();
    let ds = doc["decisions"].as_array().unwrap();
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["stage"], "BACKLOG");
    assert_eq!(ds[0]["winner"], "alpha");

    // default: READY issues only
    let doc = env.run(&["plan", "shop", "--json"]).json();
    let issues: Vec<u64> = doc["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["issue"].as_u64().unwrap())
        .collect();
    assert_eq!(issues, vec![1]);

    let bad = env.run(&["plan", "shop", "--issue", "9"]);
    bad.code(2);
    assert!(bad.stderr.contains("has no issue 9"), "{}", bad.stderr);
    env.run(&["plan", "nosuch"]).code(2);
}

#[test]
fn heuristic_plan_picks_the_agent_whose_covers_match() {
    let env = TestEnv::new();
    env.write(
        "config.yaml",
        r#"agents:
  - name: backend
    command: ["true"]
    angle: "server-side logic and APIs"
    covers: ["rust", "api", "http", "backend"]
  - name: database
    command: ["true"]
    angle: "data modelling and migrations"
    covers: ["sql", "database", "migration", "schema", "index"]
  - name: frontend
    command: ["true"]
    angle: "user interface and styling"
    covers: ["css", "html", "react", "frontend"]
"#,
    );
    env.issues(
        "app",
        json!([
            {"order": 1, "title": "Fix button styles on the login page",
             "body": "The submit button overflows on mobile; adjust the CSS so the layout is responsive.",
             "labels": ["frontend"]},
            {"order": 2, "title": "Add a migration for the sessions table",
             "body": "Create the sessions table with an index on user_id.", "labels": ["database"]},
            {"order": 3, "title": "Stylesheet cleanup",
             "body": "Remove unused rules and fix html validation warnings.", "labels": []},
        ]),
    );
    env.run(&["greenlight", "app"]).ok();
    let doc = env.run(&["plan", "app", "--json"]).json();
    let d1 = decision(&doc, 1);
    assert_eq!(
        (d1["mode"].as_str(), d1["winner"].as_str()),
        (Some("SOLO"), Some("frontend")),
        "{d1}"
    );
    assert_eq!(proposal(d1, "frontend")["source"], "heuristic");
    assert_eq!(proposal(d1, "frontend")["solo_sufficient"], true);
    let d2 = decision(&doc, 2);
    assert_eq!(
        (d2["mode"].as_str(), d2["winner"].as_str()),
        (Some("SOLO"), Some("database")),
        "{d2}"
    );
    assert_eq!(
        proposal(d2, "database")["covers"],
        json!(["database", "migration", "index"])
    );
    assert_eq!(decision(&doc, 3)["winner"], "frontend");

    // the human form shows the same decisions
    let text = env.run(&["plan", "app"]);
    text.ok();
    assert!(
        text.stdout.contains("SOLO      frontend"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("rule 1: gap"), "{}", text.stdout);
}

#[test]
fn greenlight_prints_the_plan_emits_once_and_dry_run_writes_nothing() {
    let env = TestEnv::new();
    env.write("config.yaml", AGENTS_YAML);
    env.issues(
        "shop",
        json!([{"order": 1, "title": "Orders schema", "body": "sql migration", "labels": ["database"]}]),
    );
    // dry run: the plan is computed and shown, nothing is written (the lock file aside)
    let files = |env: &TestEnv| {
        let mut s = snapshot_files(&env.root);
        s.retain(|p, _| !p.starts_with(env.path(".swarm/locks")));
        s
    };
    let before = files(&env);
    let dry = env.run(&["greenlight", "shop", "--dry-run", "--json"]);
    dry.ok();
    assert_eq!(dry.json()["plan"][0]["winner"], "beta");
    assert_eq!(before, files(&env));
    assert!(!env.path(".swarm/events/shop.jsonl").exists());

    let run = env.run(&["greenlight", "shop", "--json"]);
    run.ok();
    let doc = run.json();
    let plan = doc["plan"].as_array().unwrap();
    assert_eq!(plan.len(), 1);
    assert_eq!(
        (plan[0]["issue"].as_u64(), plan[0]["mode"].as_str()),
        (Some(1), Some("SOLO"))
    );
    let events = selected(&env, "shop");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["winner"], "beta");
    assert_eq!(events[0]["reason"], plan[0]["reason"]);

    // a second greenlight prints the plan again but appends nothing
    let log = env.read_bytes(".swarm/events/shop.jsonl");
    let text = env.run(&["greenlight", "shop"]);
    text.ok();
    assert!(text.stdout.contains("plan:"), "{}", text.stdout);
    assert!(text.stdout.contains("SOLO      beta"), "{}", text.stdout);
    assert_eq!(log, env.read_bytes(".swarm/events/shop.jsonl"));

    // a changed decision (new config) is emitted by the next greenlight
    env.write(
        "config.yaml",
        &AGENTS_YAML.replace(
            r#"covers: ["sql", "database", "migration", "schema"]"#,
            r#"covers: []"#,
        ),
    );
    env.run(&["greenlight", "shop"]).ok();
    assert_eq!(selected(&env, "shop").len(), 2);
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_plan_of_every_ready_issue_and_of_one() {
    let env = TestEnv::new().fixed_clock();
    env.write("config.yaml", AGENTS_YAML);
    env.issues(
        "auth",
        json!([
            issue(1, "Add the login API handler"),
            issue(2, "Write the SQL migration")
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    let r = env.run(&["plan", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
plan auth: 2 issues
  #1    SOLO      alpha  Add the login API handler
        rule 6: no other rule holds (alpha 0.35, beta 0.35, gap 0.00, overlap 0.14) → SOLO alpha
        alpha  0.35  heuristic
        beta   0.35  heuristic  [builds-on-other]
  #2    SOLO      beta  Write the SQL migration
        rule 1: gap 0.53 (beta 0.88, alpha 0.35) > 0.30 → SOLO beta
        beta   0.88  heuristic  covers: sql, migration  [solo-sufficient, builds-on-other]
        alpha  0.35  heuristic
----- stderr -----
"#);
    let r = env.run(&["plan", "auth", "--issue", "2", "--json"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
{
  "feature": "auth",
  "decisions": [
    {
      "issue": 2,
      "title": "Write the SQL migration",
      "stage": "READY",
      "mode": "SOLO",
      "winner": "beta",
      "runner_up": null,
      "reason": "rule 1: gap 0.53 (beta 0.88, alpha 0.35) > 0.30 → SOLO beta",
      "rule": 1,
      "overlap": 0.11,
      "proposals": [
        {
          "agent": "beta",
          "source": "heuristic",
          "angle": "data modelling and migrations",
          "confidence": 0.88,
          "covers": [
            "sql",
            "migration"
          ],
          "solo_sufficient": true,
          "builds_on_other": true
        },
        {
          "agent": "alpha",
          "source": "heuristic",
          "angle": "user interface and styling",
          "confidence": 0.35,
          "covers": [],
          "solo_sufficient": false,
          "builds_on_other": false
        }
      ]
    }
  ]
}
----- stderr -----
"#);
}
