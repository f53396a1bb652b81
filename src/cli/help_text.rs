//! The EXAMPLES and EXIT CODES sections of `--help`.

pub const MAIN: &str = "\
EXAMPLES:
  swarm-attack init auth          # config.yaml, .swarm/.gitignore, specs/auth/issues.json
  swarm-attack greenlight auth    # sync from git, merge issues.json, print the plan
  swarm-attack run auth           # implement READY issues with the configured agents
  swarm-attack status             # every feature at a glance

EXIT CODES:
  0  ok
  1  the work failed (e.g. an issue ended BLOCKED)
  2  bad usage, bad config or bad input
  3  the feature is locked by another process";

pub const INIT: &str = "\
EXAMPLES:
  swarm-attack init auth          # in any folder of the repository: initialises at its root
  swarm-attack init auth --json

EXIT CODES:
  0  ok
  2  bad feature id, bad config or an unreadable state file
  3  the feature is locked by another process";

pub const GREENLIGHT: &str = "\
EXAMPLES:
  swarm-attack greenlight auth
  swarm-attack greenlight auth --dry-run     # what would change; writes nothing

EXIT CODES:
  0  ok
  2  bad issues.json, bad config or an unreadable state file
  3  the feature is locked by another process";

pub const STATUS: &str = "\
EXAMPLES:
  swarm-attack status auth
  swarm-attack status                        # all features; a broken one is flagged
  swarm-attack status auth --json

EXIT CODES:
  0  ok
  2  unknown feature, bad config, or an unreadable state file (all features: at the end)
  3  the feature is locked by another process";

pub const RUN: &str = "\
EXAMPLES:
  swarm-attack run auth
  swarm-attack run auth --issue 3
  swarm-attack run auth --workers 3 --max-issues 5
  swarm-attack run auth --dry-run

EXIT CODES:
  0  ok (or nothing to do)
  1  an issue ended BLOCKED, or the run stopped
  2  bad usage, bad config, bad input, or a setup problem (e.g. the agent is not installed)
  3  the feature is locked by another process";

pub const EVENTS: &str = "\
EXAMPLES:
  swarm-attack events auth -n 20
  swarm-attack events auth --issue 3 --event agent_finished --json
  swarm-attack events auth --since 2h --follow

EXIT CODES:
  0  ok
  2  unknown feature (with the nearest known one), bad filter";

pub const AUDIT: &str = "\
EXAMPLES:
  swarm-attack audit auth
  swarm-attack audit auth --json

EXIT CODES:
  0  ok
  2  unknown feature (with the nearest known one)";

#[cfg(test)]
mod tests {
    #[test]
    fn every_section_ends_with_the_exit_codes() {
        for t in [
            super::MAIN,
            super::INIT,
            super::GREENLIGHT,
            super::STATUS,
            super::RUN,
            super::EVENTS,
            super::AUDIT,
        ] {
            assert!(t.starts_with("EXAMPLES:") && t.contains("EXIT CODES:"));
        }
    }
}
