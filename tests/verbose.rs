//! `-v` and `-vv`: what is synced, which commands run, which GitHub requests are sent.
//! Without them, none of that detail is printed.

use crate::common::agents::{GOOD_AGENT, Setup};
use crate::common::github::{TOKEN, setup};
use serde_json::json;

fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn status_and_greenlight_tell_what_the_git_sync_did_with_v_and_its_rule_with_vv() {
    let s = Setup::new("auth", json!([{"order":1,"title":"a"}]), GOOD_AGENT, "");
    let env = &s.env;
    env.commit("feat(auth): Implement issue #1");

    // the first sync after the commit finds it
    let v = env.run(&["-v", "status", "auth"]);
    v.ok();
    let synced = lines_with(&v.stderr, "git sync of `auth`:");
    assert_eq!(synced.len(), 1, "{}", v.stderr);
    assert!(synced[0].contains("DONE from git: [1]"), "{}", synced[0]);
    assert!(!v.stderr.contains("done patterns"), "{}", v.stderr);

    let quiet = env.run(&["status", "auth"]);
    quiet.ok();
    assert!(!quiet.stderr.contains("git sync of"), "{}", quiet.stderr);
    // stdout is the command's output, unchanged by -v
    assert_eq!(quiet.stdout, env.run(&["-v", "status", "auth"]).stdout);

    let vv = env.run(&["-vv", "status", "auth"]);
    vv.ok();
    assert!(vv.stderr.contains("done patterns"), "{}", vv.stderr);
    assert!(
        vv.stderr.contains("status of `auth`: state read from"),
        "{}",
        vv.stderr
    );

    let g = env.run(&["-v", "greenlight", "auth"]);
    g.ok();
    assert!(
        g.stderr.contains(
            "greenlight `auth`: 1 issue(s) in specs/auth/issues.json; added [], kept [1]"
        ),
        "{}",
        g.stderr
    );
    assert!(g.stderr.contains("git sync of `auth`"), "{}", g.stderr);
}

#[test]
fn run_names_the_commands_it_runs_with_v_and_the_git_commands_with_vv() {
    let s = Setup::new("auth", json!([{"order":1,"title":"a"}]), GOOD_AGENT, "");
    let r = s.env.run(&["-vv", "run", "auth"]);
    r.ok();
    assert!(
        r.stderr.contains("claimed issue #1 of `auth` (attempt 1)"),
        "{}",
        r.stderr
    );
    assert!(
        lines_with(&r.stderr, "running `")
            .iter()
            .any(|l| l.contains("agent.sh")),
        "{}",
        r.stderr
    );
    assert!(
        lines_with(&r.stderr, "running `")
            .iter()
            .any(|l| l.contains("runner.sh")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("running `git "), "{}", r.stderr);

    let s = Setup::new("auth", json!([{"order":1,"title":"a"}]), GOOD_AGENT, "");
    let r = s.env.run(&["-v", "run", "auth"]);
    r.ok();
    assert!(r.stderr.contains("agent.sh"), "{}", r.stderr);
    assert!(!r.stderr.contains("running `git "), "{}", r.stderr);

    let s = Setup::new("auth", json!([{"order":1,"title":"a"}]), GOOD_AGENT, "");
    let r = s.env.run(&["run", "auth"]);
    r.ok();
    assert!(!r.stderr.contains("running `"), "{}", r.stderr);
}

#[test]
fn github_sync_tells_what_it_synced_with_v_and_each_request_with_vv() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();

    let v = gh.env.run(&["-v", "github", "sync", "auth"]);
    v.ok();
    assert!(
        v.stderr
            .contains("GitHub sync of `auth` → octo/repo: 1 linked issue(s)"),
        "{}",
        v.stderr
    );
    assert!(
        v.stderr
            .contains(&format!("GitHub #{a} (issue 1 of `auth`, READY): ")),
        "{}",
        v.stderr
    );
    assert!(!v.stderr.contains("GitHub request:"), "{}", v.stderr);

    let vv = gh.env.run(&["-vv", "github", "sync", "auth"]);
    vv.ok();
    assert!(
        vv.stderr
            .contains(&format!("GitHub request: GET /repos/octo/repo/issues/{a}")),
        "{}",
        vv.stderr
    );
    assert!(
        vv.stderr.contains("(issue 1 of `auth`, READY): unchanged"),
        "{}",
        vv.stderr
    );
    // the token is never printed
    assert!(!vv.stderr.contains(TOKEN), "{}", vv.stderr);

    let quiet = gh.env.run(&["github", "sync", "auth"]);
    quiet.ok();
    assert!(!quiet.stderr.contains("GitHub sync of"), "{}", quiet.stderr);
}

#[test]
fn an_error_printed_with_v_shows_its_cause_chain_and_without_v_only_the_sentence() {
    let env = crate::common::TestEnv::new();
    // a config file that is not there: the OS error is the cause
    let r = env.run(&["-v", "--config", "missing.yaml", "status"]);
    insta::assert_snapshot!(r.snapshot(&env), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: config file missing.yaml does not exist
      caused by: No such file or directory (os error 2)
    hint: check the path given to --config
    ");
    let plain = env.run(&["--config", "missing.yaml", "status"]);
    insta::assert_snapshot!(plain.snapshot(&env), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: config file missing.yaml does not exist
    hint: check the path given to --config
    ");

    // a state file that is not JSON: the parser's own sentence is the cause
    env.issues("auth", json!([{"order":1,"title":"a"}]));
    env.write(".swarm/state/auth.json", "{\"feature\": ");
    let r = env.run(&["-v", "status", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: [TMP]/repo/.swarm/state/auth.json is not a valid state file: EOF while parsing a value at line 1, column 12
      caused by: EOF while parsing a value at line 1 column 12
    hint: fix or restore the file by hand; swarm-attack never overwrites a state file it cannot read
    ");
    // a cause the message already says (an OS error in `could not read …: <error>`) is
    // not repeated
    let r = env.run(&["-v", "--config", ".", "status"]);
    insta::assert_snapshot!(r.snapshot(&env), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: cannot read config file [TMP]/repo/.: Is a directory (os error 21)
    ");
}

#[test]
fn a_github_failure_printed_with_v_shows_the_request_it_came_from() {
    let gh = setup(false);
    let a = gh.fake.add_issue("a", &[]);
    gh.env
        .issues("auth", json!([{"order":1,"title":"a","github_issue":a}]));
    gh.env.run(&["greenlight", "auth"]).ok();
    gh.fake.fail_next(
        "POST",
        "/labels",
        crate::common::fake_github::Fault::Reply(403, "Resource not accessible by integration"),
        1,
    );
    let r = gh.env.run(&["-v", "github", "sync", "auth"]);
    r.code(1);
    let error = lines_with(&r.stderr, "error: ");
    assert_eq!(error.len(), 1, "{}", r.stderr);
    assert!(error[0].contains("issues: write"), "{}", r.stderr);
    // the sentence names no request; the cause under it does
    assert!(!error[0].contains("POST"), "{}", r.stderr);
    let caused = lines_with(&r.stderr, "caused by: ");
    assert_eq!(caused.len(), 1, "{}", r.stderr);
    assert!(
        caused[0].contains("POST /repos/") && caused[0].contains("/labels → 403"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains(TOKEN), "{}", r.stderr);
}
