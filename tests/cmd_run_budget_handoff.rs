//! The remaining budget handed to the agents (docs/budgets.md "Limits"): a Claude-preset agent gets
//! `--max-budget-usd <what remains of the issue's budget>` and `--max-turns`; every agent's
//! timeout is scaled to the remaining `issue_minutes`; an agent that reports only tokens
//! (Codex `--json`) is priced with `pricing` — by model, then preset, then agent name —
//! and without a price its cost stays unknown.

use crate::common::agents::Setup;
use serde_json::{Value, json};

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap_or(f64::NAN) * 100.0).round() as i64
}

/// Writes config.yaml with one agent (`agent_yaml`: the lines after `- name: …`) and the
/// setup's test runner.
fn configure(s: &Setup, agent_yaml: &str, extra: &str) {
    // a preset's credentials are checked also when `command` overrides its command line
    // (docs/cli.md "doctor"): the login files of the two presets used here
    for login in [".claude/.credentials.json", ".codex/auth.json"] {
        let p = s.env.home.join(login);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "{}").unwrap();
    }
    let runner = s.env.tmp.path().join("runner.sh");
    let agent = s.env.tmp.path().join("agent.sh");
    s.env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\nagents:\n  - name: fake\n    command: [\"{}\"{agent_yaml}\ntests:\n  command: \"sh {}\"\n  timeout_seconds: 30\n{extra}",
            agent.display(),
            runner.display()
        ),
    );
}

/// Claude's `result` shape, $1.25; the first attempt's check fails, the second passes. The
/// arguments and stdin of each call are kept.
const CLAUDE_LIKE: &str = r#"cat > "$TRACE/stdin.$SWARM_ATTEMPT"
printf '%s\n' "$@" > "$TRACE/argv.$SWARM_ATTEMPT"
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE $SWARM_ATTEMPT" > "src/$SWARM_ISSUE.txt"
if [ "$SWARM_ATTEMPT" = 1 ]; then echo "exit 1" > checks/t.sh; else echo "exit 0" > checks/t.sh; fi
echo '{"type": "result", "subtype": "success", "is_error": false, "num_turns": 2, "total_cost_usd": 1.25}'
"#;

#[test]
fn a_claude_preset_agent_gets_the_remaining_issue_budget_and_its_turn_limit() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model the accounts"}]),
        CLAUDE_LIKE,
        "",
    );
    configure(
        &s,
        "]\n    preset: claude-code\n    max_turns: 40\n    timeout_seconds: 30",
        "budgets:\n  issue_usd: 5.00\n",
    );
    s.env.run(&["run", "auth"]).ok();
    assert_eq!(s.env.stage("auth", 1), "DONE");
    let argv = |n: u32| -> Vec<String> {
        std::fs::read_to_string(s.trace.join(format!("argv.{n}")))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(argv(1), ["--max-budget-usd", "5.00", "--max-turns", "40"]);
    // $1.25 spent by attempt 1: 5.00 − 1.25
    assert_eq!(argv(2), ["--max-budget-usd", "3.75", "--max-turns", "40"]);
    // the prompt is on stdin, never in argv
    let stdin = std::fs::read_to_string(s.trace.join("stdin.2")).unwrap();
    assert!(stdin.contains("Model the accounts"), "{stdin}");
    assert!(!argv(2).iter().any(|a| a.contains("Model the accounts")));
}

#[test]
fn without_budgets_a_claude_preset_agent_gets_no_budget_flag() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model"}]),
        CLAUDE_LIKE,
        "",
    );
    configure(
        &s,
        "]\n    preset: claude-code\n    timeout_seconds: 30",
        "",
    );
    s.env.run(&["run", "auth"]).ok();
    let argv = std::fs::read_to_string(s.trace.join("argv.2")).unwrap();
    assert_eq!(argv.trim(), "", "no limit, nothing handed over");
}

/// Attempt 1 works 2 s and fails; attempt 2 would sleep 30 s.
const SLOW_SECOND: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE $SWARM_ATTEMPT" > "src/$SWARM_ISSUE.txt"
echo "exit 1" > checks/t.sh
if [ "$SWARM_ATTEMPT" = 1 ]; then sleep 2; else sleep 30; fi
"#;

#[test]
fn a_non_claude_agent_is_stopped_when_the_issue_minutes_run_out() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "Model"}]),
        SLOW_SECOND,
        "",
    );
    // 0.1 min = 6 s for the issue; the agent's own timeout (30 s) is longer
    configure(
        &s,
        "]\n    preset: codex\n    timeout_seconds: 30",
        "sessions:\n  max_implementation_retries: 5\nbudgets:\n  issue_minutes: 0.1\n",
    );
    let t0 = std::time::Instant::now();
    s.env.run(&["run", "auth"]).code(1);
    assert!(t0.elapsed().as_secs() < 20, "took {:?}", t0.elapsed());
    let fin = s.events_named("auth", "agent_finished");
    assert_eq!(fin.len(), 2, "{fin:#?}");
    assert_eq!(fin[0]["timed_out"], false);
    assert_eq!(fin[1]["timed_out"], true, "{:#?}", fin[1]);
    // stopped at the ~4 s that remained, not at its own 30 s
    let ms = fin[1]["duration_ms"].as_u64().unwrap();
    assert!((3000..9000).contains(&ms), "{ms} ms");
    // then the issue's minutes are used up: no third attempt
    assert_eq!(s.calls().len(), 2);
    let t = s.task("auth", 1);
    let reason = t["blocked_reason"].as_str().unwrap();
    assert!(reason.starts_with("budget issue_minutes"), "{reason}");
}

/// Codex `exec --json` events: tokens only (1M in, 400k of them cached, 100k out).
const CODEX_LIKE: &str = r#"cat > /dev/null
echo "$SWARM_ISSUE $SWARM_ATTEMPT" >> "$TRACE/calls.log"
mkdir -p src checks
echo "issue $SWARM_ISSUE" > "src/$SWARM_ISSUE.txt"
echo "exit 0" > "checks/t_$SWARM_ISSUE.sh"
echo '{"type":"thread.started","thread_id":"0199-th"}'
echo '{"type":"turn.started"}'
echo '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Done."}}'
echo '{"type":"turn.completed","usage":{"input_tokens":1000000,"cached_input_tokens":400000,"output_tokens":100000}}'
"#;

const PRICES: &str = "pricing:\n  gpt-5: {input_per_mtok: 2.0, output_per_mtok: 20.0, cached_input_per_mtok: 0.2}\n  codex: {input_per_mtok: 1.25, output_per_mtok: 10.0, cached_input_per_mtok: 0.125}\n  fake: {input_per_mtok: 1.0, output_per_mtok: 1.0}\n";

#[test]
fn tokens_are_priced_by_model_then_preset_then_agent_name_and_unknown_stays_unknown() {
    let s = Setup::new(
        "auth",
        json!([{"order": 1, "title": "A"}, {"order": 2, "title": "B"},
               {"order": 3, "title": "C"}, {"order": 4, "title": "D"}]),
        CODEX_LIKE,
        "",
    );
    let finished = |issue: u64| -> Value {
        s.events_named("auth", "agent_finished")
            .into_iter()
            .find(|e| e["issue"] == issue)
            .unwrap()
    };
    // the model on the command line: 0.6M×2 + 0.4M×0.2 + 0.1M×20 = $3.28
    configure(&s, ", \"-m\", \"gpt-5\"]\n    preset: codex", PRICES);
    s.env.run(&["run", "auth", "--issue", "1"]).ok();
    let f = finished(1);
    assert_eq!(f["model"], "gpt-5", "{f}");
    assert_eq!(cents(&f["cost_usd"]), 328, "{f}");
    assert_eq!(f["cost_priced"], true);
    // no model: the preset's price, 0.6×1.25 + 0.4×0.125 + 0.1×10 = $1.80
    configure(&s, "]\n    preset: codex", PRICES);
    s.env.run(&["run", "auth", "--issue", "2"]).ok();
    assert_eq!(cents(&finished(2)["cost_usd"]), 180);
    // no model, no preset price: the agent name's, 1.0 + 0.1 = $1.10 (cached at the input price)
    configure(
        &s,
        "]\n    preset: codex",
        &PRICES.replace("  codex:", "  other:"),
    );
    s.env.run(&["run", "auth", "--issue", "3"]).ok();
    assert_eq!(cents(&finished(3)["cost_usd"]), 110);
    // no price at all: unknown, counted as unknown, never $0
    configure(&s, "]\n    preset: codex", "");
    s.env.run(&["run", "auth", "--issue", "4"]).ok();
    let f = finished(4);
    assert_eq!(f["cost_usd"], Value::Null, "{f}");
    assert_eq!(f["tokens_in"], 1_000_000);
    let ledger = &s.env.state("auth")["ledger"];
    assert_eq!(cents(&ledger["issues"]["1"]["usd"]), 328);
    assert_eq!(cents(&ledger["issues"]["2"]["usd"]), 180);
    assert_eq!(cents(&ledger["issues"]["3"]["usd"]), 110);
    assert_eq!(ledger["issues"]["4"]["unknown_cost_runs"], 1);
    assert_eq!(cents(&ledger["feature"]["usd"]), 618);
    assert_eq!(ledger["feature"]["unknown_cost_runs"], 1);
    // status says so
    let st = s.env.run(&["status", "auth"]);
    st.ok();
    assert!(
        st.stdout
            .contains("budget: feature spent $6.18 + 1 run of unknown cost"),
        "{}",
        st.stdout
    );
    assert!(
        st.stdout.contains("#4    spent unknown (1 run)"),
        "{}",
        st.stdout
    );
    let j = s.env.run(&["status", "auth", "--json"]).json();
    assert_eq!(j["tasks"][3]["budget"]["unknown_cost_runs"], 1);
    assert_eq!(cents(&j["budget"]["spent_usd"]), 618);
    // audit agrees with the ledger to the cent
    let audit = s.env.run(&["audit", "auth", "--json"]).json();
    let text = audit.to_string();
    assert!(text.contains("6.18"), "{text}");
}

#[test]
fn the_ledger_sums_both_agents_of_a_parallel_pair() {
    use crate::common::modes::{PARALLEL, good, setup};
    let costly = |name: &str, usd: &str| {
        format!(
            "{}printf '%s\\n' \"$@\" > \"$TRACE/{name}.argv\"\necho '{{\"type\": \"result\", \"subtype\": \"success\", \"is_error\": false, \"num_turns\": 1, \"total_cost_usd\": {usd}}}'\n",
            good(name, 1)
        )
    };
    let s = setup(
        PARALLEL,
        &costly("alpha", "0.3"),
        &costly("beta", "0.45"),
        "  join: all\n",
        "budgets:\n  issue_usd: 5\n",
    );
    s.env.run(&["run", "shop"]).ok();
    assert_eq!(s.env.stage("shop", 1), "DONE");
    let fin = s.events_named("agent_finished");
    assert_eq!(fin.len(), 2, "{fin:#?}");
    let ledger = &s.env.state("shop")["ledger"];
    let one = &ledger["issues"]["1"];
    assert_eq!(cents(&one["usd"]), 75, "{ledger}");
    assert_eq!(one["agent_runs"], 2);
    assert_eq!(one["attempts"], 1);
    assert_eq!(cents(&ledger["feature"]["usd"]), 75);
    // a second run finds nothing to do and counts nothing twice
    s.env.run(&["run", "shop"]).ok();
    let again = &s.env.state("shop")["ledger"];
    assert_eq!(cents(&again["issues"]["1"]["usd"]), 75);
    assert_eq!(again["issues"]["1"]["agent_runs"], 2);
}
