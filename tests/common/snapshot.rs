//! Whole-output snapshots: a fixed clock, and the parts of an output that change from run to
//! run (temp paths, commit shas, durations, process ids) replaced by stable placeholders, so
//! `insta::assert_snapshot!(run.snapshot(&env), @"...")` compares stdout, stderr and the exit
//! code in one go.

use super::{Run, TestEnv};
use regex::Regex;
use std::sync::LazyLock;

/// The instant `TestEnv::fixed_clock` gives the tool (through `SWARM_ATTACK_NOW`).
pub const FIXED_NOW: &str = "2026-01-02T03:04:05Z";
/// The date git records for commits made under a fixed clock (test and tool commits alike).
pub const FIXED_GIT_DATE: &str = "2026-01-02T03:04:05+00:00";

impl TestEnv {
    /// Fixes the tool's clock at [`FIXED_NOW`] (`SWARM_ATTACK_NOW`, honoured by
    /// `crates/swarm-attack-io/src/clock.rs`) and git's commit dates, so timestamps, session ids and commit shas
    /// are the same on every run.
    pub fn fixed_clock(mut self) -> Self {
        for (k, v) in [
            ("SWARM_ATTACK_NOW", FIXED_NOW),
            ("GIT_AUTHOR_DATE", FIXED_GIT_DATE),
            ("GIT_COMMITTER_DATE", FIXED_GIT_DATE),
        ] {
            self.extra_env.push((k.to_string(), v.to_string()));
        }
        self
    }

    /// `text` with this environment's temp folder shown as `[TMP]` (the repository is
    /// `[TMP]/repo`, HOME `[TMP]/home`), the binary as `[BIN]`, and shas, durations and
    /// process ids normalised (see [`normalize`]).
    pub fn normalize(&self, text: &str) -> String {
        let mut text = text.replace(&super::bin().display().to_string(), "[BIN]");
        let tmp = self.tmp.path();
        if let Ok(real) = tmp.canonicalize() {
            text = text.replace(&real.display().to_string(), "[TMP]");
        }
        text = text.replace(&tmp.display().to_string(), "[TMP]");
        normalize(&text)
    }
}

impl Run {
    /// The whole output, normalised for `env`: the exit code, then stdout and stderr.
    pub fn snapshot(&self, env: &TestEnv) -> String {
        format!(
            "exit: {}\n----- stdout -----\n{}----- stderr -----\n{}",
            self.code,
            env.normalize(&self.stdout),
            env.normalize(&self.stderr)
        )
    }
}

static SESSION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d{8}T\d{6}Z)-\d+\b").unwrap());
static HEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[0-9a-f]{7,40}\b").unwrap());
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+(\.\d+)? ?(ms|s)\b").unwrap());
static DURATION_FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"("[a-z_]*duration[a-z_]*")\s*:\s*\d+"#).unwrap());
static PID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(pid|PID) \d+\b").unwrap());
static PORT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"127\.0\.0\.1:\d+").unwrap());
static TEMP_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/tmp/\.tmp[0-9A-Za-z]{6}\b").unwrap());

/// Replaces what differs between runs: session ids' process ids (`[PID]`), commit shas
/// (any word of 7 to 12, or 40, hex digits: `[SHA]`), durations (`12ms`, `2.5 s`, a JSON
/// `"duration_ms": 108`: `[DURATION]`),
/// `pid N` (`pid [PID]`), the fake servers' port (`[PORT]`) and temp folders not under the
/// environment (`[TMP]`).
pub fn normalize(text: &str) -> String {
    let text = SESSION.replace_all(text, "$1-[PID]");
    let text = HEX.replace_all(&text, |c: &regex::Captures| {
        let h = &c[0];
        if h.len() == 40 || h.len() <= 12 {
            "[SHA]".to_string()
        } else {
            h.to_string()
        }
    });
    let text = DURATION.replace_all(&text, "[DURATION]");
    let text = DURATION_FIELD.replace_all(&text, "$1:[DURATION]");
    let text = PID.replace_all(&text, "$1 [PID]");
    let text = PORT.replace_all(&text, "127.0.0.1:[PORT]");
    TEMP_NAME.replace_all(&text, "[TMP]").into_owned()
}
