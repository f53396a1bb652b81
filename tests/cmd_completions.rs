//! `completions <shell>` and `man` print to stdout; `--help` describes every positional
//! argument and has EXAMPLES and EXIT CODES; `--no-color` is honoured in help.

use crate::common::TestEnv;

#[test]
fn completions_for_bash_zsh_fish_are_generated() {
    let env = TestEnv::new();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef swarm-attack"),
        ("fish", "complete -c swarm-attack"),
        ("elvish", "swarm-attack"),
        ("powershell", "swarm-attack"),
    ] {
        let r = env.run(&["completions", shell]);
        r.ok();
        assert!(
            r.stdout.contains(marker),
            "{shell}: {}",
            &r.stdout[..r.stdout.len().min(300)]
        );
        assert!(r.stdout.contains("greenlight"), "{shell}");
    }
    env.run(&["completions", "tcsh"]).code(2);
}

#[test]
fn man_prints_a_roff_page() {
    let env = TestEnv::new();
    let r = env.run(&["man"]);
    r.ok();
    assert!(
        r.stdout.starts_with(".ie") || r.stdout.contains(".TH"),
        "{}",
        &r.stdout[..200]
    );
    assert!(r.stdout.contains("swarm\\-attack"));
}

#[test]
fn help_describes_positionals_and_has_examples_and_exit_codes() {
    let env = TestEnv::new();
    for cmd in ["init", "greenlight", "status", "run", "events", "audit"] {
        let r = env.run(&[cmd, "--help"]);
        r.ok();
        assert!(r.stdout.contains("EXAMPLES:"), "{cmd}: {}", r.stdout);
        assert!(r.stdout.contains("EXIT CODES:"), "{cmd}: {}", r.stdout);
        let feature = r
            .stdout
            .lines()
            .find(|l| {
                l.trim_start().starts_with("[FEATURE]") || l.trim_start().starts_with("<FEATURE>")
            })
            .unwrap_or_else(|| panic!("{cmd}: no FEATURE line in {}", r.stdout));
        assert!(feature.contains("feature id"), "{cmd}: {feature}");
    }
    let top = env.run(&["--help"]);
    assert!(top.stdout.contains("EXIT CODES:") && top.stdout.contains("completions"));
}

#[test]
fn no_color_is_honoured_in_help() {
    let env = TestEnv::new();
    let forced = |args: &[&str]| -> String {
        let out = env
            .command()
            .env_remove("NO_COLOR")
            .env("CLICOLOR_FORCE", "1")
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(
        forced(&["--help"]).contains('\u{1b}'),
        "colour can be forced"
    );
    assert!(!forced(&["--no-color", "--help"]).contains('\u{1b}'));
    assert!(!forced(&["status", "--help", "--no-color"]).contains('\u{1b}'));
}

// ---------------------------------------------------------------- whole output

#[test]
fn snapshot_man() {
    let env = TestEnv::new();
    let r = env.run(&["man"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
.ie \n(.g .ds Aq \(aq
.el .ds Aq '
.TH swarm-attack 1  "swarm-attack 0.1.0" 
.SH NAME
swarm\-attack \- Run a swarm of coding agents over a feature\*(Aqs issues, without ever redoing finished work.
.SH SYNOPSIS
\fBswarm\-attack\fR [\fB\-p\fR|\fB\-\-project\fR] [\fB\-\-config\fR] [\fB\-q\fR|\fB\-\-quiet\fR] [\fB\-v\fR|\fB\-\-verbose\fR]... [\fB\-\-no\-color\fR] [\fB\-h\fR|\fB\-\-help\fR] [\fB\-V\fR|\fB\-\-version\fR] <\fIsubcommands\fR>
.SH DESCRIPTION
Run a swarm of coding agents over a feature\*(Aqs issues, without ever redoing finished work.
.SH OPTIONS
.TP
\fB\-p\fR, \fB\-\-project\fR \fI<DIR>\fR
The project directory (default: the current directory)
.TP
\fB\-\-config\fR \fI<FILE>\fR
The config file (default: config.yaml in the project directory)
.TP
\fB\-q\fR, \fB\-\-quiet\fR
Print less
.TP
\fB\-v\fR, \fB\-\-verbose\fR
Print more (repeat for more)
.TP
\fB\-\-no\-color\fR
No colours (also: NO_COLOR set)
.TP
\fB\-h\fR, \fB\-\-help\fR
Print help
.TP
\fB\-V\fR, \fB\-\-version\fR
Print version
.SH SUBCOMMANDS
.TP
swarm\-attack\-init(1)
Create specs/FEATURE/issues.json (if missing) and the feature state; for a new project also config.yaml (detected test command, agents on PATH) and .swarm/.gitignore
.TP
swarm\-attack\-greenlight(1)
Sync from git, merge issues.json into the state (keeping progress), print the plan
.TP
swarm\-attack\-status(1)
Sync from git, then show one feature in detail, or all features
.TP
swarm\-attack\-run(1)
Implement READY issues with the configured agents
.TP
swarm\-attack\-unblock(1)
Move a BLOCKED, SKIPPED or INTERRUPTED issue back to READY (or BACKLOG)
.TP
swarm\-attack\-doctor(1)
Check the setup: agents (on PATH, `\-\-version`), their credentials, the test command, the branch, stale git locks. Exit 0 when all pass, 2 otherwise
.TP
swarm\-attack\-prompt(1)
Print the exact coder prompt that `run` would send
.TP
swarm\-attack\-plan(1)
Print the coordination decision per issue
.TP
swarm\-attack\-events(1)
Print events from the feature\*(Aqs log, oldest first
.TP
swarm\-attack\-audit(1)
Per\-issue timeline: attempts, agents, modes, durations, outcome, evidence, cost
.TP
swarm\-attack\-report(1)
Write one self\-contained HTML report of a feature: timeline, dependencies, attempts, cost
.TP
swarm\-attack\-github(1)
GitHub: sync labels and status comments, publish issues
.TP
swarm\-attack\-matrix(1)
Print the dispatchable issues as a GitHub Actions matrix (fan\-out over runners)
.TP
swarm\-attack\-lessons(1)
List, add or forget lessons: verified facts from earlier work shown in prompts
.TP
swarm\-attack\-action(1)
The GitHub Action entry point
.TP
swarm\-attack\-demo(1)
Build a throw\-away example repository and run the main job on it, offline
.TP
swarm\-attack\-completions(1)
Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout
.TP
swarm\-attack\-man(1)
Print the man page (roff) to stdout
.TP
swarm\-attack\-help(1)
Print this message or the help of the given subcommand(s)
.SH EXTRA
EXAMPLES:
  swarm\-attack init auth          # config.yaml, .swarm/.gitignore, specs/auth/issues.json
  swarm\-attack greenlight auth    # sync from git, merge issues.json, print the plan
  swarm\-attack run auth           # implement READY issues with the configured agents
  swarm\-attack status             # every feature at a glance

EXIT CODES:
  0  ok
  1  the work failed (e.g. an issue ended BLOCKED)
  2  bad usage, bad config or bad input
  3  the feature is locked by another process
.SH VERSION
v0.1.0
----- stderr -----
"#);
}

#[test]
fn snapshot_completions_fish() {
    let env = TestEnv::new();
    let r = env.run(&["completions", "fish"]);
    insta::assert_snapshot!(r.snapshot(&env), @r#"
exit: 0
----- stdout -----
# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_swarm_attack_global_optspecs
    string join \n p/project= config= q/quiet v/verbose no-color h/help V/version
end

function __fish_swarm_attack_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_swarm_attack_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_swarm_attack_using_subcommand
    set -l cmd (__fish_swarm_attack_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -s V -l version -d 'Print version'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "init" -d 'Create specs/FEATURE/issues.json (if missing) and the feature state; for a new project also config.yaml (detected test command, agents on PATH) and .swarm/.gitignore'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "greenlight" -d 'Sync from git, merge issues.json into the state (keeping progress), print the plan'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "status" -d 'Sync from git, then show one feature in detail, or all features'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "run" -d 'Implement READY issues with the configured agents'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "unblock" -d 'Move a BLOCKED, SKIPPED or INTERRUPTED issue back to READY (or BACKLOG)'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "doctor" -d 'Check the setup: agents (on PATH, `--version`), their credentials, the test command, the branch, stale git locks. Exit 0 when all pass, 2 otherwise'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "prompt" -d 'Print the exact coder prompt that `run` would send'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "plan" -d 'Print the coordination decision per issue'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "events" -d 'Print events from the feature\'s log, oldest first'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "audit" -d 'Per-issue timeline: attempts, agents, modes, durations, outcome, evidence, cost'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "report" -d 'Write one self-contained HTML report of a feature: timeline, dependencies, attempts, cost'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "github" -d 'GitHub: sync labels and status comments, publish issues'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "matrix" -d 'Print the dispatchable issues as a GitHub Actions matrix (fan-out over runners)'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "lessons" -d 'List, add or forget lessons: verified facts from earlier work shown in prompts'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "action" -d 'The GitHub Action entry point'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "demo" -d 'Build a throw-away example repository and run the main job on it, offline'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "man" -d 'Print the man page (roff) to stdout'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "debug-append-events" -d 'Test tool: append events in a loop under the feature lock (docs/events.md)'
complete -c swarm-attack -n "__fish_swarm_attack_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand init" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -l dry-run -d 'Show what would change without writing anything'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand greenlight" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand status" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l issue -d 'Only this issue' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l max-issues -d 'Implement at most K issues (K ≥ 1)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l workers -d 'Run up to W independent issues at once, each in its own worktree' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l dry-run -d 'Print what would run without running it'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand run" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -l issue -d 'The issue to move back (its number inside the feature)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -l budget -d 'Raise this issue\'s USD budget by this amount (e.g. +2.50), cumulative' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand unblock" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -l issue -d 'The issue (its `order` in issues.json)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -l agent -d 'The agent to build the prompt for (default: the coordination winner)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand prompt" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -l issue -d 'Only this issue (any stage); default: every READY issue' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand plan" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l issue -d 'Only events of this issue' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l event -d 'Only events with this name (repeatable)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l since -d 'RFC 3339 time or a relative age like `2h`, `30m`, `7d`' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l until -d 'Only events up to this time (same forms as --since)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -s n -d 'Only the last N matching events' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l follow -d 'Keep printing new events as they are appended (Ctrl-C to stop)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l json -d 'Print JSONL on stdout: each event as it is logged, one JSON object per line'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand events" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand audit" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -l out -d 'Write the report here (default: .swarm/reports/FEATURE.html)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -l open -d 'Open the report in the browser afterwards ($BROWSER, else xdg-open / open)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand report" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -f -a "sync" -d 'Bring labels and status comments in line with the state; replay the outbox'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -f -a "publish" -d 'Create GitHub issues for tasks that have none (idempotent)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and not __fish_seen_subcommand_from sync publish help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -l dry-run -d 'Print the planned requests without sending any write'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from sync" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from publish" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from help" -f -a "sync" -d 'Bring labels and status comments in line with the state; replay the outbox'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from help" -f -a "publish" -d 'Create GitHub issues for tasks that have none (idempotent)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand github; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -l max -d 'At most this many issues (the first ones in dependency order)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -l json -d 'Accepted for symmetry with the read commands: the output is always JSON'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand matrix" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -f -a "list" -d 'List the lessons (the default)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -f -a "add" -d 'Record a lesson stated by a person (source `person`)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -f -a "forget" -d 'Remove a lesson by its id'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and not __fish_seen_subcommand_from list add forget help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -l file -d 'A repository file the lesson is about (repeatable); it touches issues with that file or one in the same folder' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -l label -d 'A label the lesson is about (repeatable); it touches issues with that label' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -l json -d 'Print one JSON document on stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from forget" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the lessons (the default)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from help" -f -a "add" -d 'Record a lesson stated by a person (source `person`)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from help" -f -a "forget" -d 'Remove a lesson by its id'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand lessons; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -l run-agents -d 'Run agents for triggered issues (also: input `run-agents`, `github.run_agents`)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand action" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -l dir -d 'Build the demo repository here instead of a temp dir (kept afterwards)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand demo" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand completions" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand completions" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand completions" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand completions" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand completions" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand completions" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand man" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand man" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand man" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand man" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand man" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand man" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -l count -d 'How many events to append (one lock and one append each)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -l issue -d 'The issue the events are about' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -l payload-bytes -d 'Size of a filler text in each record (makes records span several pages, so a kill can land in the middle of a write)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -l pause-ms -d 'Pause between appends, lock released (lets another writer interleave)' -r
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -s p -l project -d 'The project directory (default: the current directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -l config -d 'The config file (default: config.yaml in the project directory)' -r -F
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -s q -l quiet -d 'Print less'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -s v -l verbose -d 'Print more (repeat for more)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -l no-color -d 'No colours (also: NO_COLOR set)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand debug-append-events" -s h -l help -d 'Print help'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "init" -d 'Create specs/FEATURE/issues.json (if missing) and the feature state; for a new project also config.yaml (detected test command, agents on PATH) and .swarm/.gitignore'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "greenlight" -d 'Sync from git, merge issues.json into the state (keeping progress), print the plan'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "status" -d 'Sync from git, then show one feature in detail, or all features'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "run" -d 'Implement READY issues with the configured agents'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "unblock" -d 'Move a BLOCKED, SKIPPED or INTERRUPTED issue back to READY (or BACKLOG)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "doctor" -d 'Check the setup: agents (on PATH, `--version`), their credentials, the test command, the branch, stale git locks. Exit 0 when all pass, 2 otherwise'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "prompt" -d 'Print the exact coder prompt that `run` would send'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "plan" -d 'Print the coordination decision per issue'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "events" -d 'Print events from the feature\'s log, oldest first'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "audit" -d 'Per-issue timeline: attempts, agents, modes, durations, outcome, evidence, cost'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "report" -d 'Write one self-contained HTML report of a feature: timeline, dependencies, attempts, cost'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "github" -d 'GitHub: sync labels and status comments, publish issues'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "matrix" -d 'Print the dispatchable issues as a GitHub Actions matrix (fan-out over runners)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "lessons" -d 'List, add or forget lessons: verified facts from earlier work shown in prompts'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "action" -d 'The GitHub Action entry point'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "demo" -d 'Build a throw-away example repository and run the main job on it, offline'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "man" -d 'Print the man page (roff) to stdout'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "debug-append-events" -d 'Test tool: append events in a loop under the feature lock (docs/events.md)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and not __fish_seen_subcommand_from init greenlight status run unblock doctor prompt plan events audit report github matrix lessons action demo completions man debug-append-events help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and __fish_seen_subcommand_from github" -f -a "sync" -d 'Bring labels and status comments in line with the state; replay the outbox'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and __fish_seen_subcommand_from github" -f -a "publish" -d 'Create GitHub issues for tasks that have none (idempotent)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and __fish_seen_subcommand_from lessons" -f -a "list" -d 'List the lessons (the default)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and __fish_seen_subcommand_from lessons" -f -a "add" -d 'Record a lesson stated by a person (source `person`)'
complete -c swarm-attack -n "__fish_swarm_attack_using_subcommand help; and __fish_seen_subcommand_from lessons" -f -a "forget" -d 'Remove a lesson by its id'
----- stderr -----
"#);
}
