//! Where to talk to GitHub and as whom (docs/github.md "What an issue shows"): the token
//! (`GITHUB_TOKEN`, else `GH_TOKEN`), the API base (`GITHUB_API_URL`, else `github.api_url`, else
//! `https://api.github.com`) and the repository (`github.repo`, `GITHUB_REPOSITORY`, the `origin`
//! remote). The token never appears in Debug output, messages or events.

use crate::config::Config;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// The default API base.
pub const DEFAULT_API_URL: &str = "https://api.github.com";

/// A GitHub token. Its Debug and Display never show the value.
#[derive(Clone)]
pub struct Token {
    value: String,
    /// The variable it came from (for messages: "check GITHUB_TOKEN").
    pub source: &'static str,
}

impl Token {
    /// The token from `GITHUB_TOKEN`, else `GH_TOKEN` (empty values are ignored).
    pub fn from_env() -> Option<Token> {
        ["GITHUB_TOKEN", "GH_TOKEN"].into_iter().find_map(|var| {
            crate::secrets::get(var)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .map(|value| Token { value, source: var })
        })
    }

    /// A token with a given value (tests).
    pub fn new(value: impl Into<String>, source: &'static str) -> Token {
        Token {
            value: value.into(),
            source,
        }
    }

    /// The secret, for the Authorization header only.
    pub fn expose(&self) -> &str {
        &self.value
    }

    /// `text` with every occurrence of the token, and of every other secret
    /// ([`crate::secrets::mask`]), replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        let text = crate::secrets::mask(text);
        if self.value.len() < 4 {
            return text.into_owned();
        }
        text.replace(&self.value, "***")
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token(from {}, redacted)", self.source)
    }
}

/// Everything the GitHub client needs.
#[derive(Debug, Clone)]
pub struct Settings {
    pub token: Token,
    /// The API base without a trailing slash.
    pub api_url: String,
    /// `owner/name`, always explicit in every request path.
    pub repo: String,
    /// Writes are spaced by at least this (`github.min_write_interval_ms`).
    pub min_write_interval: Duration,
    /// The most one command waits in total on rate limits and back-off
    /// (`SWARM_ATTACK_GITHUB_MAX_WAIT_MS`, default 60 s).
    pub max_wait: Duration,
    /// The first back-off after a 5xx or a secondary limit without `retry-after`; doubles
    /// each time (`SWARM_ATTACK_GITHUB_BACKOFF_MS`, default 1 s).
    pub backoff: Duration,
    /// Attempts per request before it goes to the outbox
    /// (`SWARM_ATTACK_GITHUB_MAX_ATTEMPTS`, default 5).
    pub max_attempts: u32,
}

fn env_ms(var: &str, default: u64) -> Duration {
    Duration::from_millis(
        crate::env::var(var)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default),
    )
}

/// Why the settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The API base (from `origin`: an environment variable or a config key) is not a URL.
    #[error("the GitHub API base `{url}` from {origin} is not an http(s) URL")]
    BadApiUrl { url: String, origin: &'static str },
}

/// Resolves the settings. `Ok(Err(missing))` names what is missing (the token, the
/// repository); a malformed API URL is an input error.
pub fn resolve(
    config: &Config,
    root: &Path,
) -> Result<Result<Settings, Vec<String>>, SettingsError> {
    let api_url = crate::env::var("GITHUB_API_URL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| (v, "GITHUB_API_URL"))
        .or_else(|| {
            config
                .github
                .api_url
                .clone()
                .filter(|v| !v.trim().is_empty())
                .map(|v| (v, "github.api_url"))
        })
        .unwrap_or_else(|| (DEFAULT_API_URL.to_string(), "the default"));
    let (url, origin) = api_url;
    let url = url.trim().trim_end_matches('/').to_string();
    let ok = (url.starts_with("https://") || url.starts_with("http://"))
        && url
            .parse::<http::Uri>()
            .is_ok_and(|u| u.authority().is_some());
    if !ok {
        return Err(SettingsError::BadApiUrl { url, origin });
    }
    let token = Token::from_env();
    let repo = crate::repo_id::resolve(config, root);
    let mut missing = Vec::new();
    if token.is_none() {
        missing.push("a token (set GITHUB_TOKEN or GH_TOKEN)".to_string());
    }
    if repo.is_none() {
        missing.push(
            "the repository (set github.repo: owner/name in config.yaml, GITHUB_REPOSITORY, or an `origin` remote)"
                .to_string(),
        );
    }
    let (Some(token), Some(repo)) = (token, repo) else {
        return Ok(Err(missing));
    };
    Ok(Ok(Settings {
        token,
        api_url: url,
        repo,
        min_write_interval: Duration::from_millis(config.github.min_write_interval_ms),
        max_wait: env_ms("SWARM_ATTACK_GITHUB_MAX_WAIT_MS", 60_000),
        backoff: env_ms("SWARM_ATTACK_GITHUB_BACKOFF_MS", 1_000),
        max_attempts: crate::env::var("SWARM_ATTACK_GITHUB_MAX_ATTEMPTS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or(5),
    }))
}

/// The web host git pushes to, from the API base (`https://api.github.com` →
/// `https://github.com`; GHES `https://host/api/v3` → `https://host`).
pub fn web_base(api_url: &str) -> String {
    if let Some(rest) = api_url.strip_prefix("https://api.") {
        return format!("https://{}", rest.split('/').next().unwrap_or(rest));
    }
    api_url
        .split("/api/")
        .next()
        .unwrap_or(api_url)
        .trim_end_matches('/')
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn web_base_from_api_base() {
        assert_eq!(
            super::web_base("https://api.github.com"),
            "https://github.com"
        );
        assert_eq!(
            super::web_base("https://ghe.example.com/api/v3"),
            "https://ghe.example.com"
        );
        assert_eq!(super::web_base("http://127.0.0.1:9"), "http://127.0.0.1:9");
    }

    use super::*;

    #[test]
    fn token_is_never_shown() {
        let t = Token::new("ghp_secretvalue", "GITHUB_TOKEN");
        assert!(!format!("{t:?}").contains("secret"));
        assert_eq!(t.redact("a ghp_secretvalue b"), "a *** b");
    }
}
