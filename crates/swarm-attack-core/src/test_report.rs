//! Reading a test run's output: pass/fail counts for the formats we know (cargo test,
//! pytest, and a plain `N passed, M failed` line), and a failure excerpt for prompts,
//! events and status comments.

use regex::Regex;
use std::sync::OnceLock;

/// Counts found in a test run's output (`None`: the format was not recognised).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TestCounts {
    pub passed: Option<u64>,
    pub failed: Option<u64>,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid static regex"))
}

/// Parses the counts. cargo test: every `test result:` line is summed. Otherwise the last
/// line that reports `N passed` and/or `N failed` (pytest's summary, or any runner that
/// prints such a line); pytest's `N error(s)` count as failures.
pub fn parse_counts(output: &str) -> TestCounts {
    static CARGO: OnceLock<Regex> = OnceLock::new();
    static PASSED: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    static ERRORS: OnceLock<Regex> = OnceLock::new();
    let cargo = re(
        &CARGO,
        r"test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed",
    );
    let mut found = false;
    let (mut p, mut f) = (0u64, 0u64);
    for c in cargo.captures_iter(output) {
        found = true;
        p += c[1].parse::<u64>().unwrap_or(0);
        f += c[2].parse::<u64>().unwrap_or(0);
    }
    if found {
        return TestCounts {
            passed: Some(p),
            failed: Some(f),
        };
    }
    let passed = re(&PASSED, r"(?i)\b(\d+) passed\b");
    let failed = re(&FAILED, r"(?i)\b(\d+) failed\b");
    let errors = re(&ERRORS, r"(?i)\b(\d+) errors?\b");
    for line in output.lines().rev() {
        let p = passed
            .captures(line)
            .map(|c| c[1].parse::<u64>().unwrap_or(0));
        let f = failed
            .captures(line)
            .map(|c| c[1].parse::<u64>().unwrap_or(0));
        if p.is_none() && f.is_none() {
            continue;
        }
        let e = errors
            .captures(line)
            .map(|c| c[1].parse::<u64>().unwrap_or(0))
            .unwrap_or(0);
        return TestCounts {
            passed: Some(p.unwrap_or(0)),
            failed: Some(f.unwrap_or(0) + e),
        };
    }
    TestCounts::default()
}

/// Whether a test run passed: exit code 0, no timeout, and no failure counted.
pub fn passed(exit_ok: bool, counts: &TestCounts) -> bool {
    exit_ok && counts.failed.unwrap_or(0) == 0
}

/// The last `max_chars` characters of `text` (cut at a line start when possible), for
/// prompts and events.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let text = text.trim_end();
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let skip = count - max_chars;
    let tail: String = text.chars().skip(skip).collect();
    match tail.find('\n') {
        Some(i) if i + 1 < tail.len() && i < tail.len() / 2 => {
            format!("[... {skip} characters cut ...]\n{}", &tail[i + 1..])
        }
        _ => format!("[... {skip} characters cut ...]\n{tail}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_results_are_summed() {
        let out = "running 2 tests\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n\
                   running 3 tests\ntest result: FAILED. 1 passed; 2 failed; 0 ignored\n";
        assert_eq!(
            parse_counts(out),
            TestCounts {
                passed: Some(3),
                failed: Some(2)
            }
        );
    }

    #[test]
    fn pytest_summary_lines() {
        let out = "....F\n=========== 1 failed, 4 passed, 1 error in 0.12s ===========\n";
        assert_eq!(
            parse_counts(out),
            TestCounts {
                passed: Some(4),
                failed: Some(2)
            }
        );
        assert_eq!(
            parse_counts("===== 5 passed in 0.01s =====").failed,
            Some(0)
        );
    }

    #[test]
    fn plain_line_and_unknown_format() {
        assert_eq!(
            parse_counts("ok\n3 passed, 0 failed\n"),
            TestCounts {
                passed: Some(3),
                failed: Some(0)
            }
        );
        assert_eq!(parse_counts("all good"), TestCounts::default());
        assert!(passed(true, &TestCounts::default()));
        assert!(!passed(false, &TestCounts::default()));
        assert!(!passed(
            true,
            &TestCounts {
                passed: Some(1),
                failed: Some(1)
            }
        ));
    }

    #[test]
    fn excerpt_keeps_the_tail() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let e = excerpt(&text, 50);
        assert!(e.ends_with("line 99"));
        assert!(e.starts_with("[..."));
        assert!(e.chars().count() < 90);
        assert_eq!(excerpt("short\n", 50), "short");
    }
}
