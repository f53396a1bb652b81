//! Every LLM helper call is charged to its issue (docs/budgets.md): the specify gate, the
//! failure analyst and the `retry_fixed` lesson each record one `llm_called` with the cost
//! the helper's JSON envelope reports; the budget ledger (`status`), `audit` and `report`
//! count it.

use crate::common::agents::Setup;
use serde_json::{Value, json};

/// Fails its first attempt with a recognisable line, passes the second.
const AGENT: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "attempt $SWARM_ATTEMPT" > "src/$SWARM_ISSUE.txt"
if [ "$SWARM_ATTEMPT" = 1 ]; then
  echo 'echo "assertion failed: expected 200, got 401"; exit 1' > "checks/t_$SWARM_ISSUE.sh"
else
  echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
fi
"#;

/// A Claude-style JSON envelope (`claude -p --output-format json`) around `answer`.
fn envelope(answer: &Value, cost: f64) -> String {
    json!({"type": "result", "subtype": "success", "is_error": false,
        "result": answer.to_string(), "total_cost_usd": cost,
        "usage": {"input_tokens": 100, "output_tokens": 10}})
    .to_string()
}

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap() * 100.0).round() as i64
}

#[test]
fn the_specify_analysis_and_lesson_calls_are_charged_to_the_issue() {
    let s = Setup::new(
        "llmc",
        json!([{"order": 1, "title": "Login", "body": "Log in with a token."}]),
        AGENT,
        "sessions:\n  max_implementation_retries: 2\n",
    );
    let answers = [
        (
            "specify",
            json!({"scores": {"goal": 2, "acceptance": 2, "scope": 2, "constraints": 1, "context": 1}, "question": "Anything else?"}),
            0.01,
        ),
        (
            "failure-analysis",
            json!({"diagnosis": "implementation_bug", "recommendation": "retry",
                "reason": "the handler rejects valid tokens",
                "evidence": ["assertion failed: expected 200, got 401"]}),
            0.02,
        ),
        (
            "lesson",
            json!({"fact": "Tokens are checked before the handler runs", "files": ["src/1.txt"]}),
            0.04,
        ),
    ];
    for (purpose, answer, cost) in &answers {
        std::fs::write(
            s.trace.join(format!("{purpose}.json")),
            envelope(answer, *cost),
        )
        .unwrap();
    }
    let t = s.trace.display();
    let llm = s.env.script(
        "llm.sh",
        &format!("#!/bin/sh\ncat > /dev/null\ncat \"{t}/$SWARM_PURPOSE.json\" 2>/dev/null || echo 'A summary.'\n"),
    );
    let cfg = s.env.read("config.yaml");
    s.env.write(
        "config.yaml",
        &format!(
            "{cfg}llm:\n  command: [\"{}\"]\ngates:\n  specify:\n    enabled: true\n",
            llm.display()
        ),
    );
    s.env.run(&["run", "llmc"]).ok();
    assert_eq!(s.calls(), ["1 1", "1 2"]);
    assert_eq!(s.task("llmc", 1)["stage"], "DONE");
    let calls: Vec<(String, i64)> = s
        .events_named("llmc", "llm_called")
        .iter()
        .map(|e| {
            assert_eq!(e["issue"], 1, "{e}");
            assert_eq!(e["tokens_in"], 100, "{e}");
            (
                e["purpose"].as_str().unwrap().to_string(),
                cents(&e["cost_usd"]),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("specify".to_string(), 1),
            ("failure-analysis".to_string(), 2),
            ("lesson".to_string(), 4)
        ]
    );
    // the budget ledger: the script agent reports no cost, the helper's calls do
    let j = s.env.run(&["status", "llmc", "--json"]).json();
    let b = &j["tasks"][0]["budget"];
    assert_eq!(cents(&b["spent_usd"]), 7, "{b}");
    assert_eq!(b["attempts"], 2, "helper calls are not attempts: {b}");
    // audit: the cost and each call on the timeline, the attempts unchanged
    let a = s.env.run(&["audit", "llmc", "--json"]).json();
    assert_eq!(
        cents(&a["issues"][0]["cost_usd"]),
        7,
        "{:#}",
        a["issues"][0]
    );
    assert_eq!(a["issues"][0]["attempt_count"], 2);
    assert_eq!(a["issues"][0]["outcome"], "done");
    let text = s.env.run(&["audit", "llmc"]);
    text.ok();
    assert!(
        text.stdout
            .contains("failure-analysis call by failure-analysis, $0.02"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("lesson call by lesson-analyst, $0.04"),
        "{}",
        text.stdout
    );
    // report: the calls next to the issue's cost
    s.env.run(&["report", "llmc"]).ok();
    let html = s.env.read(".swarm/reports/llmc.html");
    assert!(html.contains("<b>LLM calls</b> 3"), "the issue's facts");
}
