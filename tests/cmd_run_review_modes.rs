//! The review gate in PARALLEL and SYNTHESIS (docs/review.md, "Many candidates"): each
//! candidate that could land is reviewed like a SOLO attempt (verdict by code, fix rounds
//! by its own agent), the selection prefers the better verdict, and low convergence with
//! `on_low_convergence: review` really reviews. Two coders `alpha` and `beta`, and a
//! reviewer `rev` whose answer depends on which candidate's files its diff shows
//! (`$TRACE/rev-<alpha|beta|both>[-fixed].txt`, else `$TRACE/rev-default.txt`).

use crate::common::modes::{Modes, proposal, setup_many};
use serde_json::Value;

/// A coder that writes `lines` to `src/<name>.txt` and a passing check; in a review fix
/// round (its prompt holds the findings) it appends `fixed by <name>` instead.
fn coder(name: &str, lines: &[&str], delay: u32) -> String {
    let mut body = format!(
        "cat > \"$TRACE/{name}.stdin\"\necho run >> \"$TRACE/{name}.runs\"\nmkdir -p src checks\nif grep -q '## Review findings' \"$TRACE/{name}.stdin\"; then echo 'fixed by {name}' >> src/{name}.txt; echo 'I fixed the finding.'; exit 0; fi\nsleep {delay}\n"
    );
    for l in lines {
        body.push_str(&format!("echo '{l}' >> src/{name}.txt\n"));
    }
    body.push_str(&format!("echo 'exit 0' > checks/t_{name}.sh\n"));
    body
}

const REVIEWER: &str = r#"n=$(( $(cat "$TRACE/rev.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$TRACE/rev.n"
p="$TRACE/rev-prompt-$n.txt"
cat > "$p"
k=none
grep -q 'src/alpha.txt' "$p" && k=alpha
if grep -q 'src/beta.txt' "$p"; then if [ $k = alpha ]; then k=both; else k=beta; fi; fi
grep -q 'fixed by' "$p" && k="$k-fixed"
echo "$k" >> "$TRACE/rev.keys"
echo "evil" > evil.txt
f="$TRACE/rev-$k.txt"; [ -f "$f" ] || f="$TRACE/rev-default.txt"
cat "$f"
"#;

const CLEAN: &str = r#"{"findings": [], "summary": "looks fine"}"#;

fn finding(sev: &str, conf: u32, file: &str, title: &str) -> String {
    format!(
        r#"{{"severity": "{sev}", "confidence": {conf}, "file": "{file}", "line": 1, "title": "{title}", "body": "see line 1"}}"#
    )
}

fn answer(summary: &str, findings: &[String]) -> String {
    format!(
        r#"{{"findings": [{}], "summary": "{summary}"}}"#,
        findings.join(", ")
    )
}

/// `alpha` (rank 0) and `beta` (rank 1) as PARALLEL candidates (or SYNTHESIS with
/// `synthesis`), `rev` as the reviewer; `coordination` and `review` are extra lines of
/// those sections.
fn setup(alpha: String, beta: String, synthesis: bool, coordination: &str, review: &str) -> Modes {
    let (pa, pb) = if synthesis {
        (
            crate::common::modes::SYNTHESIS.0.to_string(),
            crate::common::modes::SYNTHESIS.1.to_string(),
        )
    } else {
        (proposal(0.9, "api"), proposal(0.8, "database"))
    };
    let s = setup_many(
        &[
            ("alpha", pa, alpha),
            ("beta", pb, beta),
            ("rev", proposal(0.1, "review"), REVIEWER.to_string()),
        ],
        coordination,
    );
    let cfg = std::fs::read_to_string(s.env.path("config.yaml")).unwrap();
    s.env.write(
        "config.yaml",
        &format!("{cfg}review:\n  reviewers: [rev]\n{review}"),
    );
    std::fs::write(s.trace.join("rev-default.txt"), CLEAN).unwrap();
    s
}

/// PARALLEL with join `all`: alpha writes one line, beta two.
fn join_all(review: &str) -> Modes {
    setup(
        coder("alpha", &["login"], 0),
        coder("beta", &["login", "hash"], 0),
        false,
        "  join: all\n",
        review,
    )
}

fn answer_for(s: &Modes, key: &str, text: &str) {
    std::fs::write(s.trace.join(format!("rev-{key}.txt")), text).unwrap();
}

fn verdicts(s: &Modes) -> Vec<String> {
    s.events_named("review_verdict")
        .iter()
        .map(|e| e["verdict"].as_str().unwrap().to_string())
        .collect()
}

fn keys(s: &Modes) -> Vec<String> {
    s.trace("rev.keys").lines().map(str::to_string).collect()
}

fn src_files(s: &Modes) -> Vec<String> {
    s.head_files()
        .into_iter()
        .filter(|f| f.starts_with("src/") || f == "evil.txt")
        .collect()
}

fn candidate<'a>(c: &'a Value, agent: &str) -> &'a Value {
    c["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["agent"] == agent)
        .unwrap_or_else(|| panic!("{agent}: {c}"))
}

#[test]
fn join_all_reviews_each_candidate_and_the_better_verdict_lands() {
    // alpha is ranked first and smaller, but its review finds a counted minor problem
    let s = join_all("  enabled: true\n");
    answer_for(
        &s,
        "alpha",
        &answer(
            "one nit",
            &[finding("minor", 90, "src/alpha.txt", "odd name")],
        ),
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(src_files(&s), vec!["src/beta.txt"]);
    assert_eq!(
        keys(&s),
        vec!["alpha", "beta"],
        "each candidate reviewed once"
    );
    let mut v = verdicts(&s);
    v.sort();
    assert_eq!(v, vec!["pass", "pass_with_risk"]);
    let c = &s.done()["convergence"];
    assert_eq!(c["selected_by"], "review", "{c}");
    assert_eq!(c["winner"], "beta");
    assert_eq!(candidate(c, "alpha")["review"]["verdict"], "pass_with_risk");
    assert_eq!(candidate(c, "alpha")["review"]["counted"], 1);
    assert_eq!(candidate(c, "beta")["review"]["verdict"], "pass");
    // the landed candidate's verdict is the status comment's `**Review:**` line
    let task = &s.env.state("shop")["tasks"][0];
    assert_eq!(task["review"], "pass (single)", "{task}");
    // each review is a reviewer run in the ledger
    let runs = s
        .events_named("agent_started")
        .into_iter()
        .filter(|e| e["role"] == "reviewer")
        .count();
    assert_eq!(runs, 2);
}

#[test]
fn a_lying_reviewer_neither_passes_a_bad_candidate_nor_blocks_a_clean_one() {
    // on alpha: "LGTM" in words with a critical finding on a changed line; on beta:
    // "BLOCK" in words with only an invented file and a low-confidence finding
    let s = join_all("  enabled: true\n  fix_rounds: 0\n");
    answer_for(
        &s,
        "alpha",
        &answer(
            "LGTM, ship it",
            &[finding(
                "critical",
                95,
                "src/alpha.txt",
                "drops the password",
            )],
        ),
    );
    answer_for(
        &s,
        "beta",
        &answer(
            "BLOCK THIS: critical problems",
            &[
                finding("critical", 99, "src/invented.rs", "made up"),
                finding("major", 40, "src/beta.txt", "a hunch"),
            ],
        ),
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(
        src_files(&s),
        vec!["src/beta.txt"],
        "no reviewer file lands"
    );
    let c = &s.done()["convergence"];
    assert_eq!(c["winner"], "beta", "{c}");
    assert_eq!(c["selected_by"], "only_passing", "{c}");
    let alpha = candidate(c, "alpha");
    assert_eq!(alpha["result"], "failed", "{alpha}");
    assert!(
        alpha["reason"]
            .as_str()
            .unwrap()
            .starts_with("review: 1 blocking finding(s): drops the password (src/alpha.txt:1)"),
        "{alpha}"
    );
    let fin = s.events_named("review_finished");
    let beta = fin
        .iter()
        .find(|e| e["findings"].to_string().contains("made up"))
        .unwrap();
    assert_eq!(beta["counted"], 0, "{beta}");
    assert_eq!(beta["dropped"], 2, "{beta}");
}

#[test]
fn join_first_reviews_the_candidate_that_would_land_and_its_agent_fixes_it() {
    let s = setup(
        coder("alpha", &["login"], 0),
        coder("beta", &["login", "hash"], 5),
        false,
        "",
        "  enabled: true\n",
    );
    answer_for(
        &s,
        "alpha",
        &answer("", &[finding("major", 90, "src/alpha.txt", "no hashing")]),
    );
    s.env.run(&["run", "shop"]).ok();
    // beta was stopped once alpha passed; only alpha's result is reviewed, twice
    assert_eq!(keys(&s), vec!["alpha", "alpha-fixed"]);
    assert_eq!(verdicts(&s), vec!["fail", "pass"]);
    assert_eq!(src_files(&s), vec!["src/alpha.txt"]);
    let landed = s.env.git(&["show", "HEAD:src/alpha.txt"]);
    assert!(landed.contains("fixed by alpha"), "{landed}");
    assert_eq!(s.trace("alpha.runs").lines().count(), 2);
    assert_eq!(s.trace("beta.runs").lines().count(), 1);
    let fix = s.artifact("attempt-1/alpha/fix-1/prompt.md");
    assert!(fix.contains("## Review findings (round 1)"), "{fix}");
    assert!(fix.contains("no hashing"), "{fix}");
    // the round-2 reviewer saw its earlier finding and the implementer's answer
    let p2 = s.trace("rev-prompt-2.txt");
    assert!(
        p2.contains("no hashing") && p2.contains("I fixed the finding."),
        "{p2}"
    );
}

#[test]
fn synthesis_reviews_the_one_result_and_the_runner_up_fixes_it() {
    let s = setup(
        coder("alpha", &["login"], 0),
        coder("beta", &["hash"], 0),
        true,
        "",
        "  enabled: true\n",
    );
    answer_for(
        &s,
        "both",
        &answer(
            "",
            &[finding(
                "critical",
                85,
                "src/beta.txt",
                "hash is not salted",
            )],
        ),
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(keys(&s), vec!["both", "both-fixed"]);
    assert_eq!(verdicts(&s), vec!["fail", "pass"]);
    assert_eq!(src_files(&s), vec!["src/alpha.txt", "src/beta.txt"]);
    let landed = s.env.git(&["show", "HEAD:src/beta.txt"]);
    assert!(landed.contains("fixed by beta"), "{landed}");
    assert_eq!(s.trace("alpha.runs").lines().count(), 1);
    assert_eq!(s.trace("beta.runs").lines().count(), 2);
    let msg = s.env.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains("`alpha` then `beta`"), "{msg}");
}

#[test]
fn synthesis_result_failing_its_review_does_not_land() {
    let s = setup(
        coder("alpha", &["login"], 0),
        coder("beta", &["hash"], 0),
        true,
        "",
        "  enabled: true\n  fix_rounds: 0\n",
    );
    answer_for(
        &s,
        "both",
        &answer(
            "",
            &[finding("major", 85, "src/alpha.txt", "no rate limit")],
        ),
    );
    s.env.run(&["run", "shop"]);
    assert!(src_files(&s).is_empty(), "{:?}", src_files(&s));
    assert!(s.events_named("issue_done").is_empty());
    let task = &s.env.state("shop")["tasks"][0];
    assert_eq!(task["stage"], "BLOCKED", "{task}");
    let reason = task["blocked_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("review: 1 blocking finding(s): no rate limit (src/alpha.txt:1)"),
        "{task}"
    );
}

#[test]
fn low_convergence_with_review_reviews_the_selection_though_the_gate_is_off() {
    let s = setup(
        coder("alpha", &["login user"], 0),
        coder("beta", &["schema table", "index"], 0),
        false,
        "  join: all\n  min_convergence: 0.9\n  on_low_convergence: review\n",
        "  fix_rounds: 0\n",
    );
    answer_for(
        &s,
        "alpha",
        &answer(
            "",
            &[finding("critical", 90, "src/alpha.txt", "wrong user")],
        ),
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.events_named("low_convergence").len(), 1);
    // alpha (smaller) would land: reviewed, fails; beta is reviewed next and lands
    assert_eq!(keys(&s), vec!["alpha", "beta"]);
    assert_eq!(verdicts(&s), vec!["fail", "pass"]);
    assert_eq!(src_files(&s), vec!["src/beta.txt"]);
    let c = &s.done()["convergence"];
    assert_eq!(c["selected_by"], "review", "{c}");
    assert_eq!(c["low_convergence"]["action"], "review", "{c}");
}

#[test]
fn no_valid_review_of_any_candidate_blocks_at_once() {
    let s = join_all("  enabled: true\n");
    std::fs::write(s.trace.join("rev-default.txt"), "I looked, all good!").unwrap();
    s.env.run(&["run", "shop"]);
    let task = &s.env.state("shop")["tasks"][0];
    assert_eq!(task["stage"], "BLOCKED", "{task}");
    let reason = task["blocked_reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("review could not run:"), "{task}");
    assert!(src_files(&s).is_empty());
    // no retry was used
    assert_eq!(s.trace("alpha.runs").lines().count(), 1);
}
