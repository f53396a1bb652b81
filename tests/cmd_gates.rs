//! The gates before dispatch (docs/gates.md) with `run`, `greenlight`, `plan`,
//! `status` and `unblock`: the specify gate against an `llm.command` script (a low score, a
//! passing one, invalid answers), the offline heuristic, and risk routing.

use crate::common::TestEnv;
use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::gates::{self, specify_llm};
use serde_json::{Value, json};

/// A greenlit feature `gt` with the good agent, the LLM script and `gates` as given.
fn setup(issues: Value, gates: &str, with_llm: bool) -> Setup {
    let env = TestEnv::new();
    let llm = specify_llm(&env, &env.tmp.path().join("trace").join("llm.log"));
    let llm_cfg = if with_llm {
        format!("llm:\n  command: [\"{}\"]\n", llm.display())
    } else {
        String::new()
    };
    Setup::new_in(
        env,
        "gt",
        issues,
        GOOD_AGENT,
        &format!("{llm_cfg}gates:\n{gates}"),
    )
}

const SPECIFY_ON: &str = "  specify:\n    enabled: true\n";

fn specify_calls(s: &Setup) -> usize {
    gates::specify_calls(&s.trace.join("llm.log"))
}

#[test]
fn a_low_score_holds_the_issue_with_the_question_and_no_agent_call() {
    let s = setup(
        json!([{"order": 1, "title": "Improve auth", "body": "make it better"}]),
        SPECIFY_ON,
        true,
    );
    let r = s.env.run(&["run", "gt"]);
    r.code(1);
    assert!(s.calls().is_empty(), "no agent ran: {:?}", s.calls());
    let t = s.task("gt", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert_eq!(
        t["blocked_reason"],
        "needs info (2/10): Which test should pass?"
    );
    assert!(
        r.stdout
            .contains("needs info (2/10): Which test should pass?"),
        "{}",
        r.stdout
    );
    let scored = s.events_named("gt", "specify_scored");
    assert_eq!(scored.len(), 1);
    assert_eq!(scored[0]["score"], 2);
    assert_eq!(scored[0]["scores"]["acceptance"], 0);
    assert_eq!(scored[0]["source"], "llm");
    assert_eq!(scored[0]["passed"], false);
    assert!(s.events_named("gt", "issue_started").is_empty());
    assert_eq!(specify_calls(&s), 1);
    // status and plan show it
    let st = s.env.run(&["status", "gt"]);
    assert!(st.stdout.contains("needs info (2/10)"), "{}", st.stdout);
    let json = s.env.run(&["status", "gt", "--json"]).json();
    assert_eq!(json["tasks"][0]["specify"]["score"], 2);
    let plan = s.env.run(&["plan", "gt"]);
    assert!(plan.stdout.contains("NEEDS-INFO"), "{}", plan.stdout);
    assert!(
        plan.stdout.contains("Which test should pass?"),
        "{}",
        plan.stdout
    );
}

#[test]
fn a_passing_score_dispatches_and_is_shown() {
    let s = setup(
        json!([{"order": 1, "title": "Session expiry", "body": "PRECISE: sessions last a day"}]),
        SPECIFY_ON,
        true,
    );
    s.env.run(&["run", "gt"]).ok();
    assert_eq!(s.calls(), vec!["1 1"]);
    assert_eq!(s.task("gt", 1)["stage"], "DONE");
    let scored = s.events_named("gt", "specify_scored");
    assert_eq!(scored.len(), 1);
    assert_eq!(scored[0]["score"], 8);
    assert_eq!(scored[0]["passed"], true);
    let st = s.env.run(&["status", "gt"]);
    assert!(st.stdout.contains("specify 8/10 (llm)"), "{}", st.stdout);
    let report = s.env.run(&["report", "gt", "--out", "r.html"]);
    report.ok();
    let html = s.env.read("r.html");
    assert!(
        html.contains("<b>specify</b> 8/10 (llm)"),
        "report shows the score"
    );
}

#[test]
fn invalid_answers_get_one_reprompt_then_the_issue_is_dispatched_with_a_warning() {
    let s = setup(
        json!([{"order": 1, "title": "Session expiry", "body": "GARBAGE"}]),
        SPECIFY_ON,
        true,
    );
    let r = s.env.run(&["run", "gt"]);
    r.ok();
    assert_eq!(s.calls(), vec!["1 1"], "dispatched");
    assert_eq!(specify_calls(&s), 2, "the answer and one re-prompt");
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(all.contains("got no valid score"), "{all}");
    let scored = s.events_named("gt", "specify_scored");
    assert_eq!(scored.len(), 1);
    assert_eq!(scored[0]["score"], Value::Null);
    assert_eq!(scored[0]["passed"], true);
    assert!(
        scored[0]["warning"]
            .as_str()
            .unwrap()
            .contains("not exactly one JSON object")
    );
}

#[test]
fn an_edited_body_is_scored_again_and_released_while_an_unchanged_one_never_is() {
    let vague = json!([{"order": 1, "title": "Improve auth", "body": "make it better"}]);
    let s = setup(vague.clone(), SPECIFY_ON, true);
    s.env.run(&["run", "gt"]).code(1);
    assert_eq!(specify_calls(&s), 1);
    // unchanged text: greenlight and run ask nothing
    s.env.run(&["greenlight", "gt"]).ok();
    s.env.run(&["run", "gt"]);
    assert_eq!(
        specify_calls(&s),
        1,
        "no second LLM call for an unchanged body"
    );
    assert_eq!(s.task("gt", 1)["stage"], "BLOCKED");
    // the author answers the question: greenlight scores the new text and releases it
    s.env.issues(
        "gt",
        json!([{"order": 1, "title": "Improve auth", "body": "PRECISE: the login test passes"}]),
    );
    let g = s.env.run(&["greenlight", "gt"]);
    g.ok();
    assert!(
        g.stderr.contains("passes the specify gate now (8/10)"),
        "{}",
        g.stderr
    );
    assert_eq!(specify_calls(&s), 2);
    assert_eq!(s.task("gt", 1)["stage"], "READY");
    assert_eq!(s.events_named("gt", "issue_unblocked").len(), 1);
    s.env.run(&["run", "gt"]).ok();
    assert_eq!(s.calls(), vec!["1 1"]);
    assert_eq!(specify_calls(&s), 2, "the kept score is used at the claim");
}

#[test]
fn unblock_dispatches_a_held_issue_as_it_is() {
    let s = setup(
        json!([{"order": 1, "title": "Improve auth", "body": "make it better"}]),
        SPECIFY_ON,
        true,
    );
    s.env.run(&["run", "gt"]).code(1);
    s.env.run(&["unblock", "gt", "--issue", "1"]).ok();
    s.env.run(&["run", "gt"]).ok();
    assert_eq!(s.calls(), vec!["1 1"]);
    assert_eq!(specify_calls(&s), 1);
    assert_eq!(s.task("gt", 1)["specify"]["waived"], true);
}

#[test]
fn without_llm_command_the_offline_heuristic_scores() {
    let s = setup(
        json!([
            {"order": 1, "title": "Improve auth", "body": ""},
            {"order": 2, "title": "Make sessions last 24 hours",
             "body": "Users are logged out after 5 minutes because the cookie has no max-age.\n\n## Acceptance\n- [ ] a session lasts 24 hours\n\n## Scope\nOnly `src/session.rs`.\n\n## Constraints\nDo not rename the cookie.\n\n## Context\nSee #12."}
        ]),
        SPECIFY_ON,
        false,
    );
    s.env.run(&["run", "gt"]).code(1);
    assert_eq!(s.task("gt", 1)["stage"], "BLOCKED");
    assert_eq!(
        s.task("gt", 1)["blocked_reason"],
        "needs info (0/10): What should be different when this issue is done, and why is it needed?"
    );
    assert_eq!(s.task("gt", 2)["stage"], "DONE");
    let scored = s.events_named("gt", "specify_scored");
    assert_eq!(scored.len(), 2);
    assert!(scored.iter().all(|e| e["source"] == "heuristic"));
    assert_eq!(scored[1]["score"], 10);
}

#[test]
fn with_the_gate_off_nothing_is_scored() {
    let s = setup(
        json!([{"order": 1, "title": "Improve auth", "body": ""}]),
        "  specify:\n    enabled: false\n",
        true,
    );
    s.env.run(&["run", "gt"]).ok();
    assert_eq!(s.calls(), vec!["1 1"]);
    assert_eq!(specify_calls(&s), 0);
    assert!(s.events_named("gt", "specify_scored").is_empty());
}

/// Risk routing on. A risky issue is reviewed even with the review gate off; the script
/// agent, asked as its reviewer, gives no review answer, so `on_error: land` lets it land
/// `unreviewed` (the review itself is tested in `cmd_run_review`).
const RISK_ON: &str = "  risk:\n    enabled: true\n    paths: [\"src/billing/**\"]\n    landing: commit\nreview:\n  on_error: land\n";

#[test]
fn an_issue_is_risky_by_keyword_or_path_and_plan_and_events_say_why() {
    let s = setup(
        json!([
            {"order": 1, "title": "Refund a payment", "body": "Send the refund."},
            {"order": 2, "title": "Tidy charges", "body": "Rename a field.", "files": ["src/billing/charge.rs"]},
            {"order": 3, "title": "Fix the author field", "body": "OAuth login shows the wrong author."}
        ]),
        RISK_ON,
        false,
    );
    let plan = s.env.run(&["plan", "gt"]);
    plan.ok();
    assert!(
        plan.stdout
            .contains("risky: keyword `payment` in the title"),
        "{}",
        plan.stdout
    );
    assert!(
        plan.stdout
            .contains("risky: file `src/billing/charge.rs` matches `src/billing/**`"),
        "{}",
        plan.stdout
    );
    assert_eq!(plan.stdout.matches("risky:").count(), 2, "#3 is not risky");
    let json = s.env.run(&["plan", "gt", "--json"]).json();
    assert_eq!(json["decisions"][0]["risk"]["risky"], true);
    assert!(json["decisions"][2].get("risk").is_none());
    s.env.run(&["run", "gt"]).ok();
    let flagged = s.events_named("gt", "risk_flagged");
    let issues: Vec<&Value> = flagged.iter().map(|e| &e["issue"]).collect();
    assert_eq!(issues, [1, 2]);
    // the risky issues (and only they) went through the review gate, with the risk strategy
    let reviewed: Vec<(Value, Value)> = s
        .events_named("gt", "review_verdict")
        .iter()
        .map(|e| (e["issue"].clone(), e["strategy"].clone()))
        .collect();
    assert_eq!(
        reviewed.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(
        flagged[0]["signals"],
        json!(["keyword `payment` in the title"])
    );
    // landing: commit for risky issues here, so all three landed
    for n in 1..=3 {
        assert_eq!(s.task("gt", n)["stage"], "DONE");
    }
}

#[test]
fn a_risky_issue_whose_risk_landing_needs_github_lands_as_configured_with_a_warning() {
    let s = setup(
        json!([{"order": 1, "title": "Store the password hash", "body": "Use argon2."}]),
        "  risk:\n    enabled: true\nreview:\n  on_error: land\n",
        false,
    );
    let r = s.env.run(&["run", "gt"]);
    r.ok();
    assert_eq!(s.task("gt", 1)["stage"], "DONE");
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains("`gates.risk.landing: pr` needs GitHub"),
        "{all}"
    );
    assert_eq!(s.events_named("gt", "risk_flagged").len(), 1);
}

#[test]
fn gate_keys_are_strict() {
    let env = TestEnv::new();
    env.write("config.yaml", "gates:\n  specify:\n    min_scor: 6\n");
    let r = env.run(&["status"]);
    r.code(2);
    assert!(r.stderr.contains("gates.specify.min_scor"), "{}", r.stderr);
    env.write("config.yaml", "gates:\n  specify:\n    min_score: 11\n");
    env.run(&["status"]).code(2);
    env.write("config.yaml", "gates:\n  risk:\n    review: triple\n");
    env.run(&["status"]).code(2);
}

#[test]
fn a_risky_issue_lands_as_a_pull_request_whose_body_says_why_and_a_plain_one_as_a_commit() {
    use crate::common::fake_github::FakeGithub;
    const REPO: &str = "octo/app";
    const TOKEN: &str = "ghs_risklandingtoken000000000000000000";
    let fake = FakeGithub::start(REPO, TOKEN);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("GITHUB_API_URL".to_string(), fake.url.clone()),
        ("GITHUB_TOKEN".to_string(), TOKEN.to_string()),
        (
            "SWARM_ATTACK_GITHUB_BACKOFF_MS".to_string(),
            "1".to_string(),
        ),
    ]);
    env.add_origin();
    let agent = env.script(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\nmkdir -p src\necho \"issue $SWARM_ISSUE\" > \"src/issue_$SWARM_ISSUE.txt\"\n",
    );
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: true\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"true\"\ngithub:\n  repo: {REPO}\n  min_write_interval_ms: 0\ngates:\n  risk:\n    enabled: true\nreview:\n  on_error: land\n",
            agent.display()
        ),
    );
    env.git(&["add", "config.yaml"]);
    env.commit("chore: config");
    env.git(&["push", "-q", "origin", "main"]);
    let g1 = fake.add_issue("Charge the payment", &["swarm"]);
    let g2 = fake.add_issue("Fix a typo", &["swarm"]);
    env.issues(
        "rk",
        json!([
            {"order": 1, "title": "Charge the payment", "github_issue": g1},
            {"order": 2, "title": "Fix a typo", "github_issue": g2}
        ]),
    );
    env.run(&["greenlight", "rk"]).ok();
    env.run(&["run", "rk"]).ok();
    assert_eq!(
        env.stage("rk", 1),
        "IN_REVIEW",
        "the risky issue waits in a pull request"
    );
    assert_eq!(
        env.stage("rk", 2),
        "DONE",
        "the plain one landed as a commit"
    );
    let pulls = fake.pulls();
    assert_eq!(pulls.len(), 1, "{pulls:?}");
    assert!(
        pulls[0]
            .body
            .contains("**Risk:** routed as risky by `gates.risk` (keyword `payment` in the title)"),
        "{}",
        pulls[0].body
    );
    assert_eq!(fake.swarm_labels(g1), vec!["swarm:in-review".to_string()]);
}
