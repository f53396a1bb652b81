//! init / greenlight / status / unblock against real temp repositories.

use crate::common::TestEnv;
use serde_json::json;

#[test]
fn greenlight_creates_state_and_second_run_is_byte_identical() {
    let env = TestEnv::new();
    env.issues(
        "auth",
        json!([{"order":1,"title":"a"},{"order":2,"title":"b","dependencies":[1]}]),
    );
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(env.stage("auth", 1), "READY");
    assert_eq!(env.stage("auth", 2), "BACKLOG");
    let first = env.read_bytes(".swarm/state/auth.json");
    let events_before = env.events("auth").len();
    env.run(&["greenlight", "auth"]).ok();
    assert_eq!(first, env.read_bytes(".swarm/state/auth.json"));
    assert_eq!(events_before, env.events("auth").len());
}
