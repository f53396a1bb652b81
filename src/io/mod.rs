//! Adapters: files (config, state, events), git history, GitHub, processes. No decisions here.

pub mod agent;
pub mod agent_pid;
pub mod atomic;
pub mod browser;
pub mod clock;
pub mod config;
pub mod contain;
pub mod event_log;
pub mod event_reader;
pub mod gh_actions;
pub mod git;
pub mod github;
pub mod history;
pub mod history_seen;
pub mod interrupt;
pub mod issues_file;
pub mod llm;
pub mod lock;
pub mod notice;
pub mod paths;
pub mod process;
pub mod program_path;
pub mod repo_id;
pub mod run_lock;
pub mod secrets;
pub mod state_store;
