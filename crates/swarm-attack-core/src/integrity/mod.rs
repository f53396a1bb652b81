//! Test integrity (docs/integrity.md): the checks that keep an attempt from passing by weakening
//! the tests instead of changing the code. Pure: the caller lists what the attempt changed
//! (with the lines it added to test files) and, for `fail_before`, how each new test file
//! ran on the start commit; this module decides.
//!
//! - **protect_tests**: a test file present at the start commit (the attempt changed or
//!   deleted it, so it was there) that the attempt deleted, renamed (a rename is a delete
//!   plus a create) or changed — unless it is the issue's `test_file` or in its `files`.
//! - **skip_markers**: an added line of a test file carries a skip/ignore/xfail marker
//!   ([`markers`]); a line the same diff removed (moved or re-indented) does not count.
//! - **require_tests** (`no_test`): the attempt created or changed no test file.
//! - **fail_before** (`vacuous_test`): every test file the attempt created or changed
//!   passes on the start commit's tree with only those files added. A file that cannot run
//!   there (exit 126/127, an import or collection error) counts as failing. Skipped for an
//!   issue with a label in `test_only_labels`.
//!
//! A test file is a path matching `verify.test_paths` ([`crate::path_glob`]).

pub mod markers;

use crate::config::VerifyConfig;
use crate::path_glob;
use serde::Serialize;

/// How the attempt changed a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

/// One path the attempt changed. `added`/`removed` are filled for test files (the caller
/// need not read other files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub path: String,
    pub kind: ChangeKind,
    /// Added lines: (line number in the new version, text).
    pub added: Vec<(u32, String)>,
    /// Removed lines.
    pub removed: Vec<String>,
}

/// The issue and agent an attempt is judged for.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub agent: &'a str,
    pub test_file: Option<&'a str>,
    pub files: &'a [String],
    pub labels: &'a [String],
}

/// The kind of a failed check (`integrity_failed.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    DeletedTest,
    ChangedTest,
    VacuousTest,
    SkipMarker,
    NoTest,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::DeletedTest => "deleted_test",
            Kind::ChangedTest => "changed_test",
            Kind::VacuousTest => "vacuous_test",
            Kind::SkipMarker => "skip_marker",
            Kind::NoTest => "no_test",
        }
    }
}

/// One failing kind: the paths, a detail, the attempt's reason sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub kind: Kind,
    pub paths: Vec<String>,
    pub detail: String,
    pub reason: String,
}

/// The checks, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    ProtectTests,
    SkipMarkers,
    RequireTests,
    FailBefore,
}

/// One check's result (a line of `integrity.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    pub check: Check,
    pub passed: bool,
    /// Not run: switched off, not applicable, or an earlier check already failed the
    /// attempt (`passed` is then true).
    pub skipped: bool,
    pub detail: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
}

impl CheckResult {
    fn ok(check: Check, detail: String) -> Self {
        CheckResult {
            check,
            passed: true,
            skipped: false,
            detail,
            failures: Vec::new(),
        }
    }

    /// A check that did not run, and why.
    pub fn skipped(check: Check, why: &str) -> Self {
        CheckResult {
            check,
            passed: true,
            skipped: true,
            detail: why.to_string(),
            failures: Vec::new(),
        }
    }

    fn failed(check: Check, failures: Vec<Failure>) -> Self {
        let detail = failures
            .iter()
            .map(|f| f.detail.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        CheckResult {
            check,
            passed: false,
            skipped: false,
            detail,
            failures,
        }
    }
}

/// Whether `path` is a test file.
pub fn is_test_file(cfg: &VerifyConfig, path: &str) -> bool {
    path_glob::matches_any(&cfg.test_paths, path)
}

fn exempt(subject: &Subject<'_>, path: &str) -> bool {
    subject.test_file == Some(path) || subject.files.iter().any(|f| f == path)
}

/// `a`, `a, b`: paths for a sentence.
fn list(paths: &[String]) -> String {
    paths.join(", ")
}

/// **protect_tests**: pre-existing test files the attempt deleted or changed.
pub fn protect_tests(
    cfg: &VerifyConfig,
    subject: &Subject<'_>,
    changes: &[Changed],
) -> CheckResult {
    if !cfg.protect_tests {
        return CheckResult::skipped(Check::ProtectTests, "off (verify.protect_tests: false)");
    }
    let touched = |kind: ChangeKind| -> Vec<String> {
        changes
            .iter()
            .filter(|c| c.kind == kind && is_test_file(cfg, &c.path) && !exempt(subject, &c.path))
            .map(|c| c.path.clone())
            .collect()
    };
    let mut failures = Vec::new();
    for (kind, k, verb) in [
        (ChangeKind::Deleted, Kind::DeletedTest, "deleted"),
        (ChangeKind::Modified, Kind::ChangedTest, "changed"),
    ] {
        let paths = touched(kind);
        if paths.is_empty() {
            continue;
        }
        let what = if paths.len() == 1 {
            "a test that existed before this issue"
        } else {
            "tests that existed before this issue"
        };
        failures.push(Failure {
            kind: k,
            detail: format!("{verb} {}", list(&paths)),
            reason: format!(
                "test integrity: {} {verb} {}, {what}",
                subject.agent,
                list(&paths)
            ),
            paths,
        });
    }
    if failures.is_empty() {
        let allowed: Vec<String> = changes
            .iter()
            .filter(|c| c.kind != ChangeKind::Created && is_test_file(cfg, &c.path))
            .map(|c| c.path.clone())
            .collect();
        let detail = if allowed.is_empty() {
            "no test file that existed before was deleted or changed".to_string()
        } else {
            format!(
                "changed {} (the issue's own test_file or files)",
                list(&allowed)
            )
        };
        return CheckResult::ok(Check::ProtectTests, detail);
    }
    CheckResult::failed(Check::ProtectTests, failures)
}

/// **skip_markers**: added marker lines in test files (created or changed).
pub fn skip_markers(cfg: &VerifyConfig, subject: &Subject<'_>, changes: &[Changed]) -> CheckResult {
    if !cfg.skip_markers {
        return CheckResult::skipped(Check::SkipMarkers, "off (verify.skip_markers: false)");
    }
    let mut hits: Vec<(String, u32, &'static str)> = Vec::new();
    for c in changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted && is_test_file(cfg, &c.path))
    {
        let removed: std::collections::BTreeSet<&str> =
            c.removed.iter().map(|l| l.trim()).collect();
        for (line, text) in &c.added {
            if removed.contains(text.trim()) {
                continue;
            }
            if let Some(m) = markers::find(text) {
                hits.push((c.path.clone(), *line, m));
            }
        }
    }
    let Some((path, line, marker)) = hits.first().cloned() else {
        return CheckResult::ok(
            Check::SkipMarkers,
            "no skip, ignore or xfail marker added".into(),
        );
    };
    let mut paths: Vec<String> = hits.iter().map(|h| h.0.clone()).collect();
    paths.dedup();
    let detail = hits
        .iter()
        .map(|(p, l, m)| format!("`{m}` added at {p}:{l}"))
        .collect::<Vec<_>>()
        .join(", ");
    let more = match hits.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    CheckResult::failed(
        Check::SkipMarkers,
        vec![Failure {
            kind: Kind::SkipMarker,
            paths,
            detail,
            reason: format!(
                "test integrity: {} added a skip marker (`{marker}`) at {path}:{line}{more}",
                subject.agent
            ),
        }],
    )
}

/// The test files the attempt created or changed (what `fail_before` runs), in path order.
pub fn written_tests(cfg: &VerifyConfig, changes: &[Changed]) -> Vec<String> {
    let mut v: Vec<String> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted && is_test_file(cfg, &c.path))
        .map(|c| c.path.clone())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// **require_tests**: the attempt must create or change a test file.
pub fn require_tests(
    cfg: &VerifyConfig,
    subject: &Subject<'_>,
    changes: &[Changed],
) -> CheckResult {
    if !cfg.require_tests {
        return CheckResult::skipped(Check::RequireTests, "off (verify.require_tests: false)");
    }
    let written = written_tests(cfg, changes);
    if !written.is_empty() {
        return CheckResult::ok(
            Check::RequireTests,
            format!("test files added or changed: {}", list(&written)),
        );
    }
    CheckResult::failed(
        Check::RequireTests,
        vec![Failure {
            kind: Kind::NoTest,
            paths: Vec::new(),
            detail: "no test file (verify.test_paths) was added or changed".into(),
            reason: format!(
                "test integrity: {} added or changed no test file (verify.require_tests)",
                subject.agent
            ),
        }],
    )
}

/// The three checks that need no process, in order.
pub fn static_checks(
    cfg: &VerifyConfig,
    subject: &Subject<'_>,
    changes: &[Changed],
) -> Vec<CheckResult> {
    vec![
        protect_tests(cfg, subject, changes),
        skip_markers(cfg, subject, changes),
        require_tests(cfg, subject, changes),
    ]
}

/// What `fail_before` does for this attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailBeforePlan {
    /// Not run, and why.
    Skip(String),
    /// Run each of these test files on the start commit.
    Run(Vec<String>),
}

/// Whether and on what `fail_before` runs.
pub fn fail_before_plan(
    cfg: &VerifyConfig,
    subject: &Subject<'_>,
    changes: &[Changed],
) -> FailBeforePlan {
    if !cfg.fail_before {
        return FailBeforePlan::Skip("off (verify.fail_before: false)".into());
    }
    if let Some(l) = subject.labels.iter().find(|l| {
        cfg.test_only_labels
            .iter()
            .any(|t| t.eq_ignore_ascii_case(l.as_str()))
    }) {
        return FailBeforePlan::Skip(format!(
            "skipped: the issue has the label `{l}` (verify.test_only_labels)"
        ));
    }
    let written = written_tests(cfg, changes);
    if written.is_empty() {
        return FailBeforePlan::Skip("no test file was added or changed".into());
    }
    FailBeforePlan::Run(written)
}

/// How one new test file ran on the start commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseRun {
    /// It passed without the attempt's other changes.
    Passed,
    Failed,
    /// It could not run there (counts as failing).
    CannotRun,
}

impl BaseRun {
    fn words(self) -> &'static str {
        match self {
            BaseRun::Passed => "passes",
            BaseRun::Failed => "fails",
            BaseRun::CannotRun => "cannot run",
        }
    }
}

/// Output lines that say a test runner could not load or collect the tests.
const CANNOT_RUN: &[&str] = &[
    "ModuleNotFoundError",
    "ImportError",
    "error collecting",
    "errors during collection",
    "Cannot find module",
    "SyntaxError",
    "could not compile",
    "cannot find package",
    "No such file or directory",
    "command not found",
];

/// Classifies a run of one test file on the start commit: exit 126/127, or a failed run
/// whose output shows an import / collection error, is [`BaseRun::CannotRun`] (which counts
/// as failing, like [`BaseRun::Failed`]). A run that passed is [`BaseRun::Passed`] whatever
/// its output says, so a test cannot escape the check by printing such a message.
pub fn classify_base_run(passed: bool, exit_code: Option<i32>, output: &str) -> BaseRun {
    if matches!(exit_code, Some(126) | Some(127)) {
        return BaseRun::CannotRun;
    }
    if passed {
        return BaseRun::Passed;
    }
    if CANNOT_RUN.iter().any(|m| output.contains(m)) {
        BaseRun::CannotRun
    } else {
        BaseRun::Failed
    }
}

/// The message of a vacuous test (docs/integrity.md, exact).
pub const VACUOUS_REASON: &str =
    "test integrity: the new tests pass without the change, so they test nothing new";

/// **fail_before**'s verdict from each file's run on the start commit.
pub fn fail_before_result(runs: &[(String, BaseRun)]) -> CheckResult {
    let detail = runs
        .iter()
        .map(|(p, r)| format!("{p} {} without the change", r.words()))
        .collect::<Vec<_>>()
        .join("; ");
    if runs.is_empty() {
        return CheckResult::skipped(Check::FailBefore, "no test file was added or changed");
    }
    if runs.iter().all(|(_, r)| *r == BaseRun::Passed) {
        return CheckResult::failed(
            Check::FailBefore,
            vec![Failure {
                kind: Kind::VacuousTest,
                paths: runs.iter().map(|(p, _)| p.clone()).collect(),
                detail,
                reason: VACUOUS_REASON.to_string(),
            }],
        );
    }
    CheckResult::ok(Check::FailBefore, detail)
}

/// The files `tests_written` reports: the test files the attempt created or changed that
/// passed `fail_before` (failed or could not run on the start commit) — all of them when
/// `fail_before` did not run — and the issue's `test_file` when it lies outside
/// `test_paths` (not judged).
pub fn tests_written(
    cfg: &VerifyConfig,
    subject: &Subject<'_>,
    changes: &[Changed],
    runs: Option<&[(String, BaseRun)]>,
) -> Vec<String> {
    let mut v: Vec<String> = written_tests(cfg, changes)
        .into_iter()
        .filter(|p| match runs {
            Some(runs) => runs.iter().any(|(q, r)| q == p && *r != BaseRun::Passed),
            None => true,
        })
        .collect();
    if let Some(tf) = subject.test_file
        && !is_test_file(cfg, tf)
        && changes
            .iter()
            .any(|c| c.path == tf && c.kind != ChangeKind::Deleted)
    {
        v.push(tf.to_string());
    }
    v
}

/// All checks of one attempt: `integrity.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub passed: bool,
    pub checks: Vec<CheckResult>,
    /// The time `fail_before` took (its test runs and their worktree), when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_before_ms: Option<u64>,
}

impl Report {
    pub fn new(checks: Vec<CheckResult>, fail_before_ms: Option<u64>) -> Report {
        Report {
            passed: checks.iter().all(|c| c.passed),
            checks,
            fail_before_ms,
        }
    }

    /// The failing kinds, in check order.
    pub fn failures(&self) -> Vec<&Failure> {
        self.checks.iter().flat_map(|c| c.failures.iter()).collect()
    }

    /// The attempt's reason: each failing kind's sentence, joined by `; `.
    pub fn reason(&self) -> String {
        self.failures()
            .iter()
            .map(|f| f.reason.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// What the next attempt is told to do about it.
    pub fn feedback(&self) -> String {
        let mut lines: Vec<String> = Vec::new();
        for f in self.failures() {
            let line = match f.kind {
                Kind::DeletedTest | Kind::ChangedTest => format!(
                    "{} must stay exactly as it was before this issue: restore it; change the code, not the test.",
                    list(&f.paths)
                ),
                Kind::VacuousTest => "The tests you added or changed also pass on the code as it was before your change, so they check nothing new: write a test that fails without your change and passes with it.".to_string(),
                Kind::SkipMarker => format!(
                    "Remove the skip/ignore/xfail marker you added ({}): make the test pass by changing the code, not the test.",
                    f.detail
                ),
                Kind::NoTest => "Add or change a test file (a path matching verify.test_paths) that checks this issue.".to_string(),
            };
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests;
