//! Small features used by several test modules.

use super::TestEnv;
use serde_json::json;

pub fn chain(env: &TestEnv) {
    env.issues(
        "auth",
        json!([
            {"order":1,"title":"a"},
            {"order":2,"title":"b","dependencies":[1]},
            {"order":3,"title":"c","dependencies":[2]}
        ]),
    );
    env.run(&["greenlight", "auth"]).ok();
}

pub fn two_issues(env: &TestEnv) {
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
}
