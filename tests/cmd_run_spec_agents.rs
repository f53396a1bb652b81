//! Black-box acceptance tests of the external commands `run` starts (docs/run.md "External
//! commands"): the agent's worktree, environment and saved output, and the LLM helper, written
//! from the contract's sentences only.

use crate::common::agents::{GOOD_AGENT, Setup};
use serde_json::json;

// ---------------------------------------------------------------------------------------
// agents (docs/run.md "External commands"): cwd, env, stdout/stderr, cost

#[test]
fn the_agent_runs_in_a_worktree_and_its_stdout_and_stderr_are_saved() {
    let agent = r#"cat > /dev/null
pwd -P > "$TRACE/pwd.txt"
git rev-parse --show-toplevel > "$TRACE/toplevel.txt"
echo "to stderr: hello-stderr" >&2
echo "to stdout: hello-stdout"
mkdir -p checks; echo "exit 0" > checks/t.sh
echo '{"type": "result", "cost_usd": 0.125}'
"#;
    let s = Setup::new("cwd", json!([{"order": 1, "title": "A"}]), agent, "");
    s.env.run(&["run", "cwd"]).ok();
    let root = std::fs::canonicalize(&s.env.root).unwrap();
    let pwd = std::fs::read_to_string(s.trace.join("pwd.txt")).unwrap();
    let top = std::fs::read_to_string(s.trace.join("toplevel.txt")).unwrap();
    assert_ne!(
        std::path::Path::new(pwd.trim()),
        root,
        "the agent ran in the repository itself"
    );
    assert_eq!(
        pwd.trim(),
        top.trim(),
        "the agent's cwd is not a worktree's root"
    );
    // a worktree of the same repository
    let list = s.env.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(
        list.lines().filter(|l| l.starts_with("worktree ")).count(),
        1
    );
    let dir = ".swarm/runs/cwd/issue-1/attempt-1";
    assert!(
        s.env
            .read(&format!("{dir}/agent.stdout"))
            .contains("hello-stdout")
    );
    assert!(
        s.env
            .read(&format!("{dir}/agent.stderr"))
            .contains("hello-stderr")
    );
    // cost from `cost_usd`
    let fin = &s.events_named("cwd", "agent_finished")[0];
    assert_eq!(fin["cost_usd"], 0.125);
    assert_eq!(s.events_named("cwd", "issue_done")[0]["cost_usd"], 0.125);
}

#[test]
fn token_variables_reach_the_agent_only_when_env_passthrough_names_them() {
    let agent = r#"cat > /dev/null
env | grep -E '^(GITHUB_TOKEN|GH_TOKEN|SWARM_[A-Z]+)=' | sort > "$TRACE/env-$SWARM_ISSUE.txt"
mkdir -p checks; echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
"#;
    let mut s = Setup::new("tok", json!([{"order": 1, "title": "A"}]), agent, "");
    s.env
        .extra_env
        .push(("GITHUB_TOKEN".into(), "ghp_first_secret".into()));
    s.env
        .extra_env
        .push(("GH_TOKEN".into(), "ghp_second_secret".into()));
    let cfg = s.env.read("config.yaml");
    let cfg = cfg.replace(
        "    timeout_seconds: 30\ntests:",
        "    timeout_seconds: 30\n    env_passthrough: [GH_TOKEN]\ntests:",
    );
    assert!(cfg.contains("env_passthrough"));
    s.env.write("config.yaml", &cfg);
    s.env.run(&["run", "tok"]).ok();
    let env_txt = std::fs::read_to_string(s.trace.join("env-1.txt")).unwrap();
    assert!(env_txt.contains("GH_TOKEN=ghp_second_secret"), "{env_txt}");
    assert!(!env_txt.contains("GITHUB_TOKEN"), "{env_txt}");
    for want in [
        "SWARM_AGENT=fake",
        "SWARM_FEATURE=tok",
        "SWARM_ISSUE=1",
        "SWARM_ATTEMPT=1",
        "SWARM_ROLE=primary",
    ] {
        assert!(
            env_txt.lines().any(|l| l == want),
            "{want} missing: {env_txt}"
        );
    }
    // no secret in the log or the artifacts
    for f in crate::common::snapshot_files(&s.env.path(".swarm")).values() {
        let t = String::from_utf8_lossy(f);
        assert!(!t.contains("ghp_first_secret") && !t.contains("ghp_second_secret"));
    }
}

#[test]
fn the_llm_helper_gets_its_purpose_the_prompt_on_stdin_and_no_token() {
    // proposals (llm source) and summaries both go to llm.command
    let mut s = Setup::new("llm", json!([{"order": 1, "title": "A"}]), GOOD_AGENT, "");
    let llm = s.env.script(
        "llm.sh",
        &format!(
            "#!/bin/sh\nstdin=$(cat)\nt={}\necho \"$SWARM_PURPOSE|$SWARM_AGENT|$SWARM_FEATURE|$SWARM_ISSUE|$#|${{GITHUB_TOKEN:-none}}|${{#stdin}}\" >> \"$t/llm.log\"\ncase \"$SWARM_PURPOSE\" in\n  proposal) echo '{{\"angle\":\"a\",\"confidence\":0.8,\"covers\":[],\"solo_sufficient\":true,\"builds_on_other\":false}}' ;;\n  *) echo 'Adds the A file.' ;;\nesac\n",
            s.trace.display()
        ),
    );
    s.env
        .extra_env
        .push(("GITHUB_TOKEN".into(), "ghp_llm_secret".into()));
    let env = &s.env;
    let cfg = env.read("config.yaml");
    env.write(
        "config.yaml",
        &format!(
            "{}llm:\n  command: [\"{}\"]\n",
            cfg.replace("coordination:\n", "coordination:\n  proposal_source: llm\n"),
            llm.display()
        ),
    );
    env.run(&["run", "llm"]).ok();
    let log = std::fs::read_to_string(s.trace.join("llm.log")).unwrap();
    let rows: Vec<Vec<&str>> = log.lines().map(|l| l.split('|').collect()).collect();
    assert!(
        rows.iter()
            .any(|r| r[0] == "proposal" && r[1] == "fake" && r[2] == "llm" && r[3] == "1"),
        "{log}"
    );
    assert!(
        rows.iter().any(|r| r[0] == "summary" && r[2] == "llm"),
        "{log}"
    );
    for r in &rows {
        assert_eq!(r[4], "0", "a prompt in argv: {log}");
        assert_eq!(r[5], "none", "the token reached the llm helper: {log}");
        assert_ne!(r[6], "0", "no prompt on stdin: {log}");
    }
}
