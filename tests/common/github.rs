//! A repository linked to the fake GitHub server (`Gh`) and assertions on what the fake holds.

use super::fake_github::FakeGithub;
use super::{Run, TestEnv};
use serde_json::{Value, json};

pub const TOKEN: &str = "ghs_fakeTOKEN0123456789abcdef";
pub const REPO: &str = "octo/repo";
pub const MARKER: &str = "<!-- swarm-attack:status -->";

pub struct Gh {
    pub env: TestEnv,
    pub fake: FakeGithub,
}

/// A repository linked to the fake; `auto` turns the automatic sync on.
pub fn setup(auto: bool) -> Gh {
    let fake = FakeGithub::start(REPO, TOKEN);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("GITHUB_API_URL".to_string(), fake.url.clone()),
        ("GITHUB_TOKEN".to_string(), TOKEN.to_string()),
        (
            "SWARM_ATTACK_GITHUB_MAX_WAIT_MS".to_string(),
            "5000".to_string(),
        ),
        (
            "SWARM_ATTACK_GITHUB_BACKOFF_MS".to_string(),
            "1".to_string(),
        ),
    ]);
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: {auto}\ngithub:\n  repo: {REPO}\n  min_write_interval_ms: 0\n"
        ),
    );
    Gh { env, fake }
}

impl Gh {
    /// The repository's clock fixed (see `TestEnv::fixed_clock`).
    pub fn fixed_clock(mut self) -> Self {
        self.env = self.env.fixed_clock();
        self
    }

    pub fn sync(&self) -> Run {
        self.env.run(&["github", "sync", "auth"])
    }

    /// Changes one task in the state file (as `run` would).
    pub fn set(&self, issue: u64, stage: &str, fields: Value) {
        let mut state = self.env.state("auth");
        let task = state["tasks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["issue_number"] == issue)
            .unwrap();
        task["stage"] = json!(stage);
        if let Value::Object(m) = fields {
            for (k, v) in m {
                task[k] = v;
            }
        }
        self.env.write(
            ".swarm/state/auth.json",
            &serde_json::to_string_pretty(&state).unwrap(),
        );
    }

    /// Every output the binary produced or wrote, to check that the token is nowhere.
    pub fn all_written(&self) -> String {
        let mut out = String::new();
        for (_, bytes) in super::snapshot_files(&self.env.root) {
            out.push_str(&String::from_utf8_lossy(&bytes));
        }
        out
    }
}

pub fn no_auto_coloured_swarm_label(fake: &FakeGithub) -> bool {
    fake.labels()
        .iter()
        .all(|(n, c)| !n.starts_with("swarm:") || c != "ededed")
}

pub fn colour_of(fake: &FakeGithub, name: &str) -> Option<String> {
    fake.labels()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, c)| c)
}

/// Every linked issue carries exactly `want`'s label and exactly one status comment.
#[track_caller]
pub fn assert_issue(fake: &FakeGithub, number: u64, label: &str) {
    assert_eq!(
        fake.swarm_labels(number),
        vec![label.to_string()],
        "labels of #{number}"
    );
    assert_eq!(
        fake.status_comments(number).len(),
        1,
        "status comments of #{number}: {:?}",
        fake.comments(number)
    );
}
