//! Lessons (docs/learning.md "Lessons"): the `lessons` command, the lessons a prompt holds, their
//! renewal by a passing attempt, and the sources that write them — all from verified outcomes:
//! `retry_fixed` (an issue DONE after failed attempts; the analyst states the fact, citing only the
//! passing commit's files), `review_fixed` (`review_fixed`, called by the review gate),
//! `pr_feedback` (a pull request closed unmerged with a comment by a user with write access; see
//! `app::pull_reconcile`) and `person` (`lessons add`). Issue text and comments of people without
//! write access never become a lesson.

use crate::core::events::{Event, EventKind};
use crate::core::feature_id::FeatureId;
use crate::core::lessons::{
    self, IssueScope, Lesson, LessonSource, RetryFixedInput, neutral_fact, normalise_path,
};
use crate::core::state::Task;
use crate::error::{CmdResult, CommandError};
use crate::io::{clock, jsonl};
use crate::project::Project;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

/// The lessons file.
pub fn path(project: &Project) -> PathBuf {
    project.root.join(&project.config.lessons.path)
}

/// Every lesson, in file order.
pub fn list(project: &Project) -> Vec<Lesson> {
    jsonl::load_lessons(&path(project))
}

fn timeout(project: &Project) -> Duration {
    Duration::from_secs(project.config.sessions.lock_timeout_seconds)
}

/// A lesson to record (the id and times are set when it is written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLesson {
    pub fact: String,
    pub files: Vec<String>,
    pub labels: Vec<String>,
    pub source: LessonSource,
    pub evidence: String,
    pub author: String,
}

/// Writes a lesson (neutralised) and returns it; a lesson with the same fact, files and
/// labels is renewed instead of written twice.
pub fn record(project: &Project, new: NewLesson) -> CmdResult<Lesson> {
    let fact = neutral_fact(&new.fact);
    if fact.is_empty() {
        return Err(CommandError::input(
            "a lesson needs a fact (a non-empty sentence)",
        ));
    }
    let mut files = Vec::new();
    for f in &new.files {
        let p = normalise_path(f).ok_or_else(|| {
            CommandError::input(format!(
                "`{f}` is not a path inside the repository (a lesson's files are repository paths)"
            ))
        })?;
        if !files.contains(&p) {
            files.push(p);
        }
    }
    let labels: Vec<String> = new
        .labels
        .iter()
        .map(|l| crate::core::prompt::sanitize::sanitize_line(l))
        .filter(|l| !l.is_empty())
        .collect();
    let now = clock::now_rfc3339();
    let lesson = Lesson {
        id: String::new(),
        fact,
        files,
        labels,
        source: new.source,
        evidence: crate::core::handoff::neutral_item(&new.evidence),
        author: crate::core::prompt::sanitize::sanitize_line(&new.author),
        created: now.clone(),
        last_verified: now.clone(),
        uses: 0,
    };
    Ok(jsonl::update_lessons(
        &project.ui,
        &path(project),
        &project.paths.lessons_lock(),
        timeout(project),
        |all| {
            if let Some(same) = all.iter_mut().find(|l| {
                l.fact == lesson.fact && l.files == lesson.files && l.labels == lesson.labels
            }) {
                same.last_verified = now.clone();
                return (true, same.clone());
            }
            let taken: BTreeSet<String> = all.iter().map(|l| l.id.clone()).collect();
            let mut l = lesson;
            l.id = lessons::new_id(
                &format!("{}\n{}\n{}", l.fact, l.files.join(","), l.created),
                &taken,
            );
            all.push(l.clone());
            (true, l)
        },
    )?)
}

/// `lessons forget <id>`: whether a lesson was removed.
pub fn forget(project: &Project, id: &str) -> CmdResult<bool> {
    Ok(jsonl::update_lessons(
        &project.ui,
        &path(project),
        &project.paths.lessons_lock(),
        timeout(project),
        |all| {
            let before = all.len();
            all.retain(|l| l.id != id);
            (all.len() != before, all.len() != before)
        },
    )?)
}

/// The files and labels a task offers for the touch test.
pub(crate) fn scope_of(task: &Task) -> IssueScope {
    let mut files = task.files.clone();
    files.extend(task.test_file.iter().cloned());
    IssueScope {
        files,
        labels: task.labels.clone(),
    }
}

/// The lessons a prompt for `task` holds (docs/learning.md "Lessons"): touching it, citing only
/// files that exist at the start commit (`HEAD` of the repository: the branch tip attempts start
/// from), verified within `ttl_days`; closest first, at most `lessons.max`.
pub(crate) fn select_for(project: &Project, task: &Task) -> Vec<Lesson> {
    let cfg = &project.config.lessons;
    if !cfg.enabled || cfg.max == 0 {
        return Vec::new();
    }
    let all = list(project);
    if all.is_empty() {
        return Vec::new();
    }
    let cited: Vec<String> = all
        .iter()
        .flat_map(|l| l.files.iter().filter_map(|f| normalise_path(f)))
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    let present =
        crate::io::git::commit_info::paths_at(&project.root, "HEAD", &cited).unwrap_or_default();
    let exists = |p: &str| present.contains(p);
    lessons::select(
        &all,
        &scope_of(task),
        &clock::now_rfc3339(),
        cfg.ttl_days,
        cfg.max as usize,
        &exists,
    )
    .into_iter()
    .cloned()
    .collect()
}

/// The `lessons_used` event of a prompt that held `lessons` (none: no event).
pub(crate) fn used_event(issue: u32, attempt: u32, lessons: &[Lesson]) -> Option<Event> {
    (!lessons.is_empty()).then(|| Event::LessonsUsed {
        issue,
        attempt,
        ids: lessons.iter().map(|l| l.id.clone()).collect(),
    })
}

/// The ids the last attempt of `issue` used (its last `lessons_used` in the feature's log).
/// Only the issue's own lines are read, through the process's index of the log
/// ([`crate::io::event_index`]).
pub(crate) fn last_used(project: &Project, feature: &FeatureId, issue: u32) -> Vec<String> {
    let (lines, _) = crate::io::event_index::issue_lines(
        &project.paths.events_file(feature),
        &BTreeSet::from([issue]),
    );
    let mut best: Option<(u64, Vec<String>)> = None;
    let name = EventKind::LessonsUsed.as_str();
    for line in lines.iter().filter(|l| l.contains(name)) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["event"].as_str().and_then(EventKind::parse) != Some(EventKind::LessonsUsed)
            || v["issue"].as_u64() != Some(u64::from(issue))
        {
            continue;
        }
        let attempt = v["attempt"].as_u64().unwrap_or(0);
        let ids: Vec<String> = v["ids"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if best.as_ref().is_none_or(|(a, _)| attempt >= *a) {
            best = Some((attempt, ids));
        }
    }
    best.map(|(_, ids)| ids).unwrap_or_default()
}

/// A passing attempt renews the lessons it used: `last_verified` now, `uses` + 1.
pub(crate) fn renew(project: &Project, ids: &[String]) -> CmdResult<()> {
    if ids.is_empty() || !path(project).exists() {
        return Ok(());
    }
    let now = clock::now_rfc3339();
    Ok(jsonl::update_lessons(
        &project.ui,
        &path(project),
        &project.paths.lessons_lock(),
        timeout(project),
        |all| {
            let mut changed = false;
            for l in all.iter_mut().filter(|l| ids.contains(&l.id)) {
                l.last_verified = now.clone();
                l.uses += 1;
                changed = true;
            }
            (changed, ())
        },
    )?)
}

/// The name `SWARM_AGENT` carries for the `retry_fixed` lesson call.
const LESSON_AGENT: &str = "lesson-analyst";

/// What a DONE issue offers the `retry_fixed` source.
#[derive(Debug, Clone)]
pub(crate) struct RetryFixed<'a> {
    pub feature: &'a FeatureId,
    pub task: &'a Task,
    pub attempt: u32,
    pub failures: &'a [String],
    pub commit: &'a str,
    pub files: &'a [String],
}

/// `retry_fixed`: an issue became DONE after failed attempts. With `llm.command` set, the
/// analyst (`SWARM_PURPOSE=lesson`) states the fact; it is kept only when every file it
/// cites is among the passing commit's files and it does not repeat the issue's own text.
/// Returns the lesson written, or why there is none (logged at `-v`).
pub(crate) fn retry_fixed(project: &Project, r: &RetryFixed<'_>) -> Result<Lesson, String> {
    if !project.config.lessons.enabled {
        return Err("lessons are off".into());
    }
    if r.failures.is_empty() || r.attempt < 2 {
        return Err("no failed attempt before the passing one".into());
    }
    if project.config.llm.command.is_none() {
        return Err("no `llm.command` to state the lesson".into());
    }
    let prompt = lessons::retry_fixed_prompt(&RetryFixedInput {
        feature: r.feature,
        issue: r.task.issue_number,
        attempt: r.attempt,
        failures: r.failures,
        commit: r.commit,
        files: r.files,
    });
    let (answer, call) = crate::io::llm::ask_call(
        &project.config,
        &project.root,
        &crate::io::llm::LlmRequest {
            agent: LESSON_AGENT,
            feature: r.feature,
            issue: r.task.issue_number,
            purpose: "lesson",
            prompt: &prompt,
        },
    );
    // the call is charged to the issue (docs/budgets.md)
    let events = crate::llm_calls::charged(
        &project.config,
        LESSON_AGENT,
        "lesson",
        r.task.issue_number,
        call.as_ref(),
    );
    if let Err(e) = project.append_events(r.feature, &events, false) {
        tracing::warn!("the lesson call's cost was not recorded: {}", e.message);
    }
    let answer = answer.map_err(|e| e.to_string())?;
    let (fact, files) = lessons::parse_retry_fixed(&answer, r.files)?;
    let issue_text = format!(
        "{}\n{}\n{}",
        r.task.title,
        r.task.body.as_deref().unwrap_or(""),
        r.task.github_body.as_deref().unwrap_or("")
    );
    if lessons::repeats_issue_text(&fact, &issue_text) {
        return Err("the stated fact repeats the issue's text, which is never a lesson".into());
    }
    let short: String = r.commit.chars().take(12).collect();
    record(
        project,
        NewLesson {
            fact,
            files,
            labels: Vec::new(),
            source: LessonSource::RetryFixed,
            evidence: format!(
                "{} issue #{} passed in attempt {} (commit {short}) after {} failed",
                r.feature,
                r.task.issue_number,
                r.attempt,
                r.attempt - 1
            ),
            author: "lesson analyst (llm.command)".into(),
        },
    )
    .map_err(|e| e.message)
}

/// A review finding that a later review round no longer reported (the review gate's hook
/// for `review_fixed`, docs/learning.md "Lessons"). Only a *counted* finding (valid, anchored,
/// confident enough) may be passed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FixedFinding<'a> {
    pub feature: &'a FeatureId,
    pub issue: u32,
    pub attempt: u32,
    /// The round that reported it and the round that no longer did.
    pub reported_round: u32,
    pub fixed_round: u32,
    pub reviewer: &'a str,
    pub file: &'a str,
    pub line: u64,
    pub title: &'a str,
    pub severity: &'a str,
}

/// `review_fixed`: records a counted finding the next round no longer reported as a lesson
/// on its file (the finding's title as the fact). Called by the review gate.
pub(crate) fn review_fixed(project: &Project, f: &FixedFinding<'_>) -> CmdResult<Lesson> {
    if !project.config.lessons.enabled {
        return Err(CommandError::input(
            "lessons are off (`lessons.enabled: false`)",
        ));
    }
    record(
        project,
        NewLesson {
            fact: f.title.to_string(),
            files: vec![f.file.to_string()],
            labels: Vec::new(),
            source: LessonSource::ReviewFixed,
            evidence: format!(
                "{} issue #{} attempt {}: {} finding at {}:{} by reviewer {} (round {}) fixed in round {}",
                f.feature,
                f.issue,
                f.attempt,
                f.severity,
                f.file,
                f.line,
                f.reviewer,
                f.reported_round,
                f.fixed_round
            ),
            author: f.reviewer.to_string(),
        },
    )
}

/// Records a `review_fixed` lesson for each counted finding of the previous review round that
/// round `round` of `(issue, attempt, round)` no longer reports (nothing when lessons are
/// off). Called by the review gate after each round.
pub(crate) fn learn_fixed(
    project: &Project,
    feature: &FeatureId,
    (issue, attempt, round): (u32, u32, u32),
    previous: &[crate::core::review::Finding],
    findings: &[crate::core::review::Finding],
) {
    if !project.config.lessons.enabled {
        return;
    }
    for f in crate::core::review::no_longer_reported(previous, findings) {
        let (Some(file), Some(line)) = (f.file.as_deref(), f.line) else {
            continue;
        };
        let fixed = FixedFinding {
            feature,
            issue,
            attempt,
            reported_round: round - 1,
            fixed_round: round,
            reviewer: &f.reviewer,
            file,
            line,
            title: &f.title,
            severity: f.severity.map_or("minor", |s| s.as_str()),
        };
        if let Err(e) = review_fixed(project, &fixed) {
            tracing::warn!("a review_fixed lesson was not recorded: {}", e.message);
        }
    }
}

/// `pr_feedback`: a pull request closed unmerged with a comment by `author`, a user with
/// write access (the caller checked it). The lesson cites the task's files that exist on
/// the branch, and its labels.
pub(crate) fn pr_feedback(
    project: &Project,
    feature: &FeatureId,
    task: &Task,
    pr: u64,
    author: &str,
    comment: &str,
) -> CmdResult<Lesson> {
    // the files of the issue that exist on the branch (a closed pull request's new files
    // never landed, and a lesson citing a missing file is never used)
    let mut files: Vec<String> = task
        .files
        .iter()
        .chain(task.outputs.files_created.iter())
        .filter_map(|f| normalise_path(f))
        .collect();
    files.sort();
    files.dedup();
    let present =
        crate::io::git::commit_info::paths_at(&project.root, "HEAD", &files).unwrap_or_default();
    files.retain(|f| present.contains(f));
    record(
        project,
        NewLesson {
            fact: comment.to_string(),
            files,
            labels: task.labels.clone(),
            source: LessonSource::PrFeedback,
            evidence: format!(
                "pull request #{pr} of {feature} issue #{} was closed without merging; comment by @{author}",
                task.issue_number
            ),
            author: author.to_string(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::ProjectOptions;

    fn project(dir: &std::path::Path) -> Project {
        std::fs::create_dir_all(dir.join(".swarm")).unwrap();
        Project::open(
            &ProjectOptions {
                project_dir: Some(dir.to_path_buf()),
                config_file: None,
            },
            &crate::io::ui::Ui::captured(Default::default()),
        )
        .unwrap()
    }

    #[test]
    fn the_review_gate_hook_records_a_fixed_finding_as_a_lesson_on_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = project(dir.path());
        let auth = crate::fid("auth");
        let f = FixedFinding {
            feature: &auth,
            issue: 3,
            attempt: 1,
            reported_round: 1,
            fixed_round: 2,
            reviewer: "codex",
            file: "src/session.rs",
            line: 42,
            title: "Session tokens must be compared in constant time",
            severity: "major",
        };
        let l = review_fixed(&p, &f).unwrap();
        assert_eq!(l.source, LessonSource::ReviewFixed);
        assert_eq!(l.files, vec!["src/session.rs".to_string()]);
        assert_eq!(l.author, "codex");
        assert!(l.evidence.contains("src/session.rs:42"), "{}", l.evidence);
        assert!(l.evidence.contains("round 2"), "{}", l.evidence);
        // the same finding fixed again renews it, never a second lesson
        review_fixed(&p, &f).unwrap();
        let all = list(&p);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].id, l.id);
        // forget removes it; a second forget finds nothing
        assert!(forget(&p, &l.id).unwrap());
        assert!(!forget(&p, &l.id).unwrap());
    }

    #[test]
    fn renewal_touches_only_the_used_lessons() {
        let dir = tempfile::tempdir().unwrap();
        let p = project(dir.path());
        let new = |fact: &str| NewLesson {
            fact: fact.into(),
            files: vec![],
            labels: vec![],
            source: LessonSource::Person,
            evidence: "test".into(),
            author: "person".into(),
        };
        let a = record(&p, new("fact a")).unwrap();
        let b = record(&p, new("fact b")).unwrap();
        renew(&p, std::slice::from_ref(&a.id)).unwrap();
        let all = list(&p);
        assert_eq!(all.iter().find(|l| l.id == a.id).unwrap().uses, 1);
        assert_eq!(all.iter().find(|l| l.id == b.id).unwrap().uses, 0);
    }
}
