//! PARALLEL and SYNTHESIS execution (SPEC §6, §7): two candidates of one attempt, each an
//! [`attempt::run_attempt`] (agent → verification → commit in its worktree, not landed),
//! and the choice of the one commit that lands.
//!
//! - **PARALLEL**: the winner (`SWARM_ROLE=primary`, in the attempt's worktree) and the
//!   runner-up (`runner-up`, in `issue-<N>-attempt-<k>-<agent>`) run at the same time
//!   (threads), each told the other's angle and covers. Join `first` (default): the first
//!   candidate that passes verification lands; the other one is stopped (its agent's or its
//!   tests' process group killed) and its worktree removed. Join `all`: both run to their
//!   end (each bounded by its timeout); both passed → the smaller diff (fewer changed
//!   lines) lands, a tie goes to the primary, and the convergence score (token Jaccard of
//!   the two diffs' changed lines, [`crate::core::convergence`]) is recorded; one passed →
//!   it lands.
//! - **SYNTHESIS**: the winner runs first (agent, verification, commit); once its result
//!   exists, the runner-up runs in the same worktree on top of it, with the winner's output
//!   (its stdout, plus its verification failure if any) in its prompt; verification after
//!   the runner-up; the one commit holds both contributions. The winner's result not there
//!   within `coordination.synthesis_wait_seconds` → the runner-up starts at once in its own
//!   worktree with PARALLEL context and the pair is joined as PARALLEL (`fallback:
//!   parallel`). The runner-up fails or breaks the tests but the winner's result passed →
//!   the winner's commit lands (`fallback: solo`).
//! - Neither candidate passes → the attempt failed with both failures (fed back to both
//!   agents on the retry). Any error of this machinery → the caller falls back to SOLO
//!   with the winner (`fallback: solo`).
//!
//! Artifacts: `.swarm/runs/<feature>/issue-<N>/attempt-<k>/<agent>/` (prompt.md,
//! agent.stdout, agent.stderr, tests.log, result.json) per candidate, and
//! `attempt-<k>/candidates.json` (the join's record, the same as `issue_done.convergence`).

use crate::app::prompt::{self, PromptRequest};
use crate::app::run::attempt::{self, AttemptResult, AttemptSpec, Candidate, Failed, Passed};
use crate::app::run::claim::Claim;
use crate::app::run::stop::Stop;
use crate::app::run::{Progress, RunContext, record};
use crate::core::convergence;
use crate::core::coordination::{Decision, Mode};
use crate::core::events::Event;
use crate::error::{CmdResult, CommandError};
use crate::io::config::{AgentConfig, JoinStrategy};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The two agents of a PARALLEL / SYNTHESIS decision.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    pub decision: &'a Decision,
    pub primary: &'a AgentConfig,
    pub runner: &'a AgentConfig,
}

/// One attempt's inputs.
pub struct PairAttempt<'a> {
    pub claim: &'a Claim,
    pub attempt: u32,
    pub failures: &'a [String],
    /// The attempt's worktree (the primary's) and the commit it started from.
    pub worktree: &'a Path,
    pub base: &'a str,
    /// `.swarm/runs/<feature>/issue-<N>/attempt-<k>`.
    pub attempt_dir: PathBuf,
}

/// What one attempt of the pair gave.
pub enum PairResult {
    /// This commit (made on `base` in `worktree`) lands.
    Passed { passed: Passed, worktree: PathBuf },
    /// Neither candidate passed.
    Failed(Failed),
}

/// The result, how it was reached (`last_mode`), and the record of the join.
pub struct PairOutcome {
    pub result: PairResult,
    pub executed: String,
    pub convergence: Value,
}

/// One candidate's end.
enum End {
    Result(AttemptResult),
    Error(String),
}

impl End {
    fn passed(&self) -> Option<&Passed> {
        match self {
            End::Result(AttemptResult::Passed(p)) => Some(p),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            End::Result(AttemptResult::Passed(_)) => "passed",
            End::Result(AttemptResult::Failed(_)) => "failed",
            End::Result(AttemptResult::Stopped { .. }) => "stopped",
            End::Error(_) => "error",
        }
    }
    fn reason(&self) -> Option<String> {
        match self {
            End::Result(AttemptResult::Failed(f)) => Some(f.reason.clone()),
            End::Result(AttemptResult::Stopped { .. }) => {
                Some("stopped: the other candidate passed first".into())
            }
            End::Error(e) => Some(e.clone()),
            End::Result(AttemptResult::Passed(_)) => None,
        }
    }
    fn cost(&self) -> Option<f64> {
        match self {
            End::Result(AttemptResult::Passed(p)) => p.cost_usd,
            End::Result(AttemptResult::Failed(f)) => f.cost_usd,
            End::Result(AttemptResult::Stopped { cost_usd }) => *cost_usd,
            End::Error(_) => None,
        }
    }
    /// Takes the events the attempt left for the caller.
    fn take_events(&mut self) -> Vec<Event> {
        match self {
            End::Result(AttemptResult::Passed(p)) => std::mem::take(&mut p.pending_events),
            End::Result(AttemptResult::Failed(f)) => std::mem::take(&mut f.pending_events),
            _ => Vec::new(),
        }
    }
}

/// A candidate about to run.
struct Slot<'a> {
    agent: &'a AgentConfig,
    role: &'static str,
    worktree: PathBuf,
    artifacts: PathBuf,
    stop: Stop,
}

/// The runner-up's own worktree (PARALLEL).
pub fn runner_worktree(ctx: &RunContext<'_>, issue: u32, attempt: u32, agent: &str) -> PathBuf {
    let safe: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    ctx.worktree_path(issue, attempt)
        .with_file_name(format!("issue-{issue}-attempt-{attempt}-{safe}"))
}

/// `agents_selected` for `decision` with a fallback (`to`: `solo` or `parallel`) and why.
pub fn fallback_event(decision: &Decision, issue: u32, to: &str, reason: &str) -> Event {
    let mut ev = decision.event(issue);
    if let Event::AgentsSelected {
        fallback,
        candidates,
        ..
    } = &mut ev
    {
        *fallback = Some(json!({"to": to, "reason": reason}));
        *candidates = Some(candidate_names(decision));
    }
    ev
}

/// `agents_selected` for a two-agent decision (with `candidates`).
pub fn selected_event(decision: &Decision, issue: u32) -> Event {
    let mut ev = decision.event(issue);
    if let Event::AgentsSelected { candidates, .. } = &mut ev {
        *candidates = Some(candidate_names(decision));
    }
    ev
}

fn candidate_names(decision: &Decision) -> Vec<String> {
    let mut v = vec![decision.winner.clone()];
    v.extend(decision.runner_up.clone());
    v
}

/// Runs one attempt of the pair.
/// `slot_free` is called once a candidate passed (the scheduler may start the next issue).
pub fn run_pair(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    match pair.decision.mode {
        Mode::Synthesis => synthesis(ctx, pair, at, slot_free),
        _ => parallel(ctx, pair, at, slot_free),
    }
}

fn prompt_for(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    decision: &Decision,
    agent: &str,
    winner_output: &str,
) -> (String, Event) {
    let built = prompt::build_prompt(
        ctx.project,
        &at.claim.state,
        &PromptRequest {
            issue: at.claim.issue,
            agent: agent.to_string(),
            coordination: prompt::coordination_for(decision, agent, winner_output),
            attempt: at.attempt,
            previous_failures: at.failures.to_vec(),
        },
    );
    (built.text, built.event)
}

/// Runs a candidate (in the calling thread); errors and panics become [`End::Error`].
fn run_slot(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    slot: &Slot<'_>,
    prompt: String,
    pre_events: Vec<Event>,
    mode: &str,
) -> End {
    let task = &at.claim.task;
    ctx.report(Progress::AgentStarted {
        issue: at.claim.issue,
        agent: slot.agent.name.clone(),
        mode: format!("{mode}, {}", slot.role),
        attempt: at.attempt,
    });
    let spec = AttemptSpec {
        issue: at.claim.issue,
        attempt: at.attempt,
        title: &task.title,
        github_issue: task.github_issue,
        test_file: task.test_file.as_deref(),
        worktree: &slot.worktree,
        base: at.base,
        artifacts: slot.artifacts.clone(),
        stop: Some(&slot.stop),
        tag_agent: true,
    };
    let cand = Candidate {
        agent: slot.agent,
        role: slot.role,
        prompt,
        pre_events,
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        attempt::run_attempt(ctx, &spec, cand)
    }));
    match r {
        Ok(Ok(res)) => End::Result(res),
        Ok(Err(e)) => End::Error(format!(
            "agent `{}`'s attempt failed: {}",
            slot.agent.name, e.message
        )),
        Err(_) => End::Error(format!("agent `{}`'s attempt panicked", slot.agent.name)),
    }
}

fn add_runner_worktree(
    ctx: &RunContext<'_>,
    at: &PairAttempt<'_>,
    agent: &str,
) -> CmdResult<PathBuf> {
    let path = runner_worktree(ctx, at.claim.issue, at.attempt, agent);
    ctx.git.add_worktree(&path, at.base).map_err(|e| {
        CommandError::internal(format!(
            "could not create the runner-up's worktree for issue {}: {e}",
            at.claim.issue
        ))
    })?;
    Ok(path)
}

/// Queues a worktree for removal (after the issue's result is reported).
fn discard_worktree(ctx: &RunContext<'_>, path: PathBuf) {
    match ctx.pending_removals.lock() {
        Ok(mut v) => v.push(path),
        Err(_) => ctx.git.remove_worktree(&path),
    }
}

fn parallel(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let runner_wt = add_runner_worktree(ctx, &at, &pair.runner.name)?;
    let slots = [
        Slot {
            agent: pair.primary,
            role: "primary",
            worktree: at.worktree.to_path_buf(),
            artifacts: at.attempt_dir.join(&pair.primary.name),
            stop: Stop::new(),
        },
        Slot {
            agent: pair.runner,
            role: "runner-up",
            worktree: runner_wt.clone(),
            artifacts: at.attempt_dir.join(&pair.runner.name),
            stop: Stop::new(),
        },
    ];
    let join = ctx.project.config.coordination.join;
    let (p0, e0) = prompt_for(ctx, &at, pair.decision, &pair.primary.name, "");
    let (p1, e1) = prompt_for(ctx, &at, pair.decision, &pair.runner.name, "");
    let pre0 = vec![e0];
    let mode = "PARALLEL";
    let (tx, rx) = mpsc::channel::<(usize, End)>();
    let (ends, first) = std::thread::scope(|scope| {
        let at = &at;
        for (i, (prompt, pre)) in [(p0, pre0), (p1, vec![e1])].into_iter().enumerate() {
            let tx = tx.clone();
            let slot = &slots[i];
            scope.spawn(move || {
                let end = run_slot(ctx, at, slot, prompt, pre, mode);
                let _ = tx.send((i, end));
            });
        }
        drop(tx);
        collect(ctx, &slots, &rx, join, [None, None], slot_free)
    });
    let outcome = decide_parallel(ctx, pair, &at, &slots, ends, first, join, None);
    discard_worktree(ctx, runner_wt);
    outcome
}

/// Waits for the outstanding candidates; with join `first`, the first that passes stops
/// the other. Returns both ends and the index of the first to pass (join `first`).
fn collect(
    ctx: &RunContext<'_>,
    slots: &[Slot<'_>; 2],
    rx: &mpsc::Receiver<(usize, End)>,
    join: JoinStrategy,
    mut ends: [Option<End>; 2],
    slot_free: &dyn Fn(),
) -> ([End; 2], Option<usize>) {
    let mut first = None;
    let on_end = |i: usize, end: &mut End, first: &mut Option<usize>| {
        let _ = record::emit(ctx, end.take_events());
        if end.passed().is_some() && first.is_none() {
            *first = Some(i);
            slot_free();
            if join == JoinStrategy::First {
                slots[1 - i].stop.stop();
            }
        }
    };
    for (i, e) in ends.iter_mut().enumerate() {
        if let Some(e) = e {
            on_end(i, e, &mut first);
        }
    }
    while ends.iter().any(Option::is_none) {
        let Ok((i, mut end)) = rx.recv() else {
            break;
        };
        on_end(i, &mut end, &mut first);
        ends[i] = Some(end);
    }
    let [a, b] = ends;
    let lost = || End::Error("the candidate's thread ended without a result".into());
    ([a.unwrap_or_else(lost), b.unwrap_or_else(lost)], first)
}

/// The changed lines of a candidate's commit and its diff text.
fn diff_of(ctx: &RunContext<'_>, base: &str, commit: &str) -> (String, usize) {
    let text = ctx
        .git
        .run(&ctx.git.root, &["diff", "--no-color", base, commit], b"")
        .unwrap_or_default();
    let n = convergence::changed_lines(&text).len();
    (text, n)
}

fn candidate_record(slot: &Slot<'_>, end: &End, diff_lines: Option<usize>) -> Value {
    let mut v = json!({
        "agent": slot.agent.name,
        "role": slot.role,
        "result": end.word(),
    });
    if let Some(r) = end.reason() {
        v["reason"] = json!(r);
    }
    if let Some(p) = end.passed() {
        let mut files = p.files_created.clone();
        files.extend(p.files_modified.iter().cloned());
        v["files"] = json!(files);
        v["commit"] = json!(p.commit);
    }
    if let Some(n) = diff_lines {
        v["changed_lines"] = json!(n);
    }
    v
}

/// Both candidates failed: one failure with both reasons and excerpts.
fn combined_failure(slots: &[Slot<'_>; 2], ends: &[End; 2]) -> Failed {
    let mut reasons = Vec::new();
    let mut excerpts = Vec::new();
    let mut agent_failure = true;
    let mut cost = None;
    for (slot, end) in slots.iter().zip(ends) {
        let name = &slot.agent.name;
        reasons.push(format!(
            "{name}: {}",
            end.reason().unwrap_or_else(|| "no result".into())
        ));
        cost = record::sum_cost(cost, end.cost());
        match end {
            End::Result(AttemptResult::Failed(f)) => {
                agent_failure &= f.agent_failure;
                if !f.excerpt.trim().is_empty() {
                    excerpts.push(format!("[{name}, {}]\n{}", slot.role, f.excerpt));
                }
            }
            _ => agent_failure = false,
        }
    }
    Failed {
        reason: format!("neither candidate passed ({})", reasons.join("; ")),
        excerpt: excerpts.join("\n\n"),
        agent_failure,
        cost_usd: cost,
        pending_events: Vec::new(),
    }
}

fn save_candidates(at: &PairAttempt<'_>, record: &Value) {
    let _ = std::fs::create_dir_all(&at.attempt_dir);
    let _ = std::fs::write(
        at.attempt_dir.join("candidates.json"),
        serde_json::to_vec_pretty(record).unwrap_or_default(),
    );
}

#[allow(clippy::too_many_arguments)]
fn decide_parallel(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &[Slot<'_>; 2],
    ends: [End; 2],
    first: Option<usize>,
    join: JoinStrategy,
    fallback: Option<&str>,
) -> CmdResult<PairOutcome> {
    let join_word = match join {
        JoinStrategy::First => "first",
        JoinStrategy::All => "all",
    };
    let passing: Vec<usize> = (0..2).filter(|i| ends[*i].passed().is_some()).collect();
    let mut diff_lines = [None, None];
    let mut score = None;
    let chosen = match (join, passing.as_slice()) {
        (_, []) => None,
        (JoinStrategy::First, _) => first.or_else(|| passing.first().copied()),
        (JoinStrategy::All, [only]) => Some(*only),
        (JoinStrategy::All, _) => {
            let (d0, n0) = diff_of(
                ctx,
                at.base,
                &ends[0]
                    .passed()
                    .map(|p| p.commit.clone())
                    .unwrap_or_default(),
            );
            let (d1, n1) = diff_of(
                ctx,
                at.base,
                &ends[1]
                    .passed()
                    .map(|p| p.commit.clone())
                    .unwrap_or_default(),
            );
            diff_lines = [Some(n0), Some(n1)];
            score = Some(convergence::score(&d0, &d1));
            Some(convergence::pick(n0, n1))
        }
    };
    let mut record = json!({
        "mode": pair.decision.mode.as_str(),
        "join": join_word,
        "winner": chosen.map(|i| slots[i].agent.name.clone()),
        "candidates": [
            candidate_record(&slots[0], &ends[0], diff_lines[0]),
            candidate_record(&slots[1], &ends[1], diff_lines[1]),
        ],
    });
    if let Some(s) = score {
        record["score"] = json!(s);
        record["pick"] = json!("smaller diff (fewer changed lines), then the primary");
    }
    if let Some(f) = fallback {
        record["fallback"] = json!({"to": "parallel", "reason": f});
    }
    save_candidates(at, &record);
    let who = format!("{} + {}", pair.primary.name, pair.runner.name);
    let prefix = match fallback {
        Some(_) => format!(
            "SYNTHESIS {} then {} → fallback parallel (join {join_word})",
            pair.primary.name, pair.runner.name
        ),
        None => format!("PARALLEL {who} (join {join_word})"),
    };
    let [e0, e1] = ends;
    let mut ends = [Some(e0), Some(e1)];
    match chosen {
        Some(i) => {
            let Some(End::Result(AttemptResult::Passed(p))) = ends[i].take() else {
                return Err(CommandError::internal("the chosen candidate has no result"));
            };
            let mut cost = p.cost_usd;
            if let Some(other) = &ends[1 - i] {
                cost = record::sum_cost(cost, other.cost());
            }
            let passed = Passed {
                cost_usd: cost,
                ..p
            };
            Ok(PairOutcome {
                result: PairResult::Passed {
                    passed,
                    worktree: slots[i].worktree.clone(),
                },
                executed: format!("{prefix}: {}'s result landed", slots[i].agent.name),
                convergence: record,
            })
        }
        None => {
            let [a, b] = ends;
            let ends = [
                a.unwrap_or(End::Error("no result".into())),
                b.unwrap_or(End::Error("no result".into())),
            ];
            Ok(PairOutcome {
                result: PairResult::Failed(combined_failure(slots, &ends)),
                executed: format!("{prefix}: neither passed"),
                convergence: record,
            })
        }
    }
}

/// The winner's output for the runner-up's prompt: its stdout, and how its verification
/// went when it failed.
fn winner_output(dir: &Path, end: &End) -> String {
    let stdout = std::fs::read_to_string(dir.join("agent.stdout")).unwrap_or_default();
    let mut out = stdout.trim_end().to_string();
    if out.is_empty() {
        out = "(the agent printed nothing)".into();
    }
    if let Some(r) = end.reason() {
        out.push_str(&format!(
            "\n\n(Its result did not pass: {r}. Its changes, if any, are in your worktree.)"
        ));
    }
    out
}

fn synthesis(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: PairAttempt<'_>,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let issue = at.claim.issue;
    let wait = Duration::from_secs(ctx.project.config.coordination.synthesis_wait_seconds);
    let mut slots = [
        Slot {
            agent: pair.primary,
            role: "primary",
            worktree: at.worktree.to_path_buf(),
            artifacts: at.attempt_dir.join(&pair.primary.name),
            stop: Stop::new(),
        },
        Slot {
            agent: pair.runner,
            role: "runner-up",
            worktree: at.worktree.to_path_buf(),
            artifacts: at.attempt_dir.join(&pair.runner.name),
            stop: Stop::new(),
        },
    ];
    let (p0, e0) = prompt_for(ctx, &at, pair.decision, &pair.primary.name, "");
    let pre0 = vec![e0];
    let (tx, rx) = mpsc::channel::<(usize, End)>();
    let mut runner_wt = None;
    let flow = std::thread::scope(|scope| -> CmdResult<SynthesisFlow> {
        let at_ref = &at;
        let slot0 = &slots[0];
        let tx0 = tx.clone();
        scope.spawn(move || {
            let end = run_slot(ctx, at_ref, slot0, p0, pre0, "SYNTHESIS");
            let _ = tx0.send((0, end));
        });
        match rx.recv_timeout(wait) {
            Ok((_, end)) => Ok(Ok(end)),
            Err(_) => {
                // the winner's result is not there in time: the runner-up starts now, in
                // its own worktree, with PARALLEL context
                let reason = format!(
                    "the winner's result was not there within coordination.synthesis_wait_seconds ({} s); the runner-up ran with PARALLEL context",
                    wait.as_secs()
                );
                record::emit(
                    ctx,
                    vec![fallback_event(pair.decision, issue, "parallel", &reason)],
                )?;
                let wt = add_runner_worktree(ctx, at_ref, &pair.runner.name);
                let wt = match wt {
                    Ok(w) => w,
                    Err(e) => {
                        // no second worktree: the winner alone (SOLO)
                        let end = rx.recv().map(|(_, e)| e).unwrap_or(End::Error(
                            "the winner's thread ended without a result".into(),
                        ));
                        let why = format!("{}; SOLO with the winner", e.message);
                        record::emit(
                            ctx,
                            vec![fallback_event(pair.decision, issue, "solo", &why)],
                        )?;
                        return Ok(Err(([end, End::Error(e.message)], None, why)));
                    }
                };
                runner_wt = Some(wt.clone());
                let mut pdec = pair.decision.clone();
                pdec.mode = Mode::Parallel;
                let (p1, e1) = prompt_for(ctx, at_ref, &pdec, &pair.runner.name, "");
                let runner_slot = Slot {
                    agent: pair.runner,
                    role: "runner-up",
                    worktree: wt,
                    artifacts: at_ref.attempt_dir.join(&pair.runner.name),
                    stop: Stop::new(),
                };
                let tx1 = tx.clone();
                let both = [
                    Slot {
                        agent: pair.primary,
                        role: "primary",
                        worktree: at_ref.worktree.to_path_buf(),
                        artifacts: at_ref.attempt_dir.join(&pair.primary.name),
                        stop: Stop::new(),
                    },
                    runner_slot,
                ];
                // the winner's thread registers its processes with slots[0].stop; a stop
                // of the pair's primary goes through it
                let join = ctx.project.config.coordination.join;
                let (ends, first) = std::thread::scope(|inner| {
                    let s1 = &both[1];
                    inner.spawn(move || {
                        let end = run_slot(ctx, at_ref, s1, p1, vec![e1], "SYNTHESIS → PARALLEL");
                        let _ = tx1.send((1, end));
                    });
                    collect_with_primary_stop(ctx, &both, &slot0.stop, &rx, join, slot_free)
                });
                Ok(Err((ends, first, reason)))
            }
        }
    })?;
    match flow {
        Ok(winner_end) => synthesis_on_top(ctx, pair, &at, &mut slots, winner_end, slot_free),
        Err((ends, first, reason)) => {
            let out = if runner_wt.is_some() {
                slots[1].worktree = runner_wt.clone().unwrap_or_default();
                decide_parallel(
                    ctx,
                    pair,
                    &at,
                    &slots,
                    ends,
                    first,
                    ctx.project.config.coordination.join,
                    Some(&reason),
                )
            } else {
                solo_of_winner(ctx, pair, &at, &slots, ends, &reason, slot_free)
            };
            if let Some(w) = runner_wt {
                discard_worktree(ctx, w);
            }
            out
        }
    }
}

/// How SYNTHESIS went on: the winner's result in time (`Ok`), or the pair joined after the
/// wait timed out (both ends, the first to pass, the fallback's reason).
type SynthesisFlow = Result<End, ([End; 2], Option<usize>, String)>;

/// Like [`collect`] for a pair whose primary registered with `primary_stop`.
fn collect_with_primary_stop(
    ctx: &RunContext<'_>,
    slots: &[Slot<'_>; 2],
    primary_stop: &Stop,
    rx: &mpsc::Receiver<(usize, End)>,
    join: JoinStrategy,
    slot_free: &dyn Fn(),
) -> ([End; 2], Option<usize>) {
    let mut first = None;
    let mut ends: [Option<End>; 2] = [None, None];
    while ends.iter().any(Option::is_none) {
        let Ok((i, mut end)) = rx.recv() else {
            break;
        };
        let _ = record::emit(ctx, end.take_events());
        if end.passed().is_some() && first.is_none() {
            first = Some(i);
            slot_free();
            if join == JoinStrategy::First {
                if i == 0 {
                    slots[1].stop.stop();
                } else {
                    primary_stop.stop();
                }
            }
        }
        ends[i] = Some(end);
    }
    let [a, b] = ends;
    let lost = || End::Error("the candidate's thread ended without a result".into());
    ([a.unwrap_or_else(lost), b.unwrap_or_else(lost)], first)
}

/// The winner alone (the runner-up could not run).
fn solo_of_winner(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &[Slot<'_>; 2],
    ends: [End; 2],
    reason: &str,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let [mut w, r] = ends;
    let _ = record::emit(ctx, w.take_events());
    let record = json!({
        "mode": pair.decision.mode.as_str(),
        "winner": w.passed().map(|_| pair.primary.name.clone()),
        "candidates": [candidate_record(&slots[0], &w, None), candidate_record(&slots[1], &r, None)],
        "fallback": {"to": "solo", "reason": reason},
    });
    save_candidates(at, &record);
    let executed = format!(
        "SYNTHESIS {} then {} → fallback solo",
        pair.primary.name, pair.runner.name
    );
    let result = match w {
        End::Result(AttemptResult::Passed(p)) => {
            slot_free();
            PairResult::Passed {
                passed: p,
                worktree: slots[0].worktree.clone(),
            }
        }
        other => PairResult::Failed(combined_failure(slots, &[other, r])),
    };
    Ok(PairOutcome {
        result,
        executed,
        convergence: record,
    })
}

/// SYNTHESIS proper: the runner-up on top of the winner's result, in the same worktree.
fn synthesis_on_top(
    ctx: &RunContext<'_>,
    pair: Pair<'_>,
    at: &PairAttempt<'_>,
    slots: &mut [Slot<'_>; 2],
    mut winner: End,
    slot_free: &dyn Fn(),
) -> CmdResult<PairOutcome> {
    let issue = at.claim.issue;
    let _ = record::emit(ctx, winner.take_events());
    let output = winner_output(&slots[0].artifacts, &winner);
    let (p1, e1) = prompt_for(ctx, at, pair.decision, &pair.runner.name, &output);
    let mut runner = run_slot(ctx, at, &slots[1], p1, vec![e1], "SYNTHESIS");
    let _ = record::emit(ctx, runner.take_events());
    let winner_commit = winner.passed().map(|p| p.commit.clone());
    // what the runner-up added on top of the winner
    let runner_files: Option<Vec<String>> = match (&winner_commit, runner.passed()) {
        (Some(c1), Some(p2)) => ctx
            .git
            .run(&ctx.git.root, &["diff", "--name-only", c1, &p2.commit], b"")
            .ok()
            .map(|s| s.lines().map(str::to_string).collect()),
        _ => None,
    };
    let mut rec1 = candidate_record(&slots[1], &runner, None);
    if let Some(f) = &runner_files {
        rec1["added_files"] = json!(f);
    }
    let mut record = json!({
        "mode": "SYNTHESIS",
        "candidates": [candidate_record(&slots[0], &winner, None), rec1],
    });
    let name0 = &pair.primary.name;
    let name1 = &pair.runner.name;
    let total_cost = record::sum_cost(winner.cost(), runner.cost());
    let result;
    let executed;
    match (winner, runner) {
        (w, End::Result(AttemptResult::Passed(p2))) => {
            record["winner"] = json!(format!("{name0}+{name1}"));
            record["landed"] = json!("both contributions");
            slot_free();
            executed = format!("SYNTHESIS {name0} then {name1}: both contributions landed");
            let _ = w;
            result = PairResult::Passed {
                passed: Passed {
                    cost_usd: total_cost,
                    ..p2
                },
                worktree: slots[1].worktree.clone(),
            };
        }
        (End::Result(AttemptResult::Passed(p1)), r) => {
            let why = format!(
                "the runner-up `{name1}` did not pass ({}); the winner's verified result lands",
                r.reason().unwrap_or_default()
            );
            record::emit(
                ctx,
                vec![fallback_event(pair.decision, issue, "solo", &why)],
            )?;
            record["winner"] = json!(name0);
            record["fallback"] = json!({"to": "solo", "reason": why});
            // back to the winner's commit (the runner-up's changes are discarded)
            ctx.git
                .run(
                    &slots[0].worktree,
                    &["reset", "-q", "--hard", &p1.commit],
                    b"",
                )
                .and_then(|_| ctx.git.run(&slots[0].worktree, &["clean", "-fdq"], b""))
                .map_err(|e| CommandError::internal(e.to_string()))?;
            slot_free();
            executed = format!(
                "SYNTHESIS {name0} then {name1} → fallback solo: {name0}'s result landed ({name1} did not pass)"
            );
            result = PairResult::Passed {
                passed: Passed {
                    cost_usd: total_cost,
                    ..p1
                },
                worktree: slots[0].worktree.clone(),
            };
        }
        (w, r) => {
            record["winner"] = Value::Null;
            executed = format!("SYNTHESIS {name0} then {name1}: neither passed");
            result = PairResult::Failed(combined_failure(slots, &[w, r]));
        }
    }
    save_candidates(at, &record);
    Ok(PairOutcome {
        result,
        executed,
        convergence: record,
    })
}
