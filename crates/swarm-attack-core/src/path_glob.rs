//! Gitignore-style globs on repository paths (`verify.test_paths`, docs/integrity.md).
//!
//! A path is `/`-separated and relative to the repository root. The rules are git's:
//!
//! - `*` matches any run of characters except `/`, `?` one character except `/`, `[...]`
//!   one character of a class (`[a-z]`, negated with `[!...]` or `[^...]`).
//! - `**` as a whole segment matches any number of segments: `**/x` anywhere, `a/**/x`
//!   with zero or more folders between, `a/**` everything inside `a` (not `a` itself).
//! - A pattern with no `/` (other than a trailing one) matches a name at any depth
//!   (`*.py`, `conftest.py`); a pattern with a `/` is anchored at the root (a leading `/`
//!   only says so).
//! - A trailing `/` matches folders only.
//! - A pattern that matches a folder matches everything inside it.
//! - In a list, `!pattern` excludes what earlier patterns matched; the last pattern that
//!   matches decides ([`matches_any`]).

/// Whether `path` matches the gitignore-style `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let (pat, dir_only) = match pattern.strip_suffix('/') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    if pat.is_empty() {
        return false;
    }
    let anchored = pat.contains('/');
    let pat = pat.strip_prefix('/').unwrap_or(pat);
    let mut segs: Vec<&str> = pat.split('/').filter(|s| !s.is_empty()).collect();
    if !anchored {
        segs.insert(0, "**");
    }
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let n = parts.len();
    // the whole path (a file), or one of its folders (everything inside a matched folder)
    let last = if dir_only { n.saturating_sub(1) } else { n };
    (1..=last).any(|k| match_segments(&segs, &parts[..k]))
}

/// Whether `path` matches the list: the last pattern that matches decides (`!p` excludes).
pub fn matches_any<S: AsRef<str>>(patterns: &[S], path: &str) -> bool {
    let mut hit = false;
    for p in patterns {
        let p = p.as_ref();
        match p.strip_prefix('!') {
            Some(neg) => {
                if hit && matches(neg, path) {
                    hit = false;
                }
            }
            None => {
                if !hit && matches(p, path) {
                    hit = true;
                }
            }
        }
    }
    hit
}

/// Whether a pattern is well formed (a closed `[...]` class, not empty); the problem when
/// not.
pub fn check(pattern: &str) -> Result<(), String> {
    let p = pattern.strip_prefix('!').unwrap_or(pattern);
    if p.trim().is_empty() || p == "/" {
        return Err("is empty".into());
    }
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' {
            match class_end(&chars, i) {
                Some(end) => i = end,
                None => return Err("has a `[` without its closing `]`".into()),
            }
        }
        i += 1;
    }
    Ok(())
}

fn match_segments(pat: &[&str], parts: &[&str]) -> bool {
    match pat.split_first() {
        None => parts.is_empty(),
        Some((&"**", rest)) => {
            if rest.is_empty() {
                // a trailing `**`: one or more segments
                return !parts.is_empty();
            }
            (0..=parts.len()).any(|skip| match_segments(rest, &parts[skip..]))
        }
        Some((seg, rest)) => match parts.split_first() {
            Some((part, more)) => match_name(seg, part) && match_segments(rest, more),
            None => false,
        },
    }
}

/// One segment against one name: `*`, `?`, `[...]`, and literal characters.
fn match_name(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    let (mut pi, mut si) = (0usize, 0usize);
    // the last `*` seen and the name position it was tried at (classic backtracking)
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '[' => {
                    if let Some(end) = class_end(&p, pi)
                        && class_matches(&p[pi + 1..end], s[si])
                    {
                        pi = end + 1;
                        si += 1;
                        continue;
                    }
                    if class_end(&p, pi).is_none() && s[si] == '[' {
                        pi += 1;
                        si += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                c if c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// The index of the `]` closing the class opened at `open`.
fn class_end(p: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if i < p.len() && (p[i] == '!' || p[i] == '^') {
        i += 1;
    }
    // a `]` right after the opening is a literal
    if i < p.len() && p[i] == ']' {
        i += 1;
    }
    while i < p.len() {
        if p[i] == ']' {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negated, body) = match class.first() {
        Some('!') | Some('^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut hit = false;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            if body[i] <= c && c <= body[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if body[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    hit != negated
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn table() {
        let cases: &[(&str, &str, bool)] = &[
            ("tests/**", "tests/a.rs", true),
            ("tests/**", "tests/deep/er/a.rs", true),
            ("tests/**", "crates/x/tests/a.rs", false),
            ("tests/**", "tests", false),
            ("**/tests/**", "crates/x/tests/a.rs", true),
            ("**/tests/**", "tests/a.rs", true),
            ("**/test_*.*", "test_a.py", true),
            ("**/test_*.*", "pkg/sub/test_a.py", true),
            ("**/test_*.*", "pkg/sub/test_a", false),
            ("**/test_*.*", "pkg/mytest_a.py", false),
            ("**/*_test.*", "pkg/auth_test.go", true),
            ("**/*.test.*", "web/login.test.ts", true),
            ("**/*_spec.*", "spec_helper.rb", false),
            ("**/*_spec.*", "lib/user_spec.rb", true),
            ("src/test/**", "src/test/java/a/FooTest.java", true),
            ("src/test/**", "src/main/java/a/Foo.java", false),
            ("*.py", "a/b/c.py", true),
            ("conftest.py", "pkg/conftest.py", true),
            ("/conftest.py", "pkg/conftest.py", false),
            ("/conftest.py", "conftest.py", true),
            ("fixtures/", "tests/fixtures/a.json", true),
            ("fixtures/", "fixtures", false),
            ("a/**/b.txt", "a/b.txt", true),
            ("a/**/b.txt", "a/x/y/b.txt", true),
            ("t?st/*.sh", "test/a.sh", true),
            ("t?st/*.sh", "test/a/b.sh", false),
            ("[st]rc/*.rs", "src/a.rs", true),
            ("[!s]rc/*.rs", "src/a.rs", false),
            ("docs", "docs/a/b.md", true),
            ("", "a", false),
        ];
        for (p, path, want) in cases {
            assert_eq!(matches(p, path), *want, "{p} vs {path}");
        }
    }

    #[test]
    fn negation_last_match_wins() {
        let pats = ["tests/**", "!tests/fixtures/**"];
        assert!(matches_any(&pats, "tests/a.rs"));
        assert!(!matches_any(&pats, "tests/fixtures/data.txt"));
        let again = ["tests/**", "!tests/fixtures/**", "tests/fixtures/keep.rs"];
        assert!(matches_any(&again, "tests/fixtures/keep.rs"));
    }

    #[test]
    fn checks_patterns() {
        assert!(check("tests/**").is_ok());
        assert!(check("[ab").is_err());
        assert!(check("").is_err());
        assert!(check("!").is_err());
    }

    proptest! {
        /// A literal path (no wildcard characters) matches itself, anchored or not, and
        /// `**` matches every path.
        #[test]
        fn literal_paths_match_themselves(parts in proptest::collection::vec("[a-z0-9_.]{1,6}", 1..5)) {
            let path = parts.join("/");
            prop_assert!(matches(&path, &path));
            let anchored = format!("/{path}");
            let anywhere = format!("**/{}", parts[parts.len() - 1]);
            prop_assert!(matches(&anchored, &path));
            prop_assert!(matches("**", &path));
            prop_assert!(matches(&anywhere, &path));
        }

        /// A match of a folder is a match of everything inside it.
        #[test]
        fn folder_matches_extend_inside(parts in proptest::collection::vec("[a-z]{1,5}", 2..5), pat in "[a-z*?]{1,4}") {
            let path = parts.join("/");
            let folder = parts[..parts.len() - 1].join("/");
            if matches(&pat, &folder) {
                prop_assert!(matches(&pat, &path));
            }
        }
    }
}
