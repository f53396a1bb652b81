//! Value rules for strings, and the checks that involve more than one key.

use super::Config;
use super::ConfigError;
use super::ProposalSource;
use super::walk::error_at;
use crate::core::agent_preset::Preset;
use crate::core::feature_id::is_valid as is_valid_feature_id;
use std::collections::HashMap;

/// What a string value must look like.
pub enum Rule {
    Any,
    NonEmpty,
    /// A ref or branch name given to git: not empty, no whitespace, not starting with `-`.
    GitRef,
    /// `owner/name`.
    Repo,
    /// An `http://` or `https://` URL.
    Url,
    /// A feature id (docs/state.md "Feature ids").
    FeatureId,
    /// 1–64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit (names end up in paths
    /// and in `SWARM_AGENT`).
    AgentName,
    /// An environment variable name.
    EnvName,
    /// A regex with the named groups `feature` and `issue`.
    DonePattern,
    /// A gitignore-style glob on repository paths (`verify.test_paths`).
    PathGlob,
    /// A review finding's severity: `critical`, `major` or `minor`.
    Severity,
}

/// Checks `s` against `rule`; the error is the end of a sentence that starts with the key
/// ("must not be empty").
pub fn check_rule(rule: &Rule, s: &str) -> Result<(), String> {
    let empty = s.trim().is_empty();
    match rule {
        Rule::Any => Ok(()),
        Rule::NonEmpty if empty => Err("must not be empty".into()),
        Rule::NonEmpty => Ok(()),
        Rule::GitRef => {
            if empty {
                Err("must not be empty".into())
            } else if s.starts_with('-') || s.chars().any(|c| c.is_whitespace() || c.is_control())
            {
                Err("must be a git ref name (no spaces, not starting with `-`)".into())
            } else {
                Ok(())
            }
        }
        Rule::Repo => {
            let ok = s.split_once('/').is_some_and(|(owner, name)| {
                !owner.is_empty()
                    && owner.len() <= 39
                    && owner
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !name.is_empty()
                    && name.len() <= 100
                    && name != "."
                    && name != ".."
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            });
            if ok {
                Ok(())
            } else {
                Err("must be `owner/name`, e.g. `octo-org/octo-repo`".into())
            }
        }
        Rule::Url => {
            let rest = s
                .strip_prefix("https://")
                .or_else(|| s.strip_prefix("http://"));
            match rest {
                Some(r) if !r.is_empty() && !s.chars().any(char::is_whitespace) => Ok(()),
                _ => Err("must be an http:// or https:// URL, e.g. `https://api.github.com`".into()),
            }
        }
        Rule::FeatureId if is_valid_feature_id(s) => Ok(()),
        Rule::FeatureId => Err(
            "must be a feature id: 2–64 characters a-z, 0-9, `.`, `_`, `-`, starting and ending with a letter or digit"
                .into(),
        ),
        Rule::AgentName => {
            let ok = (1..=64).contains(&s.len())
                && s.starts_with(|c: char| c.is_ascii_alphanumeric())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
            if empty {
                Err("must not be empty; every agent needs a name".into())
            } else if ok {
                Ok(())
            } else {
                Err("must be 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit".into())
            }
        }
        Rule::EnvName => {
            let ok = s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if ok {
                Ok(())
            } else {
                Err("must be an environment variable name (letters, digits and `_`, not starting with a digit)".into())
            }
        }
        Rule::Severity => match crate::core::review::Severity::parse(s) {
            Some(_) => Ok(()),
            None => Err("must be `critical`, `major` or `minor`".into()),
        },
        Rule::PathGlob => crate::core::path_glob::check(s)
            .map_err(|why| format!("is not a valid path glob: it {why}")),
        Rule::DonePattern => {
            let re = regex::Regex::new(s).map_err(|e| {
                format!("is not a valid regular expression: {}", regex_reason(&e))
            })?;
            let names: Vec<&str> = re.capture_names().flatten().collect();
            let missing: Vec<&str> = ["feature", "issue"]
                .into_iter()
                .filter(|g| !names.contains(g))
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                let groups: Vec<String> = missing.iter().map(|g| format!("`(?P<{g}>...)`")).collect();
                Err(format!(
                    "lacks the named group {}; a done pattern must capture `feature` and `issue`",
                    groups.join(" and ")
                ))
            }
        }
    }
}

/// The reason of a regex error, on one line and without the pattern.
fn regex_reason(e: &regex::Error) -> String {
    match e {
        regex::Error::Syntax(text) => text
            .lines()
            .find_map(|l| l.trim().strip_prefix("error: "))
            .unwrap_or("syntax error")
            .to_string(),
        regex::Error::CompiledTooBig(_) => "the compiled pattern is too big".into(),
        _ => "invalid pattern".into(),
    }
}

/// Checks that span several keys; `lines` maps key paths to lines.
pub fn check(
    config: &Config,
    lines: &HashMap<String, u64>,
    origin: &str,
) -> Result<(), ConfigError> {
    let line = |path: &str| lines.get(path).copied().unwrap_or(0);
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, agent) in config.agents.iter().enumerate() {
        if let Some(&first) = seen.get(agent.name.as_str()) {
            let path = format!("agents[{i}].name");
            return Err(error_at(
                origin,
                line(&path),
                format!(
                    "`{path}` repeats the name `{}` of `agents[{first}]`; agent names must be unique",
                    agent.name
                ),
            ));
        }
        seen.insert(agent.name.as_str(), i);
        if agent.command.is_empty() && matches!(agent.preset, None | Some(Preset::Custom)) {
            let path = format!("agents[{i}]");
            return Err(error_at(
                origin,
                line(&format!("{path}.name")),
                format!(
                    "`{path}` (`{}`) has neither `command` nor `preset`; every agent needs one (e.g. `preset: claude-code`, or `command: [\"my-agent\"]` with the prompt on stdin)",
                    agent.name
                ),
            ));
        }
    }
    for (i, r) in config.review.reviewers.iter().enumerate() {
        if !config.agents.iter().any(|a| &a.name == r) {
            let path = format!("review.reviewers[{i}]");
            return Err(error_at(
                origin,
                line("review.reviewers"),
                format!(
                    "`{path}` names `{r}`, which is not an agent in `agents`; name one of the configured agents"
                ),
            ));
        }
    }
    for (i, agent) in config.agents.iter().enumerate() {
        for (k, name) in agent.fallback.iter().enumerate() {
            let path = format!("agents[{i}].fallback");
            let problem = if name == &agent.name {
                Some("names the agent itself")
            } else if !seen.contains_key(name.as_str()) {
                Some("is not a configured agent")
            } else if agent.fallback[..k].contains(name) {
                Some("is listed twice")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(error_at(
                    origin,
                    line(&path),
                    format!(
                        "`{path}` of `{}`: `{name}` {problem}; a fallback chain lists other agents of `agents`",
                        agent.name
                    ),
                ));
            }
        }
    }
    if let Some(name) = &config.analysis.agent
        && !seen.contains_key(name.as_str())
    {
        return Err(error_at(
            origin,
            line("analysis.agent"),
            format!(
                "`analysis.agent` names `{name}`, which is not a configured agent; name one of `agents` or remove it to use `llm.command`"
            ),
        ));
    }
    if config.coordination.proposal_source == ProposalSource::Llm && config.llm.command.is_none() {
        return Err(error_at(
            origin,
            line("coordination.proposal_source"),
            "`coordination.proposal_source` is `llm` but `llm.command` is not set; set `llm.command` or use `proposal_source: heuristic`",
        ));
    }
    let r = &config.review;
    if let Some(u) = r.cross_unmatched_min_confidence
        && u < r.min_confidence
    {
        return Err(error_at(
            origin,
            line("review.cross_unmatched_min_confidence"),
            format!(
                "`review.cross_unmatched_min_confidence` ({u}) is below `review.min_confidence` ({}); a finding only one reviewer reported cannot count more easily than any finding: raise it to at least {} or remove it",
                r.min_confidence, r.min_confidence
            ),
        ));
    }
    let c = &config.coordination;
    if c.join == super::JoinStrategy::Quorum && c.quorum > c.candidates {
        return Err(error_at(
            origin,
            line("coordination.quorum"),
            format!(
                "`coordination.quorum` ({}) is more than `coordination.candidates` ({}), so no quorum could ever be reached; lower the quorum or raise the candidates",
                c.quorum, c.candidates
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_rule() {
        assert!(check_rule(&Rule::Repo, "octo-org/octo.repo_1").is_ok());
        for bad in ["octo", "/x", "o/", "o/p/q", "o/..", "a b/c", ""] {
            assert!(check_rule(&Rule::Repo, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn git_ref_rule() {
        assert!(check_rule(&Rule::GitRef, "origin/main").is_ok());
        assert!(check_rule(&Rule::GitRef, "HEAD").is_ok());
        for bad in ["", " ", "-x", "a b", "--all"] {
            assert!(check_rule(&Rule::GitRef, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn agent_name_and_env_name_rules() {
        assert!(check_rule(&Rule::AgentName, "codex-2.fast_x").is_ok());
        for bad in ["", "-x", ".x", "a/b", "../x", "a b", &"x".repeat(65)] {
            assert!(check_rule(&Rule::AgentName, bad).is_err(), "{bad}");
        }
        assert!(check_rule(&Rule::EnvName, "ANTHROPIC_API_KEY").is_ok());
        assert!(check_rule(&Rule::EnvName, "_X1").is_ok());
        for bad in ["", "1X", "A-B", "A B"] {
            assert!(check_rule(&Rule::EnvName, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn url_rule() {
        assert!(check_rule(&Rule::Url, "https://ghe.example.com/api/v3").is_ok());
        assert!(check_rule(&Rule::Url, "http://localhost:8080").is_ok());
        for bad in ["api.github.com", "https://", "ftp://x", "https://a b"] {
            assert!(check_rule(&Rule::Url, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn done_pattern_rule() {
        assert!(
            check_rule(
                &Rule::DonePattern,
                r"(?m)^done\((?P<feature>[a-z0-9._-]+)\) #(?P<issue>\d+)"
            )
            .is_ok()
        );
        let e = check_rule(&Rule::DonePattern, r"(?P<feature>x").unwrap_err();
        assert!(e.starts_with("is not a valid regular expression: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = check_rule(&Rule::DonePattern, r"(?P<feature>\w+) (\d+)").unwrap_err();
        assert!(e.contains("`(?P<issue>...)`"), "{e}");
        assert!(!e.contains("<feature>"), "{e}");
    }
}
