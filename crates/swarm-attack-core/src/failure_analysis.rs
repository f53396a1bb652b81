//! The analysis of a `tests` or `review` failure
//! (docs/run.md "After a failure: classes, analysis, fallback"): the analyst's prompt, its answer
//! read strictly (one JSON object, closed enums, evidence quoted verbatim from the failure), the
//! `llm-text` compatibility path (a first line `retry`, `modify approach`, `skip` or `escalate`),
//! the "never the same retry twice" rule and the `depend` check. Pure: text in, decisions out.

use crate::issues::find_cycle;
use crate::stage::Stage;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What the analyst thinks went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Diagnosis {
    TestExpectation,
    ImplementationBug,
    MissingDependency,
    Environment,
    Unclear,
}

impl Diagnosis {
    pub const ALL: [Diagnosis; 5] = [
        Diagnosis::TestExpectation,
        Diagnosis::ImplementationBug,
        Diagnosis::MissingDependency,
        Diagnosis::Environment,
        Diagnosis::Unclear,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Diagnosis::TestExpectation => "test_expectation",
            Diagnosis::ImplementationBug => "implementation_bug",
            Diagnosis::MissingDependency => "missing_dependency",
            Diagnosis::Environment => "environment",
            Diagnosis::Unclear => "unclear",
        }
    }

    fn parse(s: &str) -> Option<Diagnosis> {
        Self::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// What happens next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    Retry,
    Modify,
    Skip,
    Escalate,
    Depend,
}

impl Recommendation {
    pub const ALL: [Recommendation; 5] = [
        Recommendation::Retry,
        Recommendation::Modify,
        Recommendation::Skip,
        Recommendation::Escalate,
        Recommendation::Depend,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Retry => "retry",
            Recommendation::Modify => "modify",
            Recommendation::Skip => "skip",
            Recommendation::Escalate => "escalate",
            Recommendation::Depend => "depend",
        }
    }

    fn parse(s: &str) -> Option<Recommendation> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Another attempt follows (`retry`, `modify`).
    pub fn retries(self) -> bool {
        matches!(self, Recommendation::Retry | Recommendation::Modify)
    }
}

/// Where an analysis came from: the rule of the class, a valid JSON answer, or the
/// first-line compatibility path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    #[serde(rename = "rule")]
    Rule,
    #[serde(rename = "llm")]
    Llm,
    #[serde(rename = "llm-text")]
    LlmText,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Rule => "rule",
            Source::Llm => "llm",
            Source::LlmText => "llm-text",
        }
    }
}

/// A read analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    pub diagnosis: Option<Diagnosis>,
    pub recommendation: Recommendation,
    pub modified_approach: Option<String>,
    pub depends_on: Option<u32>,
    pub reason: String,
    /// The evidence lines that were found in the failure (invented ones are dropped).
    pub evidence: Vec<String>,
    pub source: Source,
}

impl Analysis {
    /// The rule's own analysis (no analyst, or no valid answer).
    pub fn rule(recommendation: Recommendation, reason: impl Into<String>) -> Analysis {
        Analysis {
            diagnosis: None,
            recommendation,
            modified_approach: None,
            depends_on: None,
            reason: reason.into(),
            evidence: Vec::new(),
            source: Source::Rule,
        }
    }
}

/// The longest modified approach, reason and evidence line kept (characters).
const MAX_APPROACH: usize = 2000;
const MAX_REASON: usize = 500;
const MAX_EVIDENCE: usize = 300;
/// A quote shorter than this must be a whole (trimmed) line of the failure.
const MIN_PARTIAL_QUOTE: usize = 12;

fn cut(s: &str, max: usize) -> String {
    s.trim().chars().take(max).collect()
}

/// Reads an analyst's answer. `failure` is the text the analyst was shown as the failure
/// (test output tail, review findings, agent output): every evidence line is checked
/// against it. `Err` names the problem (for the one re-prompt).
pub fn parse(answer: &str, failure: &str) -> Result<Analysis, String> {
    let obj = match crate::llm_proposal::find_object(answer) {
        Ok(o) => o,
        Err(e) if e.starts_with("no JSON object") => {
            return read_text(answer).ok_or_else(|| {
                "no JSON object in the answer (and its first line is not `retry`, `modify approach`, `skip` or `escalate`)".to_string()
            });
        }
        Err(e) => return Err(e),
    };
    read_object(&obj, failure)
}

fn read_object(obj: &Map<String, Value>, failure: &str) -> Result<Analysis, String> {
    let text = |name: &str| -> Result<Option<String>, String> {
        match obj.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("field `{name}` must be a string")),
        }
    };
    let diagnosis = text("diagnosis")?.ok_or("missing field `diagnosis`")?;
    let diagnosis = Diagnosis::parse(diagnosis.trim()).ok_or_else(|| {
        format!(
            "field `diagnosis` must be one of {}",
            Diagnosis::ALL.map(Diagnosis::as_str).join(", ")
        )
    })?;
    let rec = text("recommendation")?.ok_or("missing field `recommendation`")?;
    let recommendation = Recommendation::parse(rec.trim()).ok_or_else(|| {
        format!(
            "field `recommendation` must be one of {}",
            Recommendation::ALL.map(Recommendation::as_str).join(", ")
        )
    })?;
    let reason = text("reason")?.ok_or("missing field `reason`")?;
    let modified_approach = text("modified_approach")?;
    if recommendation == Recommendation::Modify && modified_approach.is_none() {
        return Err("`modified_approach` is required with `recommendation: modify`".into());
    }
    let depends_on = match obj.get("depends_on") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or("field `depends_on` must be an issue number")?,
        ),
    };
    if recommendation == Recommendation::Depend && depends_on.is_none() {
        return Err("`depends_on` is required with `recommendation: depend`".into());
    }
    let quotes = match obj.get("evidence") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .ok_or("field `evidence` must be a list of strings")?,
        None => return Err("missing field `evidence`".into()),
        Some(_) => return Err("field `evidence` must be a list of strings".into()),
    };
    let evidence: Vec<String> = quotes
        .iter()
        .filter(|q| quoted_from(q, failure))
        .map(|q| cut(q, MAX_EVIDENCE))
        .collect();
    if evidence.is_empty() {
        return Err("no line of `evidence` occurs verbatim in the failure output; quote at least one line of it exactly".into());
    }
    Ok(Analysis {
        diagnosis: Some(diagnosis),
        recommendation,
        modified_approach: modified_approach.map(|m| cut(&m, MAX_APPROACH)),
        depends_on: depends_on.filter(|_| recommendation == Recommendation::Depend),
        reason: cut(&reason, MAX_REASON),
        evidence,
        source: Source::Llm,
    })
}

/// Whether `quote` (trimmed) occurs verbatim in `failure`: it is a whole trimmed line of it,
/// or, when at least 12 characters long, part of one line.
pub fn quoted_from(quote: &str, failure: &str) -> bool {
    let q = quote.trim();
    if q.is_empty() || q.contains('\n') {
        return false;
    }
    let partial = q.chars().count() >= MIN_PARTIAL_QUOTE;
    failure
        .lines()
        .map(str::trim)
        .any(|l| l == q || (partial && l.contains(q)))
}

/// The `llm-text` path: an answer without a JSON object whose first non-empty line is
/// `retry`, `modify approach`, `skip` or `escalate` (any case, punctuation after it
/// allowed); the rest of the answer is the reason (and, for `modify approach`, the modified
/// approach).
pub fn read_text(answer: &str) -> Option<Analysis> {
    let mut lines = answer.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    let lower = first.to_lowercase();
    let words: &[(&str, Recommendation)] = &[
        ("modify approach", Recommendation::Modify),
        ("escalate", Recommendation::Escalate),
        ("retry", Recommendation::Retry),
        ("skip", Recommendation::Skip),
    ];
    let (word, rec) = words.iter().find(|(w, _)| {
        lower.starts_with(w)
            && lower[w.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    })?;
    let after_word = first[word.len()..]
        .trim_start_matches(|c: char| c == ':' || c == '-' || c == '.' || c.is_whitespace());
    let mut rest: Vec<&str> = Vec::new();
    if !after_word.is_empty() {
        rest.push(after_word);
    }
    rest.extend(lines);
    let text = rest.join(" ");
    let reason = if text.is_empty() {
        format!("the analyst answered `{word}`")
    } else {
        cut(&text, MAX_REASON)
    };
    Some(Analysis {
        diagnosis: None,
        recommendation: *rec,
        modified_approach: (*rec == Recommendation::Modify).then(|| {
            cut(
                &if text.is_empty() {
                    reason.clone()
                } else {
                    text
                },
                MAX_APPROACH,
            )
        }),
        depends_on: None,
        reason,
        evidence: Vec::new(),
        source: Source::LlmText,
    })
}

/// An earlier analysis of the issue, as kept on the task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub attempt: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub class: String,
    pub kind: String,
    pub diagnosis: Option<Diagnosis>,
    pub recommendation: Recommendation,
    pub source: Source,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_approach: Option<String>,
}

/// The notes a task keeps (the newest).
pub const MAX_NOTES: usize = 10;

impl Note {
    /// One line for a prompt: what was tried and why it failed.
    pub fn line(&self) -> String {
        let who = self
            .agent
            .as_deref()
            .map(|a| format!(" ({a})"))
            .unwrap_or_default();
        let diag = self
            .diagnosis
            .map(|d| format!(", {}", d.as_str()))
            .unwrap_or_default();
        let line = format!(
            "Attempt {}{who}: {}/{}{diag} → {}: {}",
            self.attempt,
            self.class,
            self.kind,
            self.recommendation.as_str(),
            self.reason
        );
        line.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(300)
            .collect()
    }
}

/// Adds `note` to `notes`, keeping the newest [`MAX_NOTES`].
pub fn push_note(notes: &mut Vec<Note>, note: Note) {
    notes.push(note);
    if notes.len() > MAX_NOTES {
        let extra = notes.len() - MAX_NOTES;
        notes.drain(..extra);
    }
}

/// Earlier analyses condensed for the next prompt: the newest `max` lines, oldest first.
pub fn condensed(notes: &[Note], max: usize) -> Vec<String> {
    let from = notes.len().saturating_sub(max);
    notes[from..].iter().map(Note::line).collect()
}

/// "Never the same retry twice": the newest analysis and the one before it gave the same
/// diagnosis, and both a `retry` or `modify` recommendation. Returns the diagnosis.
pub fn same_failure_twice(notes: &[Note]) -> Option<Diagnosis> {
    let [.., before, last] = notes else {
        return None;
    };
    let d = last.diagnosis?;
    (before.diagnosis == Some(d)
        && last.recommendation.retries()
        && before.recommendation.retries())
    .then_some(d)
}

/// Whether issue `issue` may depend on `depends_on`: another issue of the feature, not
/// DONE, and the edge makes no cycle. `tasks` maps every issue to its stage and
/// dependencies. `Err` says why not.
pub fn check_depend(
    issue: u32,
    depends_on: u32,
    tasks: &BTreeMap<u32, (Stage, Vec<u32>)>,
) -> Result<(), String> {
    if depends_on == issue {
        return Err(format!("issue {issue} cannot depend on itself"));
    }
    let Some((stage, _)) = tasks.get(&depends_on) else {
        return Err(format!(
            "issue {depends_on} is not an issue of this feature"
        ));
    };
    if *stage == Stage::Done {
        return Err(format!("issue {depends_on} is already DONE"));
    }
    let mut graph: BTreeMap<u32, Vec<u32>> = tasks
        .iter()
        .map(|(n, (_, deps))| (*n, deps.clone()))
        .collect();
    graph.entry(issue).or_default().push(depends_on);
    if let Some(cycle) = find_cycle(&graph) {
        let path: Vec<String> = cycle.iter().map(|n| n.to_string()).collect();
        return Err(format!(
            "depending on issue {depends_on} makes a cycle ({})",
            path.join(" → ")
        ));
    }
    Ok(())
}

/// What the analyst is told about the failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question<'a> {
    pub issue: u32,
    pub title: &'a str,
    pub body: &'a str,
    pub attempt: u32,
    pub retries_left: u32,
    pub class: &'a str,
    pub reason: &'a str,
    /// The failure output the evidence must be quoted from.
    pub failure: &'a str,
    pub files_changed: &'a [String],
    /// Earlier analyses of this issue, one line each.
    pub earlier: &'a [String],
    /// The other issues of the feature (`#n title [STAGE]`), for `depend`.
    pub others: &'a [String],
}

/// The prompt of `SWARM_PURPOSE=failure-analysis`.
pub fn prompt(q: &Question<'_>) -> String {
    let fence = crate::prompt::sections::fence(q.failure);
    let body: String = q.body.chars().take(4000).collect();
    let mut s = format!(
        "You analyse why an automated coding agent's attempt failed and decide what happens next.\n\n\
         ## Issue #{} — {}\n\n{}\n\n\
         ## Attempt\n\nAttempt {} failed ({} failure); {} retr{} left.\nReason: {}\n\n\
         ## Failure output\n\n{fence}text\n{}\n{fence}\n\n## Files changed\n\n",
        q.issue,
        q.title.trim(),
        body.trim(),
        q.attempt,
        q.class,
        q.retries_left,
        if q.retries_left == 1 { "y" } else { "ies" },
        q.reason.trim(),
        q.failure.trim_end(),
    );
    if q.files_changed.is_empty() {
        s.push_str("(none)\n");
    }
    for f in q.files_changed {
        s.push_str(&format!("- {f}\n"));
    }
    s.push_str("\n## Earlier analyses of this issue\n\n");
    if q.earlier.is_empty() {
        s.push_str("(none)\n");
    }
    for e in q.earlier {
        s.push_str(&format!("- {e}\n"));
    }
    if !q.others.is_empty() {
        s.push_str("\n## Other issues of the feature\n\n");
        for o in q.others {
            s.push_str(&format!("- {o}\n"));
        }
    }
    s.push_str(
        "\n## Your answer\n\n\
         Answer with exactly one JSON object and nothing else:\n\
         {\"diagnosis\": \"test_expectation|implementation_bug|missing_dependency|environment|unclear\", \
         \"recommendation\": \"retry|modify|skip|escalate|depend\", \
         \"modified_approach\": \"<required for modify: what the next attempt must do differently>\", \
         \"depends_on\": <issue number, required for depend>, \
         \"reason\": \"<one sentence>\", \
         \"evidence\": [\"<a line quoted exactly from the failure output>\"]}\n\
         - retry: a small or transient mistake; try again with the failure shown\n\
         - modify: the approach is wrong; say what to do instead\n\
         - skip: the issue cannot or need not be done by an agent\n\
         - escalate: a person must decide (missing access, contradictory requirements)\n\
         - depend: another issue of the feature must be implemented first\n\
         `evidence` must quote at least one line of the failure output exactly.\n",
    );
    s
}

/// The re-prompt after an invalid answer: the prompt again, with the problem named.
pub fn reprompt(prompt: &str, problem: &str) -> String {
    format!(
        "{prompt}\n## Your previous answer was invalid\n\n{problem}. Answer again with exactly one valid JSON object.\n"
    )
}

#[cfg(test)]
mod tests;
