//! `matrix <feature> [--max N]`: the dispatchable issues (READY, not manual, no open pull
//! request) as a GitHub Actions matrix, also written to `GITHUB_OUTPUT` in a workflow.

use crate::common::TestEnv;
use serde_json::json;

fn setup() -> TestEnv {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([
            {"order": 1, "title": "Model"},
            {"order": 2, "title": "API", "dependencies": [1]},
            {"order": 3, "title": "Review the design", "automation_type": "manual"},
            {"order": 4, "title": "Docs"}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
    env
}

#[test]
fn matrix_lists_ready_automated_issues_in_dependency_order() {
    let env = setup();
    let r = env.run(&["matrix", "auth"]);
    r.ok();
    assert_eq!(
        r.json(),
        json!({"include": [{"issue": 1, "title": "Model"}, {"issue": 4, "title": "Docs"}]}),
        "2 waits on 1; 3 is manual"
    );
    env.commit("feat(auth): Implement issue #1");
    let r = env.run(&["matrix", "auth"]);
    r.ok();
    assert_eq!(
        r.json(),
        json!({"include": [{"issue": 4, "title": "Docs"}, {"issue": 2, "title": "API"}]}),
        "the sync made 1 DONE, which released 2 (after 4, which needs nothing)"
    );
    let r = env.run(&["matrix", "auth", "--max", "1"]);
    r.ok();
    assert_eq!(
        r.json(),
        json!({"include": [{"issue": 4, "title": "Docs"}]})
    );
}

#[test]
fn matrix_writes_github_output_and_rejects_max_zero() {
    let env = setup();
    let out = env.path("gh-output");
    let r: crate::common::Run = env
        .command()
        .args(["matrix", "auth"])
        .env("GITHUB_OUTPUT", &out)
        .output()
        .unwrap()
        .into();
    r.ok();
    let written = std::fs::read_to_string(&out).unwrap();
    let line = written.lines().find(|l| l.starts_with("matrix=")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&line["matrix=".len()..]).unwrap();
    assert_eq!(doc, r.json());
    let r = env.run(&["matrix", "auth", "--max", "0"]);
    r.code(2);
    assert!(r.stderr.contains("--max"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_matrix_and_a_bad_max() {
    let env = setup().fixed_clock();
    let r = env.run(&["matrix", "auth"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
{
  "include": [
    {
      "issue": 1,
      "title": "Model"
    },
    {
      "issue": 4,
      "title": "Docs"
    }
  ]
}
----- stderr -----
"#);
    let r = env.run(&["matrix", "auth", "--max", "0"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 2
----- stdout -----
----- stderr -----
error: --max 0 would give an empty matrix, which GitHub Actions rejects
hint: give --max 1 or more, or leave it out
"#);
}
