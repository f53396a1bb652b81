//! How a command written as one string in config.yaml (`tests.command`,
//! `tests.issue_command`) is run.
//!
//! The rule (documented in docs/run.md): a string with only words, whitespace and simple
//! quoting (`'...'`, `"..."` without `$` or backticks, `\` escapes outside quotes) is split
//! into argv and run directly, with no shell. A string that uses any shell feature — pipes,
//! redirections, `;`, `&&`, variables, globs, command substitution, `~`, comments, a leading
//! `NAME=value` assignment, or an unterminated quote — is run as `sh -c <string>`. Only the
//! user's own config string is ever given to the shell; text from issues, agents or GitHub
//! is never interpolated into it (the test file of `tests.issue_command` is substituted as
//! one argv word, and makes the command a shell command only if the config string already
//! was one; then it is passed as a positional parameter, see [`with_test_file`]).

/// A command ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    /// Run directly (no shell).
    Argv(Vec<String>),
    /// Run as `sh -c <script>` with these extra positional parameters (`$1`, ...).
    Shell { script: String, args: Vec<String> },
}

impl CommandLine {
    /// The argv to execute.
    pub fn to_argv(&self) -> Vec<String> {
        match self {
            CommandLine::Argv(a) => a.clone(),
            CommandLine::Shell { script, args } => {
                let mut v = vec!["sh".to_string(), "-c".to_string(), script.clone()];
                if !args.is_empty() {
                    v.push("sh".to_string());
                    v.extend(args.iter().cloned());
                }
                v
            }
        }
    }

    /// Whether the command is empty (nothing to run).
    pub fn is_empty(&self) -> bool {
        match self {
            CommandLine::Argv(a) => a.is_empty(),
            CommandLine::Shell { script, .. } => script.trim().is_empty(),
        }
    }
}

/// Characters that make a string a shell command when they appear outside quotes.
const META: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '~', '#', '!', '\n',
];

/// Parses a config command string by the rule above.
pub fn parse(cmd: &str) -> CommandLine {
    let shell = || CommandLine::Shell {
        script: cmd.to_string(),
        args: Vec::new(),
    };
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return shell(),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('$') | Some('`') => return shell(),
                        Some('\\') => match chars.peek() {
                            Some('"') | Some('\\') => cur.push(chars.next().unwrap_or('\\')),
                            Some('$') | Some('`') | Some('\n') => return shell(),
                            _ => cur.push('\\'),
                        },
                        Some(x) => cur.push(x),
                        None => return shell(),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => return shell(),
                Some(x) => {
                    in_word = true;
                    cur.push(x);
                }
            },
            c if META.contains(&c) => return shell(),
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if let Some(first) = words.first()
        && is_assignment(first)
    {
        return shell();
    }
    CommandLine::Argv(words)
}

/// Whether `word` is a shell variable assignment (`NAME=value`).
pub(crate) fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

const PLACEHOLDER: &str = "SWARMATTACKTESTFILEPLACEHOLDER";

/// The command that runs one issue's test file (docs/run.md "How `tests.command` is run"):
/// `issue_command` with `{test_file}` replaced when it is set, else `command` followed by the path
/// as one more argument. The path is always one argv word: for a shell command it is passed as `$1`
/// (a `{test_file}` placeholder in a shell string becomes `"$1"`).
pub fn with_test_file(command: &str, issue_command: Option<&str>, test_file: &str) -> CommandLine {
    match issue_command {
        Some(template) => match parse(&template.replace("{test_file}", PLACEHOLDER)) {
            CommandLine::Argv(words) => CommandLine::Argv(
                words
                    .into_iter()
                    .map(|w| w.replace(PLACEHOLDER, test_file))
                    .collect(),
            ),
            CommandLine::Shell { .. } => CommandLine::Shell {
                script: template.replace("{test_file}", "\"$1\""),
                args: vec![test_file.to_string()],
            },
        },
        None => match parse(command) {
            CommandLine::Argv(mut words) => {
                words.push(test_file.to_string());
                CommandLine::Argv(words)
            }
            CommandLine::Shell { script, .. } => CommandLine::Shell {
                script: format!("{script} \"$1\""),
                args: vec![test_file.to_string()],
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(v: &[&str]) -> CommandLine {
        CommandLine::Argv(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn plain_words_and_simple_quotes_are_argv() {
        assert_eq!(parse("cargo test"), argv(&["cargo", "test"]));
        assert_eq!(parse("  pytest   -q  "), argv(&["pytest", "-q"]));
        assert_eq!(
            parse("sh 'my tests.sh' \"a b\" c\\ d"),
            argv(&["sh", "my tests.sh", "a b", "c d"])
        );
        assert_eq!(
            parse("echo \"say \\\"hi\\\"\""),
            argv(&["echo", "say \"hi\""])
        );
        assert_eq!(parse("x ''"), argv(&["x", ""]));
        assert_eq!(
            parse("npm test -- --grep=x"),
            argv(&["npm", "test", "--", "--grep=x"])
        );
        assert!(parse("").is_empty());
    }

    #[test]
    fn shell_features_use_sh() {
        for s in [
            "cargo test | tee out",
            "make && make test",
            "a; b",
            "echo $HOME",
            "echo \"$HOME\"",
            "ls *.py",
            "cd ~/x",
            "RUST_LOG=debug cargo test",
            "echo 'unterminated",
            "x # comment",
            "echo `date`",
            "a > b",
        ] {
            assert!(
                matches!(parse(s), CommandLine::Shell { .. }),
                "{s} should be a shell command"
            );
        }
        assert_eq!(
            parse("a | b").to_argv(),
            vec!["sh".to_string(), "-c".into(), "a | b".into()]
        );
        // a quoted metacharacter is just text
        assert_eq!(parse("grep 'a|b' f"), argv(&["grep", "a|b", "f"]));
    }

    #[test]
    fn test_file_is_one_argument() {
        assert_eq!(
            with_test_file("pytest -q", None, "tests/a b.py"),
            argv(&["pytest", "-q", "tests/a b.py"])
        );
        assert_eq!(
            with_test_file("cargo test", Some("cargo test --test {test_file}"), "x;rm"),
            argv(&["cargo", "test", "--test", "x;rm"])
        );
        let sh = with_test_file("make test | tee", None, "t.sh; rm -rf /");
        assert_eq!(
            sh.to_argv(),
            vec![
                "sh".to_string(),
                "-c".into(),
                "make test | tee \"$1\"".into(),
                "sh".into(),
                "t.sh; rm -rf /".into()
            ]
        );
        let sh = with_test_file("x", Some("run {test_file} && echo ok"), "t");
        assert_eq!(
            sh,
            CommandLine::Shell {
                script: "run \"$1\" && echo ok".into(),
                args: vec!["t".into()]
            }
        );
    }
}
