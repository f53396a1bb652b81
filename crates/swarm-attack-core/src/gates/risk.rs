//! Risk routing (docs/gates.md "Risk routing"): an issue is risky when its title, body or labels
//! hold one of `gates.risk.keywords` as a word, or one of its `files` matches a `gates.risk.paths`
//! glob. Words are compared after the normalisation of the heuristic proposals
//! ([`crate::heuristic::words`]: lowercase alphanumeric runs, synonyms, a light stemmer), so
//! `passwords` and `Password` meet `password` and `migrations` meets `migration`, while `author`
//! never meets `auth`. A keyword of several words matches them in a row.
//!
//! What a risky issue gets (the review strategy and landing mode of `gates.risk`) is
//! decided by the callers from [`Risk`]; the review gate (docs/review.md) reads
//! [`Risk::is_risky`] and [`super::RiskConfig::review`].

use super::RiskConfig;
use crate::heuristic::words;
use crate::state::Task;

/// One reason an issue is risky.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// `keyword` occurs as a word in `field` (`title`, `body` or `labels`).
    Keyword {
        keyword: String,
        field: &'static str,
    },
    /// `file` (one of the issue's `files`) matches the glob `pattern`.
    Path { pattern: String, file: String },
}

impl Signal {
    /// One line: ``keyword `auth` in the title``, ``path `src/a.rs` matches `src/**` ``.
    pub fn describe(&self) -> String {
        match self {
            Signal::Keyword { keyword, field } => {
                let field = match *field {
                    "labels" => "a label",
                    "title" => "the title",
                    _ => "the body",
                };
                format!("keyword `{keyword}` in {field}")
            }
            Signal::Path { pattern, file } => {
                format!("file `{file}` matches `{pattern}`")
            }
        }
    }
}

/// The risk of one issue.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Risk {
    pub signals: Vec<Signal>,
}

impl Risk {
    /// Whether the issue is routed as risky.
    pub fn is_risky(&self) -> bool {
        !self.signals.is_empty()
    }

    /// The signals as lines (the `risk_flagged.signals` of the event).
    pub fn lines(&self) -> Vec<String> {
        self.signals.iter().map(Signal::describe).collect()
    }
}

/// Whether `needle` occurs in `hay` as consecutive words.
fn contains_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// The risk of `task` under `cfg` (no signals when the gate is off). One signal per
/// keyword (its first field: title, body, labels) and per path pattern (its first file).
pub fn assess(task: &Task, cfg: &RiskConfig) -> Risk {
    if !cfg.enabled {
        return Risk::default();
    }
    let body = super::specify::issue_body(task);
    let fields: [(&'static str, Vec<String>); 3] = [
        ("title", words(&task.title)),
        ("body", words(body)),
        ("labels", words(&task.labels.join(" \n "))),
    ];
    let mut signals = Vec::new();
    for k in &cfg.keywords {
        let kw = words(k);
        if let Some((field, _)) = fields.iter().find(|(_, ws)| contains_run(ws, &kw)) {
            signals.push(Signal::Keyword {
                keyword: k.trim().to_string(),
                field,
            });
        }
    }
    for p in &cfg.paths {
        if let Some(f) = task.files.iter().find(|f| glob_match(p, f)) {
            signals.push(Signal::Path {
                pattern: p.clone(),
                file: f.clone(),
            });
        }
    }
    Risk { signals }
}

/// Gitignore-style glob on a repository path (`/`-separated): `*` matches within one path
/// segment, `?` one character of a segment, `**` any number of segments (`src/**`,
/// `**/migrations/*`); a pattern without `/` matches the path's last segment (the file
/// name) anywhere. A leading `/` or `./` anchors nothing more (paths are relative).
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let pattern = pattern
        .trim()
        .trim_start_matches("./")
        .trim_start_matches('/');
    let path = path.trim().trim_start_matches("./");
    if pattern.is_empty() {
        return false;
    }
    if !pattern.contains('/') {
        let name = path.rsplit('/').next().unwrap_or(path);
        return segment_match(pattern.as_bytes(), name.as_bytes());
    }
    let pat: Vec<&str> = pattern.split('/').collect();
    let segs: Vec<&str> = path.split('/').collect();
    segments_match(&pat, &segs)
}

fn segments_match(pat: &[&str], segs: &[&str]) -> bool {
    match pat.split_first() {
        None => segs.is_empty(),
        Some((&"**", rest)) => (0..=segs.len()).any(|i| segments_match(rest, &segs[i..])),
        Some((p, rest)) => match segs.split_first() {
            Some((s, srest)) => {
                segment_match(p.as_bytes(), s.as_bytes()) && segments_match(rest, srest)
            }
            None => false,
        },
    }
}

fn segment_match(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| segment_match(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && segment_match(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && segment_match(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cfg(paths: &[&str]) -> RiskConfig {
        RiskConfig {
            enabled: true,
            paths: paths.iter().map(|s| s.to_string()).collect(),
            ..RiskConfig::default()
        }
    }

    fn task(title: &str, body: &str, labels: &[&str], files: &[&str]) -> Task {
        let mut t = Task::new(1, title);
        t.body = Some(body.into());
        t.labels = labels.iter().map(|s| s.to_string()).collect();
        t.files = files.iter().map(|s| s.to_string()).collect();
        t
    }

    #[test]
    fn keywords_match_as_stemmed_words_in_title_body_or_labels() {
        let cases: &[(&str, &str, &[&str], &[&str])] = &[
            (
                "Reset Passwords",
                "",
                &[],
                &["keyword `password` in the title"],
            ),
            (
                "Add a table",
                "Write the migrations.",
                &[],
                &["keyword `migration` in the body"],
            ),
            (
                "Add a table",
                "",
                &["security"],
                &["keyword `security` in a label"],
            ),
            ("OAuth login", "", &[], &[]),
            ("Fix the author field", "tokenizer bug", &[], &[]),
            (
                "Rotate API tokens",
                "",
                &[],
                &["keyword `token` in the title"],
            ),
        ];
        for (title, body, labels, want) in cases {
            let r = assess(&task(title, body, labels, &[]), &cfg(&[]));
            assert_eq!(r.lines(), *want, "{title} / {body}");
            assert_eq!(r.is_risky(), !want.is_empty());
        }
    }

    #[test]
    fn paths_match_the_issue_files() {
        let t = task("Tidy", "", &[], &["src/billing/charge.rs", "README.md"]);
        let r = assess(&t, &cfg(&["src/billing/**", "docs/*"]));
        assert_eq!(
            r.lines(),
            vec!["file `src/billing/charge.rs` matches `src/billing/**`"]
        );
        assert!(!assess(&t, &cfg(&["src/auth/**"])).is_risky());
    }

    #[test]
    fn the_gate_off_flags_nothing() {
        let t = task("Rotate the secret token", "", &["security"], &[]);
        assert!(!assess(&t, &RiskConfig::default()).is_risky());
    }

    #[test]
    fn globs() {
        for (p, path, want) in [
            ("src/**", "src/a/b.rs", true),
            ("src/**", "srcx/a.rs", false),
            ("**/migrations/*", "db/migrations/001.sql", true),
            ("**/migrations/*", "migrations/001.sql", true),
            ("*.sql", "db/migrations/001.sql", true),
            ("src/*.rs", "src/a/b.rs", false),
            ("src/?.rs", "src/a.rs", true),
            ("/src/a.rs", "./src/a.rs", true),
            ("", "a", false),
        ] {
            assert_eq!(glob_match(p, path), want, "{p} {path}");
        }
    }

    proptest! {
        #[test]
        fn a_path_matches_itself_and_double_star(path in "[a-z]{1,4}(/[a-z]{1,4}){0,3}") {
            prop_assert!(glob_match(&path, &path));
            prop_assert!(glob_match("**", &path));
        }

        #[test]
        fn assessment_is_deterministic_and_keyword_order_free(title in "[a-z ]{0,30}", body in "[a-z ]{0,60}") {
            let t = task(&title, &body, &[], &[]);
            let a = assess(&t, &cfg(&[]));
            let mut rev = cfg(&[]);
            rev.keywords.reverse();
            let b = assess(&t, &rev);
            prop_assert_eq!(a.is_risky(), b.is_risky());
            prop_assert_eq!(a.signals.len(), b.signals.len());
        }
    }
}
