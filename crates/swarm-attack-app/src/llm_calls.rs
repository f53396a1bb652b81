//! What an LLM helper call (`llm.command`, or the agent named in `analysis.agent`) is
//! charged: the failure analyst, the specify gate and the `retry_fixed` lesson each record
//! their call as one `llm_called{issue, agent, purpose, cost_usd, tokens...}`, which the
//! budget ledger folds like an agent run and `audit` and `report` show (docs/budgets.md). A
//! cost the helper did not report is priced from its tokens with `pricing`, else it stays
//! unknown.

use crate::core::config::Config;
use crate::core::events::{AgentFinishedReport, Event};
use crate::io::llm::Call;

/// The record of one call of `agent` (the `SWARM_AGENT` it ran as) for `purpose` on
/// `issue`; none when the helper never ran.
pub(crate) fn charged(
    config: &Config,
    agent: &str,
    purpose: &str,
    issue: u32,
    call: Option<&Call>,
) -> Vec<Event> {
    let Some(call) = call else {
        return Vec::new();
    };
    let priced = crate::ledger::priced_cost(config, agent, &call.report);
    vec![Event::LlmCalled {
        issue,
        agent: agent.to_string(),
        purpose: purpose.to_string(),
        exit_code: call.exit_code,
        duration_ms: call.duration_ms,
        timed_out: call.timed_out,
        cost_usd: call.report.cost_usd.or(priced),
        report: AgentFinishedReport {
            cost_priced: call.report.cost_usd.is_none() && priced.is_some(),
            ..call.report.event_fields()
        },
    }]
}
