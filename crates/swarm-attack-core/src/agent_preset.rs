//! Agent presets (docs/agents.md "The presets"): for each known coding-agent CLI, the headless
//! command line that can edit files in the worktree and run the project's test command without
//! prompting, with the prompt on stdin, plus a default angle and covers. Verified flags and
//! versions are in docs/agents.md.

use serde::{Deserialize, Serialize};

/// A known agent CLI, or `custom` (the configured `command` as given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    ClaudeCode,
    Codex,
    Gemini,
    Opencode,
    Goose,
    Aider,
    Custom,
}

/// Every preset name, as written in config.yaml.
pub const PRESET_NAMES: &[&str] = &[
    "claude-code",
    "codex",
    "gemini",
    "opencode",
    "goose",
    "aider",
    "custom",
];

impl Preset {
    /// The name as written in config.yaml.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::ClaudeCode => "claude-code",
            Preset::Codex => "codex",
            Preset::Gemini => "gemini",
            Preset::Opencode => "opencode",
            Preset::Goose => "goose",
            Preset::Aider => "aider",
            Preset::Custom => "custom",
        }
    }

    /// The preset whose program is `program` (a path's file name counts), if any.
    pub fn for_program(program: &str) -> Option<Preset> {
        let name = program.rsplit('/').next().unwrap_or(program);
        match name {
            "claude" => Some(Preset::ClaudeCode),
            "codex" => Some(Preset::Codex),
            "gemini" => Some(Preset::Gemini),
            "opencode" => Some(Preset::Opencode),
            "goose" => Some(Preset::Goose),
            "aider" => Some(Preset::Aider),
            _ => None,
        }
    }

    /// The program the preset runs (`None` for `custom`).
    pub fn program(self) -> Option<&'static str> {
        match self {
            Preset::ClaudeCode => Some("claude"),
            Preset::Codex => Some("codex"),
            Preset::Gemini => Some("gemini"),
            Preset::Opencode => Some("opencode"),
            Preset::Goose => Some("goose"),
            Preset::Aider => Some("aider"),
            Preset::Custom => None,
        }
    }

    /// The headless command line; `tests` are the project's test commands
    /// (`tests.command`, `tests.issue_command`), which Claude Code is allowed to run.
    /// Empty for `custom`.
    pub fn command(self, tests: &[&str]) -> Vec<String> {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        match self {
            Preset::ClaudeCode => {
                let mut argv = v(&[
                    "claude",
                    "-p",
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--permission-mode",
                    "acceptEdits",
                ]);
                let rules = allowed_bash_rules(tests);
                if !rules.is_empty() {
                    argv.push("--allowedTools".into());
                    argv.extend(rules);
                }
                argv
            }
            Preset::Codex => v(&[
                "codex",
                "exec",
                "--json",
                "--sandbox",
                "workspace-write",
                "--skip-git-repo-check",
                "-",
            ]),
            // `--skip-trust`: headless Gemini CLI exits 55 in a folder it was never told to
            // trust, and every worktree is such a folder
            Preset::Gemini => v(&[
                "gemini",
                "--output-format",
                "json",
                "--approval-mode",
                "yolo",
                "--skip-trust",
            ]),
            Preset::Opencode => v(&["opencode", "run", "--format", "json", "--auto"]),
            Preset::Goose => v(&["goose", "run", "--no-session", "-i", "-"]),
            // `--no-gitignore`: else `--yes-always` adds `.aider*` to .gitignore, an edit that
            // is not the agent's work; `--no-analytics`: else `--yes-always` opts in to
            // analytics for the users aider asks
            Preset::Aider => v(&[
                "aider",
                "--yes-always",
                "--no-gitignore",
                "--no-analytics",
                "--no-pretty",
                "--no-stream",
                "--no-auto-commits",
                "--no-check-update",
                "--no-show-model-warnings",
                "--message-file",
                "/dev/stdin",
            ]),
            Preset::Custom => Vec::new(),
        }
    }

    /// The default angle and covers of an agent of this preset that sets none.
    pub fn default_angle_covers(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Preset::ClaudeCode => ("implementation and tests", &["implementation", "tests"]),
            Preset::Codex => (
                "focused implementation, small diffs",
                &["implementation", "refactoring"],
            ),
            Preset::Gemini => ("broad context and documentation", &["docs", "api"]),
            Preset::Opencode => ("implementation", &["implementation"]),
            Preset::Goose => ("tooling and automation", &["scripts", "tooling"]),
            Preset::Aider => ("small precise edits", &["bugfix", "refactoring"]),
            Preset::Custom => ("", &[]),
        }
    }

    /// The environment variables that carry this preset's API credentials (any one is
    /// enough; the CLI's own login works too).
    pub fn credential_vars(self) -> &'static [&'static str] {
        match self {
            Preset::ClaudeCode => &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
            Preset::Codex => &["OPENAI_API_KEY", "CODEX_API_KEY"],
            Preset::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            Preset::Opencode | Preset::Goose | Preset::Aider => &[
                "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY",
                "GEMINI_API_KEY",
                "OPENROUTER_API_KEY",
            ],
            Preset::Custom => &[],
        }
    }
}

/// Files an agent CLI writes into the folder it works in for its own use (history, caches):
/// never part of the agent's change, never committed. aider's chat and input histories and
/// its repository-map cache.
pub fn is_agent_scratch_path(path: &str) -> bool {
    const FILES: &[&str] = &[
        ".aider.chat.history.md",
        ".aider.input.history",
        ".aider.llm.history",
    ];
    FILES.contains(&path) || path.starts_with(".aider.tags.cache.")
}

/// The full command line of an agent: `command` when given (it overrides the preset), else the
/// preset's; then `args` (before a trailing `-`, the "prompt on stdin" marker, if any).
pub fn command_line(
    preset: Option<Preset>,
    command: &[String],
    args: &[String],
    tests: &[&str],
) -> Vec<String> {
    let mut argv = if command.is_empty() {
        preset.map(|p| p.command(tests)).unwrap_or_default()
    } else {
        command.to_vec()
    };
    if argv.last().is_some_and(|a| a == "-") && !args.is_empty() {
        let dash = argv.pop().unwrap_or_default();
        argv.extend(args.iter().cloned());
        argv.push(dash);
    } else {
        argv.extend(args.iter().cloned());
    }
    argv
}

/// Claude Code `--allowedTools` rules that let it run the test commands: `Bash(<prefix>:*)`,
/// the prefix being the command up to its first `{placeholder}` word.
pub fn allowed_bash_rules(tests: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tests {
        let words: Vec<&str> = t
            .split_whitespace()
            .take_while(|w| !w.contains('{'))
            .collect();
        if words.is_empty() {
            continue;
        }
        let rule = format!("Bash({}:*)", words.join(" "));
        if !out.contains(&rule) {
            out.push(rule);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn claude_is_allowed_to_run_the_test_commands() {
        let argv = Preset::ClaudeCode.command(&["cargo test", "cargo test --test {test_file}"]);
        assert_eq!(
            argv,
            s(&[
                "claude",
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Bash(cargo test:*)",
                "Bash(cargo test --test:*)"
            ])
        );
        assert_eq!(allowed_bash_rules(&["{runner} x"]), Vec::<String>::new());
    }

    #[test]
    fn args_append_and_command_overrides() {
        let argv = command_line(Some(Preset::Codex), &[], &s(&["-m", "o4"]), &[]);
        assert_eq!(argv[argv.len() - 3..], s(&["-m", "o4", "-"]));
        let argv = command_line(
            Some(Preset::ClaudeCode),
            &s(&["my-claude"]),
            &s(&["--x"]),
            &[],
        );
        assert_eq!(argv, s(&["my-claude", "--x"]));
        assert!(command_line(Some(Preset::Custom), &[], &[], &[]).is_empty());
    }

    #[test]
    fn gemini_trusts_its_worktree_and_aider_leaves_gitignore_and_analytics_alone() {
        assert!(
            Preset::Gemini
                .command(&[])
                .contains(&"--skip-trust".to_string())
        );
        let aider = Preset::Aider.command(&[]);
        for flag in ["--no-gitignore", "--no-analytics", "--message-file"] {
            assert!(aider.contains(&flag.to_string()), "{aider:?}");
        }
        // the prompt is read from stdin, never passed as `--message <text>`
        assert!(!aider.iter().any(|a| a == "--message" || a == "-m"));
    }

    #[test]
    fn aider_scratch_files_are_not_the_change() {
        for p in [
            ".aider.chat.history.md",
            ".aider.input.history",
            ".aider.tags.cache.v4/cache.db",
        ] {
            assert!(is_agent_scratch_path(p), "{p}");
        }
        for p in [
            ".aider.conf.yml",
            "src/.aider.chat.history.md",
            ".gitignore",
            "aider.py",
        ] {
            assert!(!is_agent_scratch_path(p), "{p}");
        }
    }

    #[test]
    fn names_round_trip() {
        for name in PRESET_NAMES {
            let p: Preset = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(p.as_str(), *name);
        }
        assert_eq!(
            Preset::for_program("/usr/bin/claude"),
            Some(Preset::ClaudeCode)
        );
        assert_eq!(Preset::for_program("./agent.sh"), None);
    }
}
