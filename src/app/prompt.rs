//! Building the coder prompt for an issue (SPEC §7.1) from the project's files and state.
//!
//! (Interface skeleton: the Context Pack lands with the context work.)

use crate::app::project::Project;
use crate::core::events::Event;
use crate::core::state::FeatureState;

/// What the agent is told about the coordination (SPEC §7.1 `## Coordination`).
#[derive(Debug, Clone, PartialEq)]
pub enum CoordinationContext {
    Solo,
    /// PARALLEL: this agent's role and the other agent's angle and covers.
    Parallel {
        primary: bool,
        other_agent: String,
        other_angle: String,
        other_covers: Vec<String>,
    },
    /// SYNTHESIS, the winner (runs first).
    SynthesisWinner {
        other_agent: String,
    },
    /// SYNTHESIS, the runner-up: builds on the winner's output.
    SynthesisRunnerUp {
        winner: String,
        winner_output: String,
    },
}

/// Who the prompt is for and which attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRequest {
    pub issue: u32,
    pub agent: String,
    pub coordination: CoordinationContext,
    /// 1-based attempt number.
    pub attempt: u32,
    /// Failure output of earlier attempts (newest last).
    pub previous_failures: Vec<String>,
}

/// A built prompt and its `context_injected` event.
#[derive(Debug, Clone)]
pub struct BuiltPrompt {
    pub text: String,
    pub event: Event,
}

/// Builds the prompt for `req` from the project files and `state`.
pub fn build_prompt(project: &Project, state: &FeatureState, req: &PromptRequest) -> BuiltPrompt {
    let task = state.task(req.issue);
    let title = task.map(|t| t.title.as_str()).unwrap_or("");
    let body = task.and_then(|t| t.body.as_deref()).unwrap_or("");
    let text = format!(
        "## Original Request\n\n# {title}\n\n{body}\n\n## Current Task\n\nAttempt {}.\n\n## Acceptance Criteria\n\nTests pass: `{}`\n",
        req.attempt, project.config.tests.command
    );
    let event = Event::ContextInjected {
        issue: req.issue,
        has_claude_md: false,
        summaries_count: 0,
        prompt_bytes: text.len() as u64,
        truncated: Vec::new(),
    };
    BuiltPrompt { text, event }
}
