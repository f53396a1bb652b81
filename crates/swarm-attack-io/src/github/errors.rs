//! GitHub failures, classified, and phrased as one sentence that says which permission is
//! missing or which issue or label is wrong (docs/github.md "What an issue shows"). Messages never
//! contain the token.

use std::fmt;

/// What kind of failure a request ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// 401: the token was refused.
    Unauthorized,
    /// 403 that is not a rate limit: the token lacks a permission.
    Forbidden,
    /// 404.
    NotFound,
    /// 422 (validation failed: a label, a body, ...).
    Validation,
    /// A rate limit that did not clear within the wait budget.
    RateLimited,
    /// 5xx after the allowed attempts.
    Server,
    /// The connection failed (DNS, refused, reset, timeout).
    Transport,
    /// Not sent: it needs the four `swarm:*` labels, which could not be created first.
    Deferred,
    /// Any other status.
    Other,
}

/// A failed GitHub request.
#[derive(Debug, Clone)]
pub struct GithubError {
    pub kind: FailureKind,
    pub status: Option<u16>,
    /// GitHub's own message (or the transport error), on one line, token redacted.
    pub message: String,
    /// The first validation error code (`already_exists`, `invalid`, ...), for 422.
    pub code: Option<String>,
    /// Whether a write may have been applied although it failed (a 5xx or a broken
    /// connection after sending): a create must look before it tries again.
    pub maybe_applied: bool,
    /// `METHOD path` of the request.
    pub request: String,
}

impl GithubError {
    /// A failure the next sync can fix by trying again (it goes to the outbox).
    pub fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            FailureKind::RateLimited
                | FailureKind::Server
                | FailureKind::Transport
                | FailureKind::Deferred
        )
    }

    /// A failure that stops the whole command (the token does not work here).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self.kind,
            FailureKind::Unauthorized | FailureKind::Forbidden
        )
    }

    /// One sentence naming what failed, in which repository, and what to do.
    ///
    /// `what` names the object (e.g. "GitHub issue #42 (issue 2 of `auth`)", "label
    /// `swarm:ready`"); `write` says whether the request was a write.
    pub fn sentence(&self, repo: &str, token_var: &str, what: &str, write: bool) -> String {
        let status = self.status.map(|s| s.to_string()).unwrap_or_default();
        let detail = if self.message.is_empty() {
            status.clone()
        } else if status.is_empty() {
            self.message.clone()
        } else {
            format!("{status} {}", self.message)
        };
        match self.kind {
            FailureKind::Unauthorized => format!(
                "GitHub refused the token in {token_var} for {repo} ({detail}): check that it is valid and not expired"
            ),
            FailureKind::Forbidden if write => format!(
                "the token in {token_var} lacks `issues: write` on {repo} ({detail}), so {what} could not be changed"
            ),
            FailureKind::Forbidden => format!(
                "the token in {token_var} cannot read {what} in {repo} ({detail}): it needs `issues: read` on the repository"
            ),
            FailureKind::NotFound => format!("{what} was not found in {repo} ({detail})"),
            FailureKind::Validation => {
                let code = self
                    .code
                    .as_deref()
                    .map(|c| format!(", code {c}"))
                    .unwrap_or_default();
                format!("GitHub rejected the change to {what} in {repo} ({detail}{code})")
            }
            FailureKind::RateLimited => format!(
                "GitHub rate-limited the change to {what} in {repo} ({detail}); it is left for the next sync"
            ),
            FailureKind::Deferred => format!(
                "{what} waits until the four `swarm:*` labels exist in {repo}; it is left for the next sync"
            ),
            FailureKind::Server => format!(
                "GitHub kept failing ({detail}) on {what} in {repo}; it is left for the next sync"
            ),
            FailureKind::Transport => format!(
                "could not reach GitHub for {what} in {repo} ({detail}); it is left for the next sync"
            ),
            FailureKind::Other => format!("GitHub answered {detail} for {what} in {repo}"),
        }
    }
}

impl fmt::Display for GithubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(s) => write!(f, "{} → {s} {}", self.request, self.message),
            None => write!(f, "{} → {}", self.request, self.message),
        }
    }
}

impl std::error::Error for GithubError {}

/// Classifies an HTTP error status (not 2xx/304) that is not a rate limit.
pub fn kind_of_status(status: u16) -> FailureKind {
    match status {
        401 => FailureKind::Unauthorized,
        403 => FailureKind::Forbidden,
        404 | 410 => FailureKind::NotFound,
        422 => FailureKind::Validation,
        429 => FailureKind::RateLimited,
        500..=599 => FailureKind::Server,
        _ => FailureKind::Other,
    }
}

/// Text made safe for one line of output: whitespace collapsed, bounded length.
pub fn one_line(text: &str, max: usize) -> String {
    let s: Vec<&str> = text.split_whitespace().collect();
    let s = s.join(" ");
    if s.chars().count() > max {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(kind: FailureKind, status: u16, msg: &str) -> GithubError {
        GithubError {
            kind,
            status: Some(status),
            message: msg.into(),
            code: None,
            maybe_applied: false,
            request: "PATCH /repos/o/r/issues/1".into(),
        }
    }

    #[test]
    fn sentences_name_permission_repo_and_object() {
        let s = err(FailureKind::Unauthorized, 401, "Bad credentials").sentence(
            "o/r",
            "GITHUB_TOKEN",
            "x",
            true,
        );
        assert_eq!(
            s,
            "GitHub refused the token in GITHUB_TOKEN for o/r (401 Bad credentials): check that it is valid and not expired"
        );
        let s = err(FailureKind::Forbidden, 403, "Resource not accessible").sentence(
            "o/r",
            "GH_TOKEN",
            "GitHub issue #4",
            true,
        );
        assert!(s.contains("lacks `issues: write` on o/r"));
        let s = err(FailureKind::NotFound, 404, "Not Found").sentence(
            "o/r",
            "T",
            "GitHub issue #9",
            false,
        );
        assert_eq!(s, "GitHub issue #9 was not found in o/r (404 Not Found)");
        assert!(!s.contains('\n'));
    }
}
