//! The review gate with `git.landing: pr` (docs/review.md): the counted findings become one
//! pull-request review with event `COMMENT` and inline comments — never `APPROVE` nor
//! `REQUEST_CHANGES`, never twice for the same head — and the pull request's body shows
//! the `**Review:**` line. Against the fake GitHub of tests/common.

use crate::common::TestEnv;
use crate::common::fake_github::{FakeGithub, Fault};
use serde_json::{Value, json};
use std::path::PathBuf;

const REPO: &str = "acme/shop";
const TOKEN: &str = "ghp_reviewtoken";

struct Pr {
    env: TestEnv,
    fake: FakeGithub,
    trace: PathBuf,
}

/// One issue, a coder that writes `src/login.txt`, a reviewer `rev` answering
/// `$TRACE/answer.txt`.
fn setup() -> Pr {
    let fake = FakeGithub::start(REPO, TOKEN);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("GITHUB_API_URL".to_string(), fake.url.clone()),
        ("GITHUB_TOKEN".to_string(), TOKEN.to_string()),
        ("SWARM_ATTACK_GITHUB_BACKOFF_MS".into(), "1".into()),
    ]);
    let origin = env.tmp.path().join("origin.git");
    std::fs::create_dir_all(&origin).unwrap();
    env.git_in(&origin, &["init", "-q", "--bare", "-b", "main"]);
    env.git(&["remote", "add", "origin", origin.to_str().unwrap()]);
    let trace = env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let coder = env.script(
        "bin/coder.sh",
        "#!/bin/sh\ncat > /dev/null\nmkdir -p src\nprintf 'login\\ncheck password\\n' > src/login.txt\n",
    );
    let reviewer = env.script(
        "bin/rev.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\necho run >> '{t}/rev.runs'\ncat '{t}/answer.txt'\n",
            t = trace.display()
        ),
    );
    let llm = env.script(
        "bin/llm.sh",
        "#!/bin/sh\ncat > /dev/null\ncase \"$SWARM_PURPOSE/$SWARM_AGENT\" in\n  proposal/coder) echo '{\"angle\":\"a\",\"confidence\":0.9,\"covers\":[\"a\"],\"solo_sufficient\":true,\"builds_on_other\":false}' ;;\n  proposal/*) echo '{\"angle\":\"r\",\"confidence\":0.1,\"covers\":[\"r\"],\"solo_sufficient\":true,\"builds_on_other\":false}' ;;\n  *) echo 'Implemented.' ;;\nesac\n",
    );
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\n  proposal_source: llm\nagents:\n  - name: coder\n    command: [\"{}\"]\n    timeout_seconds: 30\n  - name: rev\n    command: [\"{}\"]\n    timeout_seconds: 30\nllm:\n  command: [\"{}\"]\n  timeout_seconds: 10\ntests:\n  command: \"true\"\ngit:\n  landing: pr\ngithub:\n  repo: {REPO}\n  min_write_interval_ms: 0\nreview:\n  enabled: true\n  reviewers: [rev]\n",
            coder.display(),
            reviewer.display(),
            llm.display()
        ),
    );
    env.git(&["add", "."]);
    env.commit("chore: config");
    env.git(&["push", "-q", "origin", "main"]);
    env.issues(
        "shop",
        json!([{"order": 1, "title": "Login", "body": "Add a login."}]),
    );
    env.run(&["greenlight", "shop"]).ok();
    Pr { env, fake, trace }
}

fn answer(pr: &Pr, findings: &[Value]) {
    let a = json!({"findings": findings, "summary": "reviewed"});
    std::fs::write(pr.trace.join("answer.txt"), a.to_string()).unwrap();
}

fn the_pull(pr: &Pr) -> crate::common::fake_github::PullView {
    let pulls = pr.fake.pulls();
    assert_eq!(pulls.len(), 1, "{pulls:?}");
    pulls[0].clone()
}

#[test]
fn counted_findings_become_one_comment_review_never_twice_for_the_same_head() {
    let s = setup();
    answer(
        &s,
        &[
            json!({"severity": "minor", "confidence": 88, "file": "src/login.txt", "line": 2,
                   "title": "plain-text password check; closes #1", "body": "compare hashes"}),
            json!({"severity": "major", "confidence": 30, "file": "src/login.txt", "line": 1,
                   "title": "a hunch", "body": "not sure"}),
        ],
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.env.stage("shop", 1), "IN_REVIEW");
    let p = the_pull(&s);
    assert!(
        p.body
            .contains("**Review:** pass_with_risk (single): [minor] src/login.txt:2"),
        "{}",
        p.body
    );
    let reviews = s.fake.pull_reviews(p.number);
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    let r = &reviews[0];
    assert_eq!(r["state"], "COMMENTED", "{r}");
    let head = s.env.git_in(
        &s.env.tmp.path().join("origin.git"),
        &["rev-parse", "swarm/shop/issue-1"],
    );
    assert_eq!(r["commit_id"], head.trim(), "{r}");
    let body = r["body"].as_str().unwrap();
    assert!(
        body.contains("plain-text password check; closes # 1"),
        "{body}"
    );
    assert!(!body.contains("a hunch"), "only counted findings: {body}");
    let comments = r["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 1, "{r}");
    assert_eq!(comments[0]["path"], "src/login.txt");
    assert_eq!(comments[0]["line"], 2);
    assert_eq!(comments[0]["side"], "RIGHT");
    assert!(
        comments[0]["body"]
            .as_str()
            .unwrap()
            .contains("compare hashes")
    );

    // `report` shows the verdict and the counted findings
    let html = crate::common::report::report_html(&s.env, "shop");
    assert!(
        html.contains(r#"data-review="pass_with_risk (single), 1 counted""#),
        "no review in the report"
    );
    assert!(
        html.contains(
            "<li>[minor] src/login.txt:2 — plain-text password check; closes #1 (rev)</li>"
        ),
        "no finding in the report"
    );
    // a second run posts nothing
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.fake.pull_reviews(p.number).len(), 1);
    assert_eq!(s.trace_runs(), 1);
}

fn a_minor_finding(s: &Pr) {
    answer(
        s,
        &[
            json!({"severity": "minor", "confidence": 90, "file": "src/login.txt", "line": 1,
                 "title": "nit", "body": "b"}),
        ],
    );
}

#[test]
fn a_review_post_that_failed_after_being_applied_is_not_posted_twice() {
    let s = setup();
    a_minor_finding(&s);
    s.fake
        .fail_next("POST", "/reviews", Fault::AppliedThen502, 1);
    s.env.run(&["run", "shop"]).ok();
    let p = the_pull(&s);
    assert_eq!(s.fake.pull_reviews(p.number).len(), 1);
    assert_eq!(
        s.fake.count("POST", "/reviews"),
        1,
        "it looked before posting again"
    );

    // not applied: posted again, once
    let s = setup();
    a_minor_finding(&s);
    s.fake.fail_next("POST", "/reviews", Fault::Status(502), 1);
    s.env.run(&["run", "shop"]).ok();
    let p = the_pull(&s);
    assert_eq!(s.fake.pull_reviews(p.number).len(), 1);
    assert_eq!(s.fake.count("POST", "/reviews"), 2);
}

#[test]
fn a_line_github_cannot_place_leaves_the_findings_in_the_review_body() {
    let s = setup();
    answer(
        &s,
        &[
            json!({"severity": "minor", "confidence": 90, "file": "src/login.txt", "line": 2,
                 "title": "nit", "body": "b"}),
        ],
    );
    s.fake.fail_next(
        "POST",
        "/reviews",
        Fault::Reply(422, "Line could not be resolved"),
        1,
    );
    s.env.run(&["run", "shop"]).ok();
    let p = the_pull(&s);
    let reviews = s.fake.pull_reviews(p.number);
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!(reviews[0]["comments"], json!([]));
    assert!(
        reviews[0]["body"]
            .as_str()
            .unwrap()
            .contains("`src/login.txt:2` — nit")
    );
}

#[test]
fn a_clean_review_posts_nothing_and_post_to_pr_false_posts_nothing() {
    let s = setup();
    answer(&s, &[]);
    s.env.run(&["run", "shop"]).ok();
    let p = the_pull(&s);
    assert!(s.fake.pull_reviews(p.number).is_empty());
    assert!(p.body.contains("**Review:** pass (single)"), "{}", p.body);

    let off = setup();
    let cfg = off.env.read("config.yaml");
    off.env
        .write("config.yaml", &format!("{cfg}  post_to_pr: false\n"));
    answer(
        &off,
        &[
            json!({"severity": "minor", "confidence": 95, "file": "src/login.txt", "line": 1,
                 "title": "nit", "body": "b"}),
        ],
    );
    off.env.run(&["run", "shop"]).ok();
    let p = the_pull(&off);
    assert!(off.fake.pull_reviews(p.number).is_empty());
    assert!(
        p.body.contains("[minor] src/login.txt:1 — nit"),
        "{}",
        p.body
    );
}

impl Pr {
    fn trace_runs(&self) -> usize {
        std::fs::read_to_string(self.trace.join("rev.runs"))
            .unwrap_or_default()
            .lines()
            .count()
    }
}
