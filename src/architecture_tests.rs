//! Rules about the layout that the compiler does not check, read from the sources: the
//! modules of `app` import each other without a cycle; one place triggers the GitHub mirror.
//! (No stage is assigned outside the core's state machine: `Task`'s stage is private to the
//! core crate, so the compiler holds that rule.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace root (the binary's crate sits there).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The use cases' crate's sources.
fn app_src() -> PathBuf {
    root().join("crates/swarm-attack-app/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file of the app crate: `run/mod.rs` → `app::run`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(app_src()).unwrap().with_extension("");
    let mut parts: Vec<String> = vec!["app".to_string()];
    parts.extend(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// Code without `//` comments (doc links name modules without importing them).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::app::a::b::...` path in `code`, as its segments after `crate::`; a grouped
/// import (`use crate::app::run::{claim, modes::{a, b}}`) names each of its members.
fn app_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::app::") {
        let tail = &rest[i + "crate::".len()..];
        let path: String = tail
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let prefix: Vec<String> = path
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let after = &tail[path.len()..];
        if path.ends_with("::") && after.starts_with('{') {
            expand_group(&prefix, &after[1..], &mut out);
        } else {
            out.push(prefix);
        }
        rest = &tail[path.len().max(1)..];
    }
    out
}

/// The app crate's own paths (`crate::run::…`) written as `crate::app::run::…`, the way the
/// graph names its modules; `crate::io::…` and `crate::core::…` are the floors below.
fn in_app_terms(code: &str) -> String {
    code.replace("crate::", "crate::app::")
        .replace("crate::app::io::", "crate::io::")
        .replace("crate::app::core::", "crate::core::")
}

/// The members of a `{...}` use group that starts right after `{` in `group`, each appended to
/// `prefix` (nested groups included; `self` names the prefix itself).
fn expand_group(prefix: &[String], group: &str, out: &mut Vec<Vec<String>>) {
    let mut depth = 0usize;
    let mut end = group.len();
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                end = i;
                break;
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    let body = &group[..end];
    let mut member_start = 0;
    let mut depth = 0usize;
    let mut members = Vec::new();
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                members.push(&body[member_start..i]);
                member_start = i + 1;
            }
            _ => {}
        }
    }
    members.push(&body[member_start..]);
    for member in members {
        let member = member.trim();
        let member = member.split(" as ").next().unwrap_or("").trim();
        if member.is_empty() || member == "*" {
            continue;
        }
        if let Some(brace) = member.find('{') {
            let mut inner = prefix.to_vec();
            inner.extend(
                member[..brace]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
            expand_group(&inner, &member[brace + 1..], out);
            continue;
        }
        let mut path = prefix.to_vec();
        if member != "self" {
            path.extend(
                member
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
        }
        out.push(path);
    }
}

/// The import graph of `app`: module → the modules it names. A module may use its own
/// ancestors (a folder's `mod.rs` is its interface), so those edges are not counted;
/// `tests` modules are left out.
fn app_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&app_src(), &mut files);
    let modules: BTreeMap<String, PathBuf> =
        files.iter().map(|f| (module_of(f), f.clone())).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        if module.ends_with("::tests") || module.contains("::tests::") {
            continue;
        }
        let code = in_app_terms(&code_of(&std::fs::read_to_string(file).unwrap()));
        let mut targets = BTreeSet::new();
        let mut named: Vec<Vec<String>> = app_paths(&code);
        // `super::x` from `a::b::c` names `a::b::x`
        let parent: Vec<String> = module.split("::").map(String::from).collect();
        for (i, _) in code.match_indices("super::") {
            let name: String = code[i + "super::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let mut p = parent[..parent.len() - 1].to_vec();
            p.push(name);
            named.push(p);
        }
        for path in named {
            // the longest prefix that is a module
            let Some(target) = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| modules.contains_key(m))
            else {
                continue;
            };
            let ancestor = module.starts_with(&format!("{target}::"));
            if target != *module && !ancestor {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// A cycle in `graph`, if there is one (depth-first search).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|s| s == m).unwrap_or(0);
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn app_modules_import_each_other_without_a_cycle() {
    let graph = app_graph();
    assert!(graph.len() > 20, "the app sources were not found");
    assert!(
        graph["app::github::sync"].contains("app::github::session"),
        "the graph misses plain `use crate::app::...` imports"
    );
    assert!(
        graph["app::run::claim"].contains("app::run::budget_gate"),
        "the graph misses modules named inside a grouped import"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between app modules: {}", cycle.join(" → "));
    }
}

#[test]
fn grouped_imports_name_each_member() {
    let code = "use crate::app::run::{Progress, claim::{self, Claim}, modes::x as y, worktrees};";
    let paths: Vec<String> = app_paths(code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "app::run::Progress",
            "app::run::claim",
            "app::run::claim::Claim",
            "app::run::modes::x",
            "app::run::worktrees",
        ]
    );
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    g.entry("d".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&g).unwrap(), ["a", "b", "c", "a"]);
    g.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&g), None);
}

/// Every source file of the binary's, the adapters' and the use cases' crates, with its path
/// relative to the workspace root and its code.
fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for dir in [
        "src",
        "crates/swarm-attack-io/src",
        "crates/swarm-attack-app/src",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    files
        .iter()
        .filter(|f| !f.ends_with("architecture_tests.rs"))
        .map(|f| {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            (rel, code_of(&std::fs::read_to_string(f).unwrap()))
        })
        .collect()
}

#[test]
fn one_place_triggers_the_github_mirror() {
    let sources = sources();
    let files_with = |needle: &str| -> Vec<String> {
        sources
            .iter()
            .filter(|(_, code)| code.contains(needle))
            .map(|(f, _)| f.clone())
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect()
    };
    // installed once, as the project's finish hook
    assert_eq!(files_with("github::mirror::mirror"), ["src/cli/mod.rs"]);
    // run only by the project, after a transaction that asked for it
    assert_eq!(
        files_with("finish_hook"),
        ["crates/swarm-attack-app/src/project.rs", "src/cli/mod.rs"]
    );
    assert_eq!(
        files_with("fn mirror("),
        ["crates/swarm-attack-app/src/github/mirror.rs"]
    );
}

#[test]
fn adapters_return_their_own_errors_and_import_nothing_above_them() {
    // comments included: a doc link to `crate::app::…` would not build once io is its own
    // crate either
    let mut files = Vec::new();
    rust_files(&root().join("crates/swarm-attack-io/src"), &mut files);
    assert!(!files.is_empty());
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (no, line) in text.lines().enumerate() {
            if ["CommandError", "crate::error", "crate::app", "crate::cli"]
                .iter()
                .any(|n| line.contains(n))
            {
                found.push(format!("{}:{}: {}", f.display(), no + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the adapters return their own error types; the app's error.rs converts them (docs/architecture.md); found:\n{}",
        found.join("\n")
    );
}

/// The floors as crates: each manifest names only the crates below it, so the compiler
/// refuses an import that runs back up (docs/architecture.md).
#[test]
fn each_crate_depends_only_on_the_floors_below_it() {
    let deps = |manifest: &str| -> String {
        let text = std::fs::read_to_string(root().join(manifest)).unwrap();
        let start = text.find("[dependencies]").expect("a [dependencies] table");
        let rest = &text[start + "[dependencies]".len()..];
        rest[..rest.find("\n[").unwrap_or(rest.len())].to_string()
    };
    let names = |table: &str| -> Vec<String> {
        table
            .lines()
            .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_string()))
            .filter(|k| !k.is_empty() && !k.starts_with('#'))
            .collect()
    };
    let core = names(&deps("crates/swarm-attack-core/Cargo.toml"));
    for heavy in [
        "swarm-attack-io",
        "swarm-attack-app",
        "tokio",
        "gix",
        "octocrab",
        "ureq",
        "signal-hook",
        "clap",
    ] {
        assert!(!core.iter().any(|d| d == heavy), "core depends on {heavy}");
    }
    let io = names(&deps("crates/swarm-attack-io/Cargo.toml"));
    assert!(io.iter().any(|d| d == "swarm-attack-core"));
    for above in ["swarm-attack-app", "swarm-attack", "clap"] {
        assert!(!io.iter().any(|d| d == above), "io depends on {above}");
    }
    let app = names(&deps("crates/swarm-attack-app/Cargo.toml"));
    assert!(app.iter().any(|d| d == "swarm-attack-io"));
    for above in ["swarm-attack", "clap"] {
        assert!(!app.iter().any(|d| d == above), "app depends on {above}");
    }
}

/// The identifiers of `code` (words of letters, digits and `_`).
fn idents(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// `(kind, name)` when `line` declares a `pub` item (`pub fn run(`, `pub struct Plan {`,
/// `pub use scheduler::run;`): a field (`pub name: T`) or `pub(crate)` item is none.
fn pub_item(line: &str) -> Option<(&str, &str)> {
    let mut rest = line.trim_start().strip_prefix("pub ")?.trim_start();
    loop {
        let (word, after) = rest.split_once(char::is_whitespace)?;
        let after = after.trim_start();
        match word {
            "async" | "unsafe" => rest = after,
            "const" if after.starts_with("fn ") => rest = after,
            "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "mod" | "union" => {
                return Some((word, idents(after).next()?));
            }
            // a re-export: the name it gives (`pub use a::b as c;` → `c`)
            "use" => return Some((word, idents(after.split(';').next()?).last()?)),
            _ => return None,
        }
    }
}

/// The `pub` items of the app crate (`(file, code)` pairs) that nothing outside it names —
/// `outside` is the code of the binary's crate and the tests — and that are not a type in
/// the signature or a field of a `pub` item (a use case's result), as `file: kind name`.
fn pub_items_unused_outside(app: &[(String, String)], outside: &[String]) -> Vec<String> {
    let named: BTreeSet<&str> = outside.iter().flat_map(|c| idents(c)).collect();
    let mut in_signatures: BTreeSet<&str> = BTreeSet::new();
    for (_, code) in app {
        for (at, line) in code.lines().enumerate() {
            let field = line.trim_start().strip_prefix("pub ").is_some_and(|r| {
                r.split_whitespace()
                    .next()
                    .is_some_and(|w| w.ends_with(':'))
            });
            if field {
                in_signatures.extend(idents(line));
            } else if pub_item(line).is_some_and(|(k, _)| k == "fn") {
                let from: usize = code.lines().take(at).map(|l| l.len() + 1).sum();
                let sig = &code[from..];
                let end = sig.find(['{', ';']).unwrap_or(sig.len());
                in_signatures.extend(idents(&sig[..end]));
            }
        }
    }
    let mut unused = Vec::new();
    for (file, code) in app {
        for line in code.lines() {
            let Some((kind, name)) = pub_item(line) else {
                continue;
            };
            let a_type = matches!(kind, "struct" | "enum" | "trait" | "type" | "union");
            let used = named.contains(name) || (a_type && in_signatures.contains(name));
            if !used {
                unused.push(format!("{file}: {kind} {name}"));
            }
        }
    }
    unused
}

/// The app crate is `pub(crate)` by default (docs/architecture.md): an item is `pub` only
/// when the binary or the integration tests use it.
#[test]
fn app_items_are_pub_only_when_used_outside_the_crate() {
    let (app, rest): (Vec<_>, Vec<_>) = sources()
        .into_iter()
        .filter(|(f, _)| !f.starts_with("crates/swarm-attack-io/"))
        .partition(|(f, _)| f.starts_with("crates/swarm-attack-app/"));
    let mut tests = Vec::new();
    rust_files(&root().join("tests"), &mut tests);
    let outside: Vec<String> = rest
        .into_iter()
        .map(|(_, code)| code)
        .chain(
            tests
                .iter()
                .map(|f| code_of(&std::fs::read_to_string(f).unwrap())),
        )
        .collect();
    assert!(
        app.len() > 20 && outside.len() > 20,
        "the sources were not found"
    );
    let unused = pub_items_unused_outside(&app, &outside);
    assert!(
        unused.is_empty(),
        "`pub` items of the app crate that neither the binary nor the tests use (make them \
         `pub(crate)`):\n{}",
        unused.join("\n")
    );
}

#[test]
fn a_pub_item_nothing_outside_names_is_found() {
    let app = vec![(
        "app.rs".to_string(),
        "pub fn used() -> Outcome {}\npub struct Outcome {\n    pub detail: Detail,\n}\n\
         pub struct Detail;\npub fn helper() {}\npub(crate) fn inner() {}\n\
         pub use inner as exported;\npub struct Lonely;\n"
            .to_string(),
    )];
    let outside = vec!["let x = app::used(); app::exported();".to_string()];
    assert_eq!(
        pub_items_unused_outside(&app, &outside),
        ["app.rs: fn helper", "app.rs: struct Lonely"]
    );
}
