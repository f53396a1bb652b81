//! After a failure (docs/run.md "After a failure: classes, analysis, fallback"): the class decided
//! by code, one `failure_analyzed` per failed attempt, the analysis of `tests` failures by a
//! stand-in analyst (`llm.command` or `analysis.agent`) — every recommendation, the evidence check
//! against an analyst that invents its quotes, the one re-prompt, the `llm-text` path, "never the
//! same retry twice", and `depend` (the edge added, the dependency first, the retry given back;
//! unknown and cyclic dependencies escalate).

use crate::common::agents::Setup;
use serde_json::{Value, json};

/// Fails the tests (the check prints a recognisable line) unless `src/2.txt` exists (issue
/// 1 needs issue 2's work); every other issue passes.
const NEEDS_TWO: &str = r#"cat > "$TRACE/prompt-$SWARM_ISSUE-$SWARM_ATTEMPT.txt"
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
if [ "$SWARM_ISSUE" = 1 ]; then
  echo '[ -e src/2.txt ] || { echo "assertion failed: token store missing (src/2.txt)"; exit 1; }' > checks/t_1.sh
else
  echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
fi
"#;

/// Always fails its tests with the same line.
const FAILING: &str = r#"cat > "$TRACE/prompt-$SWARM_ISSUE-$SWARM_ATTEMPT.txt"
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo 'echo "assertion failed: expected 200, got 401"; exit 1' > "checks/t_$SWARM_ISSUE.sh"
"#;

/// Fails until it is told a modified approach (the prompt holds `use the cache`).
const NEEDS_APPROACH: &str = r#"cat > "$TRACE/prompt-$SWARM_ISSUE-$SWARM_ATTEMPT.txt"
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
if grep -q 'use the cache' "$TRACE/prompt-$SWARM_ISSUE-$SWARM_ATTEMPT.txt"; then
  echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
else
  echo 'echo "assertion failed: expected 200, got 401"; exit 1' > "checks/t_$SWARM_ISSUE.sh"
fi
"#;

/// A stand-in analyst: answer number k (1-based, per run) is the k-th line of
/// `$TRACE/answers.txt` (the last line once they run out); every prompt is saved.
fn analyst(s: &Setup, answers: &[&str]) -> String {
    std::fs::write(s.trace.join("answers.txt"), answers.join("\n") + "\n").unwrap();
    let t = s.trace.display();
    let script = s.env.script(
        "analyst.sh",
        &format!(
            "#!/bin/sh\nn=$(cat \"{t}/asked\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"{t}/asked\"\ncat > \"{t}/analysis-prompt-$n.txt\"\necho \"$SWARM_PURPOSE $SWARM_ISSUE\" >> \"{t}/purposes.txt\"\nlines=$(wc -l < \"{t}/answers.txt\")\nk=$n; [ $k -gt $lines ] && k=$lines\nsed -n \"${{k}}p\" \"{t}/answers.txt\" | sed 's/\\\\n/\\n/g'\n"
        ),
    );
    script.display().to_string()
}

fn with_llm(s: &Setup, answers: &[&str], extra: &str) {
    let llm = analyst(s, answers);
    let cfg = s.env.read("config.yaml");
    s.env.write(
        "config.yaml",
        &format!("{cfg}llm:\n  command: [\"{llm}\"]\n{extra}"),
    );
}

fn analyses(s: &Setup, feature: &str) -> Vec<Value> {
    s.events_named(feature, "failure_analyzed")
}

fn asked(s: &Setup) -> usize {
    std::fs::read_to_string(s.trace.join("asked"))
        .map(|n| n.trim().parse().unwrap())
        .unwrap_or(0)
}

fn prompt_of(s: &Setup, issue: u32, attempt: u32) -> String {
    std::fs::read_to_string(s.trace.join(format!("prompt-{issue}-{attempt}.txt"))).unwrap()
}

const EVIDENCE: &str = r#""evidence": ["assertion failed: expected 200, got 401"]"#;

fn json_answer(diagnosis: &str, rec: &str, extra: &str) -> String {
    format!(
        r#"{{"diagnosis": "{diagnosis}", "recommendation": "{rec}", "reason": "the handler rejects valid tokens", {EVIDENCE}{extra}}}"#
    )
}

#[test]
fn every_recommendation_of_a_valid_analysis_decides_the_next_step() {
    // retry: attempt 2 gets the failure and the analysis; the same diagnosis is not repeated
    let s = Setup::new(
        "an",
        json!([{"order": 1, "title": "Login"}]),
        NEEDS_APPROACH,
        "sessions:\n  max_implementation_retries: 1\n",
    );
    with_llm(&s, &[&json_answer("environment", "retry", "")], "");
    s.env.run(&["run", "an"]).code(1);
    assert_eq!(s.calls(), ["1 1", "1 2"]);
    let p2 = prompt_of(&s, 1, 2);
    assert!(p2.contains("### Earlier analyses"), "{p2}");
    assert!(
        p2.contains("Attempt 1 (fake): tests/tests_failed, environment → retry"),
        "{p2}"
    );
    let a = analyses(&s, "an");
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[0]["source"], "llm");
    assert_eq!(a[0]["class"], "tests");
    assert_eq!(a[0]["diagnosis"], "environment");
    assert_eq!(
        a[0]["evidence"],
        json!(["assertion failed: expected 200, got 401"])
    );

    // modify: the next attempt's Current Task holds the modified approach, and it passes
    let s = Setup::new(
        "an",
        json!([{"order": 1, "title": "Login"}]),
        NEEDS_APPROACH,
        "sessions:\n  max_implementation_retries: 2\n",
    );
    with_llm(
        &s,
        &[&json_answer(
            "implementation_bug",
            "modify",
            r#", "modified_approach": "use the cache instead of the database""#,
        )],
        "",
    );
    s.env.run(&["run", "an"]).ok();
    assert_eq!(s.calls(), ["1 1", "1 2"]);
    let p2 = prompt_of(&s, 1, 2);
    let task_part =
        &p2[p2.find("## Current Task").unwrap()..p2.find("## Acceptance Criteria").unwrap()];
    assert!(task_part.contains("### Modified approach"), "{task_part}");
    assert!(task_part.contains("use the cache instead of the database"));
    assert_eq!(s.task("an", 1)["stage"], "DONE");

    // skip and escalate end the issue at once
    for (rec, stage, code) in [("skip", "SKIPPED", 0), ("escalate", "BLOCKED", 1)] {
        let s = Setup::new(
            "an",
            json!([{"order": 1, "title": "Login"}]),
            FAILING,
            "sessions:\n  max_implementation_retries: 3\n",
        );
        with_llm(&s, &[&json_answer("test_expectation", rec, "")], "");
        s.env.run(&["run", "an"]).code(code);
        assert_eq!(s.calls(), ["1 1"], "{rec}");
        let t = s.task("an", 1);
        assert_eq!(t["stage"], stage);
        assert_eq!(t["retries"], 0);
        let reason = t["blocked_reason"].as_str().unwrap();
        if rec == "escalate" {
            assert!(
                reason.starts_with("needs a person: the handler rejects valid tokens"),
                "{reason}"
            );
        } else {
            let skipped = s.events_named("an", "issue_skipped");
            assert!(
                skipped[0]["reason"]
                    .as_str()
                    .unwrap()
                    .contains("failure analysis: skip"),
                "{skipped:?}"
            );
        }
        assert_eq!(analyses(&s, "an")[0]["recommendation"], rec);
    }
}

#[test]
fn an_analyst_that_invents_evidence_is_rejected_after_one_reprompt() {
    let s = Setup::new(
        "inv",
        json!([{"order": 1, "title": "Login"}]),
        NEEDS_APPROACH,
        "sessions:\n  max_implementation_retries: 1\n",
    );
    // it wants the issue skipped, quoting a line the tests never printed
    let lying = r#"{"diagnosis": "test_expectation", "recommendation": "skip", "reason": "the test is wrong", "evidence": ["all 12 tests passed on main"]}"#;
    with_llm(&s, &[lying], "");
    s.env.run(&["run", "inv"]).code(1);
    // not skipped: a plain retry, then BLOCKED when the retries are used up
    assert_eq!(s.calls(), ["1 1", "1 2"]);
    assert_eq!(s.task("inv", 1)["stage"], "BLOCKED");
    assert!(s.events_named("inv", "issue_skipped").is_empty());
    let a = analyses(&s, "inv");
    assert_eq!(a[0]["source"], "rule");
    assert_eq!(a[0]["recommendation"], "retry");
    assert!(
        a[0]["reason"].as_str().unwrap().contains("verbatim"),
        "{a:?}"
    );
    // asked twice per analysed failure: the question and one re-prompt naming the problem
    assert_eq!(asked(&s), 4);
    let again = std::fs::read_to_string(s.trace.join("analysis-prompt-2.txt")).unwrap();
    assert!(
        again.contains("Your previous answer was invalid"),
        "{again}"
    );
    assert!(again.contains("occurs verbatim"), "{again}");
}

#[test]
fn an_invalid_answer_gets_one_reprompt_and_the_valid_second_answer_counts() {
    let s = Setup::new(
        "re",
        json!([{"order": 1, "title": "Login", "body": "Add login."}]),
        FAILING,
        "sessions:\n  max_implementation_retries: 3\n",
    );
    let missing_reason =
        format!(r#"{{"diagnosis": "unclear", "recommendation": "escalate", {EVIDENCE}}}"#);
    with_llm(
        &s,
        &[&missing_reason, &json_answer("unclear", "escalate", "")],
        "",
    );
    s.env.run(&["run", "re"]).code(1);
    assert_eq!(asked(&s), 2);
    let first = std::fs::read_to_string(s.trace.join("analysis-prompt-1.txt")).unwrap();
    for want in [
        "Issue #1 — Login",
        "Add login.",
        "Attempt 1 failed",
        "3 retries left",
        "assertion failed: expected 200, got 401",
        "src/1.txt",
    ] {
        assert!(first.contains(want), "{want} missing:\n{first}");
    }
    let second = std::fs::read_to_string(s.trace.join("analysis-prompt-2.txt")).unwrap();
    assert!(second.contains("missing field `reason`"), "{second}");
    let a = analyses(&s, "re");
    assert_eq!(
        (a[0]["source"].as_str(), a[0]["recommendation"].as_str()),
        (Some("llm"), Some("escalate"))
    );
    let purposes = std::fs::read_to_string(s.trace.join("purposes.txt")).unwrap();
    assert!(
        purposes.lines().all(|l| l == "failure-analysis 1"),
        "{purposes}"
    );
}

#[test]
fn the_llm_text_first_line_is_still_read() {
    let s = Setup::new(
        "txt",
        json!([{"order": 1, "title": "Login"}]),
        NEEDS_APPROACH,
        "sessions:\n  max_implementation_retries: 2\n",
    );
    with_llm(
        &s,
        &["modify approach: use the cache\\nnot the database"],
        "",
    );
    s.env.run(&["run", "txt"]).ok();
    let a = analyses(&s, "txt");
    assert_eq!(a[0]["source"], "llm-text");
    assert_eq!(a[0]["recommendation"], "modify");
    assert_eq!(a[0]["diagnosis"], Value::Null);
    assert!(prompt_of(&s, 1, 2).contains("### Modified approach"));
    assert_eq!(s.task("txt", 1)["stage"], "DONE");
}

#[test]
fn the_same_failure_twice_is_never_retried_a_third_time() {
    let s = Setup::new(
        "twice",
        json!([{"order": 1, "title": "Login"}]),
        FAILING,
        "sessions:\n  max_implementation_retries: 5\n",
    );
    with_llm(&s, &[&json_answer("implementation_bug", "retry", "")], "");
    s.env.run(&["run", "twice"]).code(1);
    assert_eq!(s.calls(), ["1 1", "1 2"]);
    let t = s.task("twice", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert_eq!(
        t["blocked_reason"],
        "needs a person: the same failure twice (implementation_bug)"
    );

    // with a fallback chain, the next agent takes the next attempt instead
    let s = Setup::new(
        "twice",
        json!([{"order": 1, "title": "Login"}]),
        FAILING,
        "",
    );
    let good = crate::common::agents::GOOD_AGENT;
    s.with_agents(
        &[("alpha", FAILING, "    fallback: [beta]\n"), ("beta", good, "")],
        "coordination:\n  github_sync_enabled: false\n  thresholds: {high_confidence: 1.0, synthesis_confidence: 1.0}\nsessions:\n  max_implementation_retries: 5\n",
    );
    with_llm(&s, &[&json_answer("implementation_bug", "retry", "")], "");
    s.env.run(&["run", "twice"]).ok();
    assert_eq!(s.calls(), ["1 1", "1 2", "1 3"]);
    let f = s.events_named("twice", "agent_fallback");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (
            f[0]["from"].as_str(),
            f[0]["to"].as_str(),
            f[0]["attempt"].as_u64()
        ),
        (Some("alpha"), Some("beta"), Some(3))
    );
    assert_eq!(f[0]["reason"], "same failure twice");
    assert_eq!(s.task("twice", 1)["stage"], "DONE");
}

#[test]
fn depend_adds_the_edge_runs_the_dependency_first_and_gives_the_retry_back() {
    let s = Setup::new(
        "dep",
        json!([{"order": 1, "title": "Login"}, {"order": 2, "title": "Token store"}]),
        NEEDS_TWO,
        "sessions:\n  max_implementation_retries: 0\n",
    );
    let answer = r#"{"diagnosis": "missing_dependency", "recommendation": "depend", "depends_on": 2, "reason": "login needs the token store of issue 2", "evidence": ["assertion failed: token store missing (src/2.txt)"]}"#;
    with_llm(&s, &[answer], "");
    // no retry at all: only a given-back retry lets issue 1 run again
    s.env.run(&["run", "dep"]).ok();
    assert_eq!(s.calls(), ["1 1", "2 1", "1 2"]);
    let t = s.task("dep", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["dependencies"], json!([2]));
    assert_eq!(t["retries"], 0);
    let added = s.events_named("dep", "dependency_added");
    assert_eq!(added.len(), 1);
    assert_eq!(
        (added[0]["issue"].as_u64(), added[0]["depends_on"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(added[0]["reason"], "login needs the token store of issue 2");
    assert_eq!(analyses(&s, "dep")[0]["recommendation"], "depend");
}

#[test]
fn depend_on_an_unknown_or_cyclic_issue_escalates() {
    for (depends_on, why) in [(9, "not an issue"), (2, "cycle")] {
        let s = Setup::new(
            "cyc",
            json!([
                {"order": 1, "title": "Login"},
                {"order": 2, "title": "Session", "dependencies": [1]}
            ]),
            FAILING,
            "sessions:\n  max_implementation_retries: 2\n",
        );
        let answer = format!(
            r#"{{"diagnosis": "missing_dependency", "recommendation": "depend", "depends_on": {depends_on}, "reason": "it needs issue {depends_on}", {EVIDENCE}}}"#
        );
        with_llm(&s, &[&answer], "");
        s.env.run(&["run", "cyc"]).code(1);
        assert_eq!(s.calls(), ["1 1"], "{depends_on}");
        let t = s.task("cyc", 1);
        assert_eq!(t["stage"], "BLOCKED", "{depends_on}");
        let reason = t["blocked_reason"].as_str().unwrap();
        assert!(
            reason.starts_with("needs a person: it needs issue"),
            "{reason}"
        );
        assert!(reason.contains(why), "{why}: {reason}");
        assert_eq!(t["dependencies"], json!([]));
        let a = analyses(&s, "cyc");
        assert_eq!(a[0]["recommendation"], "escalate", "recorded as escalate");
        assert!(s.events_named("cyc", "dependency_added").is_empty());
    }
}

#[test]
fn every_failed_attempt_is_classified_and_only_tests_failures_are_analysed() {
    let agent = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
case "$SWARM_ISSUE" in
  1) echo '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","total_cost_usd":0}'; exit 1 ;;
  2) sleep 5 ;;
  3) echo "nothing to do" ;;
  4) mkdir -p checks; echo 'echo "assertion failed: expected 200, got 401"; exit 1' > checks/t_4.sh ;;
  5) exit 3 ;;
esac
"#;
    let s = Setup::new(
        "cls",
        json!([
            {"order": 1, "title": "Auth"}, {"order": 2, "title": "Slow"},
            {"order": 3, "title": "Idle"}, {"order": 4, "title": "Tests"},
            {"order": 5, "title": "Crash"}
        ]),
        agent,
        "",
    );
    s.with_agents(
        &[("fake", agent, "    timeout_seconds: 1\n")],
        "sessions:\n  max_implementation_retries: 0\n  max_consecutive_agent_failures: 100\n",
    );
    with_llm(&s, &[&json_answer("implementation_bug", "retry", "")], "");
    s.env.run(&["run", "cls"]).code(1);
    let got: Vec<(u64, String, String, String)> = analyses(&s, "cls")
        .iter()
        .map(|e| {
            (
                e["issue"].as_u64().unwrap(),
                e["class"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                e["source"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want =
        |i: u64, c: &str, k: &str, src: &str| (i, c.to_string(), k.to_string(), src.to_string());
    for w in [
        want(1, "setup", "auth", "rule"),
        want(2, "infra", "timeout", "rule"),
        want(3, "no_change", "no_change", "rule"),
        want(4, "tests", "tests_failed", "llm"),
        want(5, "infra", "crashed", "rule"),
    ] {
        assert!(got.contains(&w), "{w:?} missing in {got:?}");
    }
    assert_eq!(got.len(), 5, "one per failed attempt: {got:?}");
    // the analyst was asked about the tests failure only
    let purposes = std::fs::read_to_string(s.trace.join("purposes.txt")).unwrap();
    assert_eq!(purposes.trim(), "failure-analysis 4");
    // setup: BLOCKED at once with the cause
    let t = s.task("cls", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert!(
        t["blocked_reason"]
            .as_str()
            .unwrap()
            .contains("authenticate"),
        "{t}"
    );
}

#[test]
fn analysis_agent_is_a_configured_agent_asked_with_its_command_line() {
    let s = Setup::new(
        "ag",
        json!([{"order": 1, "title": "Login"}]),
        FAILING,
        "sessions:\n  max_implementation_retries: 3\n",
    );
    let t = s.trace.display().to_string();
    let answer = json_answer("unclear", "escalate", "");
    let body = format!(
        "cat > /dev/null\nif [ \"$SWARM_PURPOSE\" = failure-analysis ]; then echo \"$SWARM_AGENT $PWD\" > \"{t}/analyst.txt\"; echo '{answer}'; exit 0; fi\n{FAILING}"
    );
    s.with_agents(
        &[("coder", FAILING, ""), ("judge", &body, "")],
        "coordination:\n  github_sync_enabled: false\n  thresholds: {high_confidence: 1.0, synthesis_confidence: 1.0}\nanalysis:\n  agent: judge\nsessions:\n  max_implementation_retries: 3\n",
    );
    s.env.run(&["run", "ag"]).code(1);
    let who = std::fs::read_to_string(s.trace.join("analyst.txt")).unwrap();
    assert!(who.starts_with("judge "), "{who}");
    assert!(
        !who.trim()
            .ends_with(&*s.env.path(".").canonicalize().unwrap().to_string_lossy()),
        "the analyst agent runs in the issue's worktree, not the user's checkout: {who}"
    );
    assert!(
        s.task("ag", 1)["blocked_reason"]
            .as_str()
            .unwrap()
            .starts_with("needs a person:")
    );
    // an unknown analysis agent is a config error
    let cfg = s
        .env
        .read("config.yaml")
        .replace("agent: judge", "agent: nobody");
    s.env.write("config.yaml", &cfg);
    let r = s.env.run(&["run", "ag"]);
    r.code(2);
    assert!(
        r.stderr.contains("`analysis.agent` names `nobody`"),
        "{}",
        r.stderr
    );
}
