//! The rules of docs/architecture.md "Rules, and what checks them", checked: the pure core
//! crate reaches no async runtime, git library, GitHub client or HTTP stack (through any
//! dependency) and touches no file system, process or environment; and the repository stands
//! on its own (every citation names one of its own docs pages, and that page exists).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const CORE: &str = "swarm-attack-core";
const FORBIDDEN_CRATES: &[&str] = &[
    "tokio", "gix", "git2", "octocrab", "reqwest", "hyper", "mio", "ureq",
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

/// The text files a person who clones the repository reads: sources, tests, scripts,
/// workflows and docs (build output and git's own files left out).
fn repository_texts() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if name != "target" && name != ".git" {
                    walk(&p, out);
                }
            } else {
                out.push(p);
            }
        }
    }
    let root = root();
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "scripts", ".github", "docs"] {
        walk(&root.join(dir), &mut files);
    }
    files.extend(["README.md", "action.yml"].map(|f| root.join(f)));
    files
        .into_iter()
        .filter_map(|f| {
            let text = String::from_utf8(std::fs::read(&f).ok()?).ok()?;
            let rel = f.strip_prefix(&root).unwrap().display().to_string();
            Some((rel, text))
        })
        .collect()
}

/// docs/architecture.md "Rules, and what checks them": the repository stands on its own —
/// no file cites a contract or style document a person who clones it does not have; the
/// rules are written down in docs/ and cited from there.
#[test]
fn no_file_cites_a_document_outside_the_repository() {
    // Built from parts so that this file does not cite them itself.
    let needles = [["SPEC ", "§"].concat(), ["ARCHITECTURE", ".md"].concat()];
    let texts = repository_texts();
    assert!(texts.len() > 100, "repository files not found");
    let mut hits = Vec::new();
    for (file, text) in &texts {
        for (i, line) in text.lines().enumerate() {
            for n in &needles {
                if line.contains(n.as_str()) {
                    hits.push(format!("{file}:{}: {n}", i + 1));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "cite the project's own docs instead:\n{}",
        hits.join("\n")
    );
}

/// Every `docs/<page>.md` cited anywhere names a page that exists and, when a heading follows
/// in quotes (`docs/run.md "Exit codes"`), a heading of that page that starts with it.
fn broken_doc_citations(
    texts: &[(String, String)],
    page_of: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut hits = Vec::new();
    for (file, text) in texts {
        for (i, line) in text.lines().enumerate() {
            // In Rust only comments cite; strings name files of a test's own fixtures.
            let mut rest = match file.ends_with(".rs") {
                true => line.find("//").map_or("", |at| &line[at..]),
                false => line,
            };
            while let Some(at) = rest.find("docs/") {
                let before = rest[..at].chars().next_back();
                let after = &rest[at + "docs/".len()..];
                rest = after;
                if before.is_some_and(|c| c.is_alphanumeric() || "/._-`".contains(c)) {
                    continue;
                }
                let name: String = after
                    .chars()
                    .take_while(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '_'
                    })
                    .collect();
                let Some(tail) = after[name.len()..].strip_prefix(".md") else {
                    continue;
                };
                if name.is_empty() {
                    continue;
                }
                let Some(page) = page_of(&name) else {
                    hits.push(format!("{file}:{}: docs/{name}.md does not exist", i + 1));
                    continue;
                };
                let Some(quoted) = tail.strip_prefix(" \"") else {
                    continue;
                };
                let Some(end) = quoted.find('"') else {
                    continue;
                };
                let heading = &quoted[..end];
                let found = page.lines().any(|l| {
                    l.starts_with('#') && l.trim_start_matches('#').trim().starts_with(heading)
                });
                if !found {
                    hits.push(format!(
                        "{file}:{}: docs/{name}.md has no heading \"{heading}\"",
                        i + 1
                    ));
                }
            }
        }
    }
    hits
}

#[test]
fn every_docs_citation_names_an_existing_page_and_heading() {
    // This file's own examples are not citations.
    let texts: Vec<_> = repository_texts()
        .into_iter()
        .filter(|(file, _)| file != "tests/architecture.rs")
        .collect();
    let page_of = |name: &str| std::fs::read_to_string(root().join(format!("docs/{name}.md"))).ok();
    let hits = broken_doc_citations(&texts, page_of);
    assert!(
        hits.is_empty(),
        "broken docs citations:\n{}",
        hits.join("\n")
    );
}

#[test]
fn a_citation_of_a_missing_page_or_heading_is_found() {
    let texts = vec![(
        "x.rs".to_string(),
        concat!(
            "// docs/run.md \"Exit codes\" fine; docs/run.md \"Nope\" not; docs/gone.md not\n",
            "// https://example.com/docs/gone.md, `docs/gone.md` and docs/<page>.md are not citations\n",
            "let f = \"docs/gone.md\"; // a fixture's file, not a citation\n",
        )
        .to_string(),
    )];
    let page_of = |name: &str| (name == "run").then(|| "# Run\n## Exit codes\n".to_string());
    let hits = broken_doc_citations(&texts, page_of);
    assert_eq!(
        hits,
        [
            "x.rs:1: docs/run.md has no heading \"Nope\"",
            "x.rs:1: docs/gone.md does not exist",
        ]
    );
}
