//! `run` executing PARALLEL and SYNTHESIS (issue 8) with script agents: the mode is forced
//! by an `llm.command` script answering fixed proposals per `SWARM_AGENT`.

use crate::common::modes::{PARALLEL, SYNTHESIS, bad, good, setup};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn alive(pid: &str) -> bool {
    std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
}

#[test]
fn parallel_first_lands_the_fast_candidate_and_stops_the_slow_one() {
    // alpha (primary) is slow; beta (runner-up) passes first
    let slow = format!(
        "echo $$ > \"$TRACE/alpha.pid\"\nsleep 20\n{}",
        good("alpha", 1)
    );
    let s = setup(PARALLEL, &slow, &good("beta", 1), "", "");
    let t0 = Instant::now();
    s.env.run(&["run", "shop"]).ok();
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(15), "took {took:?}");
    // beta's work landed, alone
    assert_eq!(s.head_files(), vec!["checks/t_beta.sh", "src/beta.txt"]);
    // the slow agent's process is gone and its worktree removed
    let pid = s.trace("alpha.pid");
    assert!(!pid.trim().is_empty(), "alpha started");
    assert!(!alive(&pid), "alpha's process {pid} is still running");
    assert!(
        !s.env
            .path(".swarm/worktrees/shop/issue-1-attempt-1")
            .exists(),
        "alpha's worktree was not removed"
    );
    assert!(
        !s.env
            .path(".swarm/worktrees/shop/issue-1-attempt-1-beta")
            .exists()
    );
    // both ran with their role and the other's angle
    assert_eq!(s.trace("beta.role").trim(), "runner-up");
    let pa = s.artifact("attempt-1/alpha/prompt.md");
    assert!(pa.contains("selected as the primary agent"), "{pa}");
    assert!(pa.contains("database schema"), "{pa}");
    let pb = s.artifact("attempt-1/beta/prompt.md");
    assert!(pb.contains("Focus on your unique angle"), "{pb}");
    assert!(pb.contains("api handlers"), "{pb}");
    // artifacts of the stopped candidate are kept
    assert!(
        s.artifact("attempt-1/alpha/result.json")
            .contains("stopped")
    );
    // events: the decision, both agents, the join
    let sel = s.events_named("agents_selected");
    let run_sel = sel.last().unwrap();
    assert_eq!(run_sel["mode"], "PARALLEL");
    assert_eq!(run_sel["candidates"], json!(["alpha", "beta"]));
    let roles: Vec<(String, String)> = s
        .events_named("agent_started")
        .iter()
        .map(|e| {
            (
                e["agent"].as_str().unwrap().to_string(),
                e["role"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        roles.contains(&("alpha".into(), "primary".into())),
        "{roles:?}"
    );
    assert!(
        roles.contains(&("beta".into(), "runner-up".into())),
        "{roles:?}"
    );
    let c = &s.done()["convergence"];
    assert_eq!(c["join"], "first");
    assert_eq!(c["winner"], "beta");
    assert_eq!(c["candidates"][0]["result"], "stopped", "{c}");
    assert_eq!(c["candidates"][1]["result"], "passed", "{c}");
    // the state and the audit say how it ran
    let task = &s.env.state("shop")["tasks"][0];
    let last = task["last_mode"].as_str().unwrap();
    assert!(
        last.contains("PARALLEL alpha + beta") && last.contains("beta's result landed"),
        "{last}"
    );
    let audit = s.audit_text();
    assert!(audit.contains("PARALLEL (alpha + beta)"), "{audit}");
    assert!(
        audit.contains(
            "candidates: PARALLEL (join first); alpha stopped; beta passed [checks/t_beta.sh, src/beta.txt]; landed: beta"
        ),
        "{audit}"
    );
    assert!(audit.contains("alpha killed"), "{audit}");
}

#[test]
fn parallel_all_both_pass_the_smaller_diff_lands_with_a_convergence_score() {
    let s = setup(
        PARALLEL,
        &good("alpha", 5),
        &good("beta", 1),
        "  join: all\n",
        "",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.head_files(), vec!["checks/t_beta.sh", "src/beta.txt"]);
    let c = &s.done()["convergence"];
    assert_eq!(c["join"], "all");
    assert_eq!(c["winner"], "beta", "{c}");
    assert_eq!(c["candidates"][0]["result"], "passed");
    assert_eq!(c["candidates"][1]["result"], "passed");
    assert!(
        c["candidates"][0]["changed_lines"].as_u64().unwrap()
            > c["candidates"][1]["changed_lines"].as_u64().unwrap()
    );
    let score = c["score"].as_f64().unwrap();
    assert!((0.0..1.0).contains(&score), "{c}");
    // the record is kept with the artifacts too
    let saved: Value = serde_json::from_str(&s.artifact("attempt-1/candidates.json")).unwrap();
    assert_eq!(&saved, c);
    assert!(s.audit_text().contains("convergence"));
    // the report: every run, the attempt and the totals; the two candidates side by side
    // (on two rows, overlapping in time)
    let html = crate::common::report::report_html(&s.env, "shop");
    let data = crate::common::report::check_against_events(&html, &s.env.events("shop"));
    assert_eq!(data["issues"][0]["attempts"][0]["mode"], "PARALLEL");
    let agents: Vec<_> = crate::common::report::run_bars(&html)
        .into_iter()
        .filter(|b| b.kind == "agent")
        .collect();
    assert_eq!(agents.len(), 2, "{agents:?}");
    assert_ne!(agents[0].y, agents[1].y, "{agents:?}");
    assert!(
        agents[0].x < agents[1].x + agents[1].width && agents[1].x < agents[0].x + agents[0].width,
        "{agents:?}"
    );
}

#[test]
fn parallel_all_equal_diffs_go_to_the_primary() {
    let s = setup(
        PARALLEL,
        &good("alpha", 2),
        &good("beta", 2),
        "  join: all\n",
        "",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.head_files(), vec!["checks/t_alpha.sh", "src/alpha.txt"]);
    assert_eq!(s.done()["convergence"]["winner"], "alpha");
}

#[test]
fn parallel_all_one_passes_it_is_taken() {
    // the primary fails; the runner-up passes and lands
    let s = setup(
        PARALLEL,
        &bad("alpha"),
        &good("beta", 1),
        "  join: all\n",
        "",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.head_files(), vec!["checks/t_beta.sh", "src/beta.txt"]);
    let c = &s.done()["convergence"];
    assert_eq!(c["winner"], "beta");
    assert_eq!(c["candidates"][0]["result"], "failed");
    assert!(c.get("score").is_none(), "{c}");
    // each candidate's verification names its agent
    let failed = s.events_named("verification_failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["agent"], "alpha");
    assert_eq!(s.events_named("verification_passed")[0]["agent"], "beta");
    let audit = s.audit_text();
    assert!(
        audit.contains("alpha exit 0") && audit.contains("tests failed"),
        "{audit}"
    );
}

#[test]
fn synthesis_runner_up_builds_on_the_winner_and_one_commit_has_both() {
    let beta = format!(
        "test -f src/alpha.txt && echo yes > \"$TRACE/beta.saw-alpha\"\n{}",
        good("beta", 1)
    );
    let s = setup(SYNTHESIS, &good("alpha", 1), &beta, "", "");
    s.env.run(&["run", "shop"]).ok();
    // the runner-up's prompt (saved) holds the winner's output; it ran on top of its work
    let pb = s.artifact("attempt-1/beta/prompt.md");
    assert!(pb.contains("WINNER-SAYS-alpha"), "{pb}");
    assert!(pb.contains("Mode: SYNTHESIS"), "{pb}");
    assert_eq!(s.trace("beta.saw-alpha").trim(), "yes");
    // one commit, in the tool's format, with both contributions
    assert_eq!(
        s.head_files(),
        vec![
            "checks/t_alpha.sh",
            "checks/t_beta.sh",
            "src/alpha.txt",
            "src/beta.txt"
        ]
    );
    assert_eq!(
        s.env.git(&["log", "-1", "--format=%s"]),
        "feat(shop): Implement issue #1"
    );
    let body = s.env.git(&["log", "-1", "--format=%B"]);
    assert!(
        body.trim_end()
            .ends_with("Swarm-Feature: shop\nSwarm-Issue: 1"),
        "{body}"
    );
    assert_eq!(s.env.git(&["rev-list", "--count", "HEAD"]), "2");
    let c = &s.done()["convergence"];
    assert_eq!(c["mode"], "SYNTHESIS");
    assert_eq!(
        c["candidates"][1]["added_files"],
        json!(["checks/t_beta.sh", "src/beta.txt"]),
        "{c}"
    );
    assert!(s.fallbacks().is_empty());
    let audit = s.audit_text();
    assert!(audit.contains("SYNTHESIS (alpha + beta)"), "{audit}");
    assert!(
        audit.contains("beta passed [checks/t_beta.sh, src/beta.txt]"),
        "{audit}"
    );
    let html = crate::common::report::report_html(&s.env, "shop");
    let data = crate::common::report::check_against_events(&html, &s.env.events("shop"));
    assert_eq!(data["issues"][0]["attempts"][0]["mode"], "SYNTHESIS");
    let runs: Vec<String> = crate::common::report::run_bars(&html)
        .iter()
        .map(|b| format!("{} {} {}", b.kind, b.agent, b.outcome))
        .collect();
    assert!(runs.contains(&"agent alpha ok".to_string()), "{runs:?}");
    assert!(runs.contains(&"agent beta ok".to_string()), "{runs:?}");
    assert!(runs.contains(&"landing  done".to_string()), "{runs:?}");
}

#[test]
fn synthesis_wait_timeout_starts_the_runner_up_with_parallel_context() {
    let slow = format!("sleep 3\n{}", good("alpha", 1));
    let s = setup(
        SYNTHESIS,
        &slow,
        &good("beta", 1),
        "  synthesis_wait_seconds: 1\n",
        "",
    );
    s.env.run(&["run", "shop"]).ok();
    let pb = s.artifact("attempt-1/beta/prompt.md");
    assert!(pb.contains("Mode: PARALLEL"), "{pb}");
    assert!(!pb.contains("Mode: SYNTHESIS"), "{pb}");
    // beta passed first (join first) and landed alone
    assert_eq!(s.head_files(), vec!["checks/t_beta.sh", "src/beta.txt"]);
    let fb = s.fallbacks();
    assert_eq!(fb.len(), 1, "{fb:?}");
    assert_eq!(fb[0]["to"], "parallel");
    assert!(
        fb[0]["reason"]
            .as_str()
            .unwrap()
            .contains("synthesis_wait_seconds (1 s)")
    );
    assert_eq!(s.done()["convergence"]["fallback"]["to"], "parallel");
    let audit = s.audit_text();
    assert!(
        audit.contains("fallback parallel: the winner's result was not there within"),
        "{audit}"
    );
    let events = s.env.run(&["events", "shop"]);
    assert!(
        events.stdout.contains("fallback parallel"),
        "{}",
        events.stdout
    );
}

#[test]
fn synthesis_runner_up_breaking_the_tests_lands_the_winners_result() {
    let s = setup(SYNTHESIS, &good("alpha", 1), &bad("beta"), "", "");
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.head_files(), vec!["checks/t_alpha.sh", "src/alpha.txt"]);
    assert_eq!(s.env.stage("shop", 1), "DONE");
    let fb = s.fallbacks();
    assert_eq!(fb.len(), 1, "{fb:?}");
    assert_eq!(fb[0]["to"], "solo");
    let reason = fb[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("`beta` did not pass") && reason.contains("tests failed"),
        "{reason}"
    );
    assert_eq!(s.done()["convergence"]["fallback"]["to"], "solo");
    let last = s.env.state("shop")["tasks"][0]["last_mode"].clone();
    assert!(last.as_str().unwrap().contains("fallback solo"), "{last}");
    let audit = s.audit_text();
    assert!(
        audit.contains("fallback solo: the runner-up `beta` did not pass"),
        "{audit}"
    );
}

#[test]
fn neither_candidate_passes_then_a_retry_then_blocked() {
    let s = setup(
        PARALLEL,
        &bad("alpha"),
        &bad("beta"),
        "",
        "sessions:\n  max_implementation_retries: 1\n",
    );
    let r = s.env.run(&["run", "shop"]);
    r.code(1);
    assert_eq!(s.env.stage("shop", 1), "BLOCKED");
    // two attempts, each with both agents
    assert_eq!(
        s.trace("alpha.calls").lines().collect::<Vec<_>>(),
        vec!["1", "2"]
    );
    assert_eq!(
        s.trace("beta.calls").lines().collect::<Vec<_>>(),
        vec!["1", "2"]
    );
    assert_eq!(s.events_named("retry_started").len(), 1);
    // both failures are fed back to both agents
    for agent in ["alpha", "beta"] {
        let p = s.artifact(&format!("attempt-2/{agent}/prompt.md"));
        assert!(
            p.contains("alpha-is-broken") && p.contains("beta-is-broken"),
            "{p}"
        );
    }
    let blocked = s.events_named("issue_blocked");
    let reason = blocked[0]["reason"].as_str().unwrap();
    assert!(reason.contains("neither candidate passed"), "{reason}");
    let audit = s.audit_text();
    assert!(audit.contains("attempt 1 PARALLEL: failed"), "{audit}");
    assert!(audit.contains("attempt 2 PARALLEL: blocked"), "{audit}");
    assert_eq!(s.env.git(&["rev-list", "--count", "HEAD"]), "1");
    // the report: both attempts in sequence, each failure's reason, the retry
    let html = crate::common::report::report_html(&s.env, "shop");
    let data = crate::common::report::check_against_events(&html, &s.env.events("shop"));
    let attempts = data["issues"][0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["outcome"], "failed");
    assert_eq!(attempts[1]["outcome"], "blocked");
    assert!(
        attempts[1]["start_ms"].as_u64() >= attempts[0]["end_ms"].as_u64(),
        "{attempts:?}"
    );
    for a in attempts {
        let f = a["failure"].as_str().unwrap();
        assert!(
            f.contains("alpha-is-broken") && f.contains("beta-is-broken"),
            "{f}"
        );
    }
    assert_eq!(data["totals"]["retries"], 1);
    assert_eq!(data["issues"][0]["outcome"], "blocked");
}

#[test]
fn an_error_in_the_two_agent_machinery_falls_back_to_solo_with_the_winner() {
    let s = setup(PARALLEL, &good("alpha", 1), &good("beta", 1), "", "");
    // the runner-up's worktree cannot be created: a file sits where it would go
    s.env
        .write(".swarm/worktrees/shop/issue-1-attempt-1-beta", "in the way");
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.head_files(), vec!["checks/t_alpha.sh", "src/alpha.txt"]);
    assert_eq!(s.trace("beta.calls"), "", "beta never ran");
    let fb = s.fallbacks();
    assert_eq!(fb.len(), 1, "{fb:?}");
    assert_eq!(fb[0]["to"], "solo");
    assert!(
        fb[0]["reason"]
            .as_str()
            .unwrap()
            .contains("runner-up's worktree"),
        "{fb:?}"
    );
    let audit = s.audit_text();
    assert!(
        audit.contains("fallback solo: could not create the runner-up's worktree"),
        "{audit}"
    );
    let last = s.env.state("shop")["tasks"][0]["last_mode"].clone();
    assert_eq!(last, "PARALLEL decided → fallback solo (alpha)");
}
