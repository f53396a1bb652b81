//! The limits handed to an agent for one run (docs/budgets.md "Limits"): what remains of the
//! issue's budget, enforced by the agent itself where its CLI can (Claude Code: `--max-budget-usd`
//! and `--max-turns`), and by the tool's own timeout, scaled to the remaining `issue_minutes`, for
//! every agent.

use crate::agent_preset::Preset;
use crate::budget::{Ledger, Limits, cents, remaining_usd};

/// The limits of one agent run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunLimits {
    /// What remains of the issue's USD budget (bounded by the feature's remainder).
    pub max_budget_usd: Option<f64>,
    /// `agents[].max_turns`.
    pub max_turns: Option<u64>,
    /// What remains of the issue's `issue_minutes`, in seconds (rounded up, at least 1).
    pub max_seconds: Option<u64>,
}

impl RunLimits {
    /// The limits of a run on `issue` from the ledger (including the events about to be
    /// written) and the configured budgets.
    pub fn for_issue(ledger: &Ledger, limits: &Limits, issue: u32, max_turns: Option<u64>) -> Self {
        let max_seconds = limits.issue_minutes.map(|m| {
            let left_ms = (m * 60_000.0) - ledger.issue(issue).agent_ms as f64;
            ((left_ms / 1000.0).ceil().max(1.0)) as u64
        });
        RunLimits {
            max_budget_usd: remaining_usd(ledger, limits, issue),
            max_turns,
            max_seconds,
        }
    }

    /// The agent's timeout: its configured one, or less when the issue has less time left.
    pub fn timeout_seconds(&self, configured: u64) -> u64 {
        match self.max_seconds {
            Some(left) => configured.min(left).max(1),
            None => configured.max(1),
        }
    }

    /// The command line with the limits the agent's CLI enforces itself: for `claude-code`,
    /// `--max-budget-usd <USD>` (whole cents rounded down, at least $0.01) and
    /// `--max-turns <N>` (a value already on the command line is kept when it is lower). Other presets' command lines are returned unchanged. The
    /// prompt is never on the command line.
    pub fn apply(&self, preset: Option<Preset>, argv: &[String]) -> Vec<String> {
        let mut argv = argv.to_vec();
        if preset != Some(Preset::ClaudeCode) {
            return argv;
        }
        if let Some(usd) = self.max_budget_usd {
            // whole cents, rounded down (never more than remains), at least one: Claude Code
            // refuses 0 ("must be a number greater than 0")
            let c = ((usd * 100.0 + 1e-6).floor() as i64).max(1);
            set_lower(&mut argv, "--max-budget-usd", cents_of, c, |c| {
                format!("{}.{:02}", c / 100, c % 100)
            });
        }
        if let Some(turns) = self.max_turns {
            set_lower(
                &mut argv,
                "--max-turns",
                |v| v.parse().ok(),
                turns as i64,
                |t| t.to_string(),
            );
        }
        argv
    }
}

fn cents_of(v: &str) -> Option<i64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite()).map(cents)
}

/// Sets `flag`'s value to `value`, or keeps the value already there when it is lower.
fn set_lower(
    argv: &mut Vec<String>,
    flag: &str,
    parse: impl Fn(&str) -> Option<i64>,
    value: i64,
    show: impl Fn(i64) -> String,
) {
    let eq = format!("{flag}=");
    for i in 0..argv.len() {
        if argv[i] == flag && i + 1 < argv.len() {
            if parse(&argv[i + 1]).is_none_or(|old| value < old) {
                argv[i + 1] = show(value);
            }
            return;
        }
        if let Some(old) = argv[i].strip_prefix(&eq) {
            if parse(old).is_none_or(|old| value < old) {
                argv[i] = format!("{eq}{}", show(value));
            }
            return;
        }
    }
    // before a trailing `-` (the "prompt on stdin" marker), if any
    let at = if argv.last().is_some_and(|a| a == "-") {
        argv.len() - 1
    } else {
        argv.len()
    };
    argv.splice(at..at, [flag.to_string(), show(value)]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn s(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    fn ledger_with(issue: u32, usd: f64, ms: u64) -> Ledger {
        Ledger::from_records(
            &[
                json!({"event": "agent_finished", "issue": issue, "agent": "a",
                     "cost_usd": usd, "duration_ms": ms}),
            ],
            &|_: &str, _: Option<&str>| None,
        )
    }

    #[test]
    fn the_remaining_issue_budget_is_handed_to_claude_code() {
        let limits = Limits {
            issue_usd: Some(5.0),
            issue_minutes: Some(10.0),
            ..Limits::default()
        };
        let l = RunLimits::for_issue(&ledger_with(1, 1.25, 150_000), &limits, 1, Some(40));
        assert_eq!(l.max_seconds, Some(450));
        let argv = l.apply(Some(Preset::ClaudeCode), &s(&["claude", "-p"]));
        assert_eq!(
            argv,
            s(&[
                "claude",
                "-p",
                "--max-budget-usd",
                "3.75",
                "--max-turns",
                "40"
            ])
        );
        // others: unchanged command line, a scaled timeout
        let codex = s(&["codex", "exec", "--json", "-"]);
        assert_eq!(l.apply(Some(Preset::Codex), &codex), codex);
        assert_eq!(l.timeout_seconds(1800), 450);
        assert_eq!(l.timeout_seconds(60), 60);
        // the feature's remainder bounds it
        let both = Limits {
            feature_usd: Some(2.0),
            ..limits
        };
        let l = RunLimits::for_issue(&ledger_with(1, 1.25, 0), &both, 1, None);
        let argv = l.apply(Some(Preset::ClaudeCode), &s(&["claude"]));
        assert_eq!(argv, s(&["claude", "--max-budget-usd", "0.75"]));
    }

    #[test]
    fn a_lower_value_on_the_command_line_is_kept() {
        let l = RunLimits {
            max_budget_usd: Some(3.0),
            max_turns: Some(50),
            max_seconds: None,
        };
        let argv = s(&["claude", "--max-budget-usd", "1", "--max-turns=80", "-"]);
        assert_eq!(
            l.apply(Some(Preset::ClaudeCode), &argv),
            s(&["claude", "--max-budget-usd", "1", "--max-turns=50", "-"])
        );
        let argv = s(&["claude", "--max-budget-usd", "9.5"]);
        assert_eq!(
            l.apply(Some(Preset::ClaudeCode), &argv),
            s(&["claude", "--max-budget-usd", "3.00", "--max-turns", "50"])
        );
        // whole cents, rounded down, never $0.00 (Claude Code refuses it)
        for (left, shown) in [
            (3.746, "3.74"),
            (0.0, "0.01"),
            (0.004, "0.01"),
            (0.3, "0.30"),
        ] {
            let l = RunLimits {
                max_budget_usd: Some(left),
                ..RunLimits::default()
            };
            let argv = l.apply(Some(Preset::ClaudeCode), &s(&["claude"]));
            assert_eq!(argv, s(&["claude", "--max-budget-usd", shown]), "{left}");
        }
        // no limits: nothing added
        assert_eq!(
            RunLimits::default().apply(Some(Preset::ClaudeCode), &s(&["claude"])),
            s(&["claude"])
        );
        assert_eq!(RunLimits::default().timeout_seconds(1800), 1800);
    }
}
