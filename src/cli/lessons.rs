//! `lessons [list | add "<fact>" [--file P]... [--label L]... | forget <id>] [--json]`:
//! inspect and edit the lessons file (docs/learning.md "Lessons").

use crate::app::lessons::{self as lessons_app, NewLesson};
use crate::cli::GlobalArgs;
use crate::cli::output::print_json;
use crate::core::lessons::{Lesson, LessonSource};
use crate::error::{CmdResult, CommandError};
use clap::{Args, Subcommand};
use serde_json::json;

#[derive(Debug, Args)]
#[command(
    after_help = "EXAMPLES:\n  swarm-attack lessons\n  swarm-attack lessons add \"Migrations are generated, never edited by hand\" --file db/migrations/README.md --label db\n  swarm-attack lessons forget L1a2b3c4d\n  swarm-attack lessons list --json"
)]
pub struct LessonsArgs {
    #[command(subcommand)]
    pub command: Option<LessonsCommand>,
    /// Print one JSON document on stdout.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum LessonsCommand {
    /// List the lessons (the default).
    List,
    /// Record a lesson stated by a person (source `person`).
    Add {
        /// The fact, one sentence.
        fact: String,
        /// A repository file the lesson is about (repeatable); it touches issues with that
        /// file or one in the same folder.
        #[arg(long = "file", value_name = "P")]
        files: Vec<String>,
        /// A label the lesson is about (repeatable); it touches issues with that label.
        #[arg(long = "label", value_name = "L")]
        labels: Vec<String>,
    },
    /// Remove a lesson by its id.
    Forget {
        /// The lesson's id (`lessons` lists them).
        id: String,
    },
}

fn lesson_json(l: &Lesson) -> serde_json::Value {
    serde_json::to_value(l).unwrap_or_default()
}

pub fn lessons(g: &GlobalArgs, a: LessonsArgs) -> CmdResult<u8> {
    let project = g.open()?;
    let shown = project.paths.display(&lessons_app::path(&project));
    match a.command.unwrap_or(LessonsCommand::List) {
        LessonsCommand::List => {
            let all = lessons_app::list(&project);
            if a.json {
                print_json(&json!({
                    "path": shown,
                    "enabled": project.config.lessons.enabled,
                    "lessons": all.iter().map(lesson_json).collect::<Vec<_>>(),
                }));
                return Ok(0);
            }
            if all.is_empty() {
                crate::outln!("no lessons in {shown}");
                return Ok(0);
            }
            crate::outln!(
                "{} lesson{} in {shown}{}",
                all.len(),
                if all.len() == 1 { "" } else { "s" },
                if project.config.lessons.enabled {
                    ""
                } else {
                    " (lessons.enabled is false: none is used)"
                }
            );
            for l in &all {
                crate::outln!("  {}  {}", l.id, l.fact);
                let mut meta = vec![format!("source {}", l.source.as_str())];
                if !l.files.is_empty() {
                    meta.push(format!("files {}", l.files.join(", ")));
                }
                if !l.labels.is_empty() {
                    meta.push(format!("labels {}", l.labels.join(", ")));
                }
                meta.push(format!("verified {}", l.last_verified));
                meta.push(format!("uses {}", l.uses));
                crate::outln!("             {}", meta.join(" · "));
                if !l.evidence.is_empty() {
                    crate::outln!("             evidence: {}", l.evidence);
                }
            }
            Ok(0)
        }
        LessonsCommand::Add {
            fact,
            files,
            labels,
        } => {
            let l = lessons_app::record(
                &project,
                NewLesson {
                    fact,
                    files,
                    labels,
                    source: LessonSource::Person,
                    evidence: "stated by a person with `swarm-attack lessons add`".into(),
                    author: "person".into(),
                },
            )?;
            if a.json {
                print_json(&json!({"added": lesson_json(&l)}));
            } else {
                crate::outln!("lesson {} recorded in {shown}: {}", l.id, l.fact);
            }
            Ok(0)
        }
        LessonsCommand::Forget { id } => {
            if !lessons_app::forget(&project, &id)? {
                return Err(
                    CommandError::input(format!("there is no lesson `{id}` in {shown}"))
                        .with_hint("`swarm-attack lessons` lists the lessons and their ids"),
                );
            }
            if a.json {
                print_json(&json!({"forgotten": id}));
            } else {
                crate::outln!("lesson {id} forgotten");
            }
            Ok(0)
        }
    }
}
