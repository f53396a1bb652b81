//! Test integrity (docs/integrity.md) with script agents: a feature with one issue ("calc.sh
//! subtracts instead of adding; make tests/test_existing.sh pass") and agents that cheat
//! the tests in each way the checks know — none of their work may land — and honest ones
//! that land.

use crate::common::TestEnv;
use crate::common::agents::RUNNER as CHECKS_RUNNER;
use crate::common::modes::{self, PARALLEL};
use serde_json::{Value, json};

/// The repository's pre-existing test, failing on the buggy calc.sh.
const EXISTING_TEST: &str = "[ \"$(sh calc.sh 2 3)\" = 5 ]\n";

/// Fixes the bug.
const FIX: &str = "printf 'echo $(($1 + $2))\\n' > calc.sh\n";

struct Calc {
    env: TestEnv,
}

impl Calc {
    /// The calc repository with `agent` (a shell body; the prompt is saved in
    /// `$TRACE/prompt-<attempt>.txt`) and `extra` config lines; greenlit.
    fn new(agent: &str, issue: Value, extra: &str) -> Calc {
        let env = TestEnv::new();
        env.write("calc.sh", "echo $(($1 - $2))\n");
        env.write("tests/test_existing.sh", EXISTING_TEST);
        env.git(&["add", "."]);
        env.git(&["commit", "-q", "-m", "chore: calc"]);
        let trace = env.tmp.path().join("trace");
        std::fs::create_dir_all(&trace).unwrap();
        let body = format!(
            "#!/bin/sh\ncat > \"{}/prompt-$SWARM_ATTEMPT.txt\"\n{agent}\necho '{{\"result\": \"done\"}}'\n",
            trace.display()
        );
        let agent = env.script("agent.sh", &body);
        // the common runner, over `tests/*.sh`
        let runner = env.script("runner.sh", &CHECKS_RUNNER.replace("checks/", "tests/"));
        env.write(
            "config.yaml",
            &format!(
                "coordination:\n  github_sync_enabled: false\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\nsessions:\n  max_implementation_retries: 1\n{extra}",
                agent.display(),
                runner.display()
            ),
        );
        env.issues("calc", json!([issue]));
        env.run(&["greenlight", "calc"]).ok();
        Calc { env }
    }

    fn issue() -> Value {
        json!({"order": 1, "title": "Fix add",
               "body": "calc.sh subtracts instead of adding; make tests/test_existing.sh pass."})
    }

    fn events(&self, name: &str) -> Vec<Value> {
        self.env.events_named("calc", name)
    }

    fn task(&self) -> Value {
        self.env.state("calc")["tasks"][0].clone()
    }

    fn integrity(&self, attempt: u32) -> Value {
        let text = self.env.read(&format!(
            ".swarm/runs/calc/issue-1/attempt-{attempt}/integrity.json"
        ));
        serde_json::from_str(&text).unwrap()
    }

    fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap_or_else(|| panic!("no {name} in {report}"))
    }

    fn prompt(&self, attempt: u32) -> String {
        std::fs::read_to_string(
            self.env
                .tmp
                .path()
                .join(format!("trace/prompt-{attempt}.txt")),
        )
        .unwrap_or_default()
    }

    /// Runs, expecting the issue to end BLOCKED with nothing landed.
    fn run_blocked(&self) -> String {
        let head = self.env.git(&["rev-parse", "HEAD"]);
        let r = self.env.run(&["run", "calc"]);
        r.code(1);
        assert_eq!(self.task()["stage"], "BLOCKED", "{}", r.stdout);
        assert_eq!(
            self.env.git(&["rev-parse", "HEAD"]),
            head,
            "a cheating attempt landed"
        );
        assert_eq!(self.env.read("tests/test_existing.sh"), EXISTING_TEST);
        self.task()["blocked_reason"].as_str().unwrap().to_string()
    }

    fn kinds(&self) -> Vec<String> {
        self.events("integrity_failed")
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_string())
            .collect()
    }
}

#[test]
fn lazy_deleter_who_deletes_the_failing_test_and_adds_a_vacuous_one_never_lands() {
    let c = Calc::new(
        "rm tests/test_existing.sh\necho true > tests/test_issue_1.sh",
        Calc::issue(),
        "",
    );
    let reason = c.run_blocked();
    assert!(
        reason.starts_with(
            "test integrity: fake deleted tests/test_existing.sh, a test that existed before this issue"
        ),
        "{reason}"
    );
    // one event per failing kind and attempt, with the documented fields
    let ev = c.events("integrity_failed");
    assert_eq!(ev.len(), 2, "{ev:?}");
    for (e, attempt) in ev.iter().zip([1, 2]) {
        assert_eq!(e["issue"], 1);
        assert_eq!(e["attempt"], attempt);
        assert_eq!(e["agent"], "fake");
        assert_eq!(e["kind"], "deleted_test");
        assert_eq!(e["paths"], json!(["tests/test_existing.sh"]));
        assert!(e["detail"].as_str().is_some(), "{e}");
    }
    // a failed check consumes a retry, and its reason is fed back
    assert_eq!(c.task()["retries"], 1);
    let retry = c.prompt(2);
    assert!(
        retry.contains("test integrity: fake deleted tests/test_existing.sh"),
        "{retry}"
    );
    assert!(
        retry.contains("restore it; change the code, not the test"),
        "{retry}"
    );
    // integrity.json: each check, passed, detail
    let rep = c.integrity(1);
    assert_eq!(rep["passed"], false);
    let p = Calc::check(&rep, "protect_tests");
    assert_eq!(p["passed"], false);
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("tests/test_existing.sh")
    );
    for name in ["skip_markers", "require_tests", "fail_before"] {
        assert!(Calc::check(&rep, name)["passed"].is_boolean());
    }
    // the tests were never judged: no tests_written, no verification
    assert!(c.events("tests_written").is_empty());
    assert!(c.events("verification_passed").is_empty());
}

#[test]
fn a_vacuous_test_next_to_a_real_fix_is_a_failed_attempt() {
    let c = Calc::new(
        &format!("{FIX}echo true > tests/test_issue_1.sh"),
        Calc::issue(),
        "",
    );
    let reason = c.run_blocked();
    assert!(
        reason.starts_with(
            "test integrity: the new tests pass without the change, so they test nothing new"
        ),
        "{reason}"
    );
    assert_eq!(c.kinds(), ["vacuous_test", "vacuous_test"]);
    let e = &c.events("integrity_failed")[0];
    assert_eq!(e["paths"], json!(["tests/test_issue_1.sh"]));
    // the tests passed before the check ran
    assert_eq!(c.events("verification_passed").len(), 2);
    let rep = c.integrity(1);
    let fb = Calc::check(&rep, "fail_before");
    assert_eq!(fb["passed"], false);
    assert_eq!(
        fb["detail"],
        "tests/test_issue_1.sh passes without the change"
    );
    assert!(rep["fail_before_ms"].is_u64(), "{rep}");
    // the run on the start commit left its log
    assert!(
        c.env
            .read(".swarm/runs/calc/issue-1/attempt-1/fail-before-1.log")
            .contains("1 passed, 0 failed")
    );
    // no `tests_written` for a test that tests nothing new
    assert!(c.events("tests_written").is_empty());
}

#[test]
fn an_honest_fix_with_a_test_that_fails_before_lands_with_tests_written() {
    let c = Calc::new(
        &format!("{FIX}echo '[ \"$(sh calc.sh 4 4)\" = 8 ]' > tests/test_issue_1.sh"),
        Calc::issue(),
        "",
    );
    let r = c.env.run(&["run", "calc"]);
    r.ok();
    assert_eq!(c.task()["stage"], "DONE", "{}", r.stdout);
    assert!(c.events("integrity_failed").is_empty());
    let tw = c.events("tests_written");
    assert_eq!(tw.len(), 1);
    assert_eq!(tw[0]["count"], 1);
    assert_eq!(tw[0]["path"], "tests/test_issue_1.sh");
    let rep = c.integrity(1);
    assert_eq!(rep["passed"], true);
    assert_eq!(
        Calc::check(&rep, "fail_before")["detail"],
        "tests/test_issue_1.sh fails without the change"
    );
    // the scratch run saw only the new test, at the start commit
    let log = c
        .env
        .read(".swarm/runs/calc/issue-1/attempt-1/fail-before-1.log");
    assert!(log.contains("0 passed, 1 failed"), "{log}");
}

#[test]
fn a_test_editor_who_weakens_the_existing_test_is_caught() {
    let c = Calc::new("echo 'exit 0' > tests/test_existing.sh", Calc::issue(), "");
    let reason = c.run_blocked();
    assert!(
        reason.starts_with(
            "test integrity: fake changed tests/test_existing.sh, a test that existed before this issue"
        ),
        "{reason}"
    );
    assert_eq!(c.kinds(), ["changed_test", "changed_test"]);
}

#[test]
fn an_added_skip_marker_is_caught() {
    let c = Calc::new(
        &format!(
            "{FIX}echo '[ \"$(sh calc.sh 4 4)\" = 8 ]' > tests/test_issue_1.sh\nprintf 'import pytest\\n\\n@pytest.mark.skip(reason=\"later\")\\ndef test_big():\\n    pass\\n' > tests/test_big.py"
        ),
        Calc::issue(),
        "",
    );
    let reason = c.run_blocked();
    assert!(
        reason.starts_with(
            "test integrity: fake added a skip marker (`@pytest.mark.skip`) at tests/test_big.py:3"
        ),
        "{reason}"
    );
    assert_eq!(c.kinds(), ["skip_marker", "skip_marker"]);
    assert_eq!(
        c.events("integrity_failed")[0]["paths"],
        json!(["tests/test_big.py"])
    );
}

#[test]
fn require_tests_fails_an_attempt_without_a_test_and_is_off_by_default() {
    let c = Calc::new(FIX, Calc::issue(), "verify:\n  require_tests: true\n");
    let reason = c.run_blocked();
    assert!(
        reason.starts_with("test integrity: fake added or changed no test file"),
        "{reason}"
    );
    assert_eq!(c.kinds(), ["no_test", "no_test"]);
    let e = &c.events("integrity_failed")[0];
    assert_eq!(e["paths"], json!([]));

    let off = Calc::new(FIX, Calc::issue(), "");
    off.env.run(&["run", "calc"]).ok();
    assert_eq!(off.task()["stage"], "DONE");
    let rep = off.integrity(1);
    assert_eq!(Calc::check(&rep, "require_tests")["skipped"], true);
}

#[test]
fn a_test_only_issue_skips_fail_before() {
    // the issue only adds coverage: its test passes on the unchanged code
    let agent = "mkdir -p tests\necho '[ \"$(sh calc.sh 5 0)\" = 5 ]' > tests/test_zero.sh";
    let mut issue = Calc::issue();
    issue["labels"] = json!(["tests"]);
    issue["title"] = json!("Cover adding zero");
    let c = Calc::new(agent, issue, "verify:\n  test_only_labels: [tests]\n");
    // the pre-existing failing test is not this issue's business here
    c.env.git(&["rm", "-q", "tests/test_existing.sh"]);
    c.env
        .git(&["commit", "-q", "-m", "chore: drop the failing test"]);
    let r = c.env.run(&["run", "calc"]);
    r.ok();
    assert_eq!(c.task()["stage"], "DONE", "{}\n{}", r.stdout, r.stderr);
    let rep = c.integrity(1);
    let fb = Calc::check(&rep, "fail_before");
    assert_eq!(fb["skipped"], true);
    assert_eq!(
        fb["detail"],
        "skipped: the issue has the label `tests` (verify.test_only_labels)"
    );
    assert_eq!(c.events("tests_written")[0]["path"], "tests/test_zero.sh");
}

#[test]
fn the_issues_own_test_file_may_be_edited() {
    let mut issue = Calc::issue();
    issue["test_file"] = json!("tests/test_existing.sh");
    let c = Calc::new(
        &format!("{FIX}echo '[ \"$(sh calc.sh 1 1)\" = 2 ]' >> tests/test_existing.sh"),
        issue,
        "",
    );
    let r = c.env.run(&["run", "calc"]);
    r.ok();
    assert_eq!(c.task()["stage"], "DONE", "{}", r.stdout);
    let rep = c.integrity(1);
    assert_eq!(Calc::check(&rep, "protect_tests")["passed"], true);
    // the changed test fails on the start commit (the bug is there): it tests the change
    assert_eq!(
        Calc::check(&rep, "fail_before")["detail"],
        "tests/test_existing.sh fails without the change"
    );
    assert!(c.env.read("tests/test_existing.sh").contains("1 1"));
}

#[test]
fn switched_off_checks_let_the_lazy_deleter_through() {
    let c = Calc::new(
        "rm tests/test_existing.sh\necho true > tests/test_issue_1.sh",
        Calc::issue(),
        "verify:\n  protect_tests: false\n  fail_before: false\n",
    );
    c.env.run(&["run", "calc"]).ok();
    assert_eq!(c.task()["stage"], "DONE");
    assert!(c.events("integrity_failed").is_empty());
}

#[test]
fn parallel_checks_each_candidate_and_lands_the_honest_one() {
    // alpha writes a check that passes without its change; beta one that tests it
    let alpha = "cat > /dev/null\nmkdir -p src checks\necho a > src/alpha.txt\necho 'exit 0' > checks/t_alpha.sh\n";
    let beta = "cat > /dev/null\nsleep 1\nmkdir -p src checks\necho b > src/beta.txt\necho 'test -f src/beta.txt' > checks/t_beta.sh\n";
    let s = modes::setup(
        PARALLEL,
        alpha,
        beta,
        "",
        "verify:\n  test_paths: [\"checks/**\"]\n",
    );
    let r = s.env.run(&["run", "shop"]);
    r.ok();
    assert_eq!(
        s.head_files(),
        vec!["checks/t_beta.sh".to_string(), "src/beta.txt".to_string()],
        "{}",
        r.stdout
    );
    let failed = s.events_named("integrity_failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["agent"], "alpha");
    assert_eq!(failed[0]["kind"], "vacuous_test");
    let alpha_rep: Value =
        serde_json::from_str(&s.artifact("attempt-1/alpha/integrity.json")).unwrap();
    assert_eq!(alpha_rep["passed"], false);
    let beta_rep: Value =
        serde_json::from_str(&s.artifact("attempt-1/beta/integrity.json")).unwrap();
    assert_eq!(beta_rep["passed"], true);
}
