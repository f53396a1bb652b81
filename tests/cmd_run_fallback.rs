//! Fallback across agents (docs/run.md "After a failure: classes, analysis, fallback"):
//! `agents[].fallback` chains take the next attempt after an `infra` failure (a timeout → the next
//! agent, a retry used); a rate limit whose wait would exceed `governor.fallback_after_seconds`
//! moves to the chain at once without a retry; a `setup` failure never falls back; a chain whose
//! agents all failed is BLOCKED naming each. `agent_fallback{issue, attempt, from, to, reason}`;
//! `audit` and the status comment's mode show who took over.

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

/// SOLO by the first agent (alphabetically): no PARALLEL / SYNTHESIS.
const SOLO: &str = "coordination:\n  github_sync_enabled: false\n  thresholds: {high_confidence: 1.0, synthesis_confidence: 1.0}\n";

const SLOW: &str = r#"cat > /dev/null
echo "$SWARM_AGENT $SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
sleep 10
"#;

const CRASH: &str = r#"cat > /dev/null
echo "$SWARM_AGENT $SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
echo "segmentation fault" >&2
exit 3
"#;

/// Claude's 429 result asking for a 10-minute wait.
const LIMITED: &str = r#"cat > /dev/null
echo "$SWARM_AGENT $SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"rate limited, retry after 600 s\"}}","session_id":"5b0f","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"api_error_status":429}'
exit 1
"#;

const AUTH: &str = r#"cat > /dev/null
echo "$SWARM_AGENT $SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
echo '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","total_cost_usd":0}'
exit 1
"#;

/// GOOD_AGENT that also logs its name.
fn good() -> String {
    GOOD_AGENT.replace(
        r#"echo "$SWARM_ISSUE $SWARM_ATTEMPT""#,
        r#"echo "$SWARM_AGENT $SWARM_ISSUE $SWARM_ATTEMPT""#,
    )
}

fn one_issue() -> serde_json::Value {
    json!([{"order": 1, "title": "Login"}])
}

#[test]
fn a_timeout_moves_to_the_next_agent_of_the_chain() {
    let s = Setup::new("tmo", one_issue(), GOOD_AGENT, "");
    let good = good();
    s.with_agents(
        &[
            (
                "alpha",
                SLOW,
                "    timeout_seconds: 1\n    fallback: [beta]\n",
            ),
            ("beta", &good, ""),
        ],
        &format!("{SOLO}sessions:\n  max_implementation_retries: 2\n"),
    );
    s.env.run(&["run", "tmo"]).ok();
    assert_eq!(s.calls(), ["alpha 1 1", "beta 1 2"]);
    let f = s.events_named("tmo", "agent_fallback");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (
            f[0]["from"].as_str(),
            f[0]["to"].as_str(),
            f[0]["attempt"].as_u64(),
            f[0]["reason"].as_str()
        ),
        (Some("alpha"), Some("beta"), Some(2), Some("timeout"))
    );
    let t = s.task("tmo", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["retries"], 1, "an infra failure uses a retry");
    assert!(
        t["last_mode"]
            .as_str()
            .unwrap()
            .contains("fallback from alpha"),
        "{t}"
    );
    let audit = s.env.run(&["audit", "tmo"]);
    audit.ok();
    assert!(
        audit
            .stdout
            .contains("fallback: attempt 2 by beta instead of alpha (timeout)"),
        "{}",
        audit.stdout
    );
    assert!(audit.stdout.contains("infra/timeout"), "{}", audit.stdout);
}

#[test]
fn a_long_rate_limit_moves_to_the_next_agent_at_once_without_a_retry() {
    let s = Setup::new("rl", one_issue(), GOOD_AGENT, "");
    let good = good();
    s.with_agents(
        &[
            ("alpha", LIMITED, "    fallback: [beta]\n"),
            ("beta", &good, ""),
        ],
        // no retry at all: the switch must not use one
        &format!("{SOLO}sessions:\n  max_implementation_retries: 0\n"),
    );
    let started = std::time::Instant::now();
    s.env.run(&["run", "rl"]).ok();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "no 10-minute wait"
    );
    assert_eq!(s.calls(), ["alpha 1 1", "beta 1 2"]);
    let t = s.task("rl", 1);
    assert_eq!(t["stage"], "DONE");
    assert_eq!(t["retries"], 0);
    let f = s.events_named("rl", "agent_fallback");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("rate_limit (its rate limit wait of 600 s exceeds governor.fallback_after_seconds = 120)"),
        "{f:?}"
    );
    let a = s.events_named("rl", "failure_analyzed");
    assert_eq!(
        (
            a[0]["class"].as_str(),
            a[0]["kind"].as_str(),
            a[0]["source"].as_str()
        ),
        (Some("infra"), Some("rate_limit"), Some("rule"))
    );
}

#[test]
fn a_short_rate_limit_waits_for_the_same_agent_as_before() {
    let mut s = Setup::new("short", one_issue(), GOOD_AGENT, "");
    // limited once (600 s asked), then it works
    let once = format!(
        "if [ ! -e \"$TRACE/limited\" ]; then touch \"$TRACE/limited\"\n{}\nfi\n{}",
        LIMITED.trim_end(),
        good()
    );
    let good = good();
    s.with_agents(
        &[
            ("alpha", &once, "    fallback: [beta]\n"),
            ("beta", &good, ""),
        ],
        &format!("{SOLO}governor:\n  fallback_after_seconds: 900\n"),
    );
    s.env
        .extra_env
        .push(("SWARM_ATTACK_TEST_BACKOFF_DIVISOR".into(), "1000".into()));
    // 600 s ≤ 900 s: the governor's wait applies to the same agent, no fallback
    s.env.run(&["run", "short"]).ok();
    assert_eq!(s.calls(), ["alpha 1 1", "alpha 1 2"]);
    assert!(s.events_named("short", "agent_fallback").is_empty());
    let a = s.events_named("short", "failure_analyzed");
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["kind"], "rate_limit");
    assert_eq!(
        s.events_named("short", "rate_limited")[0]["retry_after_ms"],
        600_000
    );
    assert_eq!(s.task("short", 1)["retries"], 0);
}

#[test]
fn setup_failures_never_fall_back() {
    let s = Setup::new("setup", one_issue(), GOOD_AGENT, "");
    let good = good();
    s.with_agents(
        &[
            ("alpha", AUTH, "    fallback: [beta]\n"),
            ("beta", &good, ""),
        ],
        &format!("{SOLO}sessions:\n  max_implementation_retries: 3\n"),
    );
    s.env.run(&["run", "setup"]).code(1);
    assert_eq!(s.calls(), ["alpha 1 1"], "beta never runs");
    assert!(s.events_named("setup", "agent_fallback").is_empty());
    let t = s.task("setup", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert_eq!(t["retries"], 0, "no retry used");
    assert!(
        t["blocked_reason"]
            .as_str()
            .unwrap()
            .contains("could not authenticate"),
        "{t}"
    );
    let a = s.events_named("setup", "failure_analyzed");
    assert_eq!(
        (a[0]["class"].as_str(), a[0]["kind"].as_str()),
        (Some("setup"), Some("auth"))
    );
}

#[test]
fn a_chain_whose_agents_all_failed_is_blocked_naming_each() {
    let s = Setup::new("all", one_issue(), GOOD_AGENT, "");
    s.with_agents(
        &[
            ("alpha", CRASH, "    fallback: [beta, gamma]\n"),
            ("beta", SLOW, "    timeout_seconds: 1\n"),
            ("gamma", CRASH, ""),
        ],
        &format!(
            "{SOLO}sessions:\n  max_implementation_retries: 5\n  max_consecutive_agent_failures: 100\n"
        ),
    );
    s.env.run(&["run", "all"]).code(1);
    assert_eq!(s.calls(), ["alpha 1 1", "beta 1 2", "gamma 1 3"]);
    let t = s.task("all", 1);
    assert_eq!(t["stage"], "BLOCKED");
    assert_eq!(
        t["blocked_reason"],
        "every agent of the fallback chain failed: alpha (crashed), beta (timeout), gamma (crashed)"
    );
    let f: Vec<(String, String)> = s
        .events_named("all", "agent_fallback")
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap().into(),
                e["to"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        f,
        [
            ("alpha".into(), "beta".into()),
            ("beta".into(), "gamma".into())
        ]
    );
}

#[test]
fn a_fallback_chain_must_name_other_configured_agents() {
    let s = Setup::new("cfg", one_issue(), GOOD_AGENT, "");
    for (keys, want) in [
        (
            "    fallback: [nobody]\n",
            "`nobody` is not a configured agent",
        ),
        ("    fallback: [alpha]\n", "`alpha` names the agent itself"),
    ] {
        s.with_agents(&[("alpha", CRASH, keys), ("beta", CRASH, "")], SOLO);
        let r = s.env.run(&["run", "cfg"]);
        r.code(2);
        assert!(r.stderr.contains(want), "{}", r.stderr);
    }
}
