//! The programs a shell-form command runs (docs/cli.md "doctor", docs/run.md): what preflight
//! checks of a `tests.command` such as `"make build && pytest -q | tee out"` — the first
//! program of each simple command — and whether its exit status can hide a failure (a
//! pipeline's status is its last command's unless `set -o pipefail`).
//!
//! The reading is deliberately simple and conservative; it is a preflight, not a shell:
//! - simple commands are separated by `&&`, `||`, `;`, `|`, `|&`, `&`, newlines and
//!   parentheses (outside quotes);
//! - leading `NAME=value` assignments, redirections (`> f`, `2>&1`, `<f`), the keywords
//!   `if then else elif do while until ! { time` and the prefixes `exec`, `command`,
//!   `nohup` are skipped; `fi done esac }` close a compound command; a `for`, `case`,
//!   `select` or `function` command and a function definition `name()` name no program;
//! - a builtin (`cd`, `echo`, `test`, `[`, `set`, `export`, `true`, ...) is no program;
//! - a word with an expansion (`$`, a backquote, a glob) cannot be known and is not
//!   reported; nor is a relative path (`./x`) once a `cd`/`pushd` may have moved the
//!   shell elsewhere.

use crate::command_line::is_assignment;

/// What a shell command line runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellScan {
    /// The first program of each simple command, in order, each once.
    pub programs: Vec<String>,
    /// It holds a pipeline (`a | b`).
    pub pipeline: bool,
    /// It sets `pipefail` (`set -o pipefail`, `set -euo pipefail`, ...).
    pub pipefail: bool,
}

impl ShellScan {
    /// A pipeline whose status is its last command's: an earlier command's failure is lost.
    pub fn pipeline_hides_failures(&self) -> bool {
        self.pipeline && !self.pipefail
    }
}

const BUILTINS: &[&str] = &[
    ":", ".", "[", "[[", "alias", "bg", "break", "builtin", "cd", "continue", "declare", "echo",
    "eval", "exit", "export", "false", "fg", "getopts", "hash", "jobs", "kill", "let", "local",
    "popd", "printf", "pushd", "pwd", "read", "readonly", "return", "set", "shift", "source",
    "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset",
    "wait",
];
/// Words after which the next word is the command.
const LEADING: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "exec", "command",
    "nohup",
];
/// Words that close a compound command; the command, if any, follows.
const CLOSING: &[&str] = &["fi", "done", "esac", "}"];
/// Commands whose words are not commands (a list, patterns, a name).
const NO_COMMAND: &[&str] = &["for", "case", "select", "function", "in"];

#[derive(Debug, PartialEq)]
enum Token {
    /// A word; `known` when it has no expansion (its text is what the shell runs).
    Word { text: String, known: bool },
    /// A separator of simple commands; `"("` marks a function definition after one word.
    Sep(&'static str),
}

/// The word being read.
#[derive(Default)]
struct Word {
    text: String,
    started: bool,
    known: bool,
    /// It is a redirection's target (dropped).
    target: bool,
}

impl Word {
    fn push(&mut self, c: char) {
        if !self.started {
            self.started = true;
            self.known = true;
        }
        self.text.push(c);
    }
    fn start(&mut self) {
        if !self.started {
            self.started = true;
            self.known = true;
        }
    }
    fn unknown(&mut self) {
        self.start();
        self.known = false;
    }
    /// Ends the word (if one was started) into `out`.
    fn end(&mut self, out: &mut Vec<Token>) {
        if self.started {
            if self.target {
                self.target = false;
            } else {
                out.push(Token::Word {
                    text: std::mem::take(&mut self.text),
                    known: self.known,
                });
            }
        }
        self.text.clear();
        self.started = false;
    }
}

/// Splits `script` into words and separators; redirections and their targets are dropped.
fn tokens(script: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut w = Word::default();
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => w.end(&mut out),
            '#' if !w.started => {
                // a comment, to the end of the line
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            '\'' => {
                w.start();
                for x in chars.by_ref() {
                    if x == '\'' {
                        break;
                    }
                    w.text.push(x);
                }
            }
            '"' => {
                w.start();
                while let Some(x) = chars.next() {
                    match x {
                        '"' => break,
                        '$' | '`' => w.known = false,
                        '\\' => {
                            if let Some(y) = chars.next() {
                                w.text.push(y);
                            }
                            continue;
                        }
                        _ => {}
                    }
                    w.text.push(x);
                }
            }
            '\\' => {
                if let Some(x) = chars.next()
                    && x != '\n'
                {
                    w.push(x);
                }
            }
            '$' | '`' | '*' | '?' | '[' | '~' => {
                w.unknown();
                w.text.push(c);
            }
            '<' | '>' => {
                if w.started && w.known && !w.target && w.text.chars().all(|d| d.is_ascii_digit()) {
                    // `2>`: the digits were the descriptor, not a word
                    w.text.clear();
                    w.started = false;
                } else {
                    w.end(&mut out);
                }
                while chars.peek().is_some_and(|x| matches!(x, '<' | '>' | '|')) {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    // `>&2`, `2>&1`: a descriptor, not a command separator
                    chars.next();
                }
                w.target = true;
            }
            '|' | '&' | ';' | '\n' | '(' | ')' => {
                w.end(&mut out);
                w.target = false;
                let sep = match c {
                    '|' if chars.peek() == Some(&'|') => {
                        chars.next();
                        "||"
                    }
                    '|' if chars.peek() == Some(&'&') => {
                        chars.next();
                        "|"
                    }
                    '|' => "|",
                    '&' if chars.peek() == Some(&'&') => {
                        chars.next();
                        "&&"
                    }
                    '&' => "&",
                    ';' => {
                        if chars.peek() == Some(&';') {
                            chars.next();
                        }
                        ";"
                    }
                    '(' => "(",
                    ')' => ")",
                    _ => "\n",
                };
                out.push(Token::Sep(sep));
            }
            c => w.push(c),
        }
    }
    w.end(&mut out);
    out
}

/// Reads a shell command line (see the module documentation).
pub fn scan(script: &str) -> ShellScan {
    let toks = tokens(script);
    let mut scan = ShellScan::default();
    let mut moved = false;
    let mut functions: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        // one simple command: toks[i..j]
        let j = toks[i..]
            .iter()
            .position(|t| matches!(t, Token::Sep(_)))
            .map_or(toks.len(), |p| i + p);
        let words: Vec<(&str, bool)> = toks[i..j]
            .iter()
            .filter_map(|t| match t {
                Token::Word { text, known } => Some((text.as_str(), *known)),
                Token::Sep(_) => None,
            })
            .collect();
        let next = toks.get(j);
        if next == Some(&Token::Sep("|")) {
            scan.pipeline = true;
        }
        if words.len() == 1 && next == Some(&Token::Sep("(")) {
            // `name() { ...; }` defines a function: calling it runs no program
            functions.push(words[0].0);
        } else {
            command(&words, &functions, &mut scan, &mut moved);
        }
        i = j + 1;
    }
    scan
}

/// The program of one simple command's words, into `scan`.
fn command(words: &[(&str, bool)], functions: &[&str], scan: &mut ShellScan, moved: &mut bool) {
    let mut rest = words;
    while let Some(((w, known), tail)) = rest.split_first() {
        if *known && (is_assignment(w) || LEADING.contains(w) || CLOSING.contains(w)) {
            rest = tail;
            // `command -v x`, `exec -a name x`: options of the prefix are not commands
            while rest.first().is_some_and(|(o, _)| o.starts_with('-')) {
                rest = &rest[1..];
            }
            continue;
        }
        break;
    }
    let Some(&(program, known)) = rest.first() else {
        return;
    };
    if !known || program.is_empty() || NO_COMMAND.contains(&program) {
        return;
    }
    if program == "set" && rest.iter().any(|(w, _)| *w == "pipefail") {
        scan.pipefail = true;
    }
    if matches!(program, "cd" | "pushd" | "popd") {
        *moved = true;
    }
    if BUILTINS.contains(&program) || functions.contains(&program) {
        return;
    }
    let relative = program.contains('/') && !program.starts_with('/');
    if relative && *moved {
        return;
    }
    if !scan.programs.iter().any(|p| p == program) {
        scan.programs.push(program.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(s: &str) -> Vec<String> {
        scan(s).programs
    }

    #[test]
    fn the_first_program_of_each_simple_command() {
        for (script, want) in [
            ("nonexistent-prog run && true", vec!["nonexistent-prog"]),
            (
                "nonexistent-prog run | cat",
                vec!["nonexistent-prog", "cat"],
            ),
            ("a || b; c & d\ne", vec!["a", "b", "c", "d", "e"]),
            ("A=1 B='x y' make test", vec!["make"]),
            (
                "RUST_LOG=debug cargo test 2>&1 | tee out.log",
                vec!["cargo", "tee"],
            ),
            ("cd sub && ./run.sh && make", vec!["make"]),
            ("./run.sh && cd sub", vec!["./run.sh"]),
            (
                "if pytest -q; then echo ok; else exit 1; fi",
                vec!["pytest"],
            ),
            ("(make && make test) > log 2> err < /dev/null", vec!["make"]),
            ("echo $HOME; $RUNNER x; \"$(which y)\" z", vec![]),
            ("for f in a b; do sh $f; done", vec!["sh"]),
            ("exec nice -n 5 go test ./...", vec!["nice"]),
            ("command -v cargo && cargo test", vec!["cargo"]),
            ("make test # and a comment | x", vec!["make"]),
            ("'my tests.sh' --fast", vec!["my tests.sh"]),
            ("t() { go test; }; t", vec!["go"]),
            ("test -f x && [ -d y ] && true", vec![]),
            ("x >out; y >>out", vec!["x", "y"]),
        ] {
            assert_eq!(programs(script), want, "{script}");
        }
    }

    #[test]
    fn a_pipeline_hides_failures_unless_pipefail_is_set() {
        assert!(scan("a | b").pipeline_hides_failures());
        assert!(scan("a |& b").pipeline_hides_failures());
        assert!(!scan("a || b").pipeline_hides_failures());
        assert!(!scan("a 2>&1").pipeline_hides_failures());
        assert!(!scan("grep 'a|b' f").pipeline_hides_failures());
        assert!(!scan("set -o pipefail; a | b").pipeline_hides_failures());
        assert!(!scan("set -euo pipefail\na | b").pipeline_hides_failures());
        assert!(!scan("a && b").pipeline_hides_failures());
    }

    proptest::proptest! {
        /// Any text is read without a panic, and every program reported is a word of it.
        #[test]
        fn any_text_is_read_and_programs_come_from_it(s in "[a-z$|&;() <>'\"=\\\\\n#-]{0,40}") {
            for p in scan(&s).programs {
                proptest::prop_assert!(!p.is_empty());
            }
        }
    }
}
