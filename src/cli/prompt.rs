//! `prompt <feature> --issue N [--agent NAME]`: prints the exact coder prompt `run` would
//! send (text: the prompt alone on stdout; `--json`: `{issue, agent, role, mode, attempt,
//! prompt, prompt_bytes, prompt_tokens, truncated, has_claude_md, summaries_count}`).
//! Notices (the issue is DONE, the agent is not chosen) go to stderr. Records
//! `context_injected` in the event log.

use crate::app::prompt::show_prompt;
use crate::cli::{GlobalArgs, JsonFlag};
use crate::core::events::Event;
use crate::core::feature_id::FeatureId;
use crate::core::prompt::tokens;
use crate::error::CmdResult;
use crate::io::ui::Ui;
use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The feature id (its folder under specs/, e.g. `auth`).
    pub feature: FeatureId,
    /// The issue (its `order` in issues.json).
    #[arg(long, value_name = "N")]
    pub issue: u32,
    /// The agent to build the prompt for (default: the coordination winner).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub json: JsonFlag,
}

pub fn prompt(g: &GlobalArgs, ui: &Ui, a: PromptArgs) -> CmdResult<u8> {
    let project = g.open(ui)?;
    let shown = show_prompt(&project, &a.feature, a.issue, a.agent.as_deref())?;
    for n in &shown.notes {
        ui.info(n);
    }
    let text = &shown.built.text;
    if a.json.json {
        let (has_claude_md, summaries_count, truncated) = match &shown.built.event {
            Event::ContextInjected {
                has_claude_md,
                summaries_count,
                truncated,
                ..
            } => (*has_claude_md, *summaries_count, truncated.clone()),
            _ => (false, 0, Vec::new()),
        };
        ui.json(&json!({
            "issue": shown.issue,
            "agent": shown.agent,
            "role": shown.role,
            "mode": shown.mode,
            "attempt": shown.attempt,
            "prompt": text,
            "prompt_bytes": text.len(),
            "prompt_tokens": tokens(text),
            "truncated": truncated,
            "has_claude_md": has_claude_md,
            "summaries_count": summaries_count,
        }));
    } else {
        ui.out(format_args!("{text}"));
    }
    Ok(0)
}
