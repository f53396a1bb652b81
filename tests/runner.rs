//! The one integration-test binary (`autotests = false`): each area is a module. Files are
//! named by the command they test (`cmd_<command>[_<aspect>].rs`); what every command
//! shares is in `architecture.rs`, `cli.rs`, `config.rs`, `git_sync.rs`, `inputs.rs`,
//! `journeys.rs`, `verbose.rs` (`-v`/`-vv`), `security.rs`, `fanout.rs` and `workflows.rs`; every helper is in
//! `common/`. A file under `tests/` that is not declared here never runs, so
//! `test_no_forgotten_test_files` fails on one.

// the tests pass their own environment (PATH) to the command they run
#![allow(clippy::disallowed_methods)]

mod common;

mod architecture;
mod cli;
mod cmd_action;
mod cmd_action_config;
mod cmd_action_gates;
mod cmd_action_github;
mod cmd_action_install;
mod cmd_action_spec;
mod cmd_audit_costs;
mod cmd_completions;
mod cmd_demo;
mod cmd_doctor;
mod cmd_events;
mod cmd_events_durability;
mod cmd_gates;
mod cmd_github;
mod cmd_github_faults;
mod cmd_github_spec;
mod cmd_greenlight;
mod cmd_init;
mod cmd_init_journey;
mod cmd_init_setup;
mod cmd_learning;
mod cmd_lessons;
mod cmd_matrix;
mod cmd_plan;
mod cmd_plan_spec;
mod cmd_prompt;
mod cmd_report;
mod cmd_report_browser;
mod cmd_run;
mod cmd_run_already_done;
mod cmd_run_analysis;
mod cmd_run_budget;
mod cmd_run_budget_handoff;
mod cmd_run_candidates;
mod cmd_run_containment;
mod cmd_run_fallback;
mod cmd_run_governor;
mod cmd_run_history;
mod cmd_run_integrity;
mod cmd_run_llm_costs;
mod cmd_run_modes;
mod cmd_run_output;
mod cmd_run_partial_clone;
mod cmd_run_pr;
mod cmd_run_processes;
mod cmd_run_progress;
mod cmd_run_real_agents;
mod cmd_run_real_fallback;
mod cmd_run_real_presets;
mod cmd_run_real_reviewer;
mod cmd_run_review;
mod cmd_run_review_modes;
mod cmd_run_review_pr;
mod cmd_run_robust;
mod cmd_run_safety;
mod cmd_run_spec;
mod cmd_run_spec_agents;
mod cmd_run_spec_prompt;
mod cmd_run_worktrees;
mod cmd_status;
mod cmd_status_original;
mod cmd_status_truth;
mod cmd_unblock;
mod config;
mod fanout;
mod git_sync;
mod git_sync_rules;
mod git_sync_skip;
mod in_process;
mod inputs;
mod inputs_sigkill;
mod journeys;
mod security;
mod verbose;
mod workflows;

/// Every `.rs` file under `tests/` is a module reachable from this file (jj's check of the
/// same name): with `autotests = false`, a forgotten file would silently never run.
#[test]
fn test_no_forgotten_test_files() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut forgotten = Vec::new();
    let mut stack = vec![tests.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("runner.rs") {
                continue;
            }
            // declared in the parent module: `runner.rs` for top-level files, else the
            // folder's `mod.rs`; a `mod.rs` is declared by its folder's name one level up
            let (name, declared_in) = if path.file_name().unwrap() == "mod.rs" {
                let folder = path.parent().unwrap();
                let parent = folder.parent().unwrap();
                let owner = if parent == tests {
                    tests.join("runner.rs")
                } else {
                    parent.join("mod.rs")
                };
                (folder.file_name().unwrap().to_owned(), owner)
            } else {
                let folder = path.parent().unwrap();
                let owner = if folder == tests {
                    tests.join("runner.rs")
                } else {
                    folder.join("mod.rs")
                };
                (path.file_stem().unwrap().to_owned(), owner)
            };
            let name = name.to_string_lossy().into_owned();
            let source = std::fs::read_to_string(&declared_in).unwrap_or_default();
            let declared = source.lines().any(|l| {
                let l = l.trim_start();
                let l = l
                    .strip_prefix("pub(crate) ")
                    .or(l.strip_prefix("pub "))
                    .unwrap_or(l);
                l.strip_prefix("mod ")
                    .is_some_and(|rest| rest.trim_end_matches(';').trim() == name)
            });
            if !declared {
                forgotten.push(format!(
                    "{} (add `mod {name};` to {})",
                    path.strip_prefix(&tests).unwrap().display(),
                    declared_in.strip_prefix(&tests).unwrap().display()
                ));
            }
        }
    }
    forgotten.sort();
    assert!(
        forgotten.is_empty(),
        "test files that never run:\n{}",
        forgotten.join("\n")
    );
}

/// Test modules share helpers only through `common` (the test API): a `crate::<module>::`
/// path naming another test module would tie one test file to another's internals.
#[test]
fn test_modules_import_only_from_common() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("runner.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let module: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                // `some_crate::` is not a path into this test binary
                let before = &line[..i];
                if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                    continue;
                }
                if module != "common" {
                    offenders.push(format!(
                        "{}:{}: {}",
                        path.file_name().unwrap().to_string_lossy(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "test modules importing from another test module instead of common:\n{}",
        offenders.join("\n")
    );
}
