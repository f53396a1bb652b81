//! Asking the failure analyst (docs/run.md "After a failure: classes, analysis, fallback"):
//! `analysis.agent` (a configured agent's command line) or else `llm.command`, with
//! `SWARM_PURPOSE=failure-analysis`; one re-prompt naming the problem of an invalid answer; still
//! invalid (or the analyst failed) → the rule's plain retry.

use crate::core::failure_analysis::{self, Analysis, Question, Recommendation};
use crate::core::failure_class::Classified;
use crate::core::state::{FeatureState, Task};
use crate::io::llm;
use crate::run::RunContext;
use crate::run::attempt::Failed;
use std::path::Path;

/// Whether an analyst is configured.
pub(crate) fn configured(ctx: &RunContext<'_>) -> bool {
    let c = &ctx.project.config;
    c.analysis.agent.is_some() || c.llm.command.as_ref().is_some_and(|c| !c.is_empty())
}

/// What the analyst is asked about.
pub(crate) struct Asked<'a> {
    pub task: &'a Task,
    pub state: &'a FeatureState,
    pub failed: &'a Failed,
    pub class: Classified,
    pub attempt: u32,
    pub retries_left: u32,
    /// Earlier analyses, one line each.
    pub earlier: &'a [String],
    /// Where an analyst agent runs (the issue's worktree, reset before the next attempt).
    pub worktree: &'a Path,
}

/// The failure text the analyst sees and quotes its evidence from.
pub(crate) fn failure_text(failed: &Failed) -> String {
    if failed.excerpt.trim().is_empty() {
        failed.reason.clone()
    } else {
        format!("{}\n{}", failed.reason, failed.excerpt)
    }
}

/// Asks for an analysis; always returns one (`source: rule` when none was valid).
pub(crate) fn analyse(ctx: &RunContext<'_>, a: &Asked<'_>) -> Analysis {
    let failure = failure_text(a.failed);
    let others: Vec<String> = a
        .state
        .tasks
        .iter()
        .filter(|t| t.issue_number != a.task.issue_number)
        .map(|t| format!("#{} {} [{}]", t.issue_number, t.title.trim(), t.stage()))
        .collect();
    let body = a
        .task
        .github_body
        .as_deref()
        .or(a.task.body.as_deref())
        .unwrap_or("");
    let body = crate::core::prompt::sanitize::sanitize(body);
    let prompt = failure_analysis::prompt(&Question {
        issue: a.task.issue_number,
        title: &a.task.title,
        body: &body,
        attempt: a.attempt,
        retries_left: a.retries_left,
        class: a.class.class.as_str(),
        reason: &a.failed.reason,
        failure: &failure,
        files_changed: &a.failed.files_changed,
        earlier: a.earlier,
        others: &others,
    });
    let save = |name: &str, text: &str| {
        let dir = ctx
            .project
            .paths
            .attempt_dir(&ctx.feature, a.task.issue_number, a.attempt);
        let _ = std::fs::create_dir_all(&dir);
        let _ = crate::io::secrets::write_file(dir.join(name), text.as_bytes());
    };
    save("analysis-prompt.md", &prompt);
    let first = match ask(ctx, a, &prompt) {
        Ok(answer) => answer,
        Err(e) => {
            return Analysis::rule(
                Recommendation::Retry,
                format!("the failure analyst gave no answer ({e}); a plain retry"),
            );
        }
    };
    save("analysis.txt", &first);
    let problem = match failure_analysis::parse(&first, &failure) {
        Ok(analysis) => return analysis,
        Err(p) => p,
    };
    let again = failure_analysis::reprompt(&prompt, &problem);
    let second = ask(ctx, a, &again);
    if let Ok(answer) = &second {
        save("analysis-2.txt", answer);
        if let Ok(analysis) = failure_analysis::parse(answer, &failure) {
            return analysis;
        }
    }
    let why = match second.map(|s| failure_analysis::parse(&s, &failure)) {
        Ok(Err(p)) => p,
        Err(e) => e.to_string(),
        Ok(Ok(_)) => problem,
    };
    Analysis::rule(
        Recommendation::Retry,
        format!("the failure analysis was invalid twice ({why}); a plain retry"),
    )
}

/// One question to the configured analyst.
fn ask(ctx: &RunContext<'_>, a: &Asked<'_>, prompt: &str) -> Result<String, llm::LlmError> {
    let config = &ctx.project.config;
    let agent = config
        .analysis
        .agent
        .as_deref()
        .and_then(|n| config.agents.iter().find(|x| x.name == n));
    let req = llm::LlmRequest {
        agent: agent.map_or("failure-analysis", |x| x.name.as_str()),
        feature: &ctx.feature,
        issue: a.task.issue_number,
        purpose: "failure-analysis",
        prompt,
    };
    let (answer, call) = match agent {
        Some(x) => llm::ask_agent(x, &ctx.project.root, a.worktree, &req),
        None => llm::ask_call(config, &ctx.project.root, &req),
    };
    // the call is charged to the issue (docs/budgets.md)
    let events =
        crate::llm_calls::charged(config, req.agent, req.purpose, req.issue, call.as_ref());
    if let Err(e) = crate::run::record::emit(ctx, events) {
        tracing::warn!(
            "the failure analysis's cost was not recorded: {}",
            e.message
        );
    }
    answer
}
