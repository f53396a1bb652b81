//! Black-box acceptance tests of the coordination filter (docs/coordination.md "The filter")
//! through `plan`, written from the contract's sentences only.

use crate::common::TestEnv;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// the coordination filter (docs/coordination.md "The filter") through `plan`

/// Two agents whose llm proposals are fixed per issue: `<issue>/<agent>` → confidence.
fn plan_env(confidences: &[(u32, &str, &str)], agents_order: &[&str]) -> TestEnv {
    let env = TestEnv::new();
    let mut cases = String::new();
    for (issue, agent, conf) in confidences {
        // a whole proposal, or a confidence with an angle of the agent's own (overlap 0)
        let answer = if conf.starts_with('{') {
            conf.to_string()
        } else {
            format!(
                "{{\"angle\":\"angle{agent}\",\"confidence\":{conf},\"covers\":[\"cover{agent}\"],\"solo_sufficient\":false,\"builds_on_other\":false}}"
            )
        };
        cases.push_str(&format!("  {issue}/{agent}) echo '{answer}' ;;\n"));
    }
    let llm = env.script(
        "bin/llm.sh",
        &format!("#!/bin/sh\ncat >/dev/null\ncase \"$SWARM_ISSUE/$SWARM_AGENT\" in\n{cases}  *) echo nope ;;\nesac\n"),
    );
    let mut agents = String::new();
    for a in agents_order {
        agents.push_str(&format!("  - name: {a}\n    command: [\"true\"]\n"));
    }
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  proposal_source: llm\nagents:\n{agents}llm:\n  command: [\"{}\"]\n",
            llm.display()
        ),
    );
    let issues: Vec<Value> = (1..=6)
        .map(|n| json!({"order": n, "title": format!("Issue {n}")}))
        .collect();
    env.issues("pl", Value::Array(issues));
    env.run(&["greenlight", "pl"]).ok();
    env
}

fn plan_decisions(env: &TestEnv) -> Value {
    let r = env.run(&["plan", "pl", "--json"]);
    r.ok();
    r.json()
}

fn decision_of(doc: &Value, n: u64) -> Value {
    doc["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["issue"] == n)
        .cloned()
        .unwrap_or_else(|| panic!("no decision {n}: {doc}"))
}

#[test]
fn plan_compares_in_whole_hundredths_clamps_and_breaks_ties_by_name() {
    let confs = [
        // 0.295 is 0.30 in hundredths (half away from zero): not < low 0.30 → rule 6
        (1, "alpha", "0.295"),
        (1, "beta", "0.1"),
        // 0.9 − 0.6 is exactly 0.30, not > gap → both > high, overlap 0 → PARALLEL
        (2, "alpha", "0.6"),
        (2, "beta", "0.9"),
        // clamped: 1.7 → 1.00, −0.5 → 0.00
        (3, "alpha", "1.7"),
        (3, "beta", "-0.5"),
        // a tie: the name ascending wins, whatever the configured order
        (4, "alpha", "0.6"),
        (4, "beta", "0.6"),
        // 0.285 is 0.29: both < 0.30 → rule 5
        (5, "alpha", "0.285"),
        (5, "beta", "0.2"),
    ];
    let env = plan_env(&confs, &["beta", "alpha"]);
    let doc = plan_decisions(&env);
    let d1 = decision_of(&doc, 1);
    assert_eq!(d1["mode"], "SOLO");
    assert_eq!(d1["winner"], "alpha");
    assert!(d1["reason"].as_str().unwrap().starts_with("rule 6"), "{d1}");
    let d2 = decision_of(&doc, 2);
    assert_eq!(d2["mode"], "PARALLEL", "{d2}");
    assert_eq!(d2["winner"], "beta");
    assert_eq!(d2["runner_up"], "alpha");
    let d3 = decision_of(&doc, 3);
    assert_eq!(d3["mode"], "SOLO");
    assert_eq!(d3["winner"], "alpha");
    let confs3: Vec<f64> = d3["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["confidence"].as_f64().unwrap())
        .collect();
    assert_eq!(confs3, vec![1.0, 0.0]);
    let d4 = decision_of(&doc, 4);
    assert_eq!(d4["winner"], "alpha", "{d4}");
    assert_eq!(d4["proposals"][0]["agent"], "alpha");
    let d5 = decision_of(&doc, 5);
    assert!(d5["reason"].as_str().unwrap().starts_with("rule 5"), "{d5}");
    // the same decisions with the agents configured the other way round
    let env2 = plan_env(&confs, &["alpha", "beta"]);
    let doc2 = plan_decisions(&env2);
    for n in 1..=5 {
        let (a, b) = (decision_of(&doc, n), decision_of(&doc2, n));
        for k in ["mode", "winner", "runner_up", "reason"] {
            assert_eq!(a[k], b[k], "issue {n} {k}");
        }
    }
    // the text plan shows mode, winner, runner-up and the reason of each issue
    let r = env.run(&["plan", "pl", "--issue", "2"]);
    r.ok();
    assert!(r.stdout.contains("PARALLEL"), "{}", r.stdout);
    assert!(r.stdout.contains("beta") && r.stdout.contains("alpha"));
    assert!(
        r.stdout.contains(d2["reason"].as_str().unwrap()),
        "{}",
        r.stdout
    );
}

#[test]
fn one_eligible_agent_is_solo() {
    let env = plan_env(&[(1, "solo", "0.99")], &["solo"]);
    let doc = plan_decisions(&env);
    let d = decision_of(&doc, 1);
    assert_eq!(d["mode"], "SOLO");
    assert_eq!(d["winner"], "solo");
    assert!(d["runner_up"].is_null());
}

#[test]
fn plan_thresholds_are_strict_where_the_spec_says_so() {
    let p = |angle: &str, conf: &str, builds: bool| {
        format!(
            "{{\"angle\":\"{angle}\",\"confidence\":{conf},\"covers\":[],\"solo_sufficient\":false,\"builds_on_other\":{builds}}}"
        )
    };
    let cases = [
        // overlap exactly 0.50 ({red, green, blue} vs {red, green, pink}: 2/4) is not
        // < 0.50: no PARALLEL; rule 4 → SOLO
        (1, "alpha", p("red green blue", "0.8", false)),
        (1, "beta", p("red green pink", "0.8", false)),
        // the same but one token less shared (1/5 = 0.20 < 0.50) → PARALLEL
        (2, "alpha", p("red green blue", "0.8", false)),
        (2, "beta", p("red yellow pink", "0.8", false)),
        // SYNTHESIS needs both > 0.70: 0.70 is not → rule 4 SOLO
        (3, "alpha", p("api handlers", "0.75", false)),
        (3, "beta", p("api handlers", "0.70", true)),
        // both above: SYNTHESIS alpha then beta
        (4, "alpha", p("api handlers", "0.75", false)),
        (4, "beta", p("api handlers", "0.71", true)),
        // same angle, nobody builds on the other → rule 4 SOLO
        (5, "alpha", p("api handlers", "0.9", false)),
        (5, "beta", p("api handlers", "0.9", false)),
    ];
    let owned: Vec<(u32, &str, &str)> =
        cases.iter().map(|(i, a, c)| (*i, *a, c.as_str())).collect();
    let env = plan_env(&owned, &["alpha", "beta"]);
    let doc = plan_decisions(&env);
    let d = |n: u64| decision_of(&doc, n);
    let rule = |n: u64| d(n)["reason"].as_str().unwrap().to_string();
    assert_eq!(d(1)["mode"], "SOLO", "{}", d(1));
    assert!(rule(1).starts_with("rule 4"), "{}", rule(1));
    assert_eq!(d(1)["overlap"], 0.5);
    assert_eq!(d(2)["mode"], "PARALLEL", "{}", d(2));
    assert_eq!(d(3)["mode"], "SOLO", "{}", d(3));
    assert!(rule(3).starts_with("rule 4"), "{}", rule(3));
    assert_eq!(d(4)["mode"], "SYNTHESIS", "{}", d(4));
    assert_eq!(d(4)["winner"], "alpha");
    assert_eq!(d(4)["runner_up"], "beta");
    assert_eq!(d(5)["mode"], "SOLO", "{}", d(5));
    assert_eq!(d(5)["winner"], "alpha");
    assert!(d(5)["runner_up"].is_null());
}
