//! The convergence signal of a two-agent run (issue 8): how similar two candidates' diffs
//! are, as the token Jaccard index of their changed lines, and the deterministic pick
//! between two passing PARALLEL candidates.
//!
//! - A diff's **changed lines** are its lines starting with `+` or `-`, except the
//!   `+++`/`---` file headers.
//! - A **token** is a lowercase run of letters, digits and `_` (any length) on those lines.
//! - The **score** is `|A ∩ B| / |A ∪ B|` of the two token sets, rounded to hundredths half
//!   away from zero with integer arithmetic; two empty sets score 1.00 (nothing differs).
//! - The **pick** (join `all`, both passed): the smaller diff (fewer changed lines) wins;
//!   equal sizes → the primary.

use std::collections::BTreeSet;

/// The changed lines of a unified diff (without their `+`/`-` marker).
pub fn changed_lines(diff: &str) -> Vec<&str> {
    diff.lines()
        .filter(|l| {
            (l.starts_with('+') && !l.starts_with("+++"))
                || (l.starts_with('-') && !l.starts_with("---"))
        })
        .map(|l| &l[1..])
        .collect()
}

/// The token set of a diff's changed lines.
pub fn tokens(diff: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in changed_lines(diff) {
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

/// The convergence score of two diffs, in [0, 1], rounded to hundredths.
pub fn score(a: &str, b: &str) -> f64 {
    let (ta, tb) = (tokens(a), tokens(b));
    let union = ta.union(&tb).count() as u64;
    if union == 0 {
        return 1.0;
    }
    let inter = ta.intersection(&tb).count() as u64;
    // round(inter / union, 2) half away from zero, in integers
    let hundredths = (inter * 200 + union) / (union * 2);
    hundredths as f64 / 100.0
}

/// Which of two passing candidates lands under join `all`: `0` (the primary) or `1`.
/// Fewer changed lines wins; a tie goes to the primary.
pub fn pick(primary_changed_lines: usize, runner_up_changed_lines: usize) -> usize {
    if runner_up_changed_lines < primary_changed_lines {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn pick_prefers_the_smaller_diff_then_the_primary() {
        assert_eq!(pick(10, 3), 1);
        assert_eq!(pick(3, 10), 0);
        assert_eq!(pick(5, 5), 0);
    }
}
