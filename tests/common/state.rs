//! Reading and editing a feature's state file by hand, as a crashed or older run would leave it.

use super::TestEnv;
use serde_json::{Value, json};

pub fn edit_state(env: &TestEnv, feature: &str, f: impl FnOnce(&mut Value)) {
    let mut s = env.state(feature);
    f(&mut s);
    env.write(
        &format!(".swarm/state/{feature}.json"),
        &serde_json::to_string_pretty(&s).unwrap(),
    );
}

pub fn set_stage(env: &TestEnv, feature: &str, issue: u64, stage: &str) {
    edit_state(env, feature, |s| {
        let t = s["tasks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["issue_number"] == issue)
            .unwrap();
        t["stage"] = json!(stage);
        if stage == "BLOCKED" {
            t["blocked_reason"] = json!("tests fail");
            t["retries"] = json!(3);
        }
    });
}

/// `status <feature> --json` → (issue, stage) for every task, in order.
pub fn stages(env: &TestEnv, feature: &str) -> Vec<(u64, String)> {
    let r = env.run(&["status", feature, "--json"]);
    r.ok();
    r.json()["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["issue"].as_u64().unwrap(),
                t["stage"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub fn stage_of(env: &TestEnv, feature: &str, issue: u64) -> String {
    stages(env, feature)
        .into_iter()
        .find(|(n, _)| *n == issue)
        .unwrap_or_else(|| panic!("no task {issue}"))
        .1
}

pub fn task_mut(s: &mut Value, issue: u64) -> &mut Value {
    s["tasks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["issue_number"] == issue)
        .unwrap()
}
