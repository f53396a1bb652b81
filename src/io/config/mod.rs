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

use crate::error::{CmdResult, CommandError};
use std::path::Path;

mod schema;
mod validate;
mod walk;
mod yaml;

#[cfg(test)]
use swarm_attack_core::agent_preset::Preset;
pub use swarm_attack_core::config::*;

/// A loaded configuration with the warnings its loading produced.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub warnings: Vec<String>,
}

/// Loads `path`; a missing file gives the defaults unless `must_exist` (an explicit
/// `--config FILE`). Errors name the file (relative to the current directory when it is
/// inside it), the line and the key.
pub fn load(path: &Path, must_exist: bool) -> CmdResult<LoadedConfig> {
    let shown = display_path(path);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
            return Ok(LoadedConfig {
                config: Config::default().resolved(),
                warnings: Vec::new(),
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(
                CommandError::input(format!("config file {shown} does not exist"))
                    .with_hint("check the path given to --config"),
            );
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            return Err(CommandError::input(format!(
                "{shown}: the config file is not valid UTF-8 text"
            )));
        }
        Err(e) => {
            return Err(CommandError::input(format!(
                "cannot read config file {shown}: {e}"
            )));
        }
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
pub fn parse(text: &str, origin: &str) -> CmdResult<LoadedConfig> {
    let tree = yaml::parse_tree(text).map_err(|e| {
        let at = match (e.line, e.column) {
            (Some(l), Some(c)) => format!("{origin}:{l}:{c}"),
            (Some(l), None) => format!("{origin}:{l}"),
            _ => origin.to_string(),
        };
        CommandError::input(format!("{at}: invalid YAML: {}", e.message))
    })?;
    let walked = walk::walk(&tree, origin)?;
    let config: Config = serde_json::from_value(walked.json).map_err(|e| {
        // The schema walk checked every type, so this is a bug, not a user error.
        CommandError::internal(format!(
            "{origin}: the checked configuration did not load: {e}"
        ))
    })?;
    validate::check(&config, &walked.lines, origin)?;
    let config = config.resolved();
    // every writer masks these variables' values from now on
    crate::io::secrets::register_names(
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
