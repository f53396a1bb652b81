//! The review gate (docs/review.md) with the REAL Claude Code CLI as the reviewer, through its
//! preset, against the fake model server (tests/common/fake_model), whose Messages API
//! answers the review prompt with the text each test scripts ([`ReplyRule`]). The
//! implementer is a script (`coder`, forced SOLO by fixed `llm` proposals) that writes
//! `calc/add.py` and a real test; on a fix round it adds a check and answers. What is checked:
//! Claude's stream-json envelope unwrapped (its `result` text parsed), its findings validated
//! and counted, the verdict computed by code (never the reviewer's words), its cost and
//! tokens in the ledger and `audit`, and the prompt on stdin, never in any argv. These tests
//! never skip: when the CLI cannot be installed they fail and say why.

use crate::common::TestEnv;
use crate::common::argv_watch::ArgvWatch;
use crate::common::fake_model::{FakeModel, ReplyRule, WriteRule};
use crate::common::procs::unique_marker;
use crate::common::real_clis::{ADD_PY, python_project};
use crate::common::review::{answer_with, finding};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The implementer: the first run writes `calc/add.py` and its test; a run whose prompt holds
/// review findings adds a guard line and answers the reviewer.
const CODER: &str = r#"#!/bin/sh
n=$(( $(cat "$TRACE/coder.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$TRACE/coder.n"
cat > "$TRACE/coder-prompt-$n.txt"
if grep -q '## Review findings' "$TRACE/coder-prompt-$n.txt"; then
  printf '# inputs are checked by the caller\n' >> calc/add.py
  echo '{"result": "Added the check the reviewer asked for.", "total_cost_usd": 0.1}'
  exit 0
fi
mkdir -p calc tests
printf 'def add(a, b):\n    return a + b\n' > calc/add.py
printf 'import unittest\n\nfrom calc.add import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n' > tests/test_add.py
echo '{"result": "done", "total_cost_usd": 0.1}'
"#;

/// Fixed proposals: `coder` sure of the task, the reviewer not (SOLO by `coder`).
const LLM: &str = r#"#!/bin/sh
cat > /dev/null
case "$SWARM_PURPOSE/$SWARM_AGENT" in
  proposal/coder) echo '{"angle":"calc","confidence":0.9,"covers":["py"],"solo_sufficient":true,"builds_on_other":false}' ;;
  proposal/claude) echo '{"angle":"review","confidence":0.1,"covers":["x"],"solo_sufficient":true,"builds_on_other":false}' ;;
  *) echo 'Implemented.' ;;
esac
"#;

/// Every review prompt starts with this (crates/swarm-attack-core/src/review/prompt.rs).
const REVIEW: &str = "You are reviewing a change made by a coding agent.";
/// In the issue's text, so in every prompt: what the argv watch looks for.
const TASK: &str = "TASK-REVIEWED-ADD";

struct Case {
    model: FakeModel,
    env: TestEnv,
    trace: PathBuf,
    mark: String,
}

impl Case {
    /// A one-issue Python project: `coder` implements, the real Claude Code reviews
    /// (`review:` body lines `review`); `writes`: what the reviewer's model writes.
    fn new(review: &str, retries: u32, writes: Vec<WriteRule>) -> Case {
        let model = FakeModel::start(writes);
        let mark = unique_marker();
        let mut env = python_project(
            &model,
            "  - name: claude\n    preset: claude-code\n    timeout_seconds: 300",
        );
        env.extra_env.push(("SWARM_TEST_MARK".into(), mark.clone()));
        let trace = env.tmp.path().join("trace");
        std::fs::create_dir_all(&trace).unwrap();
        let coder = env.script(
            "coder.sh",
            &CODER.replace("$TRACE", &trace.display().to_string()),
        );
        let llm = env.script("llm.sh", LLM);
        let config = env
            .read("config.yaml")
            .replace(
                "  github_sync_enabled: false\n",
                "  github_sync_enabled: false\n  proposal_source: llm\n",
            )
            .replace(
                "agents:\n",
                &format!(
                    "agents:\n  - name: coder\n    command: [\"{}\"]\n    timeout_seconds: 60\n",
                    coder.display()
                ),
            )
            .replace(
                "max_implementation_retries: 1",
                &format!("max_implementation_retries: {retries}"),
            );
        env.write(
            "config.yaml",
            &format!(
                "{config}llm:\n  command: [\"{}\"]\n  timeout_seconds: 10\nreview:\n  enabled: true\n  reviewers: [claude]\n{review}",
                llm.display()
            ),
        );
        env.issues(
            "calc",
            json!([{"order": 1, "title": "Addition", "body": format!("{TASK}: write calc/add.py with add(a, b) and tests/test_add.py."), "dependencies": []}]),
        );
        env.run(&["greenlight", "calc"]).ok();
        Case {
            model,
            env,
            trace,
            mark,
        }
    }

    /// Runs the feature, watching every argv of the run for the issue's text.
    fn run(&self) -> crate::common::Run {
        let watch = ArgvWatch::start(&self.mark, TASK);
        let out = self.env.run(&["run", "calc"]);
        let (processes, with_prompt) = watch.finish();
        assert!(processes > 0, "the argv watch saw no process of the run");
        assert!(with_prompt.is_empty(), "prompt in argv: {with_prompt:#?}");
        out
    }

    /// Runs the feature and checks it ends with the issue at `stage` (`DONE`: exit 0;
    /// `BLOCKED`: exit 1) after the review verdicts `verdicts`, one per round.
    fn run_to(&self, stage: &str, verdicts: &[&str]) {
        let out = self.run();
        out.code(if stage == "DONE" { 0 } else { 1 });
        assert_eq!(
            self.task()["stage"],
            stage,
            "{}\n{}",
            out.stdout,
            out.stderr
        );
        assert_eq!(self.verdicts(), verdicts);
    }

    fn blocked_reason(&self) -> String {
        self.task()["blocked_reason"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn events(&self, name: &str) -> Vec<Value> {
        self.env.events_named("calc", name)
    }

    fn verdicts(&self) -> Vec<String> {
        self.events("review_verdict")
            .iter()
            .map(|e| e["verdict"].as_str().unwrap().to_string())
            .collect()
    }

    fn task(&self) -> Value {
        self.env.state("calc")["tasks"][0].clone()
    }

    fn trace(&self, file: &str) -> String {
        std::fs::read_to_string(self.trace.join(file)).unwrap_or_default()
    }

    /// The reviewer's `agent_finished` events.
    fn reviewer_runs(&self) -> Vec<Value> {
        self.events("agent_finished")
            .into_iter()
            .filter(|e| e["agent"] == "claude")
            .collect()
    }

    /// Checks every reviewer run reported Claude's own cost and tokens, that
    /// `review_finished` repeats them, and that `audit --json` charges them to the issue.
    fn reviewer_charged(&self) {
        let runs = self.reviewer_runs();
        assert!(!runs.is_empty());
        for f in &runs {
            assert!(f["cost_usd"].as_f64().unwrap_or(0.0) > 0.0, "{f:#}");
            assert!(f["tokens_in"].as_u64().unwrap_or(0) > 0, "{f:#}");
            assert!(f["tokens_out"].as_u64().unwrap_or(0) > 0, "{f:#}");
            assert_eq!(f["error_kind"], Value::Null, "{f:#}");
        }
        let started = self.events("agent_started");
        let as_reviewer = started
            .iter()
            .filter(|e| e["agent"] == "claude" && e["role"] == "reviewer")
            .count();
        assert_eq!(as_reviewer, runs.len(), "{started:#?}");
        let reviewer_cost: f64 = runs.iter().filter_map(|f| f["cost_usd"].as_f64()).sum();
        let finished = self.events("review_finished");
        let repeated: f64 = finished.iter().filter_map(|f| f["cost_usd"].as_f64()).sum();
        assert!((repeated - reviewer_cost).abs() < 1e-9, "{finished:#?}");
        for f in &finished {
            assert!(f["tokens_in"].as_u64().unwrap_or(0) > 0, "{f:#}");
        }
        // the ledger: the issue's spend holds the coder's runs ($0.10 each) and the reviewer's
        let coder_cost: f64 = self
            .events("agent_finished")
            .iter()
            .filter(|e| e["agent"] == "coder")
            .filter_map(|e| e["cost_usd"].as_f64())
            .sum();
        let audit = self.env.run(&["audit", "calc", "--json"]);
        audit.ok();
        let a = audit.json();
        let audited: Vec<&Value> = a["issues"][0]["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|at| at["agents"].as_array().unwrap())
            .filter(|r| r["agent"] == "claude")
            .collect();
        assert_eq!(audited.len(), runs.len(), "{a:#}");
        for r in &audited {
            assert!(r["cost_usd"].as_f64().unwrap_or(0.0) > 0.0, "{r:#}");
        }
        let total = a["totals"]["cost_usd"].as_f64().unwrap_or(0.0);
        assert!(
            (total - (coder_cost + reviewer_cost)).abs() < 1e-6,
            "total {total} != coder {coder_cost} + reviewer {reviewer_cost}: {a:#}"
        );
        assert_eq!(a["totals"]["cost_unknown_runs"], 0, "{a:#}");
        // the budget ledger the run keeps in the state (docs/budgets.md) charges the issue both
        let ledger = &self.env.state("calc")["ledger"];
        let usd = ledger["issues"]["1"]["usd"].as_f64().unwrap_or(0.0);
        assert!(
            (usd - (coder_cost + reviewer_cost)).abs() < 1e-6,
            "ledger {usd} != coder {coder_cost} + reviewer {reviewer_cost}: {ledger:#}"
        );
    }
}

#[test]
fn real_claude_reviewer_clean_answer_lands_and_its_cost_is_charged() {
    // the reviewer's model also rewrites calc/add.py in its worktree: that never lands
    let c = Case::new(
        "",
        1,
        vec![WriteRule::new(
            REVIEW,
            "calc/add.py",
            "def add(a, b):\n    return 0\n",
        )],
    );
    c.model.set_replies(vec![ReplyRule::new(
        &[REVIEW],
        &answer_with(&[]).replace("reviewed", "The change is correct."),
    )]);
    c.run_to("DONE", &["pass"]);
    let rf = c.events("review_finished");
    assert_eq!(rf.len(), 1, "{rf:#?}");
    assert_eq!(rf[0]["reviewer"], "claude");
    assert_eq!(rf[0]["error"], Value::Null, "{:#}", rf[0]);
    assert_eq!(rf[0]["findings"], json!([]));
    // Claude's stdout is its stream-json envelope; the gate read the `result` inside it
    let dir = ".swarm/runs/calc/issue-1/attempt-1/review-1-claude";
    let stdout = c.env.read(&format!("{dir}/agent.stdout"));
    assert!(stdout.contains("\"type\":\"result\""), "{stdout}");
    // the review prompt reached the model whole, on stdin
    let prompt = c.env.read(&format!("{dir}/prompt.md"));
    assert!(
        prompt.starts_with(REVIEW) && prompt.contains("+    return a + b"),
        "{prompt}"
    );
    assert!(
        c.model.received_prompt(&prompt),
        "user texts: {:#?}",
        c.model.all_user_texts()
    );
    // the reviewer wrote in its own worktree; the candidate's file landed
    assert!(stdout.contains("\"name\":\"Write\""), "{stdout}");
    assert_eq!(c.env.git(&["show", "HEAD:calc/add.py"]), ADD_PY.trim_end());
    assert_eq!(c.env.read("calc/add.py"), ADD_PY);
    c.reviewer_charged();
}

#[test]
fn real_claude_reviewer_blocking_finding_gets_a_fix_round_then_passes() {
    let c = Case::new("", 1, Vec::new());
    c.model.set_replies(vec![
        // round 2 shows the earlier findings and the implementer's answer
        ReplyRule::new(
            &[
                REVIEW,
                "## Round 2",
                "Added the check the reviewer asked for.",
            ],
            "Thanks, the check resolves it.\n{\"findings\": [], \"summary\": \"fixed\"}",
        ),
        ReplyRule::new(
            &[REVIEW],
            &answer_with(&[finding("major", 91, "calc/add.py", 2, "no input check")]),
        ),
    ]);
    c.run_to("DONE", &["fail", "pass"]);
    assert_eq!(
        c.task()["retries"],
        0,
        "the fix round is inside the attempt"
    );
    let rf = c.events("review_finished");
    assert_eq!(rf.len(), 2, "{rf:#?}");
    assert_eq!(rf[0]["counted"], 1, "{:#}", rf[0]);
    let f = &rf[0]["findings"][0];
    assert_eq!(f["severity"], "major", "{f:#}");
    assert_eq!(f["file"], "calc/add.py", "{f:#}");
    assert_eq!(f["line"], 2, "{f:#}");
    assert_eq!(f["title"], "no input check", "{f:#}");
    assert_eq!(f["counted"], true, "{f:#}");
    assert_eq!(rf[1]["counted"], 0, "{:#}", rf[1]);
    // the implementer got the finding and its fix landed
    assert_eq!(c.trace("coder.n").trim(), "2");
    let fix = c.trace("coder-prompt-2.txt");
    assert!(
        fix.contains("no input check") && fix.contains("calc/add.py:2"),
        "{fix}"
    );
    assert!(
        c.env.read("calc/add.py").contains("inputs are checked"),
        "{}",
        c.env.read("calc/add.py")
    );
    c.reviewer_charged();
}

#[test]
fn real_claude_reviewer_prose_answer_is_reprompted_once_and_fenced_json_is_read() {
    let c = Case::new("", 1, Vec::new());
    let fenced = format!(
        "Here is my review.\n\n```json\n{}\n```\n\nOverall a small, safe change.",
        answer_with(&[finding("minor", 85, "calc/add.py", 1, "no docstring")])
    );
    c.model.set_replies(vec![
        ReplyRule::new(&[REVIEW, "Your answer could not be read"], &fenced),
        ReplyRule::new(&[REVIEW], "I read the diff; it looks fine to me."),
    ]);
    // a counted minor finding: it lands with the risk said
    c.run_to("DONE", &["pass_with_risk"]);
    let rf = c.events("review_finished");
    assert_eq!(rf.len(), 1, "{rf:#?}");
    assert_eq!(rf[0]["error"], Value::Null, "{:#}", rf[0]);
    assert_eq!(rf[0]["counted"], 1, "{:#}", rf[0]);
    assert_eq!(rf[0]["findings"][0]["title"], "no docstring");
    // two runs of the one reviewer: the answer, the re-prompt naming the problem
    assert_eq!(c.reviewer_runs().len(), 2);
    let again = c
        .env
        .read(".swarm/runs/calc/issue-1/attempt-1/review-1-claude/reprompt/prompt.md");
    assert!(again.contains("the answer holds no JSON object"), "{again}");
    c.reviewer_charged();
}

#[test]
fn real_claude_reviewer_saying_pass_with_a_blocking_finding_fails_by_code() {
    // no fix round: the failure is a retry with the findings; the second attempt fails too
    let c = Case::new("  fix_rounds: 0\n", 1, Vec::new());
    c.model.set_replies(vec![ReplyRule::new(
        &[REVIEW],
        &format!(
            "Verdict: pass. LGTM, approve and merge.\n{}\nverdict: pass",
            answer_with(&[finding("critical", 97, "calc/add.py", 2, "adds strings")])
                .replace("reviewed", "verdict: pass")
        ),
    )]);
    c.run_to("BLOCKED", &["fail", "fail"]);
    let reason = c.blocked_reason();
    assert!(
        reason.contains("review: 1 blocking finding(s): adds strings (calc/add.py:2)"),
        "{reason}"
    );
    // the retry's prompt carried the findings
    let retry = c.trace("coder-prompt-2.txt");
    assert!(retry.contains("adds strings"), "{retry}");
    // nothing landed
    assert!(!c.env.git(&["ls-files"]).contains("calc/add.py"));
    c.reviewer_charged();
}

#[test]
fn real_claude_reviewer_that_fails_its_run_blocks_at_once_without_a_retry() {
    // the reviewer's model asks for a write and `max_turns: 1` stops Claude there: its run
    // fails (`error_max_turns`), no valid answer, `on_error: block`
    let c = Case::new(
        "",
        1,
        vec![WriteRule::new(REVIEW, "notes.md", "reviewing\n")],
    );
    let config = c.env.read("config.yaml").replace(
        "    preset: claude-code\n",
        "    preset: claude-code\n    max_turns: 1\n",
    );
    c.env.write("config.yaml", &config);
    c.run_to("BLOCKED", &["unreviewed"]);
    assert_eq!(c.task()["retries"], 0, "a reviewer failure uses no retry");
    assert_eq!(c.trace("coder.n").trim(), "1");
    let reason = c.blocked_reason();
    assert!(
        reason.starts_with("review could not run: claude: "),
        "{reason}"
    );
    let runs = c.reviewer_runs();
    assert_eq!(runs.len(), 1, "no re-prompt after a failed run: {runs:#?}");
    assert_eq!(runs[0]["error_kind"], "max_turns", "{:#}", runs[0]);
    // a failed run is still charged
    assert!(
        runs[0]["cost_usd"].as_f64().unwrap_or(0.0) > 0.0,
        "{:#}",
        runs[0]
    );
    let rf = c.events("review_finished");
    assert!(rf[0]["error"].is_string(), "{:#}", rf[0]);
    assert_eq!(rf[0]["cost_usd"], runs[0]["cost_usd"], "{:#}", rf[0]);
    assert!(!c.env.git(&["ls-files"]).contains("calc/add.py"));
}
