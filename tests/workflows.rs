//! The shipped workflows keep write tokens away from agents: in the fan-out example the
//! `implement` job (where agents run) has read-only permissions and no token anywhere in its
//! steps; only `apply` may write. And `scripts/apply-bundle.sh`, which lands what an
//! implement runner produced, re-verifies every bundle and never lands an issue twice.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn workflow(rel: &str) -> Value {
    let text = std::fs::read_to_string(repo_file(rel)).unwrap();
    serde_saphyr::from_str::<Value>(&text).unwrap()
}

fn writes(perms: &Value) -> Vec<String> {
    match perms {
        Value::Object(m) => m
            .iter()
            .filter(|(_, v)| v.as_str() == Some("write"))
            .map(|(k, _)| k.clone())
            .collect(),
        Value::String(s) if s == "write-all" => vec!["write-all".into()],
        _ => Vec::new(),
    }
}

#[test]
fn the_implement_job_has_no_write_permission_and_no_token() {
    let w = workflow("examples/workflows/swarm-fanout.yml");
    assert!(
        writes(&w["permissions"]).is_empty(),
        "workflow-level permissions must not grant writes"
    );
    let implement = &w["jobs"]["implement"];
    assert_eq!(implement["permissions"]["contents"], "read");
    assert!(writes(&implement["permissions"]).is_empty());
    let text = serde_json::to_string(implement).unwrap();
    for token in ["github.token", "GITHUB_TOKEN", "GH_TOKEN", "secrets.GITHUB"] {
        assert!(!text.contains(token), "implement job mentions {token}");
    }
    for step in implement["steps"].as_array().unwrap() {
        if step["uses"] == "actions/checkout@v4" {
            assert_eq!(step["with"]["persist-credentials"], false);
        }
        if let Some(t) = step["with"].get("github-token") {
            assert_eq!(t, "", "the action runs with an empty token here");
        }
    }
    assert!(writes(&w["jobs"]["plan"]["permissions"]).is_empty());
    assert!(writes(&w["jobs"]["apply"]["permissions"]).contains(&"contents".to_string()));
}

#[test]
fn every_shipped_workflow_checks_out_without_persisted_credentials() {
    for rel in [
        "examples/workflows/swarm-fanout.yml",
        ".github/workflows/swarm.yml",
        ".github/workflows/release.yml",
        ".github/workflows/ci.yml",
    ] {
        let w = workflow(rel);
        for (name, job) in w["jobs"].as_object().unwrap() {
            for step in job["steps"].as_array().into_iter().flatten() {
                if step["uses"] == "actions/checkout@v4" {
                    assert_eq!(
                        step["with"]["persist-credentials"], false,
                        "{rel}: job {name}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_swarm_workflows_clone_every_commit_but_not_the_old_trees() {
    for rel in [
        "examples/workflows/swarm-fanout.yml",
        ".github/workflows/swarm.yml",
    ] {
        let w = workflow(rel);
        for (name, job) in w["jobs"].as_object().unwrap() {
            for step in job["steps"].as_array().into_iter().flatten() {
                if step["uses"] == "actions/checkout@v4" {
                    assert_eq!(step["with"]["fetch-depth"], 0, "{rel}: job {name}");
                    assert_eq!(step["with"]["filter"], "tree:0", "{rel}: job {name}");
                }
            }
        }
    }
}

// ---- apply-bundle.sh against a bare "origin" ----

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

struct Origin {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    bare: PathBuf,
}

fn origin() -> Origin {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let bare = root.join("origin.git");
    std::fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    let seed = root.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q", "-b", "main"]);
    std::fs::write(seed.join("README.md"), "x\n").unwrap();
    git(&seed, &["add", "README.md"]);
    git(&seed, &["commit", "-qm", "init"]);
    git(&seed, &["remote", "add", "origin", bare.to_str().unwrap()]);
    git(&seed, &["push", "-q", "origin", "main"]);
    Origin {
        _tmp: tmp,
        root,
        bare,
    }
}

impl Origin {
    fn clone(&self, name: &str) -> PathBuf {
        let dir = self.root.join(name);
        git(
            &self.root,
            &["clone", "-q", self.bare.to_str().unwrap(), name],
        );
        dir
    }

    /// A runner's bundle: `commits` (file, message) on top of origin/main.
    fn bundle(&self, name: &str, commits: &[(&str, &str)]) -> PathBuf {
        let dir = self.clone(name);
        let base = git(&dir, &["rev-parse", "HEAD"]);
        for (file, msg) in commits {
            let p = dir.join(file);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, format!("{msg}\n")).unwrap();
            git(&dir, &["add", file]);
            git(&dir, &["commit", "-qm", msg]);
        }
        let b = self.root.join(format!("{name}.bundle"));
        git(
            &dir,
            &[
                "bundle",
                "create",
                "-q",
                b.to_str().unwrap(),
                &format!("{base}..HEAD"),
            ],
        );
        b
    }

    fn apply(&self, applier: &Path, issue: &str, bundle: &Path, mode: &str) -> (i32, String) {
        let out = Command::new("bash")
            .arg(repo_file("scripts/apply-bundle.sh"))
            .args(["auth", issue])
            .arg(bundle)
            .arg(mode)
            .current_dir(applier)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "bot")
            .env("GIT_AUTHOR_EMAIL", "bot@example.com")
            .env("GIT_COMMITTER_NAME", "bot")
            .env("GIT_COMMITTER_EMAIL", "bot@example.com")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    }

    fn main_subjects(&self) -> Vec<String> {
        git(&self.bare, &["log", "--format=%s", "main"])
            .lines()
            .map(str::to_string)
            .collect()
    }
}

const GOOD: &str = "feat(auth): Implement issue #2\n\nSwarm-Feature: auth\nSwarm-Issue: 2";

#[test]
fn a_verified_bundle_lands_once_even_when_applied_twice() {
    let o = origin();
    let b = o.bundle("runner", &[("src/two.py", GOOD)]);
    let applier = o.clone("applier");
    let (code, out) = o.apply(&applier, "2", &b, "commit");
    assert_eq!(code, 0, "{out}");
    let (code, out) = o.apply(&applier, "2", &b, "commit");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("already landed"), "{out}");
    let implementing = o
        .main_subjects()
        .iter()
        .filter(|s| s.starts_with("feat(auth): Implement issue #2"))
        .count();
    assert_eq!(implementing, 1);
}

#[test]
fn a_bundle_that_is_not_exactly_one_rule_1_commit_is_refused() {
    let o = origin();
    let applier = o.clone("applier");
    let cases = [
        (
            "two-commits",
            vec![("a.py", "wip"), ("src/two.py", GOOD)],
            "exactly one commit",
        ),
        (
            "other-issue",
            vec![(
                "src/x.py",
                "feat(auth): Implement issue #22\n\nSwarm-Feature: auth\nSwarm-Issue: 22",
            )],
            "rule-1 subject",
        ),
        (
            "no-trailers",
            vec![("src/x.py", "feat(auth): Implement issue #2")],
            "trailers",
        ),
        (
            "workflow",
            vec![(".github/workflows/x.yml", GOOD)],
            ".github",
        ),
    ];
    for (name, commits, why) in cases {
        let b = o.bundle(name, &commits);
        let (code, out) = o.apply(&applier, "2", &b, "commit");
        assert_eq!(code, 1, "{name}: {out}");
        assert!(out.contains(why), "{name}: {out}");
    }
    assert_eq!(
        o.main_subjects(),
        vec!["init".to_string()],
        "nothing landed"
    );
}

#[test]
fn pr_mode_pushes_the_issue_branch_and_leaves_main_alone() {
    let o = origin();
    let b = o.bundle("runner", &[("src/two.py", GOOD)]);
    let applier = o.clone("applier");
    let (code, out) = o.apply(&applier, "2", &b, "pr");
    assert_eq!(code, 0, "{out}");
    let branch = git(&o.bare, &["log", "--format=%s", "-1", "swarm/auth/issue-2"]);
    assert_eq!(branch, "feat(auth): Implement issue #2");
    assert_eq!(o.main_subjects(), vec!["init".to_string()]);
}

#[test]
fn the_action_replaces_its_shell_with_the_tool_so_no_ancestor_of_an_agent_keeps_the_token() {
    let a = workflow("action.yml");
    let steps = a["runs"]["steps"].as_array().unwrap();
    let run = steps.iter().find(|s| s["id"] == "run").unwrap();
    let script = run["run"].as_str().unwrap();
    let calls: Vec<&str> = script
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("swarm-attack \""))
        .collect();
    assert!(!calls.is_empty());
    for l in calls {
        assert!(l.starts_with("exec swarm-attack"), "{l}");
    }
    // no other step of the action sees the token
    for s in steps.iter().filter(|s| s["id"] != "run") {
        let text = serde_json::to_string(s).unwrap();
        assert!(!text.contains("github-token"), "{text}");
    }
}

/// Regression: with `pipefail`, `git log | grep -q` made a long history look like "not
/// landed" (grep exits early, git log dies of SIGPIPE), so a re-applied bundle was
/// cherry-picked again instead of being recognised as landed.
#[test]
fn a_long_history_still_recognises_a_landed_issue() {
    let o = origin();
    let seed = o.root.join("seed");
    // 4,000 noise commits after the landed one (far more log than a pipe buffer holds)
    let b = o.bundle("runner", &[("src/two.py", GOOD)]);
    let applier = o.clone("applier");
    assert_eq!(o.apply(&applier, "2", &b, "commit").0, 0);
    git(&seed, &["pull", "-q", "origin", "main"]);
    let mut stream = String::new();
    let tip = git(&seed, &["rev-parse", "HEAD"]);
    for i in 0..4000 {
        let msg = format!("chore: noise commit number {i} with a longer subject line");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter t <t@example.com> {} +0000\ndata {}\n{msg}\n",
            1_700_000_000 + i,
            msg.len()
        ));
        if i == 0 {
            stream.push_str(&format!("from {tip}\n"));
        }
        stream.push('\n');
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(&seed)
        .args(["fast-import", "--quiet", "--force"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    git(&seed, &["push", "-q", "origin", "main"]);
    let (code, out) = o.apply(&applier, "2", &b, "commit");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("already landed"), "{out}");
}
