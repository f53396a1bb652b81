//! Fallback across agents (docs/run.md "After a failure: classes, analysis, fallback"): after an
//! `infra` failure (or the same failure twice), the next attempt is run by the first agent
//! of the chain of the agent the issue started with (`agents[].fallback`) that has not failed yet
//! on this issue and is available (configured, not waiting on a rate limit); the next failure moves
//! along the chain. Pure: names in, a name out.

/// The chain an issue follows and who failed along it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chain {
    /// The agent the issue started with.
    pub origin: String,
    /// Its `fallback` list.
    pub agents: Vec<String>,
    /// The agents that failed on this issue (name, kind), in order.
    pub failed: Vec<(String, String)>,
}

/// What the chain says after a failure of `current`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The next attempt is run by this agent.
    To(String),
    /// No chain is configured (or none of it is free now): no switch.
    Stay,
    /// Every agent of the chain failed: the issue is BLOCKED with this reason.
    Exhausted(String),
}

impl Chain {
    /// The chain of `origin` with its `fallback` list.
    pub fn new(origin: &str, fallback: &[String]) -> Chain {
        Chain {
            origin: origin.to_string(),
            agents: fallback.to_vec(),
            failed: Vec::new(),
        }
    }

    /// Records that `agent` failed with `kind`, then picks the next agent: the first of the
    /// chain that has not failed and for which `free` holds. With a chain whose every agent
    /// failed: [`Step::Exhausted`] naming each agent and its kind.
    pub fn next(&mut self, agent: &str, kind: &str, free: impl Fn(&str) -> bool) -> Step {
        if !self.failed.iter().any(|(a, _)| a == agent) {
            self.failed.push((agent.to_string(), kind.to_string()));
        }
        if self.agents.is_empty() {
            return Step::Stay;
        }
        let failed = |a: &str| a == self.origin || self.failed.iter().any(|(f, _)| f == a);
        if let Some(to) = self.agents.iter().find(|a| !failed(a) && free(a)) {
            return Step::To(to.clone());
        }
        if self.agents.iter().all(|a| failed(a)) {
            let named: Vec<String> = self
                .failed
                .iter()
                .map(|(a, k)| format!("{a} ({k})"))
                .collect();
            return Step::Exhausted(format!(
                "every agent of the fallback chain failed: {}",
                named.join(", ")
            ));
        }
        Step::Stay
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chain() -> Chain {
        Chain::new("claude", &["codex".into(), "gemini".into()])
    }

    #[test]
    fn moves_along_the_chain_then_is_exhausted() {
        let mut c = chain();
        assert_eq!(
            c.next("claude", "timeout", |_| true),
            Step::To("codex".into())
        );
        assert_eq!(
            c.next("codex", "crashed", |_| true),
            Step::To("gemini".into())
        );
        assert_eq!(
            c.next("gemini", "overloaded", |_| true),
            Step::Exhausted(
                "every agent of the fallback chain failed: claude (timeout), codex (crashed), gemini (overloaded)".into()
            )
        );
    }

    #[test]
    fn skips_busy_agents_and_stays_without_a_chain() {
        let mut c = chain();
        assert_eq!(
            c.next("claude", "rate_limit", |a| a != "codex"),
            Step::To("gemini".into())
        );
        let mut c = chain();
        assert_eq!(c.next("claude", "timeout", |_| false), Step::Stay);
        let mut none = Chain::new("claude", &[]);
        assert_eq!(none.next("claude", "timeout", |_| true), Step::Stay);
    }

    proptest! {
        /// The chain never hands the issue back to an agent that failed on it, nor to the
        /// agent it started with.
        #[test]
        fn never_back_to_a_failed_agent(fails in prop::collection::vec(0usize..4, 1..8)) {
            let names = ["claude", "codex", "gemini", "aider"];
            let mut c = Chain::new("claude", &["codex".into(), "gemini".into(), "aider".into()]);
            for f in fails {
                if let Step::To(to) = c.next(names[f], "timeout", |_| true) {
                    prop_assert!(to != "claude");
                    prop_assert!(!c.failed.iter().any(|(a, _)| *a == to));
                }
            }
        }
    }
}
