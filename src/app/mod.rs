//! Use cases: they orchestrate adapters and the core, and own no formats.

pub mod action;
pub mod demo;
pub mod doctor;
pub mod gates;
pub mod github;
pub mod greenlight;
pub mod init;
pub mod ledger;
pub mod lessons;
pub mod llm_calls;
pub mod matrix;
pub mod outcomes;
pub mod plan;
pub mod project;
pub mod prompt;
pub mod pull_gate;
pub mod pull_reconcile;
pub mod report;
pub mod run;
pub mod setup;
pub mod status;
pub mod summary;
pub mod sync;
pub mod task_facts;
pub mod unblock;
