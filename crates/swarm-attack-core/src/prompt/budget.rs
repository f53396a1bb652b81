//! Fitting the prompt to `context.max_prompt_tokens` (docs/prompt.md "Budget"): a token is 4
//! Unicode scalar values. Cuts, least important first:
//!
//! 1. module registry entries (least relevant first),
//!    then the decisions so far (oldest first), then the lessons (least close first),
//! 2. summaries of DONE issues that are not this issue's dependencies, oldest first,
//! 3. the tail of the project instructions,
//! 4. summaries of this issue's dependencies (last listed first),
//! 5. the tail of another agent's output (SYNTHESIS),
//! 6. the tail of the original request,
//! 7. everything but Current Task and Acceptance Criteria, with a short note, then without.
//!
//! Current Task and Acceptance Criteria are never cut, so the prompt exceeds the budget only
//! when those two sections alone ([`never_cut_text`]) do.

use super::render::{Rendered, chars, render};
use super::sections::Parts;

/// How the "what was cut" note is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeForm {
    /// A `## Context Left Out` section listing each cut.
    Full,
    /// One short line.
    Short,
    /// None (only when even the short line does not fit).
    None,
}

/// How much of each cuttable part is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cuts {
    pub registry_keep: usize,
    pub decisions_keep: usize,
    pub lessons_keep: usize,
    pub summaries_keep: usize,
    /// Characters.
    pub instructions_keep: usize,
    /// Characters of the other agent's output.
    pub coordination_keep: usize,
    /// Characters of the request text.
    pub request_keep: usize,
    /// Only Current Task and Acceptance Criteria are left.
    pub compact: bool,
    pub notice: NoticeForm,
    /// The budget, for the note.
    pub max_tokens: u64,
}

impl Cuts {
    /// Nothing cut.
    pub fn none(p: &Parts, max_tokens: u64) -> Cuts {
        Cuts {
            registry_keep: p.registry.len(),
            decisions_keep: p.decisions.len(),
            lessons_keep: p.lessons.len(),
            summaries_keep: p.summaries.len(),
            instructions_keep: p.instructions_chars(),
            coordination_keep: p.coordination_chars(),
            request_keep: p.request_chars(),
            compact: false,
            notice: NoticeForm::Full,
            max_tokens,
        }
    }
}

/// The two never-cut sections as they appear when everything else is cut.
pub fn never_cut_text(p: &Parts) -> String {
    format!(
        "## Current Task\n\n{}\n\n## Acceptance Criteria\n\n{}\n",
        p.current_task.trim_end(),
        p.acceptance.trim_end()
    )
}

/// Drops list entries from the end until the text fits or only `floor` entries are left.
fn shrink_list(
    p: &Parts,
    c: &mut Cuts,
    r: &mut Rendered,
    (budget, floor): (usize, usize),
    field: fn(&mut Cuts) -> &mut usize,
    entry_len: &dyn Fn(usize) -> usize,
) {
    loop {
        let n = chars(&r.text);
        if n <= budget || *field(c) <= floor {
            return;
        }
        let mut excess = n - budget;
        while *field(c) > floor && excess > 0 {
            *field(c) -= 1;
            excess = excess.saturating_sub(entry_len(*field(c)) + 1);
        }
        *r = render(p, c);
    }
}

/// Cuts a text part from its tail until the text fits or nothing of it is left.
fn shrink_text(
    p: &Parts,
    c: &mut Cuts,
    r: &mut Rendered,
    budget: usize,
    field: fn(&mut Cuts) -> &mut usize,
) {
    loop {
        let n = chars(&r.text);
        if n <= budget || *field(c) == 0 {
            return;
        }
        let excess = n - budget;
        let keep = field(c);
        *keep = keep.saturating_sub(excess.max(1));
        *r = render(p, c);
    }
}

/// The rendered prompt that fits `budget_chars` if anything does.
pub struct Fitted {
    pub text: String,
    pub truncated: Vec<String>,
    pub summaries_kept: usize,
}

/// Fits the parts into `budget_chars` characters (see the module docs for the order).
pub fn fit(p: &Parts, budget_chars: usize, max_tokens: u64) -> Fitted {
    let mut c = Cuts::none(p, max_tokens);
    let mut r = render(p, &c);
    let registry: fn(&mut Cuts) -> &mut usize = |c| &mut c.registry_keep;
    let summaries: fn(&mut Cuts) -> &mut usize = |c| &mut c.summaries_keep;
    let reg_len = |i: usize| chars(&p.registry[i]);
    let sum_len = |i: usize| chars(&p.summaries[i].1);
    let deps = p.dependency_summaries.min(p.summaries.len());
    shrink_list(p, &mut c, &mut r, (budget_chars, 0), registry, &reg_len);
    let dec_len = |i: usize| chars(&p.decisions[i]);
    let les_len = |i: usize| chars(&p.lessons[i]);
    shrink_list(
        p,
        &mut c,
        &mut r,
        (budget_chars, 0),
        |c| &mut c.decisions_keep,
        &dec_len,
    );
    shrink_list(
        p,
        &mut c,
        &mut r,
        (budget_chars, 0),
        |c| &mut c.lessons_keep,
        &les_len,
    );
    shrink_list(p, &mut c, &mut r, (budget_chars, deps), summaries, &sum_len);
    shrink_text(p, &mut c, &mut r, budget_chars, |c| {
        &mut c.instructions_keep
    });
    shrink_list(p, &mut c, &mut r, (budget_chars, 0), summaries, &sum_len);
    shrink_text(p, &mut c, &mut r, budget_chars, |c| {
        &mut c.coordination_keep
    });
    shrink_text(p, &mut c, &mut r, budget_chars, |c| &mut c.request_keep);
    for step in [NoticeForm::Full, NoticeForm::Short, NoticeForm::None] {
        if chars(&r.text) <= budget_chars {
            break;
        }
        c.compact = true;
        c.notice = step;
        r = render(p, &c);
    }
    Fitted {
        text: r.text,
        truncated: r.truncated,
        summaries_kept: r.summaries_kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::{
        ContextPack, CoordinationContext, DoneIssue, Instructions, IssueInput, RegistryFile,
        TestCommands, build, tokens,
    };
    use crate::registry::Symbol;
    use proptest::prelude::*;

    fn pack(instructions: String, max: u64) -> ContextPack {
        ContextPack {
            issue: IssueInput {
                feature: "auth".into(),
                number: 3,
                title: "Add login".into(),
                body: Some(
                    "Add a login endpoint.\n\n## Acceptance Criteria\n\n- [ ] POST /login returns a token\n- [ ] bad passwords get 401\n"
                        .into(),
                ),
                dependencies: vec![1],
                test_file: Some("tests/login.rs".into()),
                ..Default::default()
            },
            instructions: Some(Instructions {
                source: "CLAUDE.md".into(),
                text: instructions,
            }),
            done: (1..=2)
                .map(|n| DoneIssue {
                    number: n,
                    title: format!("issue {n}"),
                    summary: Some(format!("Summary of {n}.")),
                    files: vec![format!("src/m{n}.rs")],
                    done_at: Some(i64::from(n)),
                })
                .collect(),
            registry: (1..=2)
                .map(|n| RegistryFile {
                    path: format!("src/m{n}.rs"),
                    issue: n,
                    symbols: vec![Symbol {
                        kind: "fn",
                        name: format!("f{n}"),
                    }],
                })
                .collect(),
            agent: "claude".into(),
            agent_angle: None,
            coordination: CoordinationContext::Solo,
            attempt: 1,
            max_attempts: 4,
            previous_failures: vec![],
            analyses: vec![],
            modified_approach: None,
            tests: TestCommands {
                command: "cargo test".into(),
                issue_command: None,
            },
            max_prompt_tokens: max,
            lessons: Vec::new(),
            handoffs: Vec::new(),
        }
    }

    #[test]
    fn two_megabyte_instructions_fit_2000_tokens_with_task_and_criteria_intact() {
        let line = "Always write tests first. Use the repository's error type.\n";
        let big = line.repeat(2 * 1024 * 1024 / line.len() + 1);
        assert!(big.len() >= 2 * 1024 * 1024);
        let pk = pack(big.clone(), 2000);
        let p = build(&pk);
        assert!(tokens(&p.text) <= 2000, "{} tokens", tokens(&p.text));
        let parts = crate::prompt::sections::parts(&pk);
        assert!(
            p.text
                .contains(&format!("## Current Task\n\n{}", parts.current_task))
        );
        assert!(
            p.text
                .contains(&format!("## Acceptance Criteria\n\n{}", parts.acceptance))
        );
        assert!(p.text.contains("- [ ] bad passwords get 401"));
        assert!(p.text.contains("`cargo test tests/login.rs`"));
        let cut = p
            .truncated
            .iter()
            .find(|t| t.starts_with("project instructions (CLAUDE.md): kept "))
            .expect("instructions cut reported");
        assert!(cut.ends_with(&format!(" of {} characters", big.chars().count())));
        assert!(
            p.truncated
                .iter()
                .any(|t| t == "module registry: 2 of 2 files")
        );
        assert!(p.text.contains("## Context Left Out"));
        assert!(p.text.trim_end().ends_with(cut.as_str()));
        // The kept part of the instructions is their beginning.
        assert!(
            p.text
                .contains("From `CLAUDE.md`:\n\nAlways write tests first.")
        );
    }

    #[test]
    fn cuts_follow_the_order_registry_summaries_instructions_request() {
        let mut pk = pack("Be careful with the database.\n".repeat(40), 0);
        pk.registry = (1..=30)
            .map(|n| RegistryFile {
                path: format!("src/module_{n}.rs"),
                issue: 1 + n % 2,
                symbols: vec![Symbol {
                    kind: "fn",
                    name: format!("function_{n}"),
                }],
            })
            .collect();
        let full = build(&pk);
        assert!(full.truncated.is_empty());
        let order = [
            "module registry",
            "summaries",
            "project instructions",
            "dependency summaries",
            "original request",
            "everything",
        ];
        let complete = |t: &str| {
            t == "module registry: 30 of 30 files"
                || t == "summaries: 1 of 1 other done issues (#2)"
                || t.starts_with("project instructions (CLAUDE.md): kept 0 of")
                || t == "dependency summaries: 1 of 1 dependencies (#1)"
                || t.starts_with("original request: kept 0 of")
        };
        let mut seen_first_cut = false;
        for budget in (1..=full.text.chars().count() as u64 / 4).rev().step_by(7) {
            pk.max_prompt_tokens = budget;
            let p = build(&pk);
            let cats: Vec<usize> = p
                .truncated
                .iter()
                .map(|t| order.iter().position(|o| t.starts_with(o)).unwrap())
                .collect();
            // A prefix of the cut order: each category before the last is cut completely.
            assert_eq!(
                cats,
                (0..cats.len()).collect::<Vec<_>>(),
                "{:?}",
                p.truncated
            );
            for t in &p.truncated[..p.truncated.len().saturating_sub(1)] {
                assert!(
                    complete(t) || t.starts_with("everything"),
                    "{t} not complete in {:?}",
                    p.truncated
                );
            }
            if !seen_first_cut && !p.truncated.is_empty() {
                seen_first_cut = true;
                // The first cut is a part of the registry only.
                assert!(
                    p.truncated.len() == 1 && p.truncated[0].starts_with("module registry: "),
                    "{:?}",
                    p.truncated
                );
                assert!(p.truncated[0] != "module registry: 30 of 30 files");
            }
            if p.truncated.iter().any(|t| t.starts_with("summaries: "))
                && !p.truncated.iter().any(|t| t.starts_with("dependency"))
            {
                // The dependency's summary (#1) is kept longest.
                assert!(p.text.contains("- #1 issue 1 (a dependency of this issue)"));
                assert_eq!(p.summaries_count, 1);
            }
        }
        assert!(seen_first_cut);
    }

    #[test]
    fn nothing_cut_means_no_note() {
        let p = build(&pack("Short.".into(), 15000));
        assert!(p.truncated.is_empty());
        assert!(!p.text.contains("Context Left Out"));
        assert_eq!(p.summaries_count, 2);
    }

    #[test]
    fn a_tiny_budget_keeps_only_the_never_cut_sections() {
        let pk = pack("x".repeat(5000), 1);
        let parts = crate::prompt::sections::parts(&pk);
        let p = build(&pk);
        assert_eq!(p.text, never_cut_text(&parts));
        assert!(
            p.truncated
                .contains(&"everything but Current Task and Acceptance Criteria".to_string())
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn prompt_never_exceeds_the_budget_unless_the_never_cut_sections_do(
            instr in "[a-zé\n ]{0,3000}",
            body in "[a-z#\n -]{0,1500}",
            failures in proptest::collection::vec("[a-z`\n ]{0,400}", 0..3),
            done in 0u32..6,
            output in proptest::option::of("[a-z`\n ]{0,2000}"),
            untrusted in any::<bool>(),
            max in 1u64..2500,
        ) {
            let mut pk = pack(instr, max);
            pk.issue.body = Some(body);
            if untrusted {
                pk.issue.github_author = Some(crate::prompt::GithubAuthor { login: "m".into(), association: "NONE".into() });
            }
            pk.attempt = failures.len() as u32 + 1;
            pk.previous_failures = failures;
            pk.done = (1..=done).map(|n| DoneIssue { number: n, title: format!("t{n}"), summary: Some("s ".repeat(n as usize * 20)), files: vec![format!("f{n}.py")], done_at: None }).collect();
            if let Some(o) = output {
                pk.coordination = CoordinationContext::SynthesisRunnerUp { winner: "w".into(), winner_output: o };
            }
            let parts = crate::prompt::sections::parts(&pk);
            let p = build(&pk);
            let budget = (max * 4) as usize;
            if chars(&never_cut_text(&parts)) <= budget {
                prop_assert!(chars(&p.text) <= budget, "{} > {}", chars(&p.text), budget);
            }
            // The never-cut sections are always there, whole.
            prop_assert!(p.text.contains(&never_cut_text(&parts)[..never_cut_text(&parts).len() - 1]));
            prop_assert_eq!(p.truncated.is_empty(), chars(&build(&ContextPack { max_prompt_tokens: 0, ..pk.clone() }).text) <= budget);
        }
    }
}
