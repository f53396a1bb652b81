//! Agents and test runners as shell scripts, and `Setup`: a repository with a feature, a
//! script agent and the runner, greenlit.

use super::TestEnv;
use serde_json::Value;
use std::path::PathBuf;

/// The test runner used as `tests.command`: runs `checks/*.sh` (or the files given) and
/// prints `N passed, M failed`.
pub const RUNNER: &str = r#"#!/bin/sh
p=0; f=0
if [ "$#" -gt 0 ]; then files="$*"; else files=$(ls checks/*.sh 2>/dev/null); fi
for t in $files; do
  if sh "$t"; then p=$((p + 1)); else f=$((f + 1)); echo "FAILED: $t"; fi
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
"#;

/// A repository with a feature, a script agent and the runner, greenlit.
pub struct Setup {
    pub env: TestEnv,
    /// Where agents leave their traces (outside the repository).
    pub trace: PathBuf,
}

impl Setup {
    pub fn new(feature: &str, issues: Value, agent_body: &str, config_extra: &str) -> Setup {
        Self::new_in(TestEnv::new(), feature, issues, agent_body, config_extra)
    }

    /// `new` in a given environment (e.g. `TestEnv::new().fixed_clock()`).
    pub fn new_in(
        env: TestEnv,
        feature: &str,
        issues: Value,
        agent_body: &str,
        config_extra: &str,
    ) -> Setup {
        let trace = env.tmp.path().join("trace");
        std::fs::create_dir_all(&trace).unwrap();
        let body = agent_body.replace("$TRACE", &trace.to_string_lossy());
        let agent = env.script("agent.sh", &format!("#!/bin/sh\n{body}"));
        let runner = env.script("runner.sh", RUNNER);
        env.write(
            "config.yaml",
            &format!(
                "coordination:\n  github_sync_enabled: false\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\n{config_extra}",
                agent.display(),
                runner.display()
            ),
        );
        env.issues(feature, issues);
        env.run(&["greenlight", feature]).ok();
        Setup { env, trace }
    }

    /// Rewrites config.yaml with these agents — (name, script body, extra agent keys as
    /// YAML lines indented by 4, e.g. `"    fallback: [b]\n"`) — the runner, and `extra`
    /// (`coordination.github_sync_enabled: false` unless `extra` has a `coordination`
    /// section). `$TRACE` in a body is the trace folder.
    pub fn with_agents(&self, agents: &[(&str, &str, &str)], extra: &str) {
        let mut yaml = String::new();
        if !extra.contains("coordination:") {
            yaml.push_str("coordination:\n  github_sync_enabled: false\n");
        }
        yaml.push_str("agents:\n");
        for (name, body, keys) in agents {
            let body = body.replace("$TRACE", &self.trace.to_string_lossy());
            let script = self
                .env
                .script(&format!("agent-{name}.sh"), &format!("#!/bin/sh\n{body}"));
            yaml.push_str(&format!(
                "  - name: {name}\n    command: [\"{}\"]\n{keys}",
                script.display()
            ));
            if !keys.contains("timeout_seconds") {
                yaml.push_str("    timeout_seconds: 30\n");
            }
        }
        let runner = self.env.tmp.path().join("runner.sh");
        yaml.push_str(&format!(
            "tests:\n  command: \"sh {}\"\n  timeout_seconds: 30\n{extra}",
            runner.display()
        ));
        self.env.write("config.yaml", &yaml);
    }

    pub fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.trace.join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    pub fn task(&self, feature: &str, issue: u64) -> Value {
        self.env.state(feature)["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["issue_number"] == issue)
            .cloned()
            .unwrap()
    }

    pub fn events_named(&self, feature: &str, name: &str) -> Vec<Value> {
        self.env
            .events(feature)
            .into_iter()
            .filter(|e| e["event"] == name)
            .collect()
    }

    /// Implementing commits (by the Swarm-Issue trailer) for each issue on HEAD.
    pub fn implementing_commits(&self, feature: &str, issue: u32) -> usize {
        let log = self
            .env
            .git(&["log", "--format=%(trailers:key=Swarm-Feature,valueonly)|%(trailers:key=Swarm-Issue,valueonly)%x00"]);
        log.split('\0')
            .filter(|r| {
                let r = r.trim().replace('\n', "");
                r == format!("{feature}|{issue}")
            })
            .count()
    }
}

/// An agent that writes `src/<issue>.txt` and a passing check, and logs the call.
pub const GOOD_AGENT: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
echo '{"result": "ok", "total_cost_usd": 0.25}'
"#;
