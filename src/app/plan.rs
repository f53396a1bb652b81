//! Agent selection for an issue: proposals from the configured source, then the filter.
//!
//! (Interface skeleton: proposals land with the coordination work.)

use crate::app::project::Project;
use crate::core::coordination::{self, Decision, NamedProposal};
use crate::core::state::Task;

/// The coordination decision for `task` (never fails: fail-open to SOLO).
pub fn decide_for_task(project: &Project, feature: &str, task: &Task) -> Decision {
    let _ = (feature, task);
    let agents = &project.config.agents;
    let proposals: Vec<NamedProposal> = agents
        .iter()
        .map(|a| NamedProposal {
            agent: a.name.clone(),
            source: "heuristic".into(),
            proposal: coordination::Proposal {
                angle: a.angle.clone(),
                confidence: 0.5,
                covers: a.covers.clone(),
                solo_sufficient: true,
                builds_on_other: a.builds_on_other,
            },
        })
        .collect();
    let fallback = agents.first().map(|a| a.name.as_str()).unwrap_or("agent");
    coordination::decide(
        &proposals,
        &project.config.coordination.thresholds,
        fallback,
    )
}
