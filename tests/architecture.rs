//! The floors of docs/architecture.md, checked: the pure core crate reaches no async runtime, git
//! library, GitHub client or HTTP stack (through any dependency), and touches no file system,
//! process or environment.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const CORE: &str = "swarm-attack-core";
const FORBIDDEN_CRATES: &[&str] = &[
    "tokio", "gix", "git2", "octocrab", "reqwest", "hyper", "mio",
];
const FORBIDDEN_APIS: &[&str] = &[
    "std::fs",
    "std::process",
    "std::env",
    "std::net",
    "std::time::SystemTime",
    "std::time::Instant",
    "env!(",
    "include_bytes!(",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `name -> dependency names` from Cargo.lock (the resolved graph, so transitive
/// dependencies count too).
fn lock_graph() -> HashMap<String, Vec<String>> {
    let text = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let mut graph = HashMap::new();
    for block in text.split("[[package]]").skip(1) {
        let mut name = None;
        let mut deps = Vec::new();
        let mut in_deps = false;
        for line in block.lines() {
            let line = line.trim();
            if let Some(v) = line.strip_prefix("name = ") {
                name = Some(v.trim_matches('"').to_string());
            } else if line.starts_with("dependencies = [") {
                in_deps = true;
            } else if in_deps && line.starts_with(']') {
                in_deps = false;
            } else if in_deps {
                // `"name"`, `"name 1.2.3"` or `"name 1.2.3 (registry+…)"`
                let d = line.trim_matches(|c| c == '"' || c == ',');
                deps.push(d.split(' ').next().unwrap_or(d).to_string());
            }
        }
        if let Some(n) = name {
            graph.entry(n).or_insert_with(Vec::new).extend(deps);
        }
    }
    graph
}

#[test]
fn the_core_crate_depends_on_no_runtime_git_or_http_crate() {
    let graph = lock_graph();
    assert!(graph.contains_key(CORE), "{CORE} is not in Cargo.lock");
    let mut seen = BTreeSet::new();
    let mut stack = vec![CORE.to_string()];
    while let Some(n) = stack.pop() {
        if seen.insert(n.clone()) {
            stack.extend(graph.get(&n).cloned().unwrap_or_default());
        }
    }
    let bad: Vec<_> = seen
        .iter()
        .filter(|n| {
            FORBIDDEN_CRATES
                .iter()
                .any(|f| n.as_str() == *f || n.starts_with(&format!("{f}-")))
        })
        .collect();
    assert!(bad.is_empty(), "{CORE} reaches {bad:?}");
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_core_crate_does_no_io() {
    let mut files = Vec::new();
    rust_files(&root().join("crates/swarm-attack-core/src"), &mut files);
    assert!(files.len() > 20, "core sources not found");
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for api in FORBIDDEN_APIS {
                if code.contains(api) {
                    hits.push(format!("{}:{}: {api}", f.display(), i + 1));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "I/O in the pure core:\n{}",
        hits.join("\n")
    );
}
