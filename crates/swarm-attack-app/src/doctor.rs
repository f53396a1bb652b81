//! Preflight (docs/cli.md "doctor"): is everything `run` needs in place before any agent
//! starts? Every configured agent's program (found, and for a known CLI answering
//! `--version`), the credentials that CLI needs (an environment variable or its login file:
//! which one is reported, never its value), the test command's program, the branch, and
//! stale git lock files. `run` (and the Action's agent runs) make the same checks first: a
//! problem is exit 2 before any attempt, so it never consumes a retry.

use crate::core::command_line::CommandLine;
use crate::core::config::AgentConfig;
use crate::core::feature_id::FeatureId;
use crate::error::{CmdResult, CommandError};
use crate::io::process::{self, ProcessSpec, TOKEN_VARS};
use crate::project::Project;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One check's result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    /// `agent`, `credentials`, `tests`, `branch`, `git_lock`, `feature`.
    pub check: &'static str,
    /// What was checked (an agent's name, a file, ...).
    pub subject: String,
    pub ok: bool,
    /// One sentence: what was found, or the problem and what to do.
    pub detail: String,
}

/// Everything `doctor` found, and each agent's version (for `agent_started`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    pub checks: Vec<Check>,
    /// What passes but may hide a failure (one sentence each): e.g. a shell-form test
    /// command with a pipeline and no `pipefail`.
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub versions: BTreeMap<String, String>,
}

impl Report {
    pub fn problems(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.ok)
    }
    pub fn ok(&self) -> bool {
        self.problems().next().is_none()
    }
}

/// The CLIs whose `--version` is asked for and whose credentials are known. A custom
/// program (a script) is only looked up: it may not understand `--version` and start work.
const KNOWN: &[&str] = &["claude", "codex", "gemini", "opencode", "goose", "aider"];

/// Where each known CLI finds its credentials: environment variables, then login files
/// (relative to `$HOME`).
fn credential_sources(cli: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match cli {
        "claude" => (
            &[
                "ANTHROPIC_API_KEY",
                "CLAUDE_CODE_OAUTH_TOKEN",
                "ANTHROPIC_AUTH_TOKEN",
                "CLAUDE_CODE_USE_BEDROCK",
                "CLAUDE_CODE_USE_VERTEX",
            ],
            &[".claude/.credentials.json"],
        ),
        "codex" => (&["OPENAI_API_KEY", "CODEX_API_KEY"], &[".codex/auth.json"]),
        "gemini" => (
            &[
                "GEMINI_API_KEY",
                "GOOGLE_API_KEY",
                "GOOGLE_APPLICATION_CREDENTIALS",
            ],
            &[".gemini/oauth_creds.json"],
        ),
        "opencode" => (
            &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"],
            &[".local/share/opencode/auth.json"],
        ),
        "goose" => (
            &["GOOSE_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
            &[".config/goose/config.yaml"],
        ),
        "aider" => (
            &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"],
            &[".aider.conf.yml"],
        ),
        _ => (&[], &[]),
    }
}

/// The known CLI an agent runs (by its program's file name), if any.
pub(crate) fn known_cli(agent: &AgentConfig) -> Option<&'static str> {
    let program = agent.command.first()?;
    let name = Path::new(program).file_name()?.to_str()?;
    KNOWN.iter().copied().find(|k| *k == name)
}

/// The known CLI whose credentials an agent needs: its preset's program (also when
/// `command` overrides the preset's command line, e.g. with a wrapper script:
/// docs/cli.md "doctor"), else the CLI its program is.
pub(crate) fn credentials_cli(agent: &AgentConfig) -> Option<&'static str> {
    agent
        .preset
        .and_then(|p| p.program())
        .or_else(|| known_cli(agent))
}

/// Runs every check; `feature` adds that the feature exists.
pub fn check(project: &Project, feature: Option<&str>) -> Report {
    let mut r = preflight_report(project);
    r.checks.push(branch_check(project));
    r.checks.extend(git_lock_checks(project));
    if let Some(f) = feature {
        let (ok, issues, state) = match FeatureId::parse(f) {
            Ok(id) => {
                let issues = project.paths.issues_file(&id);
                let state = project.paths.state_file(&id);
                (issues.is_file() || state.is_file(), issues, state)
            }
            // not a feature id: no file of it can exist
            Err(_) => (
                false,
                project.paths.specs_dir.join(f).join("issues.json"),
                project.paths.state_dir().join(format!("{f}.json")),
            ),
        };
        r.checks.push(Check {
            check: "feature",
            subject: f.to_string(),
            ok,
            detail: if ok {
                format!("feature `{f}` found")
            } else {
                format!(
                    "feature `{f}` has neither {} nor {}; create it with `swarm-attack init {f}`",
                    project.paths.display(&issues),
                    project.paths.display(&state)
                )
            },
        });
    }
    r
}

/// The checks `run` makes before any attempt: agents, credentials, the test command.
pub(crate) fn preflight_report(project: &Project) -> Report {
    let mut r = Report::default();
    for agent in &project.config.agents {
        agent_checks(project, agent, &mut r);
    }
    tests_checks(project, &mut r);
    r
}

/// `run`'s preflight: exit 2 with one sentence per problem; else each agent's version.
pub(crate) fn preflight(project: &Project) -> CmdResult<BTreeMap<String, String>> {
    let r = preflight_report(project);
    for w in &r.warnings {
        project.ui.warn(w);
    }
    let problems: Vec<String> = r.problems().map(|c| c.detail.clone()).collect();
    if problems.is_empty() {
        return Ok(r.versions);
    }
    Err(CommandError::input(format!(
        "setup problem{} found before any attempt (no retry was used):\n  {}",
        if problems.len() == 1 { "" } else { "s" },
        problems.join("\n  ")
    ))
    .with_hint("fix the setup (`swarm-attack doctor` checks it), then run again"))
}

fn agent_checks(project: &Project, agent: &AgentConfig, r: &mut Report) {
    let name = &agent.name;
    let argv = crate::io::agent::resolve_program(&agent.command, &project.root);
    let Some(program) = argv.first() else {
        r.checks.push(Check {
            check: "agent",
            subject: name.clone(),
            ok: false,
            detail: format!("agent `{name}` has no command (agents[].command in config.yaml)"),
        });
        return;
    };
    let Some(found) = crate::io::program_path::find(program, None, Some(&project.root)) else {
        r.checks.push(Check {
            check: "agent",
            subject: name.clone(),
            ok: false,
            detail: format!(
                "agent `{name}`: the program `{program}` was not found{}; install it or fix agents[].command",
                if program.contains('/') { "" } else { " on PATH" }
            ),
        });
        return;
    };
    // `--version` only for a known CLI run as itself: a wrapper script may not understand
    // it and start work; the credentials its preset needs are checked either way
    let program_check = match known_cli(agent) {
        None => Check {
            check: "agent",
            subject: name.clone(),
            ok: true,
            detail: format!(
                "agent `{name}`: {} (a custom program: `--version` not asked)",
                found.display()
            ),
        },
        Some(_) => match version(&found) {
            Ok(v) => {
                r.versions.insert(name.clone(), v.clone());
                Check {
                    check: "agent",
                    subject: name.clone(),
                    ok: true,
                    detail: format!("agent `{name}`: {} ({v})", found.display()),
                }
            }
            Err(why) => Check {
                check: "agent",
                subject: name.clone(),
                ok: false,
                detail: format!(
                    "agent `{name}`: `{} --version` {why}; reinstall it or fix agents[].command",
                    found.display()
                ),
            },
        },
    };
    r.checks.push(program_check);
    if let Some(cli) = credentials_cli(agent) {
        r.checks.push(credentials_check(name, cli, agent));
    }
}

/// How long `<program> --version` may take: aider (Python, importing litellm) takes 2–9 s
/// on a busy 2-core machine, more on a loaded CI runner.
const VERSION_TIMEOUT_SECS: u64 = 60;

/// `<program> --version`, run in an empty folder with no input: its first line.
fn version(program: &Path) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("could not run ({e})"))?;
    let argv = vec![
        program.to_string_lossy().into_owned(),
        "--version".to_string(),
    ];
    let spec = ProcessSpec {
        argv: &argv,
        stdin: b"",
        cwd: Some(dir.path()),
        env_remove: TOKEN_VARS.iter().map(|s| s.to_string()).collect(),
        timeout: Duration::from_secs(VERSION_TIMEOUT_SECS),
        keep_bytes: 64 << 10,
        contained: true,
        ..Default::default()
    };
    let out = process::run(&spec).map_err(|e| format!("could not run ({e})"))?;
    if out.timed_out {
        return Err(format!("did not answer within {VERSION_TIMEOUT_SECS} s"));
    }
    if !out.success() {
        return Err(match out.exit_code {
            Some(c) => format!("exited with code {c}"),
            None => "was killed by a signal".into(),
        });
    }
    let text = format!("{}\n{}", out.stdout_text(), out.stderr_text());
    let line = text.lines().map(str::trim).find(|l| !l.is_empty());
    Ok(line
        .unwrap_or("version unknown")
        .chars()
        .take(100)
        .collect())
}

fn credentials_check(name: &str, cli: &str, agent: &AgentConfig) -> Check {
    let (vars, files) = credential_sources(cli);
    let home = crate::io::env::var_os("HOME").map(PathBuf::from);
    let codex_home = crate::io::env::var_os("CODEX_HOME").map(PathBuf::from);
    let found_var = vars
        .iter()
        .find(|v| crate::io::env::var_os(v).is_some_and(|x| !x.is_empty()));
    let found_file = || {
        if cli == "codex"
            && let Some(h) = &codex_home
            && h.join("auth.json").is_file()
        {
            return Some(h.join("auth.json"));
        }
        files
            .iter()
            .filter_map(|f| Some(home.as_ref()?.join(f)))
            .find(|p| p.is_file())
    };
    let detail_ok = |how: String| Check {
        check: "credentials",
        subject: name.to_string(),
        ok: true,
        detail: format!("agent `{name}` ({cli}): credentials from {how}"),
    };
    if let Some(v) = found_var {
        let passed = !TOKEN_VARS.contains(v) || agent.env_passthrough.iter().any(|p| p == v);
        if passed {
            return detail_ok(format!("the environment variable {v}"));
        }
    }
    if let Some(f) = found_file() {
        return detail_ok(f.display().to_string());
    }
    if cfg!(target_os = "macos") && cli == "claude" {
        return detail_ok("the macOS keychain (not checked)".into());
    }
    let files_text: Vec<String> = files.iter().map(|f| format!("~/{f}")).collect();
    Check {
        check: "credentials",
        subject: name.to_string(),
        ok: false,
        detail: format!(
            "agent `{name}` ({cli}) has no credentials: set {} or log in with `{cli}` (it writes {})",
            vars.join(" or "),
            files_text.join(" or ")
        ),
    }
}

/// The test command's programs: the program of an argv-form command; for a shell-form
/// one (`sh -c`), the first program of each simple command (`core::shell_programs`), and a
/// warning when a pipeline's status can hide a failure.
fn tests_checks(project: &Project, r: &mut Report) {
    let command = &project.config.tests.command;
    let programs: Vec<String> = match crate::core::command_line::parse(command) {
        CommandLine::Argv(argv) => argv.into_iter().take(1).collect(),
        CommandLine::Shell { script, .. } => {
            let scan = crate::core::shell_programs::scan(&script);
            if scan.pipeline_hides_failures() {
                r.warnings.push(format!(
                    "the test command `{command}` has a pipeline: its exit status is its last command's unless `set -o pipefail` is used, so a failing test run can pass; run it as `bash -o pipefail -c '...'` (tests.command in {})",
                    project.paths.display(&project.config_path)
                ));
            }
            if scan.programs.is_empty() {
                r.checks.push(Check {
                    check: "tests",
                    subject: "sh".into(),
                    ok: true,
                    detail: format!(
                        "the test command `{command}` runs through sh; it names no program that can be checked"
                    ),
                });
                return;
            }
            scan.programs
        }
    };
    if programs.is_empty() {
        r.checks.push(Check {
            check: "tests",
            subject: String::new(),
            ok: true,
            detail: "no test command (tests.command is empty): verification is skipped".into(),
        });
        return;
    }
    for program in programs {
        r.checks.push(
            match crate::io::program_path::find(&program, None, Some(&project.root)) {
                Some(p) => Check {
                    check: "tests",
                    subject: program.clone(),
                    ok: true,
                    detail: format!("test command's program: {}", p.display()),
                },
                None => Check {
                    check: "tests",
                    subject: program.clone(),
                    ok: false,
                    detail: format!(
                        "the test command's program `{program}` was not found (tests.command in {}); install it or fix tests.command",
                        project.paths.display(&project.config_path)
                    ),
                },
            },
        );
    }
}

fn branch_check(project: &Project) -> Check {
    let hooks = crate::io::git::Hooks::from_config(project.config.git.run_hooks);
    let (ok, detail) = match crate::io::git::Git::open(&project.root, hooks, &project.ui) {
        Err(e) => (
            false,
            format!(
                "{} is not a git repository ({}); run inside one or pass -p DIR",
                project.root.display(),
                e.message()
            ),
        ),
        Ok((git, _)) => match git.head(&project.root) {
            Ok(Some(_)) => (
                true,
                match git.branch(&project.root) {
                    Some(b) => format!("work lands on branch {b}"),
                    None => "work lands on a detached HEAD".into(),
                },
            ),
            Ok(None) => (
                false,
                "the repository has no commit yet; make a first commit".into(),
            ),
            Err(e) => (false, format!("HEAD cannot be read: {e}")),
        },
    };
    Check {
        check: "branch",
        subject: String::new(),
        ok,
        detail,
    }
}

fn git_lock_checks(project: &Project) -> Vec<Check> {
    use crate::io::git::locks;
    let Some(git_dir) = crate::io::git::common_dir(&project.root) else {
        return Vec::new();
    };
    let held = locks::live_git_process(&project.root, &git_dir);
    locks::find(&git_dir)
        .into_iter()
        .filter(|l| l.age >= locks::STALE_AFTER)
        .map(|l| {
            let shown = project.paths.display(&l.path);
            Check {
                check: "git_lock",
                subject: shown.clone(),
                ok: false,
                detail: match held {
                    Some(pid) => format!("{shown} is held by a running git (pid {pid}); wait for it to finish"),
                    None => format!(
                        "{shown} is a stale git lock (left by a crashed git, {} s old); `run` removes it, or delete it",
                        l.age.as_secs()
                    ),
                },
            }
        })
        .collect()
}
