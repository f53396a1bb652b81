//! `config.yaml` (docs/config.md "General rules"): the typed configuration with its defaults, and
//! loading.
//!
//! Every key is optional. Unknown keys are errors naming the key and the nearest valid one;
//! the original Python tool's keys are accepted with a warning that they are unused.
//! The reference is docs/config.md; the annotated example is `config.yaml` at the repo root.
//!
//! Loading is exact and strict: the text is parsed into a position-aware YAML tree
//! (`yaml`), checked key by key (`walk`) against the schema (`schema`: keys, types, ranges,
//! value rules, legacy keys), deserialized into the typed `Config`, and checked for rules
//! that span several keys (`validate`). The first problem is the error: one sentence that
//! starts with `<file>:<line>:` and names the key.

use std::path::Path;

mod schema;
mod validate;
mod walk;
mod yaml;

#[cfg(test)]
use swarm_attack_core::agent_preset::Preset;
pub use swarm_attack_core::config::*;

/// Why a configuration was not loaded: one sentence that names the file (and line and key
/// when there is one).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// An explicit `--config FILE` that does not exist.
    #[error("config file {shown} does not exist")]
    Missing {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{shown}: the config file is not valid UTF-8 text")]
    NotUtf8 {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read config file {shown}: {source}")]
    Unreadable {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    /// Not YAML; `at` is `file:line:column` as far as known.
    #[error("{at}: invalid YAML: {message}")]
    Yaml { at: String, message: String },
    /// A key, type, value or cross-key rule broken (`file:line: …` naming the key).
    #[error("{0}")]
    Invalid(String),
    /// `agents` is an empty list (`file:line: …`).
    #[error("{0}")]
    NoAgents(String),
    /// A bug: the configuration the schema walk accepted did not deserialize.
    #[error("{origin}: the checked configuration did not load: {source}")]
    Unloadable {
        origin: String,
        #[source]
        source: serde_json::Error,
    },
}

/// A loaded configuration with the warnings its loading produced.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub warnings: Vec<String>,
}

/// Loads `path`; a missing file gives the defaults unless `must_exist` (an explicit
/// `--config FILE`). Errors name the file (relative to the current directory when it is
/// inside it), the line and the key.
pub fn load(path: &Path, must_exist: bool) -> Result<LoadedConfig, ConfigError> {
    let shown = display_path(path);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
            return Ok(LoadedConfig {
                config: Config::default().resolved(),
                warnings: Vec::new(),
            });
        }
        Err(source) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(ConfigError::Missing { shown, source });
        }
        Err(source) if source.kind() == std::io::ErrorKind::InvalidData => {
            return Err(ConfigError::NotUtf8 { shown, source });
        }
        Err(source) => return Err(ConfigError::Unreadable { shown, source }),
    };
    parse(&text, &shown)
}

/// `path` as the user would write it: relative to the current directory when inside it.
pub fn display_path(path: &Path) -> String {
    if path.is_absolute()
        && let Ok(cwd) = std::env::current_dir()
        && let Ok(rel) = path.strip_prefix(&cwd)
        && !rel.as_os_str().is_empty()
    {
        return rel.display().to_string();
    }
    path.display().to_string()
}

/// Parses config text; `origin` names the file in messages.
pub fn parse(text: &str, origin: &str) -> Result<LoadedConfig, ConfigError> {
    let tree = yaml::parse_tree(text).map_err(|e| {
        let at = match (e.line, e.column) {
            (Some(l), Some(c)) => format!("{origin}:{l}:{c}"),
            (Some(l), None) => format!("{origin}:{l}"),
            _ => origin.to_string(),
        };
        ConfigError::Yaml {
            at,
            message: e.message,
        }
    })?;
    let walked = walk::walk(&tree, origin)?;
    // The schema walk checked every type, so a failure here is a bug, not a user error.
    let config: Config =
        serde_json::from_value(walked.json).map_err(|source| ConfigError::Unloadable {
            origin: origin.to_string(),
            source,
        })?;
    validate::check(&config, &walked.lines, origin)?;
    let config = config.resolved();
    // every writer masks these variables' values from now on
    crate::secrets::register_names(
        config
            .secrets
            .mask_env
            .iter()
            .chain(config.agents.iter().flat_map(|a| a.env_passthrough.iter())),
    );
    Ok(LoadedConfig {
        config,
        warnings: walked.warnings,
    })
}

#[cfg(test)]
mod tests;
