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
