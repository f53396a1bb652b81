//! The `heuristic` proposal source (docs/coordination.md "The filter"): offline and deterministic,
//! from an agent's configured `angle` / `covers` / `builds_on_other` against the issue's title,
//! body and labels. The formula (documented in docs/coordination.md):
//!
//! - words are lowercase alphanumeric runs, mapped through a small synonym table
//!   ([`SYNONYMS`]) and a light suffix stemmer ([`stem`]), so `migrations`, `migrating` and
//!   `migrate` meet, and `styles`/`styling` meet `style`;
//! - a `covers` term (e.g. `"css"`, `"database migrations"`) matches a field of the issue
//!   when all of its words (minus stop words) occur in it; its weight is the best field it
//!   matches: a label 1.0, the title 0.7, the body 0.4;
//! - `share = min(1, Σ weights / 1.5)`: one label match gives 0.67, a label and a title
//!   match saturate (a long `covers` list is not penalised for being broad);
//! - `angle_share` = the fraction of the angle's words found anywhere in the issue;
//! - `confidence = min(0.95, 0.35 + 0.55 × share + 0.05 × angle_share)`, rounded to
//!   hundredths; an agent with no match stays at 0.35 (between `low` and `high`);
//! - `solo_sufficient` = confidence ≥ 0.70; `covers` = the configured terms that matched;
//!   `angle` and `builds_on_other` are the configured ones.

use crate::config::AgentConfig;
use crate::coordination::Proposal;
use std::collections::BTreeSet;

/// The issue text the heuristic reads.
#[derive(Debug, Clone, Copy)]
pub struct IssueText<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub labels: &'a [String],
}

/// Base confidence of an agent whose covers match nothing.
pub const BASE: f64 = 0.35;
/// How much the covers share adds at most.
pub const COVERS_WEIGHT: f64 = 0.55;
/// How much the angle share adds at most.
pub const ANGLE_WEIGHT: f64 = 0.05;
/// The ceiling of a heuristic confidence.
pub const MAX: f64 = 0.95;
/// The sum of match weights that saturates the covers share.
pub const SATURATION: f64 = 1.5;
/// Weight of a covers term found in a label, the title, the body.
pub const LABEL_WEIGHT: f64 = 1.0;
pub const TITLE_WEIGHT: f64 = 0.7;
pub const BODY_WEIGHT: f64 = 0.4;
/// A proposal at or above this confidence says it is sufficient alone.
pub const SOLO_SUFFICIENT_AT: f64 = 0.70;

/// Whole-word synonyms mapped before stemming.
pub const SYNONYMS: &[(&str, &str)] = &[
    ("db", "database"),
    ("dbs", "database"),
    ("js", "javascript"),
    ("ts", "typescript"),
    ("k8s", "kubernetes"),
    ("doc", "documentation"),
    ("docs", "documentation"),
    ("stylesheet", "css"),
    ("stylesheets", "css"),
    ("scss", "css"),
    ("sass", "css"),
    ("postgresql", "postgres"),
    ("front", "frontend"),
    ("ux", "ui"),
];

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "the", "of", "for", "with", "to", "in", "on", "or", "by", "at", "is",
];

/// A light suffix stemmer: strips the first matching suffix when at least 3 characters
/// remain (`ss` endings keep their `s`).
pub fn stem(word: &str) -> String {
    const SUFFIXES: &[(&str, &str)] = &[
        ("ions", ""),
        ("ion", ""),
        ("ings", ""),
        ("ing", ""),
        ("ies", "y"),
        ("ers", ""),
        ("er", ""),
        ("es", ""),
        ("ed", ""),
        ("s", ""),
        ("e", ""),
    ];
    for (suffix, replacement) in SUFFIXES {
        if let Some(rest) = word.strip_suffix(suffix) {
            if rest.chars().count() < 3 {
                continue;
            }
            if *suffix == "s" && (rest.ends_with('s') || rest.ends_with('u') || rest.ends_with('i'))
            {
                continue;
            }
            return format!("{rest}{replacement}");
        }
    }
    word.to_string()
}

/// The normalised words of `text`: lowercase alphanumeric runs, synonyms, stems.
pub fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = SYNONYMS
                .iter()
                .find(|(from, _)| *from == w)
                .map(|(_, to)| *to)
                .unwrap_or(w);
            stem(w)
        })
        .collect()
}

/// The content words of a term (stop words removed).
fn content_words(text: &str) -> Vec<String> {
    let stops: BTreeSet<String> = STOP_WORDS.iter().map(|s| stem(s)).collect();
    let lower = text.to_lowercase();
    let raw: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w))
        .collect();
    words(&raw.join(" "))
        .into_iter()
        .filter(|w| !stops.contains(w))
        .collect()
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The heuristic proposal of `agent` for `issue`.
pub fn propose(agent: &AgentConfig, issue: &IssueText<'_>) -> Proposal {
    let label_words: BTreeSet<String> = issue.labels.iter().flat_map(|l| words(l)).collect();
    let title_words: BTreeSet<String> = words(issue.title).into_iter().collect();
    let body_words: BTreeSet<String> = words(issue.body).into_iter().collect();
    let in_all = |set: &BTreeSet<String>, ws: &[String]| ws.iter().all(|w| set.contains(w));

    let mut seen_terms: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut sum = 0.0;
    let mut matched = Vec::new();
    for term in &agent.covers {
        let ws = content_words(term);
        if ws.is_empty() || !seen_terms.insert(ws.clone()) {
            continue;
        }
        let weight = if in_all(&label_words, &ws) {
            LABEL_WEIGHT
        } else if in_all(&title_words, &ws) {
            TITLE_WEIGHT
        } else if in_all(&body_words, &ws) {
            BODY_WEIGHT
        } else {
            0.0
        };
        if weight > 0.0 {
            sum += weight;
            matched.push(term.clone());
        }
    }
    let share = (sum / SATURATION).min(1.0);

    let angle_words: BTreeSet<String> = content_words(&agent.angle).into_iter().collect();
    let angle_share = if angle_words.is_empty() {
        0.0
    } else {
        let found = angle_words
            .iter()
            .filter(|w| {
                label_words.contains(*w) || title_words.contains(*w) || body_words.contains(*w)
            })
            .count();
        found as f64 / angle_words.len() as f64
    };

    let confidence = round2((BASE + COVERS_WEIGHT * share + ANGLE_WEIGHT * angle_share).min(MAX));
    Proposal {
        angle: agent.angle.clone(),
        confidence,
        covers: matched,
        solo_sufficient: confidence >= SOLO_SUFFICIENT_AT,
        builds_on_other: agent.builds_on_other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Thresholds;
    use crate::coordination::{Mode, NamedProposal, decide};

    fn agent(name: &str, angle: &str, covers: &[&str]) -> AgentConfig {
        AgentConfig {
            name: name.into(),
            angle: angle.into(),
            covers: covers.iter().map(|s| s.to_string()).collect(),
            ..AgentConfig::default()
        }
    }

    fn swarm() -> Vec<AgentConfig> {
        vec![
            agent(
                "backend",
                "server-side logic and APIs",
                &["rust", "api", "http", "backend", "auth"],
            ),
            agent(
                "database",
                "data modelling and migrations",
                &[
                    "sql",
                    "database",
                    "migration",
                    "schema",
                    "postgres",
                    "index",
                ],
            ),
            agent(
                "frontend",
                "user interface and styling",
                &["css", "html", "react", "ui", "frontend", "accessibility"],
            ),
        ]
    }

    fn plan(
        title: &str,
        body: &str,
        labels: &[&str],
    ) -> (crate::coordination::Decision, Vec<NamedProposal>) {
        let labels: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
        let issue = IssueText {
            title,
            body,
            labels: &labels,
        };
        let ps: Vec<NamedProposal> = swarm()
            .iter()
            .map(|a| NamedProposal {
                agent: a.name.clone(),
                source: "heuristic".into(),
                proposal: propose(a, &issue),
                learned: None,
            })
            .collect();
        (decide(&ps, &Thresholds::default(), "backend"), ps)
    }

    fn conf(ps: &[NamedProposal], name: &str) -> f64 {
        ps.iter()
            .find(|p| p.agent == name)
            .unwrap()
            .proposal
            .confidence
    }

    #[test]
    fn stemming_meets_word_forms() {
        for (a, b) in [
            ("migration", "migrations"),
            ("migrate", "migrating"),
            ("migration", "migrated"),
            ("style", "styles"),
            ("styling", "style"),
            ("test", "tests"),
            ("class", "classes"),
            ("query", "queries"),
            ("page", "pages"),
            ("database", "databases"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_eq!(stem("css"), "css");
        assert_eq!(stem("user"), "user");
        assert_eq!(
            words("DB-schema, K8s"),
            vec!["databas", "schema", "kubernet"]
        );
    }

    #[test]
    fn a_css_issue_picks_the_frontend_agent() {
        let (d, ps) = plan(
            "Fix button styles on the login page",
            "The submit button overflows on mobile; adjust the CSS so the layout is responsive.",
            &["frontend"],
        );
        assert_eq!(
            (d.mode, d.winner.as_str()),
            (Mode::Solo, "frontend"),
            "{}",
            d.reason
        );
        assert_eq!(d.rule, Some(1), "{}", d.reason);
        assert!(conf(&ps, "frontend") >= conf(&ps, "backend") + 0.31);
        let fe = &ps.iter().find(|p| p.agent == "frontend").unwrap().proposal;
        assert_eq!(fe.covers, vec!["css", "frontend"]);
        assert!(fe.solo_sufficient);
        let be = &ps.iter().find(|p| p.agent == "backend").unwrap().proposal;
        assert_eq!(be.confidence, BASE);
        assert!(be.covers.is_empty() && !be.solo_sufficient);
    }

    #[test]
    fn a_css_issue_without_labels_still_picks_frontend() {
        let (d, ps) = plan(
            "Stylesheet cleanup",
            "Remove unused CSS rules from the landing page and fix html validation warnings.",
            &[],
        );
        assert_eq!(d.winner, "frontend", "{}", d.reason);
        assert!(conf(&ps, "frontend") > conf(&ps, "database"));
    }

    #[test]
    fn a_migration_issue_picks_the_database_agent() {
        let (d, ps) = plan(
            "Add a migration for the sessions table",
            "Create the sessions table with an index on user_id; existing rows need a backfill.",
            &["database"],
        );
        assert_eq!(
            (d.mode, d.winner.as_str()),
            (Mode::Solo, "database"),
            "{}",
            d.reason
        );
        assert!(conf(&ps, "database") >= 0.9, "{ps:?}");
        assert_eq!(conf(&ps, "backend"), BASE);
    }

    #[test]
    fn an_issue_spanning_two_areas_runs_in_parallel() {
        let (d, ps) = plan(
            "REST API endpoint for login backed by a new users table",
            "Add POST /login (http handler) and the users table with its schema.",
            &["backend", "database"],
        );
        assert_eq!(d.mode, Mode::Parallel, "{} {ps:?}", d.reason);
        assert_eq!(d.winner, "backend");
        assert_eq!(d.runner_up.as_deref(), Some("database"));
    }

    #[test]
    fn label_matches_weigh_more_than_body_matches() {
        let a = agent("x", "", &["css"]);
        let labels = vec!["css".to_string()];
        let by_label = propose(
            &a,
            &IssueText {
                title: "t",
                body: "",
                labels: &labels,
            },
        );
        let by_title = propose(
            &a,
            &IssueText {
                title: "css fix",
                body: "",
                labels: &[],
            },
        );
        let by_body = propose(
            &a,
            &IssueText {
                title: "t",
                body: "css",
                labels: &[],
            },
        );
        let none = propose(
            &a,
            &IssueText {
                title: "t",
                body: "b",
                labels: &[],
            },
        );
        assert_eq!(
            [
                by_label.confidence,
                by_title.confidence,
                by_body.confidence,
                none.confidence
            ],
            [0.72, 0.61, 0.5, 0.35]
        );
    }

    #[test]
    fn multi_word_terms_need_all_their_words_and_repeats_count_once() {
        let a = agent(
            "x",
            "",
            &["database migrations", "Database Migration", "the"],
        );
        let p = propose(
            &a,
            &IssueText {
                title: "migrate the database",
                body: "",
                labels: &[],
            },
        );
        assert_eq!(p.covers, vec!["database migrations"]);
        assert_eq!(p.confidence, 0.61);
        let p = propose(
            &a,
            &IssueText {
                title: "database",
                body: "",
                labels: &[],
            },
        );
        assert!(p.covers.is_empty());
    }

    #[test]
    fn confidence_is_capped_and_deterministic() {
        let a = agent("x", "css", &["css", "html", "ui"]);
        let labels = vec!["css".to_string(), "html".to_string(), "ui".to_string()];
        let issue = IssueText {
            title: "css html ui",
            body: "css",
            labels: &labels,
        };
        let p = propose(&a, &issue);
        assert_eq!(p.confidence, MAX);
        assert_eq!(p, propose(&a, &issue));
    }
}
