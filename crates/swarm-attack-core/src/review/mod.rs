//! The review gate's rules (docs/review.md): the reviewer's answer read strictly ([`answer`]),
//! each finding validated against the candidate's diff (severity, confidence, anchoring),
//! `cross` matching of two reviewers' findings, and the verdict — all by code; a reviewer's
//! own words ("LGTM") decide nothing. The prompt is [`prompt`].

pub mod answer;
pub mod prompt;
pub mod pull;

use crate::unified_diff::FileDiff;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A finding's severity; `Critical` is the highest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Major,
    Minor,
}

impl Severity {
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "critical" => Some(Severity::Critical),
            "major" => Some(Severity::Major),
            "minor" => Some(Severity::Minor),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Major => "major",
            Severity::Minor => "minor",
        }
    }

    /// 0 for the highest.
    fn rank(self) -> u8 {
        match self {
            Severity::Critical => 0,
            Severity::Major => 1,
            Severity::Minor => 2,
        }
    }

    /// The higher of two.
    pub fn max(self, other: Severity) -> Severity {
        if other.rank() < self.rank() {
            other
        } else {
            self
        }
    }
}

/// Why a finding is not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    Invalid,
    Unanchored,
    BelowConfidence,
}

/// A finding after validation (what `review_finished.findings` holds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The reviewer(s): `a`, or `a+b` for a matched `cross` pair.
    pub reviewer: String,
    pub severity: Option<Severity>,
    pub confidence: Option<f64>,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub title: String,
    pub body: String,
    pub counted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_reason: Option<DropReason>,
}

impl Finding {
    /// `file:line`.
    pub fn at(&self) -> String {
        format!(
            "{}:{}",
            self.file.as_deref().unwrap_or("?"),
            self.line.map_or("?".to_string(), |l| l.to_string())
        )
    }
}

/// The lines findings may point at: per changed file, whether it was deleted and the line
/// numbers it added or changed in its new version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Anchors {
    files: Vec<(String, bool, Vec<u32>)>,
}

/// How close (in lines) a finding must be to an added or changed line.
pub const ANCHOR_LINES: u64 = 3;

impl Anchors {
    pub fn from_diff(files: &[FileDiff]) -> Anchors {
        Anchors {
            files: files
                .iter()
                .map(|f| {
                    (
                        f.path.clone(),
                        f.deleted,
                        f.added.iter().map(|(n, _)| *n).collect(),
                    )
                })
                .collect(),
        }
    }

    /// Whether `file:line` is a changed file and within [`ANCHOR_LINES`] of an added or
    /// changed line (any line of a deleted file).
    pub fn anchored(&self, file: &str, line: u64) -> bool {
        self.files.iter().any(|(p, deleted, lines)| {
            p == file
                && (*deleted
                    || lines
                        .iter()
                        .any(|l| (*l as u64).abs_diff(line) <= ANCHOR_LINES))
        })
    }

    /// The changed paths.
    pub fn paths(&self) -> Vec<&str> {
        self.files.iter().map(|(p, _, _)| p.as_str()).collect()
    }
}

/// Validates one reviewer's raw findings: invalid ones (not an object, a severity not one
/// of the three, a confidence or line that is not a number, no file) and unanchored ones
/// are dropped; confidences are clamped to [0, 100]. Counting (the threshold) is
/// [`count`]'s, after `cross` matching.
pub fn validate(reviewer: &str, raw: &[Value], anchors: &Anchors) -> Vec<Finding> {
    raw.iter()
        .map(|v| {
            let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            let severity = s("severity").and_then(|x| Severity::parse(&x));
            let confidence = v
                .get("confidence")
                .and_then(Value::as_f64)
                .map(|c| c.clamp(0.0, 100.0));
            let file = s("file");
            let line = v.get("line").and_then(|l| {
                l.as_u64()
                    .or_else(|| l.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
            });
            let mut f = Finding {
                reviewer: reviewer.to_string(),
                severity,
                confidence,
                file: file.clone(),
                line,
                title: one_line(&s("title").unwrap_or_default(), 200),
                body: s("body").unwrap_or_default().chars().take(2000).collect(),
                counted: false,
                drop_reason: None,
            };
            let valid = v.is_object()
                && severity.is_some()
                && confidence.is_some()
                && file.is_some()
                && line.is_some();
            f.drop_reason = if !valid {
                Some(DropReason::Invalid)
            } else if !anchors.anchored(file.as_deref().unwrap_or(""), line.unwrap_or(0)) {
                Some(DropReason::Unanchored)
            } else {
                None
            };
            f
        })
        .collect()
}

fn one_line(s: &str, max: usize) -> String {
    let t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    t.chars().take(max).collect()
}

/// `cross`: merges two reviewers' validated findings. Two valid, anchored findings match
/// when they name the same file and lines at most [`ANCHOR_LINES`] apart; a matched pair
/// becomes one finding with confidence `min(100, max(c1, c2) + 10)` and the higher
/// severity (the title and body of the more confident one). Each finding matches at most
/// one; `a`'s findings are taken in order, each with the nearest unmatched one of `b`.
pub fn cross(a: Vec<Finding>, b: Vec<Finding>) -> Vec<Finding> {
    paired(a, b).into_iter().map(|(f, _)| f).collect()
}

/// [`cross`], then the threshold: a matched pair counts at `min_confidence` (as [`count`]);
/// a valid, anchored finding only one reviewer reported counts only at
/// `max(min_confidence, unmatched_min_confidence)`, else it is dropped `below_confidence`
/// (docs/review.md "A stricter `cross`"). With `unmatched_min_confidence` at or below
/// `min_confidence` this is exactly `cross` then `count`.
pub fn cross_counted(
    a: Vec<Finding>,
    b: Vec<Finding>,
    min_confidence: f64,
    unmatched_min_confidence: f64,
) -> Vec<Finding> {
    let unmatched = unmatched_min_confidence.max(min_confidence);
    paired(a, b)
        .into_iter()
        .map(|(mut f, matched)| {
            count_one(&mut f, if matched { min_confidence } else { unmatched });
            f
        })
        .collect()
}

/// [`cross`]'s merge, each finding with whether it is a matched pair.
fn paired(a: Vec<Finding>, b: Vec<Finding>) -> Vec<(Finding, bool)> {
    let mut b_used = vec![false; b.len()];
    let mut out = Vec::new();
    for fa in a {
        if fa.drop_reason.is_some() {
            out.push((fa, false));
            continue;
        }
        let best = b
            .iter()
            .enumerate()
            .filter(|(j, fb)| {
                !b_used[*j]
                    && fb.drop_reason.is_none()
                    && fb.file == fa.file
                    && fb.line.unwrap_or(0).abs_diff(fa.line.unwrap_or(0)) <= ANCHOR_LINES
            })
            .min_by_key(|(_, fb)| fb.line.unwrap_or(0).abs_diff(fa.line.unwrap_or(0)))
            .map(|(j, _)| j);
        match best {
            Some(j) => {
                b_used[j] = true;
                let fb = &b[j];
                let (ca, cb) = (fa.confidence.unwrap_or(0.0), fb.confidence.unwrap_or(0.0));
                let lead = if cb > ca { fb.clone() } else { fa.clone() };
                let sev = match (fa.severity, fb.severity) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    (x, y) => x.or(y),
                };
                out.push((
                    Finding {
                        reviewer: format!("{}+{}", fa.reviewer, fb.reviewer),
                        severity: sev,
                        confidence: Some((ca.max(cb) + 10.0).min(100.0)),
                        ..lead
                    },
                    true,
                ));
            }
            None => out.push((fa, false)),
        }
    }
    out.extend(
        b.into_iter()
            .enumerate()
            .filter(|(j, _)| !b_used[*j])
            .map(|(_, f)| (f, false)),
    );
    out
}

/// Applies the threshold: a valid, anchored finding with confidence ≥ `min_confidence` is
/// counted; one below is dropped `below_confidence`.
pub fn count(findings: &mut [Finding], min_confidence: f64) {
    for f in findings {
        count_one(f, min_confidence);
    }
}

fn count_one(f: &mut Finding, min_confidence: f64) {
    if f.drop_reason.is_some() {
        f.counted = false;
    } else if f.confidence.unwrap_or(0.0) >= min_confidence {
        f.counted = true;
    } else {
        f.counted = false;
        f.drop_reason = Some(DropReason::BelowConfidence);
    }
}

/// The gate's result on a commit that lands: the status comment's `**Review:**` line, the
/// pull request's body and review, and `report` read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reviewed {
    pub verdict: Verdict,
    /// The status comment's `**Review:**` text.
    pub line: String,
    /// Every finding of the last round (counted or not).
    pub findings: Vec<Finding>,
}

impl Reviewed {
    /// The counted findings, most severe first.
    pub fn counted(&self) -> Vec<&Finding> {
        ranked(&self.findings)
    }
}

/// The review's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    PassWithRisk,
    Fail,
    /// No reviewer gave a valid answer and `on_error: land`.
    Unreviewed,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::PassWithRisk => "pass_with_risk",
            Verdict::Fail => "fail",
            Verdict::Unreviewed => "unreviewed",
        }
    }
}

/// The verdict from the counted findings: `fail` when one has a severity in `block_on`,
/// `pass_with_risk` when any other is counted, `pass` otherwise.
pub fn verdict(findings: &[Finding], block_on: &[Severity]) -> Verdict {
    let counted: Vec<&Finding> = findings.iter().filter(|f| f.counted).collect();
    if counted
        .iter()
        .any(|f| f.severity.is_some_and(|s| block_on.contains(&s)))
    {
        Verdict::Fail
    } else if counted.is_empty() {
        Verdict::Pass
    } else {
        Verdict::PassWithRisk
    }
}

/// The counted findings, most severe first, then the most confident, then by place.
pub fn ranked(findings: &[Finding]) -> Vec<&Finding> {
    let mut v: Vec<&Finding> = findings.iter().filter(|f| f.counted).collect();
    v.sort_by(|a, b| {
        let ra = a.severity.map_or(9, Severity::rank);
        let rb = b.severity.map_or(9, Severity::rank);
        ra.cmp(&rb)
            .then(
                b.confidence
                    .unwrap_or(0.0)
                    .total_cmp(&a.confidence.unwrap_or(0.0)),
            )
            .then(a.at().cmp(&b.at()))
    });
    v
}

/// The counted findings whose severity blocks.
pub fn blocking<'a>(findings: &'a [Finding], block_on: &[Severity]) -> Vec<&'a Finding> {
    ranked(findings)
        .into_iter()
        .filter(|f| f.severity.is_some_and(|s| block_on.contains(&s)))
        .collect()
}

/// The attempt's reason after a last `fail` round:
/// `review: <n> blocking finding(s): <title> (<file>:<line>)`, naming the first by severity,
/// then confidence.
pub fn fail_reason(findings: &[Finding], block_on: &[Severity]) -> String {
    let b = blocking(findings, block_on);
    match b.first() {
        Some(f) => format!(
            "review: {} blocking finding(s): {} ({})",
            b.len(),
            f.title,
            f.at()
        ),
        None => "review: 0 blocking finding(s)".into(),
    }
}

/// The status comment's `**Review:**` text: the verdict, the strategy, and the counted
/// findings (most severe first).
pub fn status_line(verdict: Verdict, strategy: &str, findings: &[Finding]) -> String {
    let counted = ranked(findings);
    let mut s = format!("{} ({strategy})", verdict.as_str());
    if !counted.is_empty() {
        let items: Vec<String> = counted
            .iter()
            .map(|f| {
                format!(
                    "[{}] {} — {}",
                    f.severity.map_or("?", Severity::as_str),
                    f.at(),
                    f.title
                )
            })
            .collect();
        s.push_str(": ");
        s.push_str(&items.join("; "));
    }
    s
}

/// The counted findings as lines for a prompt or a comment:
/// `- [major] src/a.rs:12 — title: body`.
pub fn finding_lines(findings: &[&Finding], body_chars: usize) -> String {
    findings
        .iter()
        .map(|f| {
            let body: String = one_line(&f.body, body_chars);
            format!(
                "- [{}] {} — {}{}",
                f.severity.map_or("?", Severity::as_str),
                f.at(),
                f.title,
                if body.is_empty() {
                    String::new()
                } else {
                    format!(": {body}")
                }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The counted findings of an earlier round that `now` (the next round's valid findings) no
/// longer reports: no finding of `now` names the same file within 3 lines. These are the
/// `review_fixed` lessons' candidates (docs/learning.md "Lessons").
pub fn no_longer_reported<'a>(earlier: &'a [Finding], now: &[Finding]) -> Vec<&'a Finding> {
    earlier
        .iter()
        .filter(|e| e.counted)
        .filter(|e| {
            let (Some(file), Some(line)) = (e.file.as_deref(), e.line) else {
                return false;
            };
            !now.iter().any(|n| {
                n.file.as_deref() == Some(file)
                    && n.line.is_some_and(|l| l.abs_diff(line) <= ANCHOR_LINES)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
