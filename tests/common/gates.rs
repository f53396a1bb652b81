//! The specify gate's `llm.command` as a script (docs/gates.md): it logs each request as
//! `<purpose> <issue>` and answers the specify request by the issue's words.

use super::TestEnv;
use std::path::{Path, PathBuf};

/// The script: `PRECISE` in the issue → 8/10, `GARBAGE` → prose (invalid), else 2/10 with
/// the question "Which test should pass?"; other purposes get a one-line summary.
const SPECIFY_LLM: &str = r#"#!/bin/sh
prompt=$(cat)
echo "$SWARM_PURPOSE $SWARM_ISSUE" >> "$LOG"
if [ "$SWARM_PURPOSE" != "specify" ]; then echo "A summary."; exit 0; fi
case "$prompt" in
  *PRECISE*) echo '{"scores": {"goal": 2, "acceptance": 2, "scope": 2, "constraints": 1, "context": 1}, "question": "Anything else?"}' ;;
  *GARBAGE*) echo 'Looks fine to me! {"scores": 10}' ;;
  *) echo '{"scores": {"goal": 1, "acceptance": 0, "scope": 1, "constraints": 0, "context": 0}, "question": "Which test should pass?"}' ;;
esac
"#;

/// Writes the script into `env`, logging to `log`; returns its path.
pub fn specify_llm(env: &TestEnv, log: &Path) -> PathBuf {
    env.script(
        "llm.sh",
        &SPECIFY_LLM.replace("$LOG", &log.to_string_lossy()),
    )
}

/// How many specify requests `log` holds.
pub fn specify_calls(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("specify "))
        .count()
}
