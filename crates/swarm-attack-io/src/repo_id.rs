//! Which GitHub repository this is (`owner/name`): `github.repo`, else `GITHUB_REPOSITORY`,
//! else the `origin` remote's URL.

use crate::config::Config;
use std::path::Path;

/// Resolves `owner/name`, or `None` when nothing names a GitHub repository.
pub fn resolve(config: &Config, root: &Path) -> Option<String> {
    if let Some(r) = config.github.repo.as_deref().filter(|r| valid(r)) {
        return Some(r.to_string());
    }
    if let Ok(r) = crate::env::var("GITHUB_REPOSITORY")
        && valid(&r)
    {
        return Some(r);
    }
    parse_remote_url(&crate::git::origin_url(root)?)
}

fn valid(r: &str) -> bool {
    let mut parts = r.split('/');
    matches!((parts.next(), parts.next(), parts.next()), (Some(o), Some(n), None) if !o.is_empty() && !n.is_empty())
}

/// `owner/name` from a remote URL (https, ssh, scp-like), for any host.
pub fn parse_remote_url(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/');
    let path = if let Some(rest) = url.split_once("://").map(|(_, r)| r) {
        rest.split_once('/').map(|(_, p)| p)?
    } else if let Some((_, p)) = url.split_once(':') {
        p
    } else {
        return None;
    };
    let path = path.trim_end_matches(".git");
    let mut parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if parts.len() < 2 {
        return None;
    }
    let name = parts.pop()?;
    let owner = parts.pop()?;
    Some(format!("{owner}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::parse_remote_url as p;

    #[test]
    fn remote_urls() {
        assert_eq!(p("git@github.com:o/r.git").as_deref(), Some("o/r"));
        assert_eq!(p("https://github.com/o/r").as_deref(), Some("o/r"));
        assert_eq!(p("https://github.com/o/r.git/").as_deref(), Some("o/r"));
        assert_eq!(p("ssh://git@github.com/o/r.git").as_deref(), Some("o/r"));
        assert_eq!(p("/local/path"), None);
    }
}
