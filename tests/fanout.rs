//! The fan-out workflow (examples/workflows/swarm-fanout.yml), simulated with real processes:
//! a bare "origin", a `plan` step (`matrix` in a fresh clone), K runners (separate clones,
//! separate processes, started together) that each run `run <feature> --issue N` and bundle
//! the result, and the `apply` step (`scripts/apply-bundle.sh`) landing each bundle on
//! origin. Every issue of a 12-issue feature with dependencies lands exactly once, in
//! dependency order, and repeating the whole workflow changes nothing — in both landing
//! modes: `commit` (apply rebases onto main) and `pr` (apply pushes the issue's branch and
//! opens its pull request on the fake GitHub, unless one is open; a simulated reviewer
//! merges the open pull requests after each round; `plan` reads GitHub, so its matrix
//! leaves out issues with an open pull request).

use crate::common::TestEnv;
use crate::common::fake_github::FakeGithub;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const FEATURE: &str = "fan";
const ISSUES: u32 = 12;

/// Issue n > 4 depends on n − 4: three layers of four.
fn deps(n: u32) -> Vec<u32> {
    if n > 4 { vec![n - 4] } else { vec![] }
}

const REPO: &str = "octo/fan";
const TOKEN: &str = "ghs_fanouttoken000000000000000000000000";

struct Origin {
    env: TestEnv,
    bare: PathBuf,
    clones: std::sync::atomic::AtomicU32,
    /// `pr` landing: the fake GitHub the plan reads and the apply opens pull requests on.
    github: Option<FakeGithub>,
}

fn origin() -> Origin {
    origin_in(None)
}

/// An origin whose workflow lands through pull requests on `github`.
fn pr_origin() -> Origin {
    origin_in(Some(FakeGithub::start(REPO, TOKEN)))
}

fn origin_in(github: Option<FakeGithub>) -> Origin {
    let env = TestEnv::new();
    let agent = env.script(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\nsleep 0.2\nmkdir -p src\necho \"issue $SWARM_ISSUE\" > \"src/issue_$SWARM_ISSUE.txt\"\n",
    );
    env.write(
        "config.yaml",
        &format!(
            "coordination:\n  github_sync_enabled: false\nagents:\n  - name: fake\n    command: [\"{}\"]\n    timeout_seconds: 30\ntests:\n  command: \"true\"\ngithub:\n  repo: {REPO}\n",
            agent.display()
        ),
    );
    let issues: Vec<_> = (1..=ISSUES)
        .map(|n| json!({"order": n, "title": format!("Issue {n}"), "dependencies": deps(n)}))
        .collect();
    env.issues(FEATURE, json!(issues));
    env.git(&["add", "config.yaml", "specs"]);
    env.git(&["commit", "-q", "-m", "chore: the feature"]);
    let bare = env.tmp.path().join("origin.git");
    env.git_in(
        env.tmp.path(),
        &[
            "clone",
            "-q",
            "--bare",
            env.root.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    Origin {
        env,
        bare,
        clones: Default::default(),
        github,
    }
}

impl Origin {
    fn clone_fresh(&self) -> PathBuf {
        let n = self
            .clones
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = self.env.tmp.path().join(format!("clone-{n}"));
        self.env.git_in(
            self.env.tmp.path(),
            &[
                "clone",
                "-q",
                self.bare.to_str().unwrap(),
                dir.to_str().unwrap(),
            ],
        );
        dir
    }

    /// The tool in `dir`, without any token (as in the `implement` job).
    fn tool(&self, dir: &Path, args: &[&str]) -> crate::common::Run {
        self.env
            .command()
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap()
            .into()
    }

    /// The tool with read access to the fake GitHub (as in the `plan` job), when there is one.
    fn tool_reading_github(&self, dir: &Path, args: &[&str]) -> crate::common::Run {
        let mut cmd = self.env.command();
        if let Some(gh) = &self.github {
            cmd.env("GITHUB_API_URL", &gh.url)
                .env("GITHUB_TOKEN", TOKEN);
        }
        cmd.current_dir(dir).args(args).output().unwrap().into()
    }

    fn mode(&self) -> &'static str {
        if self.github.is_some() {
            "pr"
        } else {
            "commit"
        }
    }

    /// `plan`: the matrix, from a fresh clone.
    fn plan(&self) -> Vec<u32> {
        let dir = self.clone_fresh();
        self.tool(&dir, &["greenlight", FEATURE]).ok();
        let m = self.tool_reading_github(&dir, &["matrix", FEATURE]);
        m.ok();
        m.json()["include"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["issue"].as_u64().unwrap() as u32)
            .collect()
    }

    /// `implement` for one issue in a fresh clone, then `apply` of its bundle. Returns the
    /// bundle.
    fn implement_and_apply(&self, issue: u32) -> PathBuf {
        let dir = self.clone_fresh();
        let base = self.env.git_in(&dir, &["rev-parse", "HEAD"]);
        self.tool(&dir, &["greenlight", FEATURE]).ok();
        let n = issue.to_string();
        self.tool(&dir, &["run", FEATURE, "--issue", &n]).ok();
        let bundle = dir.with_extension(format!("issue-{issue}.bundle"));
        self.env.git_in(
            &dir,
            &[
                "bundle",
                "create",
                "-q",
                bundle.to_str().unwrap(),
                &format!("{base}..HEAD"),
            ],
        );
        self.apply(&dir, issue, &bundle);
        bundle
    }

    fn apply(&self, dir: &Path, issue: u32, bundle: &Path) -> String {
        let mut cmd = Command::new("bash");
        cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/apply-bundle.sh"))
            .args([FEATURE, &issue.to_string()])
            .arg(bundle)
            .arg(self.mode())
            .current_dir(dir);
        for (k, v) in [
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_AUTHOR_NAME", "apply"),
            ("GIT_AUTHOR_EMAIL", "apply@example.com"),
            ("GIT_COMMITTER_NAME", "apply"),
            ("GIT_COMMITTER_EMAIL", "apply@example.com"),
        ] {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "apply #{issue}: {text}");
        if let Some(gh) = self
            .github
            .as_ref()
            .filter(|_| text.contains("pushed swarm/"))
        {
            open_pull_once(gh, dir, issue);
        }
        text
    }

    /// The reviewer: merges every open pull request into origin's main (a merge commit, as
    /// GitHub's default merge button makes) and marks it merged on the fake GitHub.
    fn review_and_merge(&self) {
        let Some(gh) = &self.github else { return };
        let open: Vec<_> = gh
            .pulls()
            .into_iter()
            .filter(|p| p.state == "open")
            .collect();
        if open.is_empty() {
            return;
        }
        let dir = self.clone_fresh();
        for p in open {
            self.env.git_in(&dir, &["fetch", "-q", "origin", &p.head]);
            self.env.git_in(
                &dir,
                &[
                    "merge",
                    "-q",
                    "--no-ff",
                    "FETCH_HEAD",
                    "-m",
                    &format!("Merge pull request #{} from {REPO}/{}", p.number, p.head),
                ],
            );
            gh.merge_pull(p.number, "merge");
        }
        self.env.git_in(&dir, &["push", "-q", "origin", "main"]);
    }

    /// The whole workflow with `k` runners, round after round until the matrix is empty.
    /// Returns (rounds, bundles, makespan).
    fn workflow(&self, k: usize) -> (u32, Vec<(u32, PathBuf)>, Duration) {
        let start = Instant::now();
        let mut rounds = 0;
        let mut bundles = Vec::new();
        loop {
            let matrix = self.plan();
            if matrix.is_empty() {
                break;
            }
            rounds += 1;
            assert!(rounds <= ISSUES, "the workflow does not converge");
            let lanes: Vec<Vec<u32>> = (0..k)
                .map(|i| matrix.iter().copied().skip(i).step_by(k).collect())
                .collect();
            let done: Vec<(u32, PathBuf)> = std::thread::scope(|s| {
                let handles: Vec<_> = lanes
                    .iter()
                    .map(|lane| {
                        s.spawn(move || {
                            lane.iter()
                                .map(|n| (*n, self.implement_and_apply(*n)))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap())
                    .collect()
            });
            bundles.extend(done);
            self.review_and_merge();
        }
        (rounds, bundles, start.elapsed())
    }

    /// Rule-1 subjects on origin's main, oldest first: the issue numbers.
    fn landed(&self) -> Vec<u32> {
        let log = self
            .env
            .git_in(&self.bare, &["log", "--reverse", "--format=%s", "main"]);
        let prefix = format!("feat({FEATURE}): Implement issue #");
        log.lines()
            .filter_map(|s| s.strip_prefix(&prefix))
            .map(|rest| {
                rest.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse()
                    .unwrap()
            })
            .collect()
    }
}

/// The `gh pr list --head … --state open` / `gh pr create` pair of the apply job, against
/// the fake GitHub's REST API (which, like GitHub, refuses a second open pull request for a
/// head with 422).
fn open_pull_once(gh: &FakeGithub, dir: &Path, issue: u32) {
    let branch = format!("swarm/{FEATURE}/issue-{issue}");
    let owner = REPO.split('/').next().unwrap();
    let curl = |args: &[&str]| {
        let out = Command::new("curl")
            .args(["-sS", "-H", &format!("Authorization: Bearer {TOKEN}")])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let listed = curl(&[&format!(
        "{}/repos/{REPO}/pulls?state=open&head={owner}:{branch}",
        gh.url
    )]);
    if serde_json::from_str::<serde_json::Value>(&listed)
        .map(|v| v.as_array().is_some_and(|a| !a.is_empty()))
        .unwrap_or(false)
    {
        return;
    }
    let title = String::from_utf8_lossy(
        &Command::new("git")
            .args(["log", "-1", "--format=%s"])
            .arg(format!("refs/swarm-incoming/{FEATURE}/issue-{issue}"))
            .current_dir(dir)
            .output()
            .unwrap()
            .stdout,
    )
    .trim()
    .to_string();
    let body = json!({"title": title, "head": branch, "base": "main",
        "body": format!("Implemented by swarm-attack (feature `{FEATURE}`, issue {issue}).")});
    curl(&[
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-d",
        &body.to_string(),
        &format!("{}/repos/{REPO}/pulls", gh.url),
    ]);
}

fn check_landed_once_in_order(o: &Origin) {
    let landed = o.landed();
    let mut sorted = landed.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        (1..=ISSUES).collect::<Vec<_>>(),
        "each issue exactly once: {landed:?}"
    );
    for n in 1..=ISSUES {
        let at = |x: u32| landed.iter().position(|l| *l == x).unwrap();
        for d in deps(n) {
            assert!(at(d) < at(n), "#{d} lands before #{n}: {landed:?}");
        }
    }
}

/// The whole workflow with four runners: every issue lands once in dependency order, and
/// repeating the workflow, or re-running every apply job of it, changes nothing. `check`
/// runs after the first workflow. Then the same feature with one runner; prints both
/// makespans.
fn lands_once_and_repeats_as_nothing(make: fn() -> Origin, label: &str, check: impl Fn(&Origin)) {
    let o = make();
    let (rounds, bundles, makespan_4) = o.workflow(4);
    assert_eq!(rounds, 3, "three dependency layers, four issues each");
    check_landed_once_in_order(&o);
    check(&o);
    let tip = o.env.git_in(&o.bare, &["rev-parse", "main"]);
    // the whole workflow again: nothing to dispatch, nothing lands
    let (again, _, _) = o.workflow(4);
    assert_eq!(again, 0);
    // re-running the apply jobs of the first workflow changes nothing either
    let dir = o.clone_fresh();
    for (issue, bundle) in &bundles {
        let out = o.apply(&dir, *issue, bundle);
        assert!(out.contains("already landed"), "{out}");
    }
    assert_eq!(o.env.git_in(&o.bare, &["rev-parse", "main"]), tip);
    check(&o);

    // one runner, for the makespan comparison
    let one = make();
    let (_, _, makespan_1) = one.workflow(1);
    check_landed_once_in_order(&one);
    eprintln!(
        "fan-out makespan ({label}), 12 issues in 3 layers: 4 runners {:.1} s, 1 runner {:.1} s ({:.2}x)",
        makespan_4.as_secs_f64(),
        makespan_1.as_secs_f64(),
        makespan_1.as_secs_f64() / makespan_4.as_secs_f64()
    );
}

#[test]
fn four_runners_land_every_issue_once_in_dependency_order_and_a_rerun_changes_nothing() {
    lands_once_and_repeats_as_nothing(origin, "commit landing", |_| {});
}

#[test]
fn four_runners_landing_through_pull_requests_open_one_per_issue_and_a_rerun_changes_nothing() {
    lands_once_and_repeats_as_nothing(pr_origin, "pr landing", |o| {
        let pulls = o.github.as_ref().unwrap().pulls();
        let mut heads: Vec<String> = pulls.iter().map(|p| p.head.clone()).collect();
        heads.sort();
        heads.dedup();
        assert_eq!(
            pulls.len(),
            ISSUES as usize,
            "exactly one pull request per issue: {pulls:?}"
        );
        assert_eq!(heads.len(), ISSUES as usize);
        assert!(pulls.iter().all(|p| p.merged && p.base == "main"));
    });
}
