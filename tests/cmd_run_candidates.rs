//! `run` with many candidates (docs/coordination.md "Many candidates, one result", issue 29):
//! `coordination.candidates`, the joins `all` and `quorum`, the selection (`consensus`, `size`,
//! `only_passing`), the low-convergence actions, and exactly one implementing commit per issue.

use crate::common::modes::{Modes, bad, proposal, setup_many, writes};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn alive(pid: &str) -> bool {
    std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
}

/// Three agents ranked alpha > beta > gamma, all above `high_confidence`, disjoint angles.
fn three(alpha: String, beta: String, gamma: String, coordination: &str) -> Modes {
    setup_many(
        &[
            ("alpha", proposal(0.9, "api"), alpha),
            ("beta", proposal(0.8, "database"), beta),
            ("gamma", proposal(0.7, "frontend"), gamma),
        ],
        coordination,
    )
}

fn landed_file(s: &Modes) -> Vec<String> {
    s.head_files()
        .into_iter()
        .filter(|f| f.starts_with("src/"))
        .collect()
}

#[test]
fn three_candidates_consensus_picks_the_one_closest_to_the_others() {
    // alpha·beta 0.75, beta·gamma 0.56, alpha·gamma 0.33: beta agrees most, although it is
    // the largest diff (size alone would pick alpha or gamma)
    let s = three(
        writes("alpha", &["login user pass hash"]),
        writes("beta", &["login user pass", "hash check", "salt"]),
        writes("gamma", &["hash check salt pepper"]),
        "  join: all\n  candidates: 3\n",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(landed_file(&s), vec!["src/beta.txt"]);
    assert_eq!(s.implementing_commits(), 1);
    let c = &s.done()["convergence"];
    assert_eq!(c["selected_by"], "consensus", "{c}");
    assert_eq!(c["winner"], "beta");
    assert_eq!(
        c["pairs"],
        json!([
            {"a": "alpha", "b": "beta", "score": 0.75},
            {"a": "alpha", "b": "gamma", "score": 0.33},
            {"a": "beta", "b": "gamma", "score": 0.56},
        ]),
        "{c}"
    );
    assert_eq!(c["candidates"].as_array().unwrap().len(), 3);
    // the third candidate ran as `candidate`, told the others' angles
    assert_eq!(s.trace("alpha.role").trim(), "primary");
    assert_eq!(s.trace("beta.role").trim(), "runner-up");
    assert_eq!(s.trace("gamma.role").trim(), "candidate");
    let pg = s.artifact("attempt-1/gamma/prompt.md");
    assert!(pg.contains("Mode: PARALLEL with 3 candidates"), "{pg}");
    assert!(
        pg.contains("`alpha`, angle: api") && pg.contains("`beta`, angle: database"),
        "{pg}"
    );
    let sel = s.events_named("agents_selected");
    assert_eq!(
        sel.last().unwrap()["candidates"],
        json!(["alpha", "beta", "gamma"])
    );
    let audit = s.audit_text();
    assert!(audit.contains("landed: beta (by consensus)"), "{audit}");
    // the report shows the three side by side: results, sizes, pairwise scores, the choice
    let html = crate::common::report::report_html(&s.env, "shop");
    assert!(
        html.contains(r#"<table class="candidates">"#),
        "no candidates table"
    );
    for a in ["alpha", "beta", "gamma"] {
        assert!(
            html.contains(&format!(
                r#"<tr data-candidate="{a}" data-result="passed">"#
            )),
            "{a}"
        );
    }
    assert!(html.contains("<td>0.75</td>") && html.contains("<td>0.56</td>"));
    assert!(html.contains(r#"data-selected-by="consensus""#));
    assert!(html.contains("landed: beta, selected by consensus"));
}

#[test]
fn three_candidates_that_agree_equally_go_to_the_smallest_diff() {
    let s = three(
        writes("alpha", &["login user", "login user", "login user"]),
        writes("beta", &["login user"]),
        writes("gamma", &["login user", "login user"]),
        "  join: all\n  candidates: 3\n",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(landed_file(&s), vec!["src/beta.txt"]);
    let c = &s.done()["convergence"];
    assert_eq!(c["selected_by"], "size", "{c}");
    assert_eq!(c["score"], 1.0);
    assert_eq!(s.implementing_commits(), 1);
}

#[test]
fn three_candidates_only_one_passes_it_lands() {
    let s = three(
        bad("alpha"),
        bad("beta"),
        writes("gamma", &["login user"]),
        "  join: all\n  candidates: 3\n",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(landed_file(&s), vec!["src/gamma.txt"]);
    let c = &s.done()["convergence"];
    assert_eq!(c["selected_by"], "only_passing", "{c}");
    assert_eq!(c["pairs"], json!([]));
    assert!(c.get("score").is_none(), "{c}");
    assert_eq!(s.implementing_commits(), 1);
}

#[test]
fn quorum_lands_early_and_stops_the_third_candidate() {
    let slow = format!(
        "echo $$ > \"$TRACE/gamma.pid\"\nsleep 40\n{}",
        writes("gamma", &["x"])
    );
    let s = three(
        writes("alpha", &["login user pass"]),
        writes("beta", &["login user pass"]),
        slow,
        "  join: quorum\n  candidates: 3\n  quorum: 2\n  agree_at: 0.6\n",
    );
    let t0 = Instant::now();
    s.env.run(&["run", "shop"]).ok();
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let pid = s.trace("gamma.pid");
    assert!(!pid.trim().is_empty(), "gamma started");
    assert!(!alive(&pid), "gamma's process {pid} is still running");
    let c = &s.done()["convergence"];
    assert_eq!(c["join"], "quorum");
    assert_eq!(c["quorum"]["reached"], true, "{c}");
    assert_eq!(c["quorum"]["agents"], json!(["alpha", "beta"]));
    assert_eq!(c["candidates"][2]["result"], "stopped", "{c}");
    // equal diffs → rank: alpha
    assert_eq!(c["winner"], "alpha");
    assert_eq!(c["selected_by"], "rank");
    assert_eq!(landed_file(&s), vec!["src/alpha.txt"]);
    assert_eq!(s.implementing_commits(), 1);
    assert!(
        !s.env
            .path(".swarm/worktrees/shop/issue-1-attempt-1-gamma")
            .exists()
    );
}

#[test]
fn quorum_not_reached_selects_as_all() {
    let s = three(
        writes("alpha", &["aaa bbb"]),
        writes("beta", &["ccc ddd"]),
        writes("gamma", &["eee fff", "ggg"]),
        "  join: quorum\n  candidates: 3\n  agree_at: 0.9\n",
    );
    s.env.run(&["run", "shop"]).ok();
    let c = &s.done()["convergence"];
    assert_eq!(c["quorum"]["reached"], false, "{c}");
    for i in 0..3 {
        assert_eq!(c["candidates"][i]["result"], "passed", "{c}");
    }
    assert_eq!(c["pairs"].as_array().unwrap().len(), 3);
    // alpha·beta 0.33, alpha·gamma = beta·gamma 0.29 (only {exit, 0} shared): consensus
    // leaves gamma out, alpha and beta tie on size (2 changed lines each), rank → alpha
    assert_eq!(c["winner"], "alpha", "{c}");
    assert_eq!(c["selected_by"], "consensus");
    assert_eq!(s.implementing_commits(), 1);
}

fn disagreeing(action: &str) -> Modes {
    setup_many(
        &[
            (
                "alpha",
                proposal(0.9, "api"),
                writes("alpha", &["aaa bbb ccc"]),
            ),
            (
                "beta",
                proposal(0.8, "database"),
                writes("beta", &["ddd eee fff"]),
            ),
        ],
        &format!("  join: all\n  min_convergence: 0.5\n  on_low_convergence: {action}\n"),
    )
}

fn low_event(s: &Modes) -> Value {
    let low = s.events_named("low_convergence");
    assert_eq!(low.len(), 1, "{low:?}");
    assert_eq!(low[0]["issue"], 1);
    assert_eq!(low[0]["attempt"], 1);
    low[0].clone()
}

#[test]
fn low_convergence_land_lands_and_flags_it() {
    let s = disagreeing("land");
    s.env.run(&["run", "shop"]).ok();
    // {exit, 0} shared of 8 tokens → 0.25
    assert_eq!(low_event(&s)["score"], 0.25);
    let c = &s.done()["convergence"];
    assert_eq!(c["low_convergence"]["action"], "land", "{c}");
    assert_eq!(s.implementing_commits(), 1);
    let last = s.env.state("shop")["tasks"][0]["last_mode"].clone();
    assert!(
        last.as_str().unwrap().contains("low convergence 0.25"),
        "{last}"
    );
    let html = crate::common::report::report_html(&s.env, "shop");
    assert!(html.contains(r#"data-low-convergence="0.25""#));
}

#[test]
fn low_convergence_review_runs_the_review_gate_on_the_selection() {
    // the gate is off, yet the selection is reviewed; the other coders are its reviewers
    // here and give no valid answer, so `review.on_error: block` applies (the review with
    // real reviewers: cmd_run_review_modes)
    let s = disagreeing("review");
    s.env.run(&["run", "shop"]).code(1);
    low_event(&s);
    assert!(!s.events_named("review_started").is_empty());
    assert_eq!(s.env.stage("shop", 1), "BLOCKED");
    let t = &s.env.state("shop")["tasks"][0];
    let reason = t["blocked_reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("review could not run:"), "{t}");
    assert_eq!(s.implementing_commits(), 0);
}

#[test]
fn low_convergence_block_keeps_every_candidate_for_a_person() {
    let s = disagreeing("block");
    s.env.run(&["run", "shop"]).code(1);
    low_event(&s);
    assert_eq!(s.env.stage("shop", 1), "BLOCKED");
    let reason = s.env.state("shop")["tasks"][0]["blocked_reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.starts_with("needs a person: candidates disagree (0.25)"),
        "{reason}"
    );
    assert_eq!(s.implementing_commits(), 0);
    assert!(s.events_named("issue_done").is_empty());
    for agent in ["alpha", "beta"] {
        let r = format!("refs/swarm/shop/candidates/issue-1/{agent}");
        let files = s.env.git(&["show", "--name-only", "--format=", &r]);
        assert!(files.contains(&format!("src/{agent}.txt")), "{r}: {files}");
    }
    // no retry was used
    assert_eq!(s.env.state("shop")["tasks"][0]["retries"], 0);
}

#[test]
fn at_most_five_candidates_run() {
    let names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    let angles = [
        "api",
        "database",
        "frontend",
        "docs",
        "security",
        "performance",
    ];
    let agents: Vec<(&str, String, String)> = names
        .iter()
        .zip(angles)
        .enumerate()
        .map(|(i, (n, a))| {
            (
                *n,
                proposal(0.9 - i as f64 * 0.05, a),
                writes(n, &["login user"]),
            )
        })
        .collect();
    let s = setup_many(&agents, "  join: all\n  candidates: 5\n");
    s.env.run(&["run", "shop"]).ok();
    let started: Vec<String> = s
        .events_named("agent_started")
        .iter()
        .map(|e| e["agent"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(started.len(), 5, "{started:?}");
    assert!(!started.contains(&"zeta".to_string()), "{started:?}");
    assert_eq!(s.trace("zeta.role"), "");
    let c = &s.done()["convergence"];
    assert_eq!(c["pairs"].as_array().unwrap().len(), 10);
    assert_eq!(s.implementing_commits(), 1);
    // a sixth is a config error
    let six = setup_many(&agents, "  candidates: 6\n");
    let r = six.env.run(&["run", "shop"]);
    r.code(2);
    assert!(r.stderr.contains("coordination.candidates"), "{}", r.stderr);
}

#[test]
fn candidates_out_of_range_and_an_unreachable_quorum_are_config_errors() {
    for (extra, needle) in [
        ("  candidates: 1\n", "coordination.candidates"),
        (
            "  join: quorum\n  candidates: 2\n  quorum: 3\n",
            "coordination.quorum",
        ),
        (
            "  on_low_convergence: shrug\n",
            "coordination.on_low_convergence",
        ),
        ("  agree_at: 2\n", "coordination.agree_at"),
    ] {
        let s = setup_many(
            &[("alpha", proposal(0.9, "api"), writes("alpha", &["x"]))],
            extra,
        );
        let r = s.env.run(&["plan", "shop"]);
        r.code(2);
        assert!(r.stderr.contains(needle), "{extra}: {}", r.stderr);
    }
}

#[test]
fn plan_describes_a_three_candidate_run() {
    let s = three(
        writes("alpha", &["x"]),
        writes("beta", &["x"]),
        writes("gamma", &["x"]),
        "  candidates: 3\n",
    );
    let r = s.env.run(&["plan", "shop", "--json"]);
    r.ok();
    let v = r.json();
    let d = &v["decisions"][0];
    assert_eq!(d["candidates"], json!(["alpha", "beta", "gamma"]), "{v}");
    let text = s.env.run(&["plan", "shop"]);
    text.ok();
    assert!(
        text.stdout.contains("alpha + beta + gamma"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("+ gamma 0.70 (candidate"),
        "{}",
        text.stdout
    );
}
