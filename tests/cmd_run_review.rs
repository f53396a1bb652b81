//! The review gate (docs/review.md) with script agents: an implementer `coder` (forced SOLO by
//! fixed `llm` proposals) that fixes calc.sh with a real test, and reviewers whose answers
//! the test writes per call (`$TRACE/<reviewer>-answer-<n>.txt`, else
//! `$TRACE/<reviewer>-answer.txt`).

use crate::common::TestEnv;
use crate::common::agents::RUNNER as CHECKS_RUNNER;
use crate::common::review::{answer_with, finding};
use serde_json::{Value, json};
use std::path::PathBuf;

const CODER: &str = r#"#!/bin/sh
cat > "$TRACE/coder-prompt-$SWARM_ATTEMPT.txt"
n=$(( $(cat "$TRACE/coder.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$TRACE/coder.n"
printf 'echo $(($1 + $2))\n' > calc.sh
if grep -q '## Review findings' "$TRACE/coder-prompt-$SWARM_ATTEMPT.txt"; then
  printf '# checked for overflow\n' >> calc.sh
  echo '{"result": "Fixed the finding: added the check.", "total_cost_usd": 0.1}'
  exit 0
fi
mkdir -p tests
echo '[ "$(sh calc.sh 4 4)" = 8 ]' > tests/test_issue_1.sh
echo '{"result": "done", "total_cost_usd": 0.1}'
"#;

const REVIEWER: &str = r#"#!/bin/sh
n=$(( $(cat "$TRACE/$SWARM_AGENT.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$TRACE/$SWARM_AGENT.n"
cat > "$TRACE/$SWARM_AGENT-prompt-$n.txt"
env > "$TRACE/$SWARM_AGENT-env.txt"
pwd > "$TRACE/$SWARM_AGENT-pwd.txt"
if [ -f "$TRACE/$SWARM_AGENT-crash" ]; then echo boom >&2; exit 1; fi
if [ -f "$TRACE/$SWARM_AGENT-edits" ]; then echo evil > evil.txt; echo 'exit 0' > calc.sh; fi
f="$TRACE/$SWARM_AGENT-answer-$n.txt"; [ -f "$f" ] || f="$TRACE/$SWARM_AGENT-answer.txt"
cat "$f"
"#;

struct Rev {
    env: TestEnv,
    trace: PathBuf,
}

impl Rev {
    /// `reviewers`: agent names (each runs REVIEWER); `review`: the `review:` body lines.
    fn new(reviewers: &[&str], review: &str) -> Rev {
        Rev::with_config(reviewers, &format!("review:\n  enabled: true\n{review}"))
    }

    /// [`Rev::new`] with the config's whole `review:` (and any later) sections given.
    fn with_config(reviewers: &[&str], review_section: &str) -> Rev {
        let env = TestEnv::new();
        env.write("calc.sh", "echo $(($1 - $2))\n");
        env.write("README.md", "calc\nline 2\nline 3\n");
        env.git(&["add", "."]);
        env.git(&["commit", "-q", "-m", "chore: calc"]);
        let trace = env.tmp.path().join("trace");
        std::fs::create_dir_all(&trace).unwrap();
        let t = trace.display().to_string();
        let coder = env.script("coder.sh", &CODER.replace("$TRACE", &t));
        let reviewer = env.script("reviewer.sh", &REVIEWER.replace("$TRACE", &t));
        let runner = env.script("runner.sh", &CHECKS_RUNNER.replace("checks/", "tests/"));
        let mut proposals = String::from(
            "  proposal/coder) echo '{\"angle\":\"calc\",\"confidence\":0.9,\"covers\":[\"sh\"],\"solo_sufficient\":true,\"builds_on_other\":false}' ;;\n",
        );
        let mut agents = format!(
            "  - name: coder\n    command: [\"{}\"]\n    timeout_seconds: 30\n",
            coder.display()
        );
        for r in reviewers {
            proposals.push_str(&format!("  proposal/{r}) echo '{{\"angle\":\"review\",\"confidence\":0.1,\"covers\":[\"x\"],\"solo_sufficient\":true,\"builds_on_other\":false}}' ;;\n"));
            agents.push_str(&format!(
                "  - name: {r}\n    command: [\"{}\"]\n    timeout_seconds: 30\n",
                reviewer.display()
            ));
        }
        let llm = env.script(
            "llm.sh",
            &format!(
                "#!/bin/sh\ncat > /dev/null\ncase \"$SWARM_PURPOSE/$SWARM_AGENT\" in\n{proposals}  *) echo 'Implemented.' ;;\nesac\n"
            ),
        );
        env.write(
            "config.yaml",
            &format!(
                "coordination:\n  github_sync_enabled: false\n  proposal_source: llm\nagents:\n{agents}llm:\n  command: [\"{}\"]\n  timeout_seconds: 10\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\nsessions:\n  max_implementation_retries: 1\n{review_section}",
                llm.display(),
                runner.display()
            ),
        );
        env.issues(
            "calc",
            json!([{"order": 1, "title": "Fix add", "body": "calc.sh subtracts instead of adding."}]),
        );
        env.run(&["greenlight", "calc"]).ok();
        Rev { env, trace }
    }

    /// The reviewer's answer for call `n` (0: every call without its own).
    fn answer(&self, reviewer: &str, n: u32, text: &str) {
        let name = if n == 0 {
            format!("{reviewer}-answer.txt")
        } else {
            format!("{reviewer}-answer-{n}.txt")
        };
        std::fs::write(self.trace.join(name), text).unwrap();
    }

    fn flag(&self, file: &str) {
        std::fs::write(self.trace.join(file), "").unwrap();
    }

    fn trace(&self, file: &str) -> String {
        std::fs::read_to_string(self.trace.join(file)).unwrap_or_default()
    }

    fn events(&self, name: &str) -> Vec<Value> {
        self.env.events_named("calc", name)
    }

    fn task(&self) -> Value {
        self.env.state("calc")["tasks"][0].clone()
    }

    fn verdicts(&self) -> Vec<String> {
        self.events("review_verdict")
            .iter()
            .map(|e| e["verdict"].as_str().unwrap().to_string())
            .collect()
    }
}

#[test]
fn a_clean_review_passes_and_the_reviewer_is_charged_and_sandboxed() {
    let r = Rev::new(&["rev"], "");
    r.answer(
        "rev",
        0,
        &format!(
            "{{\"result\": {}, \"total_cost_usd\": 0.05}}",
            serde_json::to_string(&answer_with(&[])).unwrap()
        ),
    );
    r.flag("rev-edits");
    let out = r.env.run(&["run", "calc"]);
    out.ok();
    assert_eq!(r.task()["stage"], "DONE", "{}", out.stdout);
    assert_eq!(r.verdicts(), ["pass"]);
    // the reviewer's environment and worktree
    let env = r.trace("rev-env.txt");
    assert!(env.contains("SWARM_PURPOSE=review"), "{env}");
    assert!(env.contains("SWARM_ROLE=reviewer"), "{env}");
    let pwd = r.trace("rev-pwd.txt");
    assert!(!pwd.trim().is_empty());
    // what it edited never lands
    let files = r.env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(!files.contains("evil.txt"), "{files}");
    assert_eq!(r.env.read("calc.sh"), "echo $(($1 + $2))\n");
    // its prompt holds the issue, the diff and the test result, on stdin
    let prompt = r.trace("rev-prompt-1.txt");
    assert!(prompt.contains("calc.sh subtracts instead of adding."));
    assert!(prompt.contains("+echo $(($1 + $2))"), "{prompt}");
    assert!(prompt.contains("passed"));
    // its cost is an agent run of the issue (the ledger) and on review_finished
    let fin: Vec<Value> = r
        .events("agent_finished")
        .into_iter()
        .filter(|e| e["agent"] == "rev")
        .collect();
    assert_eq!(fin.len(), 1);
    assert_eq!(fin[0]["cost_usd"], 0.05);
    let rf = &r.events("review_finished")[0];
    assert_eq!(rf["cost_usd"], 0.05);
    assert_eq!(rf["round"], 1);
    assert_eq!(rf["error"], Value::Null);
    let started = r.events("agent_started");
    assert!(started.iter().any(|e| e["role"] == "reviewer"));
}

#[test]
fn lgtm_in_words_with_a_critical_anchored_finding_fails_then_a_fix_round_passes() {
    let r = Rev::new(&["rev"], "");
    r.answer(
        "rev",
        1,
        &format!(
            "LGTM, ship it!\n{}",
            answer_with(&[finding("critical", 92, "calc.sh", 1, "no overflow check")])
        ),
    );
    r.answer("rev", 0, &answer_with(&[]));
    let out = r.env.run(&["run", "calc"]);
    out.ok();
    assert_eq!(r.task()["stage"], "DONE", "{}", out.stdout);
    assert_eq!(r.verdicts(), ["fail", "pass"]);
    // one attempt: the fix round is inside it
    assert_eq!(r.task()["retries"], 0);
    assert_eq!(r.trace("coder.n").trim(), "2");
    let fix_prompt = r.trace("coder-prompt-1.txt");
    assert!(fix_prompt.contains("no overflow check"), "{fix_prompt}");
    // the second round shows the earlier findings and the implementer's answer
    let p2 = r.trace("rev-prompt-2.txt");
    assert!(p2.contains("## Round 2"), "{p2}");
    assert!(p2.contains("no overflow check"));
    assert!(p2.contains("Fixed the finding"), "{p2}");
    // the fix landed
    assert!(r.env.read("calc.sh").contains("checked for overflow"));
    // the finding the second round no longer reported is a `review_fixed` lesson on its file
    let lessons = r.env.run(&["lessons", "list", "--json"]).json();
    let lessons = lessons["lessons"].as_array().unwrap();
    assert_eq!(lessons.len(), 1, "{lessons:?}");
    assert_eq!(lessons[0]["source"], "review_fixed");
    assert_eq!(lessons[0]["fact"], "no overflow check");
    assert_eq!(lessons[0]["files"], json!(["calc.sh"]));
}

#[test]
fn fail_after_the_last_round_is_a_retry_with_the_findings() {
    let r = Rev::new(&["rev"], "  fix_rounds: 0\n");
    r.answer(
        "rev",
        0,
        &answer_with(&[finding("major", 90, "calc.sh", 1, "wrong operator")]),
    );
    let out = r.env.run(&["run", "calc"]);
    out.code(1);
    let t = r.task();
    assert_eq!(t["stage"], "BLOCKED");
    let reason = t["blocked_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("review: 1 blocking finding(s): wrong operator (calc.sh:1)"),
        "{reason}"
    );
    let retry = r.trace("coder-prompt-2.txt");
    assert!(retry.contains("wrong operator"), "{retry}");
    assert_eq!(r.env.git(&["log", "-1", "--format=%s"]), "chore: calc");
}

/// A lying reviewer's finding on a file the candidate did not change.
fn invented(confidence: u32) -> String {
    finding(
        "critical",
        confidence,
        "README.md",
        2,
        "invented on an unchanged file",
    )
}

/// A lying reviewer's finding on a changed file, far from any changed line.
fn far_away(confidence: u32) -> String {
    finding("critical", confidence, "calc.sh", 40, "far from any change")
}

#[test]
fn invented_unanchored_and_low_confidence_findings_are_recorded_never_counted() {
    let r = Rev::new(&["rev"], "");
    r.answer(
        "rev",
        0,
        &answer_with(&[
            invented(99),
            far_away(99),
            finding("critical", 60, "calc.sh", 1, "unsure"),
            finding("blocker", 99, "calc.sh", 1, "bad severity"),
            finding("minor", 85, "calc.sh", 1, "style-ish but real"),
        ]),
    );
    r.env.run(&["run", "calc"]).ok();
    assert_eq!(r.task()["stage"], "DONE");
    assert_eq!(r.verdicts(), ["pass_with_risk"]);
    let rf = &r.events("review_finished")[0];
    let reasons: Vec<Value> = rf["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["drop_reason"].clone())
        .collect();
    assert_eq!(
        reasons,
        vec![
            json!("unanchored"),
            json!("unanchored"),
            json!("below_confidence"),
            json!("invalid"),
            Value::Null
        ]
    );
    assert_eq!(rf["counted"], 1);
    assert_eq!(rf["dropped"], 4);
    // the status comment's `**Review:**` line is kept on the task
    assert_eq!(
        r.task()["review"],
        "pass_with_risk (single): [minor] calc.sh:1 — style-ish but real"
    );
}

#[test]
fn an_invalid_answer_gets_one_reprompt_and_a_crash_goes_to_the_next_reviewer() {
    let r = Rev::new(&["broken", "rev"], "  reviewers: [broken, rev]\n");
    r.flag("broken-crash");
    r.answer("rev", 1, "Looks good to me.");
    r.answer("rev", 2, &answer_with(&[]));
    r.env.run(&["run", "calc"]).ok();
    assert_eq!(r.task()["stage"], "DONE");
    assert_eq!(r.verdicts(), ["pass"]);
    assert_eq!(
        r.trace("broken.n").trim(),
        "1",
        "a failed reviewer is not run twice"
    );
    assert_eq!(r.trace("rev.n").trim(), "2");
    let again = r.trace("rev-prompt-2.txt");
    assert!(
        again.contains("could not be read: the answer holds no JSON object"),
        "{again}"
    );
    let fins = r.events("review_finished");
    assert_eq!(fins[0]["reviewer"], "broken");
    assert!(fins[0]["error"].as_str().is_some());
    assert_eq!(r.task()["retries"], 0);
}

#[test]
fn a_crashed_reviewer_is_replaced_by_the_next_agent_of_its_fallback_chain() {
    let r = Rev::new(&["broken", "rev", "backup"], "  reviewers: [broken, rev]\n");
    let cfg = r.env.read("config.yaml").replace(
        "  - name: broken\n",
        "  - name: broken\n    fallback: [backup]\n",
    );
    r.env.write("config.yaml", &cfg);
    r.flag("broken-crash");
    r.answer("backup", 0, &answer_with(&[]));
    // the queue's next reviewer would block the change: it must not be the one asked
    r.answer(
        "rev",
        0,
        &answer_with(&[finding("critical", 99, "calc.sh", 1, "wrong")]),
    );
    r.env.run(&["run", "calc"]).ok();
    assert_eq!(r.task()["stage"], "DONE");
    assert_eq!(r.verdicts(), ["pass"]);
    assert_eq!(r.trace("broken.n").trim(), "1");
    assert_eq!(
        r.trace("backup.n").trim(),
        "1",
        "the chain's agent reviewed"
    );
    assert_eq!(r.trace("rev.n"), "", "the queue's next was not needed");
    let fb = r.events("agent_fallback");
    assert_eq!(fb.len(), 1, "{fb:?}");
    assert_eq!(
        (
            fb[0]["from"].as_str(),
            fb[0]["to"].as_str(),
            fb[0]["attempt"].as_u64(),
            fb[0]["reason"].as_str()
        ),
        (
            Some("broken"),
            Some("backup"),
            Some(1),
            Some("reviewer crashed")
        )
    );
    assert_eq!(r.task()["retries"], 0, "a reviewer failure uses no retry");
}

#[test]
fn no_valid_answer_blocks_at_once_or_lands_unreviewed() {
    let r = Rev::new(&["rev"], "");
    r.flag("rev-crash");
    r.env.run(&["run", "calc"]).code(1);
    let t = r.task();
    assert_eq!(t["stage"], "BLOCKED");
    assert!(
        t["blocked_reason"]
            .as_str()
            .unwrap()
            .starts_with("review could not run:"),
        "{t}"
    );
    assert_eq!(t["retries"], 0);
    assert_eq!(r.trace("coder.n").trim(), "1");

    let land = Rev::new(&["rev"], "  on_error: land\n");
    land.flag("rev-crash");
    land.env.run(&["run", "calc"]).ok();
    assert_eq!(land.task()["stage"], "DONE");
    assert_eq!(land.verdicts(), ["unreviewed"]);
}

#[test]
fn cross_counts_a_matched_pair_once_with_a_boost() {
    let r = Rev::new(
        &["r1", "r2"],
        "  strategy: cross\n  fix_rounds: 0\n  reviewers: [r1, r2]\n",
    );
    // each alone is below 80; together they match (same file, 1 line apart): 85
    r.answer(
        "r1",
        0,
        &answer_with(&[finding("major", 75, "calc.sh", 1, "sign bug")]),
    );
    r.answer(
        "r2",
        0,
        &answer_with(&[finding("minor", 72, "calc.sh", 2, "sign")]),
    );
    r.env.run(&["run", "calc"]).code(1);
    let v = r.events("review_verdict");
    assert_eq!(v[0]["verdict"], "fail");
    assert_eq!(v[0]["strategy"], "cross");
    assert_eq!(v[0]["counted"], 1);
    // each reviewer alone counted nothing
    for f in r.events("review_finished").iter().take(2) {
        assert_eq!(f["counted"], 0, "{f}");
    }
}

#[test]
fn a_risky_issue_is_reviewed_with_the_risk_strategy_though_the_gate_is_off() {
    let gates = "review:\n  enabled: false\ngates:\n  risk:\n    enabled: true\n    keywords: [subtracts]\n    review: single\n    landing: pr\n";
    let r = Rev::with_config(&["rev"], gates);
    r.answer("rev", 0, &answer_with(&[]));
    let out = r.env.run(&["run", "calc"]);
    out.ok();
    assert_eq!(r.task()["stage"], "DONE", "{}", out.stderr);
    assert_eq!(r.verdicts(), ["pass"]);
    assert_eq!(r.events("review_verdict")[0]["strategy"], "single");
    assert_eq!(r.events("risk_flagged").len(), 1);

    // the same issue without the risk signal: the gate stays off
    let calm =
        "review:\n  enabled: false\ngates:\n  risk:\n    enabled: true\n    keywords: [payments]\n";
    let r = Rev::with_config(&["rev"], calm);
    r.answer("rev", 0, &answer_with(&[]));
    r.env.run(&["run", "calc"]).ok();
    assert_eq!(r.task()["stage"], "DONE");
    assert!(r.verdicts().is_empty());
    assert!(r.events("risk_flagged").is_empty());
}

/// `cross` with r1 and r2, no fix round, and `extra` review lines.
fn cross_rev(extra: &str) -> Rev {
    Rev::new(
        &["r1", "r2"],
        &format!("  strategy: cross\n  fix_rounds: 0\n  reviewers: [r1, r2]\n{extra}"),
    )
}

/// (title, counted, drop_reason) of the round's findings in `review-1.json`.
fn round_findings(r: &Rev) -> Vec<(String, bool, Value)> {
    let text = r
        .env
        .read(".swarm/runs/calc/issue-1/attempt-1/review-1.json");
    let v: Value = serde_json::from_str(&text).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["title"].as_str().unwrap_or_default().to_string(),
                f["counted"].as_bool().unwrap(),
                f.get("drop_reason").cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

#[test]
fn a_lone_cross_finding_blocks_by_default_and_not_under_the_stricter_bar() {
    // r1 alone reports a major finding at 90 on a changed line; r2 finds nothing
    let lone = answer_with(&[finding("major", 90, "calc.sh", 1, "lone guess")]);
    let r = cross_rev("");
    r.answer("r1", 0, &lone);
    r.answer("r2", 0, &answer_with(&[]));
    r.env.run(&["run", "calc"]).code(1);
    assert_eq!(r.verdicts()[0], "fail");
    assert_eq!(
        round_findings(&r),
        [("lone guess".to_string(), true, Value::Null)]
    );

    let r = cross_rev("  cross_unmatched_min_confidence: 95\n");
    r.answer("r1", 0, &lone);
    r.answer("r2", 0, &answer_with(&[]));
    r.env.run(&["run", "calc"]).ok();
    assert_eq!(r.task()["stage"], "DONE");
    assert_eq!(r.verdicts(), ["pass"]);
    let v = &r.events("review_verdict")[0];
    assert_eq!(
        (v["strategy"].as_str(), v["counted"].as_u64()),
        (Some("cross"), Some(0))
    );
    assert_eq!(
        round_findings(&r),
        [("lone guess".to_string(), false, json!("below_confidence"))]
    );
    // r1's own view (review_finished) still counts it at min_confidence
    let mine = r.events("review_finished");
    let r1 = mine.iter().find(|e| e["reviewer"] == "r1").unwrap();
    assert_eq!(r1["counted"], 1, "{r1}");
}

#[test]
fn under_the_stricter_bar_a_matched_pair_still_blocks_and_lying_reviewers_are_dropped() {
    // r1 lies: an invented finding on an unchanged file and one far from any change, both
    // at 100, and a weak one at 75 on the changed line; r2 claims 94 on every changed line
    // (high confidence on everything) and agrees with r1 near calc.sh:1
    let r = cross_rev("  cross_unmatched_min_confidence: 95\n");
    r.answer(
        "r1",
        0,
        &answer_with(&[
            invented(100),
            far_away(100),
            finding("major", 75, "calc.sh", 1, "sign bug"),
        ]),
    );
    r.answer(
        "r2",
        0,
        &answer_with(&[
            finding("minor", 94, "calc.sh", 2, "sign"),
            finding("major", 94, "tests/test_issue_1.sh", 1, "weak test"),
        ]),
    );
    r.env.run(&["run", "calc"]).code(1);
    let v = r.events("review_verdict");
    assert_eq!(v[0]["verdict"], "fail");
    assert_eq!(v[0]["counted"], 1);
    let mut got = round_findings(&r);
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            (
                "far from any change".to_string(),
                false,
                json!("unanchored")
            ),
            (
                "invented on an unchanged file".to_string(),
                false,
                json!("unanchored")
            ),
            // the matched pair: max(75, 94) + 10, counted at min_confidence
            ("sign".to_string(), true, Value::Null),
            // r2 alone, 94 < 95: recorded, not counted
            ("weak test".to_string(), false, json!("below_confidence")),
        ]
    );
    // the reason names the pair, the only blocking finding
    assert!(
        r.task()["blocked_reason"]
            .as_str()
            .unwrap_or_default()
            .contains("review: 1 blocking finding(s): sign (calc.sh:2)"),
        "{}",
        r.task()
    );
}

#[test]
fn a_reviewer_claiming_certainty_on_everything_passes_any_bar_alone() {
    // the limit of the stricter bar (docs/review.md "A stricter `cross`"): a lone finding
    // claimed at 100 still counts at 95; only the other reviewer's silence is not enough
    let r = cross_rev("  cross_unmatched_min_confidence: 95\n");
    r.answer(
        "r1",
        0,
        &answer_with(&[finding("major", 100, "calc.sh", 1, "certain")]),
    );
    r.answer("r2", 0, &answer_with(&[]));
    r.env.run(&["run", "calc"]).code(1);
    assert_eq!(r.verdicts()[0], "fail");
    assert_eq!(
        round_findings(&r),
        [("certain".to_string(), true, Value::Null)]
    );
}
