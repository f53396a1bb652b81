//! The schema of `config.yaml`: every key, its type and value rule, and the original Python
//! tool's keys that are accepted with a warning. `walk.rs` checks a document against it.
//!
//! Legacy keys (accepted, warned about, ignored; documented in docs/config.md):
//! - top level: `claude`, `openai`, `codex`, `retry`, `debate_retry`, `preflight`,
//!   `spec_debate`, `bug_bash`, `chief_of_staff`, `auto_fix`, `auto_split_on_timeout`,
//!   `auto_fix_import_errors`;
//! - `github.token_env_var`, `github.owner`; `tests.args`, `tests.autodetect`, `tests.path`;
//!   `git.feature_branch_pattern`, `git.use_worktrees`; `sessions.max_concurrent_sessions`.

use super::validate::Rule;

/// The type (and value rule) of one key.
pub enum Ty {
    Bool,
    /// `on` or `off` (also `true` / `false`), read as a boolean.
    OnOff,
    Str(Rule),
    /// A string, or `null` for "not set".
    OptStr(Rule),
    /// A whole number in `min..=max`, in `unit`s.
    Uint {
        min: u64,
        max: u64,
        unit: &'static str,
    },
    /// A number from 0 to 1.
    Fraction,
    Enum(&'static [&'static str]),
    StrList {
        min_items: usize,
        rule: Rule,
    },
    /// argv: a non-empty list of strings whose first one (the program) is not empty, or
    /// `null` for "not set".
    OptCommand,
    Section(&'static Section),
    /// The non-empty list of agents.
    Agents,
    /// A number ≥ 0 (money, minutes).
    Amount,
    /// A mapping whose keys are names the user chooses (e.g. `pricing.<model>`), each value
    /// a mapping of the given section.
    MapOf(&'static Section),
}

pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
}

/// A mapping: its keys, the keys each list item must have (agents), and the original tool's
/// keys accepted here with a warning (key, what to do instead).
pub struct Section {
    pub fields: &'static [Field],
    pub required: &'static [&'static str],
    pub legacy: &'static [(&'static str, &'static str)],
}

mod judgement;
pub use judgement::*;

const fn f(name: &'static str, ty: Ty) -> Field {
    Field { name, ty }
}

const SECS: &str = "seconds";
const DAY: u64 = 86_400;
const YEAR_SECS: u64 = 365 * DAY;

pub static THRESHOLDS: Section = Section {
    fields: &[
        f("confidence_gap", Ty::Fraction),
        f("angle_overlap", Ty::Fraction),
        f("high_confidence", Ty::Fraction),
        f("low_confidence", Ty::Fraction),
        f("synthesis_confidence", Ty::Fraction),
    ],
    required: &[],
    legacy: &[],
};

pub static COORDINATION: Section = Section {
    fields: &[
        f("auto_sync_from_git", Ty::Bool),
        f("github_sync_enabled", Ty::Bool),
        f("llm_coordinator_enabled", Ty::Bool),
        f("generate_summaries", Ty::Bool),
        f("event_logging_enabled", Ty::Bool),
        f("proposal_source", Ty::Enum(&["heuristic", "llm"])),
        f("thresholds", Ty::Section(&THRESHOLDS)),
        f("join", Ty::Enum(&["first", "all", "quorum"])),
        f("learn", Ty::OnOff),
        f(
            "learn_prior",
            Ty::Uint {
                min: 0,
                max: 1_000_000,
                unit: "outcomes",
            },
        ),
        f(
            "synthesis_wait_seconds",
            Ty::Uint {
                min: 0,
                max: DAY,
                unit: SECS,
            },
        ),
        f(
            "candidates",
            Ty::Uint {
                min: 2,
                max: 5,
                unit: "candidates",
            },
        ),
        f(
            "quorum",
            Ty::Uint {
                min: 2,
                max: 5,
                unit: "candidates",
            },
        ),
        f("agree_at", Ty::Fraction),
        f("min_convergence", Ty::Fraction),
        f("on_low_convergence", Ty::Enum(&["land", "review", "block"])),
    ],
    required: &[],
    legacy: &[],
};

pub static AGENT: Section = Section {
    fields: &[
        f("name", Ty::Str(Rule::AgentName)),
        f("preset", Ty::Enum(crate::core::agent_preset::PRESET_NAMES)),
        f("command", Ty::OptCommand),
        f(
            "args",
            Ty::StrList {
                min_items: 0,
                rule: Rule::Any,
            },
        ),
        f("angle", Ty::Str(Rule::Any)),
        f(
            "covers",
            Ty::StrList {
                min_items: 0,
                rule: Rule::NonEmpty,
            },
        ),
        f("builds_on_other", Ty::Bool),
        f(
            "timeout_seconds",
            Ty::Uint {
                min: 1,
                max: YEAR_SECS,
                unit: SECS,
            },
        ),
        f(
            "max_turns",
            Ty::Uint {
                min: 1,
                max: 100_000,
                unit: "turns",
            },
        ),
        f(
            "env_passthrough",
            Ty::StrList {
                min_items: 0,
                rule: Rule::EnvName,
            },
        ),
        f(
            "fallback",
            Ty::StrList {
                min_items: 0,
                rule: Rule::AgentName,
            },
        ),
    ],
    required: &["name"],
    legacy: &[],
};

pub static LLM: Section = Section {
    fields: &[
        f("command", Ty::OptCommand),
        f(
            "timeout_seconds",
            Ty::Uint {
                min: 1,
                max: YEAR_SECS,
                unit: SECS,
            },
        ),
    ],
    required: &[],
    legacy: &[],
};

pub static CONTEXT: Section = Section {
    fields: &[f(
        "max_prompt_tokens",
        Ty::Uint {
            min: 1,
            max: 100_000_000,
            unit: "tokens",
        },
    )],
    required: &[],
    legacy: &[],
};

pub static TESTS: Section = Section {
    fields: &[
        f("command", Ty::Str(Rule::NonEmpty)),
        f(
            "timeout_seconds",
            Ty::Uint {
                min: 1,
                max: YEAR_SECS,
                unit: SECS,
            },
        ),
        f("issue_command", Ty::OptStr(Rule::NonEmpty)),
    ],
    required: &[],
    legacy: &[
        ("args", "put the arguments in `tests.command`"),
        ("autodetect", "set `tests.command`"),
        ("path", "set `test_file` per issue in issues.json"),
    ],
};

pub static SESSIONS: Section = Section {
    fields: &[
        f(
            "max_implementation_retries",
            Ty::Uint {
                min: 0,
                max: 1000,
                unit: "retries",
            },
        ),
        f(
            "stale_timeout_minutes",
            Ty::Uint {
                min: 1,
                max: YEAR_SECS / 60,
                unit: "minutes",
            },
        ),
        f(
            "lock_timeout_seconds",
            Ty::Uint {
                min: 0,
                max: DAY,
                unit: SECS,
            },
        ),
        f(
            "max_consecutive_agent_failures",
            Ty::Uint {
                min: 1,
                max: 1000,
                unit: "failures",
            },
        ),
    ],
    required: &[],
    legacy: &[("max_concurrent_sessions", "use `run --workers W`")],
};

pub static GIT: Section = Section {
    fields: &[
        f("base_branch", Ty::Str(Rule::GitRef)),
        f(
            "sync_refs",
            Ty::StrList {
                min_items: 1,
                rule: Rule::GitRef,
            },
        ),
        f(
            "done_patterns",
            Ty::StrList {
                min_items: 0,
                rule: Rule::DonePattern,
            },
        ),
        f("worktrees_root", Ty::Str(Rule::NonEmpty)),
        f("landing", Ty::Enum(&["commit", "pr"])),
        f("stack", Ty::Bool),
        f("remote", Ty::Str(Rule::NonEmpty)),
        f("run_hooks", Ty::Bool),
    ],
    required: &[],
    legacy: &[
        (
            "feature_branch_pattern",
            "results land on the checked-out branch",
        ),
        ("use_worktrees", "agents always work in worktrees"),
    ],
};

pub static GITHUB: Section = Section {
    fields: &[
        f("repo", Ty::OptStr(Rule::Repo)),
        f("api_url", Ty::OptStr(Rule::Url)),
        f("close_on_done", Ty::Bool),
        f("trigger_label", Ty::Str(Rule::NonEmpty)),
        f("default_feature", Ty::Str(Rule::FeatureId)),
        f("run_agents", Ty::Bool),
        f("bot_login", Ty::Str(Rule::NonEmpty)),
        f(
            "allowed_bots",
            Ty::StrList {
                min_items: 0,
                rule: Rule::NonEmpty,
            },
        ),
        f(
            "min_write_interval_ms",
            Ty::Uint {
                min: 0,
                max: 3_600_000,
                unit: "milliseconds",
            },
        ),
    ],
    required: &[],
    legacy: &[
        (
            "token_env_var",
            "the token is read from GITHUB_TOKEN or GH_TOKEN",
        ),
        ("owner", "write `github.repo` as `owner/name`"),
    ],
};

pub static BUDGETS: Section = Section {
    fields: &[
        f("issue_usd", Ty::Amount),
        f("feature_usd", Ty::Amount),
        f("issue_minutes", Ty::Amount),
        f(
            "issue_tokens",
            Ty::Uint {
                min: 1,
                max: u64::MAX >> 12,
                unit: "tokens",
            },
        ),
        f(
            "feature_tokens",
            Ty::Uint {
                min: 1,
                max: u64::MAX >> 12,
                unit: "tokens",
            },
        ),
    ],
    required: &[],
    legacy: &[],
};

pub static GOVERNOR: Section = Section {
    fields: &[
        f("max_backoff_minutes", Ty::Amount),
        f(
            "fallback_after_seconds",
            Ty::Uint {
                min: 0,
                max: DAY,
                unit: SECS,
            },
        ),
    ],
    required: &[],
    legacy: &[],
};

pub static PRICE: Section = Section {
    fields: &[
        f("input_per_mtok", Ty::Amount),
        f("output_per_mtok", Ty::Amount),
        f("cached_input_per_mtok", Ty::Amount),
    ],
    required: &[],
    legacy: &[],
};

pub static SECRETS: Section = Section {
    fields: &[f(
        "mask_env",
        Ty::StrList {
            min_items: 0,
            rule: Rule::EnvName,
        },
    )],
    required: &[],
    legacy: &[],
};

pub static ROOT: Section = Section {
    fields: &[
        f("repo_root", Ty::Str(Rule::Any)),
        f("specs_dir", Ty::Str(Rule::NonEmpty)),
        f("swarm_dir", Ty::Str(Rule::NonEmpty)),
        f("coordination", Ty::Section(&COORDINATION)),
        f("agents", Ty::Agents),
        f("llm", Ty::Section(&LLM)),
        f("analysis", Ty::Section(&ANALYSIS)),
        f("context", Ty::Section(&CONTEXT)),
        f("lessons", Ty::Section(&LESSONS)),
        f("tests", Ty::Section(&TESTS)),
        f("verify", Ty::Section(&VERIFY)),
        f("review", Ty::Section(&REVIEW)),
        f("sessions", Ty::Section(&SESSIONS)),
        f("git", Ty::Section(&GIT)),
        f("github", Ty::Section(&GITHUB)),
        f("gates", Ty::Section(&GATES)),
        f("budgets", Ty::Section(&BUDGETS)),
        f("pricing", Ty::MapOf(&PRICE)),
        f("secrets", Ty::Section(&SECRETS)),
        f("governor", Ty::Section(&GOVERNOR)),
    ],
    required: &[],
    legacy: &[
        ("claude", "configure agents in `agents`"),
        ("openai", "configure agents in `agents`"),
        ("codex", "configure agents in `agents`"),
        ("retry", "see `sessions.max_implementation_retries`"),
        ("debate_retry", ""),
        ("preflight", ""),
        ("spec_debate", ""),
        ("bug_bash", ""),
        ("chief_of_staff", ""),
        ("auto_fix", ""),
        ("auto_split_on_timeout", ""),
        ("auto_fix_import_errors", ""),
    ],
};

/// What a key of type `ty` must be, for messages.
pub fn expected(ty: &Ty) -> String {
    match ty {
        Ty::Bool => "`true` or `false`".into(),
        Ty::OnOff => "`on` or `off`".into(),
        Ty::Str(_) => "a string".into(),
        Ty::OptStr(_) => "a string (or `null`)".into(),
        Ty::Uint { min, unit, .. } => {
            let unit = match *unit {
                "retries" | "failures" | "tokens" | "points" | "outcomes" | "lessons"
                | "rounds" | "percent" => String::new(),
                u => format!(" of {u}"),
            };
            format!("a whole number{unit} ≥ {min}")
        }
        Ty::Fraction => "a number from 0 to 1".into(),
        Ty::Enum(choices) => {
            let c: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
            match c.len() {
                2 => format!("{} or {}", c[0], c[1]),
                _ => format!("one of {}", c.join(", ")),
            }
        }
        Ty::StrList { .. } => "a list of strings".into(),
        Ty::OptCommand => "a list of strings (the program and its arguments) or `null`".into(),
        Ty::Section(_) => "a mapping of keys".into(),
        Ty::Agents => {
            "a list of agents (each a mapping with `name`, `preset` or `command`, ...)".into()
        }
        Ty::Amount => "a number ≥ 0".into(),
        Ty::MapOf(_) => "a mapping of names to mappings".into(),
    }
}

/// Every key path of the schema (`coordination.thresholds.confidence_gap`, `agents[].angle`).
pub fn all_paths() -> Vec<(String, &'static str)> {
    fn go(prefix: &str, sec: &'static Section, out: &mut Vec<(String, &'static str)>) {
        for f in sec.fields {
            let p = join(prefix, f.name);
            out.push((p.clone(), f.name));
            match &f.ty {
                Ty::Section(s) => go(&p, s, out),
                Ty::Agents => go(&format!("{p}[]"), &AGENT, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    go("", &ROOT, &mut out);
    out
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}
