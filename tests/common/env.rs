//! The hermetic test environment: a temp git repository, the binary run with a cleared
//! environment (temp HOME, no global git config), helpers to write inputs and read outputs.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The result of running the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
    #[track_caller]
    pub fn ok(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "expected exit 0\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
    #[track_caller]
    pub fn code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// A temp git repository and a way to run `swarm-attack` in it.
pub struct TestEnv {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub extra_env: Vec<(String, String)>,
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_swarm-attack"))
}

impl TestEnv {
    /// A fresh repository on branch `main` with one initial commit.
    pub fn new() -> Self {
        let env = Self::empty();
        env.git(&["init", "-q", "-b", "main"]);
        env.commit("chore: initial commit");
        env
    }

    /// A temp dir with no repository.
    pub fn empty() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        TestEnv {
            tmp,
            root,
            home,
            extra_env: Vec::new(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn base_env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("NO_COLOR", "1");
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
    }

    /// Runs git in the repository; panics on failure; returns trimmed stdout.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let mut cmd = Command::new("git");
        self.base_env(&mut cmd);
        let out = cmd.current_dir(dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// An empty commit with `message`; returns its sha.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    /// A bare repository `origin.git` (in the temp folder) as the `origin` remote, with
    /// `main` pushed; returns its path.
    pub fn add_origin(&self) -> PathBuf {
        let origin = self.tmp.path().join("origin.git");
        std::fs::create_dir_all(&origin).unwrap();
        self.git_in(&origin, &["init", "-q", "--bare", "-b", "main"]);
        self.git(&["remote", "add", "origin", origin.to_str().unwrap()]);
        self.git(&["push", "-q", "origin", "main"]);
        origin
    }

    /// Writes a file (creating folders).
    pub fn write(&self, rel: &str, content: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn read_bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }

    /// Writes `specs/<feature>/issues.json` from `issues` (a JSON list).
    pub fn issues(&self, feature: &str, issues: Value) {
        let doc = serde_json::json!({"feature_id": feature, "generated_at": "2026-01-01T00:00:00Z", "issues": issues});
        self.write(
            &format!("specs/{feature}/issues.json"),
            &serde_json::to_string_pretty(&doc).unwrap(),
        );
    }

    /// The feature's state file as JSON.
    pub fn state(&self, feature: &str) -> Value {
        serde_json::from_str(&self.read(&format!(".swarm/state/{feature}.json"))).unwrap()
    }

    /// The stage of one task.
    pub fn stage(&self, feature: &str, issue: u64) -> String {
        let s = self.state(feature);
        let t = s["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["issue_number"] == issue)
            .unwrap_or_else(|| panic!("no task {issue}"));
        t["stage"].as_str().unwrap().to_string()
    }

    /// The feature's events as JSON values.
    pub fn events(&self, feature: &str) -> Vec<Value> {
        let p = self.path(&format!(".swarm/events/{feature}.jsonl"));
        match std::fs::read_to_string(p) {
            Ok(t) => t
                .lines()
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The feature's events named `name`, oldest first.
    pub fn events_named(&self, feature: &str, name: &str) -> Vec<Value> {
        self.events(feature)
            .into_iter()
            .filter(|e| e["event"] == name)
            .collect()
    }

    /// A command for the binary, hermetic, run in the repository.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(bin());
        self.base_env(&mut cmd);
        cmd.current_dir(&self.root);
        cmd
    }

    /// `bash`, hermetic like [`TestEnv::command`], run in the repository.
    pub fn bash(&self) -> Command {
        let mut cmd = Command::new("bash");
        self.base_env(&mut cmd);
        cmd.current_dir(&self.root);
        cmd
    }

    /// Runs the binary with `args`.
    pub fn run(&self, args: &[&str]) -> Run {
        self.command().args(args).output().unwrap().into()
    }

    /// Runs the binary with `args` and `stdin`.
    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
        use std::io::Write;
        let mut child = self
            .command()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap().into()
    }

    /// Writes an executable script (e.g. a fake agent) and returns its absolute path.
    pub fn script(&self, rel: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }
}
