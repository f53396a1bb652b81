//! `swarm-attack demo`: builds a throw-away example repository — CLAUDE.md, a feature of
//! four issues with dependencies (issue #1 already implemented in the history), a bundled
//! demonstration agent (a small POSIX `sh` script that stands in for a real coding agent)
//! and a tiny `sh` test runner — so the main job can be run on it offline.

use crate::core::feature_id::FeatureId;
use crate::error::{CmdResult, CommandError};
use crate::io::file_error::FileError;
use crate::io::git::Git;
use crate::io::ui::Ui;
use std::path::{Path, PathBuf};

/// The demo's feature id.
pub const FEATURE: &str = "greeter";

/// The identity of the demo repository's commits (set explicitly, so the demo works on a
/// machine with no git configuration).
pub const GIT_NAME: &str = "swarm-attack demo";
pub const GIT_EMAIL: &str = "demo@swarm-attack.invalid";

/// A created demo repository.
#[derive(Debug, Clone)]
pub struct DemoRepo {
    pub root: PathBuf,
    pub feature: FeatureId,
    /// The commit that already implements issue #1.
    pub preexisting_commit: String,
}

const CLAUDE_MD: &str = "# Greeter (swarm-attack demo project)\n\n\
A tiny POSIX shell library, made by `swarm-attack demo`.\n\n\
- Code lives in `lib/*.sh` (one function per file), executables in `bin/`.\n\
- Every function has a test `tests/test_<name>.sh` that exits non-zero on failure.\n\
- Run the tests with `sh tools/run-tests.sh`.\n";

const README: &str = "# Greeter\n\nA throw-away repository made by `swarm-attack demo`. \
Look around: `git log`, `.swarm/state/greeter.json`, `.swarm/events/greeter.jsonl`, \
`.swarm/runs/greeter/`.\n";

const CONFIG: &str = "# Made by `swarm-attack demo`. The agent is a DEMONSTRATION script, not a real\n\
# coding agent: replace `command` with e.g. `preset: claude-code` (docs/agents.md).\n\
coordination:\n\
\x20 github_sync_enabled: false\n\
agents:\n\
\x20 - name: demo-agent\n\
\x20   command: [\"sh\", \"tools/demo-agent.sh\"]\n\
\x20   angle: \"writes the files and the test each demo issue asks for\"\n\
\x20   covers: [\"shell\", \"tests\"]\n\
\x20   timeout_seconds: 60\n\
tests:\n\
\x20 command: \"sh tools/run-tests.sh\"\n\
\x20 timeout_seconds: 60\n\
sessions:\n\
\x20 max_implementation_retries: 1\n";

const RUN_TESTS: &str = r#"#!/bin/sh
# The demo's test runner: runs tests/test_*.sh (or the files given) and prints
# "N passed, M failed" (a format swarm-attack reads); exits 1 when a test failed.
passed=0
failed=0
if [ "$#" -gt 0 ]; then files="$*"; else files=$(ls tests/test_*.sh 2>/dev/null); fi
for t in $files; do
  if sh "$t" >/dev/null 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $t"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
"#;

const DEMO_AGENT: &str = r#"#!/bin/sh
# ======================================================================
#  DEMONSTRATION AGENT - a stand-in for a real coding agent.
#  It does not read or understand the prompt: it knows the four demo
#  issues by number and writes the files and the test each one asks for.
#  swarm-attack runs it like any agent: in the issue's own git worktree,
#  with the prompt on stdin and SWARM_ISSUE / SWARM_ATTEMPT in the env.
# ======================================================================
cat > /dev/null
mkdir -p lib tests bin
case "$SWARM_ISSUE" in
  1)
    printf 'greet() { echo "Hello, $1!"; }\n' > lib/greet.sh
    printf '. lib/greet.sh\n[ "$(greet World)" = "Hello, World!" ]\n' > tests/test_greet.sh
    ;;
  2)
    printf 'farewell() { echo "Goodbye, $1."; }\n' > lib/farewell.sh
    printf '. lib/farewell.sh\n[ "$(farewell World)" = "Goodbye, World." ]\n' > tests/test_farewell.sh
    ;;
  3)
    printf '. lib/greet.sh\nshout() { greet "$1" | tr "a-z" "A-Z"; }\n' > lib/shout.sh
    printf '. lib/shout.sh\n[ "$(shout World)" = "HELLO, WORLD!" ]\n' > tests/test_shout.sh
    ;;
  4)
    cat > bin/greeter <<'EOF'
#!/bin/sh
# usage: greeter hello|bye|shout NAME
. lib/greet.sh; . lib/farewell.sh; . lib/shout.sh
case "$1" in
  hello) greet "$2" ;;
  bye) farewell "$2" ;;
  shout) shout "$2" ;;
  *) echo "usage: greeter hello|bye|shout NAME" >&2; exit 2 ;;
esac
EOF
    printf '[ "$(sh bin/greeter bye Ann)" = "Goodbye, Ann." ]\n[ "$(sh bin/greeter shout Ann)" = "HELLO, ANN!" ]\n' > tests/test_cli.sh
    ;;
  *)
    echo "demo agent: no recipe for issue $SWARM_ISSUE" >&2
    exit 1
    ;;
esac
echo "{\"result\": \"demo agent wrote issue $SWARM_ISSUE\", \"total_cost_usd\": 0}"
"#;

fn issues_json() -> String {
    let doc = serde_json::json!({
        "feature_id": FEATURE,
        "generated_at": "2026-01-01T00:00:00Z",
        "issues": [
            {"order": 1, "title": "Greeting function",
             "body": "Add `greet NAME` in lib/greet.sh printing `Hello, NAME!`, with a test.",
             "labels": ["shell"], "estimated_size": "small", "dependencies": [],
             "files": ["lib/greet.sh"], "test_file": "tests/test_greet.sh"},
            {"order": 2, "title": "Farewell function",
             "body": "Add `farewell NAME` in lib/farewell.sh printing `Goodbye, NAME.`, with a test.",
             "labels": ["shell"], "estimated_size": "small", "dependencies": [1],
             "files": ["lib/farewell.sh"], "test_file": "tests/test_farewell.sh"},
            {"order": 3, "title": "Shout function",
             "body": "Add `shout NAME` in lib/shout.sh: the greeting in capitals, built on `greet`, with a test.",
             "labels": ["shell"], "estimated_size": "small", "dependencies": [1],
             "files": ["lib/shout.sh"], "test_file": "tests/test_shout.sh"},
            {"order": 4, "title": "Command-line entry point",
             "body": "Add bin/greeter: `greeter hello|bye|shout NAME`, with a test.",
             "labels": ["shell", "cli"], "estimated_size": "small", "dependencies": [2, 3],
             "files": ["bin/greeter"], "test_file": "tests/test_cli.sh"}
        ]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

fn git_err(e: crate::io::git::GitError) -> CommandError {
    match e {
        crate::io::git::GitError::Spawn(m) => {
            CommandError::input(format!("the demo needs git: {m}"))
        }
        e => e.into(),
    }
}

fn write(root: &Path, rel: &str, text: &str) -> CmdResult<()> {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).map_err(FileError::at("create", d))?;
    }
    Ok(std::fs::write(&p, text).map_err(FileError::at("write", &p))?)
}

/// Where the demo goes: `dir` (must be missing or empty), else a new folder in the temp dir.
pub fn demo_dir(dir: Option<&Path>) -> CmdResult<PathBuf> {
    match dir {
        Some(d) => {
            if d.exists() {
                let empty = std::fs::read_dir(d)
                    .map_err(FileError::at("read", d))?
                    .next()
                    .is_none();
                if !empty {
                    return Err(CommandError::input(format!(
                        "{} is not empty; the demo needs a new or empty folder",
                        d.display()
                    )));
                }
            }
            std::fs::create_dir_all(d).map_err(FileError::at("create", d))?;
            Ok(d.canonicalize().unwrap_or_else(|_| d.to_path_buf()))
        }
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let d = std::env::temp_dir()
                .join(format!("swarm-attack-demo-{}-{nanos}", std::process::id()));
            std::fs::create_dir_all(&d).map_err(FileError::at("create", &d))?;
            Ok(d)
        }
    }
}

/// Creates the demo repository in `root` (an empty folder).
pub fn create_repo(ui: &Ui, root: &Path) -> CmdResult<DemoRepo> {
    // The repository's own identity, for the commits `run` makes in it.
    let git = Git::init(root, "main", GIT_NAME, GIT_EMAIL, ui).map_err(git_err)?;
    write(root, "CLAUDE.md", CLAUDE_MD)?;
    write(root, "README.md", README)?;
    write(root, ".gitignore", ".swarm/\n")?;
    write(root, "config.yaml", CONFIG)?;
    write(
        root,
        &format!("specs/{FEATURE}/issues.json"),
        &issues_json(),
    )?;
    write(root, "tools/run-tests.sh", RUN_TESTS)?;
    write(root, "tools/demo-agent.sh", DEMO_AGENT)?;
    git.stage(root, &[".".to_string()]).map_err(git_err)?;
    git.commit(root, "chore: demo project skeleton\n")
        .map_err(git_err)?;
    // Issue #1 was implemented earlier (by hand, or an earlier run): it is in the history.
    write(root, "lib/greet.sh", "greet() { echo \"Hello, $1!\"; }\n")?;
    write(
        root,
        "tests/test_greet.sh",
        ". lib/greet.sh\n[ \"$(greet World)\" = \"Hello, World!\" ]\n",
    )?;
    git.stage(
        root,
        &[
            "lib/greet.sh".to_string(),
            "tests/test_greet.sh".to_string(),
        ],
    )
    .map_err(git_err)?;
    let feature = FeatureId::parse(FEATURE)?;
    let message = crate::core::commit_message::message(
        &feature,
        1,
        None,
        "Greeting function\n\nImplemented before swarm-attack was run on this repository.",
    );
    let preexisting_commit = git.commit(root, &message).map_err(git_err)?;
    Ok(DemoRepo {
        root: root.to_path_buf(),
        feature,
        preexisting_commit,
    })
}
