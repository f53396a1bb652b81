//! The class and kind of a failed attempt
//! (docs/run.md "After a failure: classes, analysis, fallback"), decided by code from what the run
//! saw — the agent's report and exit, verification, the integrity checks, the review and the
//! landing. The model is never asked about a 429.
//!
//! | class | kinds |
//! |---|---|
//! | `setup` | `auth`, `not_found`, `permission_denied`, `read_only` |
//! | `infra` | `rate_limit`, `timeout`, `crashed`, `max_turns`, `max_budget`, `overloaded` |
//! | `no_change` | `no_change` |
//! | `integrity` | `deleted_test`, `changed_test`, `vacuous_test`, `skip_marker`, `no_test` |
//! | `conflict` | `replay_conflict` |
//! | `tests` | `tests_failed`, `commit_refused` |
//! | `review` | `blocking_findings` |

use crate::agent_report::ErrorKind;

/// The class of a failure: what happens next is decided by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Setup,
    Infra,
    NoChange,
    Integrity,
    Conflict,
    Tests,
    Review,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Setup => "setup",
            Class::Infra => "infra",
            Class::NoChange => "no_change",
            Class::Integrity => "integrity",
            Class::Conflict => "conflict",
            Class::Tests => "tests",
            Class::Review => "review",
        }
    }

    /// `tests` and `review` failures are analysed when an analyst is configured.
    pub fn is_analysed(self) -> bool {
        matches!(self, Class::Tests | Class::Review)
    }
}

/// What the run knows about a failed attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts {
    /// The agent report's error kind (or the spawn error's).
    pub error_kind: Option<ErrorKind>,
    /// The model API said it was overloaded (HTTP 529 / 503, `overloaded`), not rate-limited.
    pub overloaded: bool,
    /// The agent was stopped at its timeout.
    pub timed_out: bool,
    /// The agent process failed: it could not start, exited non-zero, was killed, or its
    /// output reported an error.
    pub agent_failed: bool,
    /// The agent ended normally but changed no file.
    pub no_change: bool,
    /// The verified change could not be committed (a commit hook refused it).
    pub commit_refused: bool,
    /// The verified change conflicts with work that landed meanwhile.
    pub conflict: bool,
}

/// A class and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classified {
    pub class: Class,
    pub kind: &'static str,
}

const fn c(class: Class, kind: &'static str) -> Classified {
    Classified { class, kind }
}

/// The start of an integrity failure's reason (docs/integrity.md).
pub const INTEGRITY_PREFIX: &str = "test integrity:";
/// The start of a failing review's reason (docs/review.md).
pub const REVIEW_PREFIX: &str = "review:";

/// Classifies a failed attempt from its facts and its one-sentence reason.
///
/// Precedence: an integrity or review reason, a landing conflict, a rate limit, a setup
/// cause, a timeout, a turn or budget limit, any other agent failure, no change, else the
/// tests. `permission_denied` is a setup cause only when the agent failed or changed
/// nothing (an agent that was refused one command but changed files and failed the tests is
/// a `tests` failure, its cause in the reason).
pub fn classify(facts: &Facts, reason: &str) -> Classified {
    let r = reason.trim_start();
    if r.starts_with(INTEGRITY_PREFIX) {
        return c(Class::Integrity, integrity_kind(r));
    }
    if r.starts_with(REVIEW_PREFIX) {
        return c(Class::Review, "blocking_findings");
    }
    if facts.conflict {
        return c(Class::Conflict, "replay_conflict");
    }
    let ended_badly = facts.agent_failed || facts.no_change;
    match facts.error_kind {
        Some(ErrorKind::RateLimit) if facts.overloaded => return c(Class::Infra, "overloaded"),
        Some(ErrorKind::RateLimit) => return c(Class::Infra, "rate_limit"),
        Some(ErrorKind::Auth) => return c(Class::Setup, "auth"),
        Some(ErrorKind::NotFound) => return c(Class::Setup, "not_found"),
        Some(ErrorKind::ReadOnly) => return c(Class::Setup, "read_only"),
        Some(ErrorKind::PermissionDenied) if ended_badly => {
            return c(Class::Setup, "permission_denied");
        }
        _ => {}
    }
    if facts.timed_out || facts.error_kind == Some(ErrorKind::Timeout) {
        return c(Class::Infra, "timeout");
    }
    match facts.error_kind {
        Some(ErrorKind::MaxTurns) => return c(Class::Infra, "max_turns"),
        Some(ErrorKind::MaxBudget) => return c(Class::Infra, "max_budget"),
        Some(ErrorKind::Crashed) => return c(Class::Infra, "crashed"),
        _ => {}
    }
    if facts.agent_failed {
        return c(Class::Infra, "crashed");
    }
    if facts.no_change {
        return c(Class::NoChange, "no_change");
    }
    if facts.commit_refused {
        return c(Class::Tests, "commit_refused");
    }
    c(Class::Tests, "tests_failed")
}

/// The integrity kind (docs/integrity.md) named by an integrity reason (`deleted`,
/// `changed`/`renamed`, a vacuous test, a skip marker, no test).
fn integrity_kind(reason: &str) -> &'static str {
    let r = reason.to_lowercase();
    let has = |w: &str| r.contains(w);
    if has(" deleted ") {
        "deleted_test"
    } else if has(" changed ") || has(" renamed ") {
        "changed_test"
    } else if has("pass without") || has("test nothing new") || has("vacuous") {
        "vacuous_test"
    } else if has("skip") || has("xfail") || has("ignore") || has("marker") {
        "skip_marker"
    } else {
        "no_test"
    }
}

/// Whether an error message says the model API was overloaded rather than rate-limited.
pub fn says_overloaded(message: &str) -> bool {
    let t = message.to_lowercase();
    t.contains("overloaded") || t.contains("529") || t.contains("503")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn facts() -> Facts {
        Facts::default()
    }

    #[test]
    fn the_table() {
        let agent = |k: ErrorKind| Facts {
            error_kind: Some(k),
            agent_failed: true,
            ..facts()
        };
        let cases: Vec<(Facts, &str, Class, &str)> = vec![
            (agent(ErrorKind::Auth), "x", Class::Setup, "auth"),
            (agent(ErrorKind::NotFound), "x", Class::Setup, "not_found"),
            (agent(ErrorKind::ReadOnly), "x", Class::Setup, "read_only"),
            (
                agent(ErrorKind::PermissionDenied),
                "x",
                Class::Setup,
                "permission_denied",
            ),
            (
                Facts {
                    error_kind: Some(ErrorKind::PermissionDenied),
                    no_change: true,
                    ..facts()
                },
                "x",
                Class::Setup,
                "permission_denied",
            ),
            // refused one command, changed files, tests failed: the tests' failure
            (
                Facts {
                    error_kind: Some(ErrorKind::PermissionDenied),
                    ..facts()
                },
                "tests failed",
                Class::Tests,
                "tests_failed",
            ),
            (agent(ErrorKind::RateLimit), "x", Class::Infra, "rate_limit"),
            (
                Facts {
                    overloaded: true,
                    ..agent(ErrorKind::RateLimit)
                },
                "x",
                Class::Infra,
                "overloaded",
            ),
            (
                Facts {
                    timed_out: true,
                    agent_failed: true,
                    ..facts()
                },
                "x",
                Class::Infra,
                "timeout",
            ),
            (agent(ErrorKind::Timeout), "x", Class::Infra, "timeout"),
            (agent(ErrorKind::MaxTurns), "x", Class::Infra, "max_turns"),
            (agent(ErrorKind::MaxBudget), "x", Class::Infra, "max_budget"),
            (agent(ErrorKind::Crashed), "x", Class::Infra, "crashed"),
            (
                Facts {
                    agent_failed: true,
                    ..facts()
                },
                "agent exited with code 3",
                Class::Infra,
                "crashed",
            ),
            (
                Facts {
                    no_change: true,
                    ..facts()
                },
                "changed no file",
                Class::NoChange,
                "no_change",
            ),
            (
                facts(),
                "test integrity: fake deleted tests/a.sh, a test that existed before this issue",
                Class::Integrity,
                "deleted_test",
            ),
            (
                facts(),
                "test integrity: fake changed tests/a.sh, a test that existed before this issue",
                Class::Integrity,
                "changed_test",
            ),
            (
                facts(),
                "test integrity: the new tests pass without the change, so they test nothing new",
                Class::Integrity,
                "vacuous_test",
            ),
            (
                facts(),
                "test integrity: fake added a skip marker in tests/a.py",
                Class::Integrity,
                "skip_marker",
            ),
            (
                facts(),
                "test integrity: the attempt adds or changes no test file",
                Class::Integrity,
                "no_test",
            ),
            (
                Facts {
                    conflict: true,
                    ..facts()
                },
                "the change conflicts",
                Class::Conflict,
                "replay_conflict",
            ),
            (
                facts(),
                "tests failed (`sh run.sh` exited with code 1)",
                Class::Tests,
                "tests_failed",
            ),
            (
                Facts {
                    commit_refused: true,
                    ..facts()
                },
                "could not be committed",
                Class::Tests,
                "commit_refused",
            ),
            (
                facts(),
                "review: 1 blocking finding(s): SQL injection (src/db.rs:4)",
                Class::Review,
                "blocking_findings",
            ),
        ];
        for (f, reason, class, kind) in cases {
            assert_eq!(
                classify(&f, reason),
                Classified { class, kind },
                "{f:?} {reason}"
            );
        }
    }

    #[test]
    fn only_tests_and_review_are_analysed() {
        let analysed: Vec<&str> = [
            Class::Setup,
            Class::Infra,
            Class::NoChange,
            Class::Integrity,
            Class::Conflict,
            Class::Tests,
            Class::Review,
        ]
        .into_iter()
        .filter(|c| c.is_analysed())
        .map(Class::as_str)
        .collect();
        assert_eq!(analysed, ["tests", "review"]);
        assert!(says_overloaded("API Error: 529 Overloaded"));
        assert!(!says_overloaded("rate limited, retry after 2 s"));
    }

    proptest! {
        /// A rate limit is never a setup problem and never asked about, whatever else is true.
        #[test]
        fn a_rate_limit_is_always_infra(timed_out: bool, agent_failed: bool, no_change: bool, overloaded: bool) {
            let f = Facts { error_kind: Some(ErrorKind::RateLimit), timed_out, agent_failed, no_change, overloaded, ..Facts::default() };
            let got = classify(&f, "agent was rate-limited");
            prop_assert_eq!(got.class, Class::Infra);
            prop_assert!(!got.class.is_analysed());
        }

        /// Deterministic, and an integrity reason wins over everything.
        #[test]
        fn integrity_reasons_win(timed_out: bool, agent_failed: bool, no_change: bool, conflict: bool, tail in "[a-z ]{0,30}") {
            let f = Facts { timed_out, agent_failed, no_change, conflict, ..Facts::default() };
            let reason = format!("test integrity: {tail}");
            prop_assert_eq!(classify(&f, &reason), classify(&f, &reason));
            prop_assert_eq!(classify(&f, &reason).class, Class::Integrity);
        }
    }
}
