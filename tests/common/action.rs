//! `swarm-attack action` as GitHub Actions runs it: webhook payloads (real examples from
//! @octokit/webhooks-examples, adapted to the test repository) and the runner's files.

use super::{Run, TestEnv};
use serde_json::{Value, json};

pub fn payload(name: &str) -> Value {
    let p = format!(
        "{}/tests/fixtures/webhooks/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// An `issues` payload for issue `number` with `labels`, sent by `sender`.
pub fn issue_payload(
    action: &str,
    number: u64,
    labels: &[&str],
    body: &str,
    sender: (&str, &str),
) -> Value {
    let mut p = payload(if action == "labeled" {
        "issues.labeled"
    } else {
        "issues.opened"
    });
    p["action"] = json!(action);
    p["issue"]["number"] = json!(number);
    p["issue"]["title"] = json!(format!("Issue {number}"));
    p["issue"]["body"] = json!(body);
    p["issue"]["author_association"] = json!("OWNER");
    p["issue"]["labels"] = Value::Array(
        labels
            .iter()
            .map(|l| json!({"name": l, "color": "ededed"}))
            .collect(),
    );
    if let Some(l) = labels.last() {
        p["label"] = json!({"name": l, "color": "ededed"});
    }
    p["sender"]["login"] = json!(sender.0);
    p["sender"]["type"] = json!(sender.1);
    p["repository"]["full_name"] = json!("octo/repo");
    p
}

/// A `/swarm` comment payload on issue `number`.
pub fn comment_payload(
    number: u64,
    labels: &[&str],
    body: &str,
    author: &str,
    association: &str,
) -> Value {
    let mut p = payload("issue_comment.created");
    p["issue"]["number"] = json!(number);
    p["issue"]["labels"] = Value::Array(labels.iter().map(|l| json!({"name": l})).collect());
    p["issue"]["pull_request"] = Value::Null;
    p["comment"]["body"] = json!(body);
    p["comment"]["user"]["login"] = json!(author);
    p["comment"]["author_association"] = json!(association);
    p["sender"]["login"] = json!(author);
    p["sender"]["type"] = json!("User");
    p
}

pub struct ActionRun {
    pub run: Run,
    pub outputs: String,
    pub summary: String,
}

impl ActionRun {
    /// The whole output (see `Run::snapshot`), then the step outputs and the job summary.
    pub fn snapshot(&self, env: &TestEnv) -> String {
        format!(
            "{}----- GITHUB_OUTPUT -----\n{}----- GITHUB_STEP_SUMMARY -----\n{}",
            self.run.snapshot(env),
            env.normalize(&self.outputs),
            env.normalize(&self.summary)
        )
    }
}

/// Runs `swarm-attack action` for `event` with `payload`; extra env from `env.extra_env`.
pub fn run_action(env: &TestEnv, event: &str, payload: &Value) -> ActionRun {
    let dir = env.tmp.path().join("runner");
    std::fs::create_dir_all(&dir).unwrap();
    let event_path = dir.join("event.json");
    let out_path = dir.join("output.txt");
    let sum_path = dir.join("summary.md");
    std::fs::write(&event_path, serde_json::to_vec(payload).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&sum_path);
    let run: Run = env
        .command()
        .arg("action")
        .env("GITHUB_EVENT_NAME", event)
        .env("GITHUB_EVENT_PATH", &event_path)
        .env("GITHUB_OUTPUT", &out_path)
        .env("GITHUB_STEP_SUMMARY", &sum_path)
        .env("GITHUB_REPOSITORY", "octo/repo")
        .env("GITHUB_WORKSPACE", &env.root)
        .output()
        .unwrap()
        .into();
    ActionRun {
        run,
        outputs: std::fs::read_to_string(&out_path).unwrap_or_default(),
        summary: std::fs::read_to_string(&sum_path).unwrap_or_default(),
    }
}

/// The `run:` script of action.yml's "Run swarm-attack" step.
pub fn run_step_script() -> String {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml"),
    )
    .unwrap();
    let step = text
        .split("- name: Run swarm-attack")
        .nth(1)
        .expect("action.yml has a `Run swarm-attack` step");
    let body = step
        .split("      run: |\n")
        .nth(1)
        .expect("the step has run: |");
    body.lines()
        .take_while(|l| l.starts_with("        ") || l.trim().is_empty())
        .map(|l| l.strip_prefix("        ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}
