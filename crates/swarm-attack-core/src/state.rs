//! The feature state (docs/state.md "The state file"): a compatible superset of the original tool's
//! state file. Unknown keys (including `_signature`) are kept in `extra` and written back.

use crate::stage::{Phase, Stage};
use crate::state_nulls::{LoadedNulls, or_default};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One piece of evidence that an issue is implemented (or already present).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceRecord {
    /// `subject`, `trailers`, `closing_keyword`, `pattern` (git,
    /// docs/git-sync.md "The four rules"), or `tests`, `files` (duplicate detection,
    /// docs/run.md "The flow of one issue").
    pub source: String,
    /// The commit giving the evidence, for git sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// A human-readable detail (the matched text, the test file, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What a task produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outputs {
    #[serde(default, deserialize_with = "or_default")]
    pub files_created: Vec<String>,
    /// The original tool writes `{file: [class, ...]}`; kept as JSON to load any shape.
    #[serde(default = "empty_object")]
    pub classes_defined: Value,
    #[serde(default)]
    pub semantic_summary: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs {
            files_created: Vec::new(),
            classes_defined: empty_object(),
            semantic_summary: None,
            extra: Map::new(),
        }
    }
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// One task: an issue of the feature and its progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub issue_number: u32,
    /// Private to the core: it changes only through the transitions of
    /// [`crate::transition`] (and readiness, the evidence ledger, the greenlight merge);
    /// read it with [`Task::stage`].
    pub(crate) stage: Stage,
    #[serde(default, deserialize_with = "or_default")]
    pub title: String,
    #[serde(default, deserialize_with = "or_default")]
    pub dependencies: Vec<u32>,
    #[serde(default)]
    pub estimated_size: Option<String>,
    #[serde(default)]
    pub business_value_score: Option<f64>,
    #[serde(default)]
    pub technical_risk_score: Option<f64>,
    #[serde(default)]
    pub blocked_reason: Option<String>,
    #[serde(default, deserialize_with = "or_default")]
    pub outputs: Outputs,
    #[serde(default)]
    pub completion_summary: Option<String>,
    #[serde(default)]
    pub parent_issue: Option<u32>,
    #[serde(default, deserialize_with = "or_default")]
    pub child_issues: Vec<u32>,

    // ---- this tool's own fields (omitted when empty, so original files stay clean) ----
    /// The issue body (from issues.json), sanitised when used in a prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "or_default"
    )]
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub automation_type: Option<String>,
    /// The linked GitHub issue number (always written, `null` when unlinked).
    #[serde(default)]
    pub github_issue: Option<u64>,
    /// Files the issue declares (duplicate detection: all exist → already implemented).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "or_default"
    )]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<String>,
    /// The implementing commit (always written, `null` until DONE).
    #[serde(default)]
    pub commit: Option<String>,
    /// The evidence the tool used to decide the task is implemented (always written).
    #[serde(default, deserialize_with = "or_default")]
    pub evidence: Vec<EvidenceRecord>,
    /// Retries used (attempts after the first; always written).
    #[serde(default, deserialize_with = "or_default")]
    pub retries: u32,
    /// Attempts started in total.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// Set when the task is no longer in issues.json (kept, reported, never deleted).
    #[serde(default, skip_serializing_if = "is_false")]
    pub missing_from_issues: bool,
    /// The GitHub body snapshot used for prompts (Action, docs/action.md "State in a workflow").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github_body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github_body_sha256: Option<String>,
    /// The process that holds the task IN_PROGRESS (`pid@host`), for crash recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// An excerpt of the last failure (test output, agent error), for retries and the
    /// blocked status comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
    /// How the task was worked on last (mode, agents), for the status comment and audit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_mode: Option<String>,
    /// The review gate's verdict on the work that landed, with its counted findings
    /// (docs/review.md), for the status comment's `**Review:**` line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    /// The pull request that carries the task's commit (`git.landing: pr`,
    /// docs/github.md "Pull requests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    /// How that pull request ended, once a sync read it: `merged` or `closed` (then
    /// `pr_closed` was recorded); unset while it is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request_state: Option<String>,
    /// The specify gate's score of the issue text (docs/gates.md "The specify gate"), kept per
    /// version of the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specify: Option<crate::gates::specify::SpecifyRecord>,
    /// What the agent whose work landed left for later issues (docs/learning.md "Lessons"),
    /// neutralised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<crate::handoff::Handoff>,
    /// The newest analyses of its failed attempts
    /// (docs/run.md "After a failure: classes, analysis, fallback"), oldest first: fed to the
    /// analyst and, condensed, to the next prompt; "never the same retry twice" reads them.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "or_default"
    )]
    pub failure_analyses: Vec<crate::failure_analysis::Note>,
    /// Dependencies a failure analysis added (`depend`, docs/run.md), kept in
    /// `dependencies` when greenlight rebuilds them from issues.json.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "or_default"
    )]
    pub added_dependencies: Vec<u32>,
    /// Keys this tool does not know, kept as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    /// The task's stage (set only by the core's state machine).
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// A new task in BACKLOG with only the essentials set.
    pub fn new(issue_number: u32, title: impl Into<String>) -> Self {
        Task {
            issue_number,
            stage: Stage::Backlog,
            title: title.into(),
            dependencies: Vec::new(),
            estimated_size: None,
            business_value_score: None,
            technical_risk_score: None,
            blocked_reason: None,
            outputs: Outputs::default(),
            completion_summary: None,
            parent_issue: None,
            child_issues: Vec::new(),
            body: None,
            labels: Vec::new(),
            automation_type: None,
            github_issue: None,
            files: Vec::new(),
            test_file: None,
            commit: None,
            evidence: Vec::new(),
            retries: 0,
            attempts: 0,
            missing_from_issues: false,
            github_body: None,
            github_body_sha256: None,
            owner: None,
            cost_usd: None,
            last_failure: None,
            last_mode: None,
            review: None,
            pull_request: None,
            pull_request_state: None,
            specify: None,
            handoff: None,
            failure_analyses: Vec::new(),
            added_dependencies: Vec::new(),
            extra: Map::new(),
        }
    }

    /// A manual issue (`automation_type: manual`): never dispatched to an agent; it becomes
    /// DONE only through the git rule (docs/github.md "Pull requests").
    pub fn is_manual(&self) -> bool {
        self.automation_type
            .as_deref()
            .is_some_and(|a| a.trim().eq_ignore_ascii_case("manual"))
    }

    /// The semantic summary, from either field.
    pub fn summary(&self) -> Option<&str> {
        self.outputs
            .semantic_summary
            .as_deref()
            .or(self.completion_summary.as_deref())
            .filter(|s| !s.trim().is_empty())
    }
}

/// The whole state of one feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureState {
    pub feature_id: String,
    pub phase: Phase,
    #[serde(default, deserialize_with = "or_default")]
    pub tasks: Vec<Task>,
    #[serde(default)]
    pub current_session: Option<Value>,
    #[serde(default, deserialize_with = "or_default")]
    pub created_at: String,
    #[serde(default, deserialize_with = "or_default")]
    pub updated_at: String,
    #[serde(default, deserialize_with = "or_default")]
    pub cost_total_usd: f64,
    #[serde(default = "empty_object")]
    pub cost_by_phase: Value,
    /// The spend ledger (docs/budgets.md "Limits"), folded from the event log; absent until an
    /// agent ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger: Option<crate::budget::Ledger>,
    /// Keys this tool does not know (e.g. `_signature`), kept as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Where the loaded file had `null` for a field with a default (written back as `null`
    /// while untouched).
    #[serde(skip)]
    pub loaded_nulls: LoadedNulls,
    /// `git.stack` (docs/github.md "Pull requests"), set by whoever loads the state with the
    /// project's config (never stored): an IN_REVIEW dependency counts as met for readiness, and
    /// the dependent starts from that dependency's branch.
    #[serde(skip)]
    pub stack: bool,
}

impl FeatureState {
    /// A fresh state for `feature` created at `now` (RFC 3339).
    pub fn new(feature: &str, now: &str) -> Self {
        FeatureState {
            feature_id: feature.to_string(),
            phase: Phase::ReadyToImplement,
            tasks: Vec::new(),
            current_session: None,
            created_at: now.to_string(),
            updated_at: now.to_string(),
            cost_total_usd: 0.0,
            cost_by_phase: empty_object(),
            ledger: None,
            extra: Map::new(),
            loaded_nulls: LoadedNulls::default(),
            stack: false,
        }
    }

    /// The task of `issue`. Constant or logarithmic time when the tasks are kept in issue
    /// order (as `greenlight` writes them), linear otherwise.
    pub fn task(&self, issue: u32) -> Option<&Task> {
        self.position(issue).map(|i| &self.tasks[i])
    }

    pub fn task_mut(&mut self, issue: u32) -> Option<&mut Task> {
        self.position(issue).map(|i| &mut self.tasks[i])
    }

    /// The index of the task of `issue`: tries where it would be if the issues are numbered
    /// 1..n, then a binary search (a hit is right whatever the order), then a scan.
    fn position(&self, issue: u32) -> Option<usize> {
        let tasks = &self.tasks;
        let guess = (issue as usize).wrapping_sub(1);
        if tasks.get(guess).is_some_and(|t| t.issue_number == issue) {
            return Some(guess);
        }
        match tasks.binary_search_by_key(&issue, |t| t.issue_number) {
            Ok(i) => Some(i),
            _ => tasks.iter().position(|t| t.issue_number == issue),
        }
    }

    /// One warning about the names this tool does not know (unknown stage or phase), naming
    /// each task and name; `None` when every name is known.
    pub fn unknown_names_warning(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Phase::Unknown(p) = &self.phase {
            parts.push(format!("unknown phase \"{p}\""));
        }
        for t in &self.tasks {
            if let Stage::Unknown(s) = &t.stage {
                parts.push(format!("task {} has unknown stage \"{s}\"", t.issue_number));
            }
        }
        (!parts.is_empty()).then(|| {
            format!(
                "{} (kept as written; such tasks are never dispatched)",
                parts.join("; ")
            )
        })
    }

    /// Whether `other` differs from `self` in anything but `updated_at`.
    pub fn differs_from(&self, other: &FeatureState) -> bool {
        if self.updated_at == other.updated_at {
            // the usual case (nothing stamped yet): no copies of two whole states
            return self != other;
        }
        let mut a = self.clone();
        a.updated_at.clear();
        let mut b = other.clone();
        b.updated_at.clear();
        a != b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn original_state_round_trips_unknown_keys() {
        let text = r#"{"feature_id":"auth","phase":"IMPLEMENTING","tasks":[{"issue_number":1,
          "stage":"REVIEWING","title":"t","dependencies":[],"estimated_size":"small",
          "business_value_score":0.5,"technical_risk_score":0.2,"blocked_reason":null,
          "outputs":{"files_created":["a.py"],"classes_defined":{"a.py":["A"]},"semantic_summary":null,"x":1},
          "completion_summary":null,"parent_issue":null,"child_issues":[],"custom":"keep"}],
          "current_session":"s1","created_at":"c","updated_at":"u","cost_total_usd":1.5,
          "cost_by_phase":{"IMPLEMENTING":1.5},"_signature":"abc","future":{"k":[1]}}"#;
        let s: FeatureState = serde_json::from_str(text).unwrap();
        assert_eq!(
            s.extra.get("_signature"),
            Some(&Value::String("abc".into()))
        );
        assert_eq!(
            s.tasks[0].extra.get("custom"),
            Some(&Value::String("keep".into()))
        );
        let w = s.unknown_names_warning().unwrap();
        assert!(w.contains("task 1 has unknown stage \"REVIEWING\""), "{w}");
        let back = serde_json::to_value(&s).unwrap();
        let orig: Value = serde_json::from_str(text).unwrap();
        // every original key comes back unchanged; this tool only adds its own fields
        fn contains(back: &Value, orig: &Value) -> bool {
            match (back, orig) {
                (Value::Object(b), Value::Object(o)) => o
                    .iter()
                    .all(|(k, v)| b.get(k).is_some_and(|bv| contains(bv, v))),
                (Value::Array(b), Value::Array(o)) => {
                    b.len() == o.len() && b.iter().zip(o).all(|(x, y)| contains(x, y))
                }
                _ => back == orig,
            }
        }
        assert!(contains(&back, &orig), "{back}");
        assert_eq!(back["tasks"][0]["retries"], 0);
        assert!(back["tasks"][0]["github_issue"].is_null());
    }
}
