//! The convergence signal of a multi-candidate run (issue 8,
//! docs/coordination.md "Many candidates, one result"): how similar two candidates' diffs are, as
//! the token Jaccard index of their normalised changed lines.
//!
//! - A diff's **changed lines** are its lines starting with `+` or `-`, except the
//!   `+++`/`---` file headers. Their count is a candidate's size ([`changed_lines`]).
//! - **Normalising** a changed line: a comment is cut (a line whose text starts with `//`,
//!   `/*`, `*`, `*/`, `<!--`, `-- `, or `#` followed by a space or nothing; the rest of a
//!   line from a `//` or ` #` that follows whitespace), then whitespace runs become one
//!   space and the ends are trimmed; a line left empty is dropped. A removed line and an
//!   added line with the same normalised text cancel each other (a change of indentation,
//!   spacing or comments only is no change).
//! - A **token** is a lowercase run of letters, digits and `_` (any length) on the lines
//!   left.
//! - The **score** is `|A ∩ B| / |A ∪ B|` of the two token sets, rounded to hundredths half
//!   away from zero with integer arithmetic; two empty sets score 1.00 (nothing differs).
//!   It is symmetric, 1.00 for identical diffs, and depends on nothing but the two diffs.

use std::collections::{BTreeMap, BTreeSet};

/// The changed lines of a unified diff (without their `+`/`-` marker).
pub fn changed_lines(diff: &str) -> Vec<&str> {
    marked_lines(diff).map(|(_, l)| l).collect()
}

/// The changed lines with their marker (`true`: added).
fn marked_lines(diff: &str) -> impl Iterator<Item = (bool, &str)> {
    diff.lines().filter_map(|l| {
        if l.starts_with('+') && !l.starts_with("+++") {
            Some((true, &l[1..]))
        } else if l.starts_with('-') && !l.starts_with("---") {
            Some((false, &l[1..]))
        } else {
            None
        }
    })
}

/// A changed line without its comment and with its whitespace normalised (may be empty).
pub fn normalise_line(line: &str) -> String {
    let t = line.trim();
    let whole_comment = ["//", "/*", "*", "<!--", "-- "]
        .iter()
        .any(|p| t.starts_with(p))
        || t == "--"
        || t == "#"
        || t.starts_with("# ")
        || t.starts_with("#\t");
    if whole_comment {
        return String::new();
    }
    // a trailing comment: `//` or ` #` after whitespace
    let mut cut = t.len();
    let bytes = t.as_bytes();
    for i in 1..bytes.len() {
        if bytes[i - 1].is_ascii_whitespace()
            && (t[i..].starts_with("//") || t[i..].starts_with("# ") || &t[i..] == "#")
        {
            cut = i;
            break;
        }
    }
    t[..cut].split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The normalised changed lines that are left once removed and added lines with the same
/// normalised text cancelled each other.
pub fn significant_lines(diff: &str) -> Vec<String> {
    let mut count: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut order = Vec::new();
    for (added, line) in marked_lines(diff) {
        let n = normalise_line(line);
        if n.is_empty() {
            continue;
        }
        let e = count.entry(n.clone()).or_default();
        if added {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
        order.push(n);
    }
    let mut out = Vec::new();
    let mut emitted: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &order {
        let (a, r) = count[n];
        let keep = a.abs_diff(r);
        let seen = emitted.entry(n.as_str()).or_default();
        if *seen < keep {
            *seen += 1;
            out.push(n.clone());
        }
    }
    out
}

/// The token set of a diff's significant changed lines.
pub fn tokens(diff: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in significant_lines(diff) {
        let mut cur = String::new();
        for c in line.chars() {
            if c.is_alphanumeric() || c == '_' {
                cur.extend(c.to_lowercase());
            } else if !cur.is_empty() {
                out.insert(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            out.insert(cur);
        }
    }
    out
}

/// The similarity of two token sets in whole hundredths (both empty: 100).
pub fn score_hundredths(ta: &BTreeSet<String>, tb: &BTreeSet<String>) -> i64 {
    let union = ta.union(tb).count() as i64;
    if union == 0 {
        return 100;
    }
    let inter = ta.intersection(tb).count() as i64;
    // round(inter / union, 2) half away from zero, in integers
    (inter * 200 + union) / (union * 2)
}

/// The convergence score of two diffs, in [0, 1], rounded to hundredths.
pub fn score(a: &str, b: &str) -> f64 {
    score_hundredths(&tokens(a), &tokens(b)) as f64 / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const A: &str =
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old line\n+fn login(user) {}\n";
    const B: &str = "--- a/y\n+++ b/y\n+fn login(user, pass) {}\n context\n";

    #[test]
    fn changed_lines_skip_headers_and_context() {
        assert_eq!(changed_lines(A), vec!["old line", "fn login(user) {}"]);
        assert_eq!(changed_lines(B), vec!["fn login(user, pass) {}"]);
    }

    #[test]
    fn score_is_the_token_jaccard_in_hundredths() {
        // A: {old, line, fn, login, user}; B: {fn, login, user, pass} → 3 / 6 = 0.50
        assert_eq!(score(A, B), 0.5);
        assert_eq!(score(A, A), 1.0);
        assert_eq!(score("", ""), 1.0);
        assert_eq!(score("+abc\n", "+xyz\n"), 0.0);
        // 1/3 → 0.33, 2/3 → 0.67 (half away from zero)
        assert_eq!(score("+a b\n", "+a c\n"), 0.33);
        assert_eq!(score("+a b c\n", "+a b\n+d\n"), 0.5);
        assert_eq!(score("+a b\n", "+a b c\n"), 0.67);
        // 1/8 = 0.125 → 0.13
        assert_eq!(score("+a b c d\n", "+a e f g h\n"), 0.13);
    }

    #[test]
    fn comments_and_whitespace_do_not_count() {
        let plain = "+fn login(user) {}\n";
        let commented = "+// log a user in, checking the password\n+fn   login(user) {}  // entry point\n+# a note\n+/* block */\n+ * more\n";
        assert_eq!(score(plain, commented), 1.0);
        // re-indenting a line is no change; the real change still counts
        let reindent = "-    let x = 1;\n+        let x = 1;\n+fn login(user) {}\n";
        assert_eq!(significant_lines(reindent), vec!["fn login(user) {}"]);
        assert_eq!(score(plain, reindent), 1.0);
        // attributes, shebangs and URLs are code, not comments
        assert_eq!(normalise_line("#[derive(Debug)]"), "#[derive(Debug)]");
        assert_eq!(normalise_line("#!/bin/sh"), "#!/bin/sh");
        assert_eq!(
            normalise_line("let u = \"http://x\"; // why"),
            "let u = \"http://x\";"
        );
        assert_eq!(normalise_line("x = 1  # python note"), "x = 1");
        assert_eq!(normalise_line("-- sql note"), "");
        // a line added twice and removed once leaves one
        assert_eq!(significant_lines("+a\n+a\n-a\n"), vec!["a"]);
    }

    fn diff_strategy() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            (
                prop_oneof![Just("+"), Just("-"), Just(" ")],
                "[a-z #/*]{0,12}",
            ),
            0..8,
        )
        .prop_map(|lines| {
            lines
                .into_iter()
                .map(|(m, t)| format!("{m}{t}\n"))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn score_is_symmetric_and_one_for_identical(a in diff_strategy(), b in diff_strategy()) {
            prop_assert_eq!(score(&a, &b), score(&b, &a));
            prop_assert_eq!(score(&a, &a), 1.0);
            let s = score(&a, &b);
            prop_assert!((0.0..=1.0).contains(&s));
        }

        #[test]
        fn line_order_does_not_matter(a in diff_strategy()) {
            let mut lines: Vec<&str> = a.lines().collect();
            lines.reverse();
            let rev: String = lines.iter().map(|l| format!("{l}\n")).collect();
            prop_assert_eq!(score(&a, &rev), 1.0);
        }
    }
}
