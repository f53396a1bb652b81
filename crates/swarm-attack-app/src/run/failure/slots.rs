//! Fallback for the candidates of a PARALLEL / SYNTHESIS attempt
//! (docs/run.md "After a failure: classes, analysis, fallback"): after an attempt in which no
//! candidate passed, each slot whose candidate failed with an `infra` class (timeout, crash,
//! rate limit, ...) is run on the retry by the next agent of its own chain (`agents[].fallback`
//! of the agent the slot started with) that is free — not waiting on a rate limit and not
//! already holding another slot of the pair. A slot whose chain has no free agent left keeps
//! its agent; the issue's retries decide.

use crate::core::events::Event;
use crate::core::failure_class::{Class, Classified};
use crate::core::fallback_chain::{Chain, Step};
use crate::io::config::AgentConfig;
use crate::run::RunContext;

/// The agents holding the slots of a pair, in rank order, and each slot's chain.
pub(in crate::run) struct Slots<'c> {
    pub agents: Vec<&'c AgentConfig>,
    chains: Vec<Chain>,
}

impl<'c> Slots<'c> {
    pub(crate) fn new(agents: Vec<&'c AgentConfig>) -> Slots<'c> {
        let chains = agents
            .iter()
            .map(|a| Chain::new(&a.name, &a.fallback))
            .collect();
        Slots { agents, chains }
    }

    /// Moves each slot whose candidate failed with an `infra` class (`failed`: agent and
    /// class) along its chain; returns the `agent_fallback` events of attempt `attempt`.
    pub(crate) fn after_failure(
        &mut self,
        ctx: &'c RunContext<'_>,
        issue: u32,
        attempt: u32,
        failed: &[(String, Classified)],
    ) -> Vec<Event> {
        let mut events = Vec::new();
        for i in 0..self.agents.len() {
            let from = self.agents[i].name.clone();
            let Some((_, class)) = failed
                .iter()
                .find(|(a, c)| *a == from && c.class == Class::Infra)
            else {
                continue;
            };
            let held: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
            let free = |a: &str| !ctx.governor.agent_waiting(a) && !held.iter().any(|h| h == a);
            let Step::To(to) = self.chains[i].next(&from, class.kind, free) else {
                continue;
            };
            let Some(agent) = ctx.project.config.agents.iter().find(|a| a.name == to) else {
                continue;
            };
            self.agents[i] = agent;
            events.push(Event::AgentFallback {
                issue,
                attempt,
                from,
                to,
                reason: class.kind.to_string(),
            });
        }
        events
    }
}
