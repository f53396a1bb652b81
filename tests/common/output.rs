//! Assertions on what a command printed.

use super::Run;
use serde_json::Value;

/// stdout is exactly one JSON document (no text before or after it).
#[track_caller]
pub fn one_json_document(r: &Run) -> Value {
    let mut it = serde_json::Deserializer::from_str(&r.stdout).into_iter::<Value>();
    let first = it
        .next()
        .unwrap_or_else(|| panic!("no JSON on stdout; stderr:\n{}", r.stderr))
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", r.stdout));
    assert!(
        it.next().is_none(),
        "more than one JSON document:\n{}",
        r.stdout
    );
    first
}

/// Exit 2, nothing on stdout, exactly one `error:` line on stderr containing every needle.
#[track_caller]
pub fn input_error(r: &Run, needles: &[&str]) {
    r.code(2);
    assert!(r.stdout.is_empty(), "stdout:\n{}", r.stdout);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "stderr:\n{}", r.stderr);
    for n in needles {
        assert!(errors[0].contains(n), "`{n}` missing in: {}", errors[0]);
    }
}

/// The git commands a `-vv` run logged (`running `git ...` in ...`), as their argument
/// strings without git's `-c` options.
pub fn git_commands(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("running `git ")?.1;
            let args = rest.split_once("` in ").map_or(rest, |(args, _)| args);
            let mut words = args.split_whitespace();
            let mut kept = Vec::new();
            while let Some(w) = words.next() {
                if w == "-c" {
                    words.next();
                } else {
                    kept.push(w);
                }
            }
            Some(kept.join(" "))
        })
        .collect()
}
