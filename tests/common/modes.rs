//! Two agents forced into PARALLEL or SYNTHESIS by an `llm.command` script answering fixed
//! proposals per `SWARM_AGENT`, and agent bodies that pass or fail the tests.

use super::TestEnv;
use serde_json::{Value, json};
use std::path::PathBuf;

/// `tests.command`: runs `checks/*.sh`, prints `N passed, M failed`.
pub const RUNNER: &str = r#"#!/bin/sh
p=0; f=0
for t in $(ls checks/*.sh 2>/dev/null); do
  if sh "$t"; then p=$((p + 1)); else f=$((f + 1)); echo "FAILED: $t"; fi
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
"#;

/// PARALLEL: high confidences, disjoint angles (rule 2).
pub const PARALLEL: (&str, &str) = (
    r#"{"angle":"api handlers","confidence":0.9,"covers":["rust"],"solo_sufficient":true,"builds_on_other":false}"#,
    r#"{"angle":"database schema","confidence":0.8,"covers":["sql"],"solo_sufficient":true,"builds_on_other":false}"#,
);
/// SYNTHESIS: high confidences, the same angle, beta builds on the other (rule 3).
pub const SYNTHESIS: (&str, &str) = (
    r#"{"angle":"api handlers","confidence":0.9,"covers":["rust"],"solo_sufficient":true,"builds_on_other":false}"#,
    r#"{"angle":"api handlers","confidence":0.8,"covers":["rust"],"solo_sufficient":false,"builds_on_other":true}"#,
);

pub struct Modes {
    pub env: TestEnv,
    pub trace: PathBuf,
}

/// Two agents `alpha` (the winner) and `beta` (the runner-up) with the given bodies
/// (`$TRACE` is a folder outside the repository), proposals forcing the mode, and
/// `coordination` extra lines (e.g. `join: all`).
pub fn setup(
    mode: (&str, &str),
    alpha: &str,
    beta: &str,
    coordination: &str,
    extra: &str,
) -> Modes {
    let env = TestEnv::new();
    let trace = env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let t = trace.to_string_lossy().to_string();
    let a = env.script(
        "bin/alpha.sh",
        &format!("#!/bin/sh\n{}", alpha.replace("$TRACE", &t)),
    );
    let b = env.script(
        "bin/beta.sh",
        &format!("#!/bin/sh\n{}", beta.replace("$TRACE", &t)),
    );
    let llm = env.script(
        "bin/llm.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\ncase \"$SWARM_PURPOSE/$SWARM_AGENT\" in\n  proposal/alpha) echo '{}' ;;\n  proposal/beta) echo '{}' ;;\n  failure-analysis/*) echo retry; echo 'try again' ;;\n  *) echo 'Implemented the issue.' ;;\nesac\n",
            mode.0, mode.1
        ),
    );
    let runner = env.script("bin/runner.sh", RUNNER);
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\n  proposal_source: llm\n{coordination}agents:\n  - name: alpha\n    command: [\"{}\"]\n    timeout_seconds: 30\n  - name: beta\n    command: [\"{}\"]\n    timeout_seconds: 30\nllm:\n  command: [\"{}\"]\n  timeout_seconds: 10\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\n{extra}",
            a.display(),
            b.display(),
            llm.display(),
            runner.display()
        ),
    );
    env.issues(
        "shop",
        json!([{"order": 1, "title": "Add login", "body": "Add a login endpoint."}]),
    );
    env.run(&["greenlight", "shop"]).ok();
    Modes { env, trace }
}

impl Modes {
    pub fn events_named(&self, name: &str) -> Vec<Value> {
        self.env
            .events("shop")
            .into_iter()
            .filter(|e| e["event"] == name)
            .collect()
    }
    pub fn head_files(&self) -> Vec<String> {
        let out = self.env.git(&["show", "--name-only", "--format=", "HEAD"]);
        let mut v: Vec<String> = out.lines().map(str::to_string).collect();
        v.sort();
        v
    }
    pub fn artifact(&self, rel: &str) -> String {
        std::fs::read_to_string(self.env.path(&format!(".swarm/runs/shop/issue-1/{rel}")))
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
    pub fn done(&self) -> Value {
        let done = self.events_named("issue_done");
        assert_eq!(done.len(), 1, "{done:?}");
        done[0].clone()
    }
    pub fn fallbacks(&self) -> Vec<Value> {
        self.events_named("agents_selected")
            .into_iter()
            .filter_map(|e| e.get("fallback").cloned())
            .collect()
    }
    pub fn audit_text(&self) -> String {
        let r = self.env.run(&["audit", "shop"]);
        r.ok();
        r.stdout
    }
    pub fn trace(&self, rel: &str) -> String {
        std::fs::read_to_string(self.trace.join(rel)).unwrap_or_default()
    }
}

/// An agent body that writes `src/<name>.txt` (`lines` lines) and a passing check.
pub fn good(name: &str, lines: usize) -> String {
    format!(
        "cat > \"$TRACE/{name}.stdin\"\necho \"$SWARM_ROLE\" > \"$TRACE/{name}.role\"\necho \"$SWARM_ATTEMPT\" >> \"$TRACE/{name}.calls\"\nmkdir -p src checks\nfor i in $(seq 1 {lines}); do echo \"{name} line $i\" >> src/{name}.txt; done\necho 'exit 0' > checks/t_{name}.sh\necho 'output of {name}: WINNER-SAYS-{name}'\n"
    )
}

/// An agent body whose change fails the tests.
pub fn bad(name: &str) -> String {
    format!(
        "cat > \"$TRACE/{name}.stdin\"\necho \"$SWARM_ATTEMPT\" >> \"$TRACE/{name}.calls\"\nmkdir -p src checks\necho broken > src/{name}.txt\necho 'echo {name}-is-broken; exit 1' > checks/t_{name}.sh\n"
    )
}

/// A proposal with the given confidence and a one-word angle (distinct words: overlap 0).
pub fn proposal(confidence: f64, angle: &str) -> String {
    format!(
        r#"{{"angle":"{angle}","confidence":{confidence},"covers":["{angle}"],"solo_sufficient":true,"builds_on_other":false}}"#
    )
}

/// Many candidates (docs/coordination.md "Many candidates, one result"): `agents` are `(name,
/// proposal, body)`, ranked by their proposals; `coordination` holds extra `coordination:` lines
/// (e.g. ` candidates: 3\n`).
pub fn setup_many(agents: &[(&str, String, String)], coordination: &str) -> Modes {
    let env = TestEnv::new();
    let trace = env.tmp.path().join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    let t = trace.to_string_lossy().to_string();
    let mut cases = String::new();
    let mut entries = String::new();
    for (name, prop, body) in agents {
        let script = env.script(
            &format!("bin/{name}.sh"),
            &format!("#!/bin/sh\n{}", body.replace("$TRACE", &t)),
        );
        cases.push_str(&format!("  proposal/{name}) echo '{prop}' ;;\n"));
        entries.push_str(&format!(
            "  - name: {name}\n    command: [\"{}\"]\n    timeout_seconds: 60\n",
            script.display()
        ));
    }
    let llm = env.script(
        "bin/llm.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\ncase \"$SWARM_PURPOSE/$SWARM_AGENT\" in\n{cases}  failure-analysis/*) echo retry; echo 'try again' ;;\n  *) echo 'Implemented the issue.' ;;\nesac\n"
        ),
    );
    let runner = env.script("bin/runner.sh", RUNNER);
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\n  proposal_source: llm\n{coordination}agents:\n{entries}llm:\n  command: [\"{}\"]\n  timeout_seconds: 10\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\nsessions:\n  max_implementation_retries: 0\n",
            llm.display(),
            runner.display()
        ),
    );
    env.issues(
        "shop",
        json!([{"order": 1, "title": "Add login", "body": "Add a login endpoint."}]),
    );
    // not `.ok()`: a config error is what some tests look for
    let _ = env.run(&["greenlight", "shop"]);
    Modes { env, trace }
}

/// An agent body that writes `lines` (one per entry) to `src/<name>.txt` and a passing
/// check; it records its role, pid and stdin under `$TRACE`.
pub fn writes(name: &str, lines: &[&str]) -> String {
    let mut body = format!(
        "cat > \"$TRACE/{name}.stdin\"\necho \"$SWARM_ROLE\" > \"$TRACE/{name}.role\"\necho $$ > \"$TRACE/{name}.pid\"\nmkdir -p src checks\n"
    );
    for l in lines {
        body.push_str(&format!("echo '{l}' >> src/{name}.txt\n"));
    }
    body.push_str(&format!("echo 'exit 0' > checks/t_{name}.sh\n"));
    body
}

impl Modes {
    /// The commits on HEAD that implement issue 1 of `shop` (rule 1 subjects).
    pub fn implementing_commits(&self) -> usize {
        self.env
            .git(&["log", "--format=%s", "HEAD"])
            .lines()
            .filter(|l| l.starts_with("feat(shop): Implement issue #1"))
            .count()
    }
}
