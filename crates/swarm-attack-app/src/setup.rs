//! What `init` writes for a new project (docs/cli.md "init"): `config.yaml` with the detected test
//! command and the agents found on PATH, and `.swarm/.gitignore` (so `.swarm/` ignores
//! itself without touching the user's `.gitignore`).

use crate::core::agent_preset::Preset;
use crate::error::CmdResult;
use crate::io::atomic;
use crate::io::file_error::FileError;
use crate::run::verify::on_path;
use serde::Serialize;
use std::path::Path;

/// The test command detected from the project's files, and the file it was detected from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DetectedTests {
    pub command: String,
    pub from: String,
}

/// The project file each detected test command needs, in the order they are tried.
const TEST_MARKERS: &[(&str, &str)] = &[
    ("Cargo.toml", "cargo test"),
    ("pyproject.toml", "pytest"),
    ("setup.cfg", "pytest"),
    ("pytest.ini", "pytest"),
    ("package.json", "npm test"),
    ("go.mod", "go test ./..."),
];

/// Detects the test command from the files at `root`: Cargo.toml → `cargo test`;
/// pyproject.toml / setup.cfg / pytest.ini → `python -m pytest -q` (`python3` when only that
/// is on PATH); package.json → `npm test`; go.mod → `go test ./...`; a Makefile with a
/// `test:` target → `make test`.
pub(crate) fn detect_tests(root: &Path) -> Option<DetectedTests> {
    for (file, command) in TEST_MARKERS {
        if root.join(file).is_file() {
            let command = if *command == "pytest" {
                let python = if !on_path("python") && on_path("python3") {
                    "python3"
                } else {
                    "python"
                };
                format!("{python} -m pytest -q")
            } else {
                command.to_string()
            };
            return Some(DetectedTests {
                command,
                from: file.to_string(),
            });
        }
    }
    let makefile = std::fs::read_to_string(root.join("Makefile")).ok()?;
    makefile
        .lines()
        .any(|l| {
            l.strip_prefix("test")
                .is_some_and(|r| r.trim_start().starts_with(':'))
        })
        .then(|| DetectedTests {
            command: "make test".into(),
            from: "Makefile".into(),
        })
}

/// The project file a test command needs to work, when the command is one of the known
/// ones and that file is missing at `root` (e.g. `cargo test` without Cargo.toml).
pub(crate) fn missing_project_file(root: &Path, test_command: &str) -> Option<&'static str> {
    let words: Vec<&str> = test_command.split_whitespace().collect();
    let needs: &[&str] = match words.as_slice() {
        ["cargo", "test", ..] | ["cargo", "nextest", ..] => &["Cargo.toml"],
        ["npm", "test", ..] | ["npm", "run", "test", ..] | ["yarn", "test", ..] => {
            &["package.json"]
        }
        ["go", "test", ..] => &["go.mod"],
        ["make", "test", ..] => &["Makefile", "makefile", "GNUmakefile"],
        _ => return None,
    };
    (!needs.iter().any(|f| root.join(f).is_file())).then_some(needs[0])
}

/// Warns (stderr) when `tests.command` needs a project file the root does not have while
/// the project is recognisably another kind, e.g. `cargo test` in a Python repository: every
/// attempt would fail on it. The warning names the command this project's files suggest.
pub fn warn_missing_project_file(project: &crate::project::Project) {
    let command = &project.config.tests.command;
    let Some(file) = missing_project_file(&project.root, command) else {
        return;
    };
    let Some(detected) = detect_tests(&project.root) else {
        return;
    };
    project.ui.warn_once(
        "tests.command project file",
        format_args!(
            "the test command `{command}` needs {file}, which {} does not have; this project looks like it is tested with `{}` (from {}): set tests.command in {}",
            project.root.display(),
            detected.command,
            detected.from,
            crate::io::config::display_path(&project.config_path)
        ),
    );
}

/// The presets `init` writes an agent entry for when their program is on PATH, in order.
const INIT_PRESETS: &[Preset] = &[
    Preset::ClaudeCode,
    Preset::Codex,
    Preset::Gemini,
    Preset::Opencode,
    Preset::Goose,
    Preset::Aider,
];

/// The presets whose program is on PATH.
pub(crate) fn agents_on_path() -> Vec<Preset> {
    INIT_PRESETS
        .iter()
        .copied()
        .filter(|p| p.program().is_some_and(on_path))
        .collect()
}

/// The text of a new `config.yaml`.
pub(crate) fn config_text(tests: Option<&DetectedTests>, agents: &[Preset]) -> String {
    let mut out = String::from(
        "# swarm-attack configuration. Every key is optional; see the README, \"Configuration\".\n",
    );
    match tests {
        Some(t) => out.push_str(&format!(
            "tests:\n  command: \"{}\"   # detected from {}\n",
            t.command, t.from
        )),
        None => out.push_str(
            "# No test command was detected (no Cargo.toml, pyproject.toml, package.json, go.mod\n\
             # or Makefile with a `test:` target). Set the command that runs your tests:\n\
             tests:\n  command: \"cargo test\"\n",
        ),
    }
    if agents.is_empty() {
        out.push_str(
            "# No agent CLI (claude, codex, gemini, opencode, goose, aider) was found on PATH.\n\
             # Install one and name its preset, or name your own agent: it gets the prompt on\n\
             # stdin and edits files in its working folder.\n\
             # agents:\n\
             #   - name: claude\n\
             #     preset: claude-code\n\
             #   - name: my-agent\n\
             #     command: [\"my-agent\", \"--headless\"]\n",
        );
    } else {
        // One entry per preset found: the preset supplies the headless command line and the
        // parser of the CLI's report (a `command:` here would make it `custom`).
        out.push_str("agents:\n");
        for p in agents {
            let program = p.program().unwrap_or(p.as_str());
            out.push_str(&format!(
                "  - name: {program}\n    preset: {}\n",
                p.as_str()
            ));
        }
    }
    out
}

/// Writes `path` with `text` unless it exists; returns whether it wrote.
pub(crate) fn write_if_missing(path: &Path, text: &str) -> CmdResult<bool> {
    if path.exists() {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(FileError::at("create", dir))?;
    }
    atomic::write_atomic(path, text.as_bytes()).map_err(FileError::at("write", path))?;
    Ok(true)
}

/// Writes `<swarm_dir>/.gitignore` containing `*` when it is missing.
pub(crate) fn ensure_swarm_gitignore(swarm_dir: &Path) -> CmdResult<bool> {
    write_if_missing(&swarm_dir.join(".gitignore"), "*\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_project_kind_in_order() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        assert_eq!(detect_tests(d), None);
        std::fs::write(d.join("Makefile"), "build:\n\tcc x.c\ntest :\n\t./t\n").unwrap();
        assert_eq!(detect_tests(d).unwrap().command, "make test");
        std::fs::write(d.join("go.mod"), "module x\n").unwrap();
        assert_eq!(detect_tests(d).unwrap().command, "go test ./...");
        std::fs::write(d.join("package.json"), "{}").unwrap();
        assert_eq!(detect_tests(d).unwrap().command, "npm test");
        std::fs::write(d.join("pytest.ini"), "").unwrap();
        assert!(detect_tests(d).unwrap().command.ends_with(" -m pytest -q"));
        std::fs::write(d.join("Cargo.toml"), "").unwrap();
        let t = detect_tests(d).unwrap();
        assert_eq!(
            (t.command.as_str(), t.from.as_str()),
            ("cargo test", "Cargo.toml")
        );
    }

    #[test]
    fn a_makefile_without_a_test_target_detects_nothing() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("Makefile"), "testing:\n\techo\n").unwrap();
        assert_eq!(detect_tests(t.path()), None);
    }

    #[test]
    fn missing_project_file_names_what_the_command_needs() {
        let t = tempfile::tempdir().unwrap();
        assert_eq!(
            missing_project_file(t.path(), "cargo test"),
            Some("Cargo.toml")
        );
        assert_eq!(missing_project_file(t.path(), "python -m pytest"), None);
        std::fs::write(t.path().join("Cargo.toml"), "").unwrap();
        assert_eq!(missing_project_file(t.path(), "cargo test --all"), None);
    }

    #[test]
    fn the_config_text_loads_and_explains_what_is_missing() {
        let tests = DetectedTests {
            command: "python -m pytest -q".into(),
            from: "pyproject.toml".into(),
        };
        let with = config_text(Some(&tests), &[Preset::ClaudeCode, Preset::Codex]);
        assert!(with.contains("command: \"python -m pytest -q\"   # detected from pyproject.toml"));
        assert!(
            with.contains(
                "  - name: claude\n    preset: claude-code\n  - name: codex\n    preset: codex\n"
            ),
            "{with}"
        );
        let loaded = crate::io::config::parse(&with, "config.yaml").unwrap();
        assert_eq!(loaded.config.agents.len(), 2);
        assert_eq!(loaded.config.agents[0].preset, Some(Preset::ClaudeCode));
        let without = config_text(None, &[]);
        assert!(without.contains("No agent CLI"), "{without}");
        assert!(without.contains("# agents:"));
    }
}
