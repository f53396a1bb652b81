//! The module registry (docs/prompt.md "Sections, in order"): the public items a file defines,
//! found by simple line parsing (no compiler), so agents know what finished issues already provide.
//!
//! Detected, by file extension:
//! - Rust (`.rs`): `pub fn/struct/enum/trait/type/const/static/mod/union` (also `pub async
//!   fn`, `pub const fn`, `pub unsafe fn`); `pub fn` inside an `impl Type` block is reported
//!   as `Type::name`. `pub(crate)` and other restricted visibilities are not public.
//! - Python (`.py`, `.pyi`): top-level `def`, `async def`, `class` whose name does not start
//!   with `_` (text inside triple-quoted strings is skipped).
//! - TypeScript / JavaScript (`.ts .tsx .mts .cts .js .jsx .mjs .cjs`): `export function`,
//!   `export class`, `export const/let/var`, `export interface`, `export type`,
//!   `export enum`, `export default ...`, `export { a, b as c }`.
//! - Go (`.go`, not `_test.go`): capitalised top-level `func`, methods (`Type.Method`),
//!   `type`, `var`, `const`, including grouped `type (...)`, `var (...)`, `const (...)`.

/// One public item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// `fn`, `struct`, `class`, `def`, `function`, `method`, ...
    pub kind: &'static str,
    pub name: String,
}

impl Symbol {
    fn new(kind: &'static str, name: impl Into<String>) -> Self {
        Symbol {
            kind,
            name: name.into(),
        }
    }
}

/// The public items of the file at `path` (the extension decides the language); nothing for
/// languages it does not know.
pub fn detect_symbols(path: &str, text: &str) -> Vec<Symbol> {
    let lower = path.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match ext {
        "rs" => rust(text),
        "py" | "pyi" => python(text),
        "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => javascript(text),
        "go" if !lower.ends_with("_test.go") => go(text),
        _ => Vec::new(),
    }
}

/// The identifier at the start of `s` (letters, digits, `_`, `$`).
fn ident(s: &str) -> Option<&str> {
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let id = &s[..end];
    (!id.is_empty() && !id.starts_with(|c: char| c.is_ascii_digit())).then_some(id)
}

/// Strips any of `words` (each followed by whitespace) from the start, repeatedly.
fn strip_words<'a>(mut s: &'a str, words: &[&str]) -> &'a str {
    loop {
        let before = s;
        for w in words {
            if let Some(rest) = s.strip_prefix(w)
                && rest.starts_with(char::is_whitespace)
            {
                s = rest.trim_start();
            }
        }
        if s == before {
            return s;
        }
    }
}

fn rust(text: &str) -> Vec<Symbol> {
    const KINDS: &[(&str, &str)] = &[
        ("fn", "fn"),
        ("struct", "struct"),
        ("enum", "enum"),
        ("trait", "trait"),
        ("type", "type"),
        ("const", "const"),
        ("static", "static"),
        ("mod", "mod"),
        ("union", "union"),
    ];
    let mut out = Vec::new();
    let mut current_impl: Option<String> = None;
    for line in text.lines() {
        let indented = line.starts_with(char::is_whitespace);
        let t = line.trim_start();
        if !indented {
            if t.starts_with('}') {
                current_impl = None;
            }
            if let Some(ty) = impl_type(t) {
                current_impl = Some(ty);
                continue;
            }
        }
        let Some(rest) = t.strip_prefix("pub ") else {
            continue;
        };
        let rest = strip_words(rest.trim_start(), &["async", "unsafe", "extern", "\"C\""]);
        // `pub const fn` is a function; `pub const X` a constant.
        let rest = match rest.strip_prefix("const ") {
            Some(r) if r.trim_start().starts_with("fn ") => r.trim_start(),
            _ => rest,
        };
        for (word, kind) in KINDS {
            if let Some(after) = rest.strip_prefix(word)
                && after.starts_with(char::is_whitespace)
                && let Some(name) = ident(after.trim_start())
            {
                match (&current_impl, indented, *kind) {
                    (Some(ty), true, "fn") => out.push(Symbol::new("fn", format!("{ty}::{name}"))),
                    (_, true, _) if current_impl.is_some() => {}
                    _ => out.push(Symbol::new(kind, name)),
                }
                break;
            }
        }
    }
    out
}

/// The type an unindented `impl` line implements for (`impl<T> Trait for Type<T> {` →
/// `Type`).
fn impl_type(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("unsafe ")
        .unwrap_or(line)
        .strip_prefix("impl")?;
    if !(rest.starts_with('<') || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    // Skip the generic parameters.
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && !c.is_whitespace() => {
                start = i;
                break;
            }
            _ => {}
        }
    }
    let head = rest[start..].split('{').next().unwrap_or("");
    let head = head.split(" where").next().unwrap_or(head);
    let target = match head.rsplit_once(" for ") {
        Some((_, t)) => t,
        None => head,
    };
    let target = target
        .trim()
        .trim_start_matches('&')
        .trim_start_matches("dyn ");
    let base = target.split('<').next().unwrap_or(target);
    let last = base.rsplit("::").next().unwrap_or(base);
    ident(last.trim()).map(str::to_string)
}

fn python(text: &str) -> Vec<Symbol> {
    let mut out = Vec::new();
    let mut in_string = false;
    for line in text.lines() {
        let quotes = line.matches("\"\"\"").count() + line.matches("'''").count();
        let was_in_string = in_string;
        if quotes % 2 == 1 {
            in_string = !in_string;
        }
        if was_in_string || line.starts_with(char::is_whitespace) {
            continue;
        }
        let (kind, rest) = if let Some(r) = line.strip_prefix("class ") {
            ("class", r)
        } else if let Some(r) = line.strip_prefix("def ") {
            ("def", r)
        } else if let Some(r) = line.strip_prefix("async def ") {
            ("def", r)
        } else {
            continue;
        };
        if let Some(name) = ident(rest.trim_start())
            && !name.starts_with('_')
        {
            out.push(Symbol::new(kind, name));
        }
    }
    out
}

fn javascript(text: &str) -> Vec<Symbol> {
    const KINDS: &[(&str, &str)] = &[
        ("function*", "function"),
        ("function", "function"),
        ("class", "class"),
        ("const", "const"),
        ("let", "let"),
        ("var", "var"),
        ("interface", "interface"),
        ("type", "type"),
        ("enum", "enum"),
        ("namespace", "namespace"),
    ];
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("export") else {
            continue;
        };
        if !rest.starts_with(char::is_whitespace) && !rest.starts_with('{') {
            continue;
        }
        let rest = rest.trim_start();
        if let Some(list) = rest.strip_prefix('{') {
            let list = list.split('}').next().unwrap_or("");
            for item in list.split(',') {
                let item = item.trim().trim_start_matches("type ");
                let name = match item.rsplit_once(" as ") {
                    Some((_, alias)) => alias.trim(),
                    None => item,
                };
                if let Some(name) = ident(name) {
                    out.push(Symbol::new("export", name));
                }
            }
            continue;
        }
        if let Some(after) = rest.strip_prefix("default")
            && (after.is_empty() || after.starts_with(char::is_whitespace))
        {
            // `export default function main` / `export default class App` name the item.
            let after = strip_words(after.trim_start(), &["async", "abstract"]);
            let named = ["function*", "function", "class"].iter().find_map(|w| {
                after
                    .strip_prefix(w)
                    .map(|r| r.trim_start_matches('*').trim_start())
                    .and_then(ident)
            });
            out.push(Symbol::new("default", named.unwrap_or("default")));
            continue;
        }
        let rest = strip_words(rest, &["declare", "async", "abstract"]);
        // `export const enum X` is an enum.
        let rest = match rest.strip_prefix("const ") {
            Some(r) if r.trim_start().starts_with("enum ") => r.trim_start(),
            _ => rest,
        };
        for (word, kind) in KINDS {
            if let Some(after) = rest.strip_prefix(word)
                && (after.starts_with(char::is_whitespace)
                    || (*word == "function" && after.starts_with('*')))
                && let Some(name) = ident(after.trim_start_matches('*').trim_start())
            {
                out.push(Symbol::new(kind, name));
                break;
            }
        }
    }
    out
}

fn go(text: &str) -> Vec<Symbol> {
    let mut out = Vec::new();
    let mut group: Option<&'static str> = None;
    let exported = |name: &str| name.starts_with(|c: char| c.is_uppercase());
    for line in text.lines() {
        if let Some(kind) = group {
            if line.starts_with(')') {
                group = None;
            } else if line.starts_with('\t') || line.starts_with("    ") {
                let t = line.trim_start();
                if let Some(name) = ident(t)
                    && exported(name)
                    && !line.trim_start().starts_with("//")
                {
                    out.push(Symbol::new(kind, name));
                }
            }
            continue;
        }
        for (word, kind) in [("type", "type"), ("var", "var"), ("const", "const")] {
            if let Some(rest) = line.strip_prefix(word)
                && rest.starts_with(char::is_whitespace)
            {
                let rest = rest.trim_start();
                if rest.starts_with('(') {
                    group = Some(kind);
                } else if let Some(name) = ident(rest)
                    && exported(name)
                {
                    out.push(Symbol::new(kind, name));
                }
            }
        }
        if let Some(rest) = line.strip_prefix("func ") {
            let rest = rest.trim_start();
            if let Some(recv) = rest.strip_prefix('(') {
                // func (r *Type[T]) Name(
                let Some((inside, after)) = recv.split_once(')') else {
                    continue;
                };
                let ty = inside.split_whitespace().last().unwrap_or("");
                let ty = ty.trim_start_matches('*');
                let ty = ty.split('[').next().unwrap_or(ty);
                if let Some(name) = ident(after.trim_start())
                    && exported(name)
                {
                    out.push(Symbol::new("method", format!("{ty}.{name}")));
                }
            } else if let Some(name) = ident(rest)
                && exported(name)
            {
                out.push(Symbol::new("func", name));
            }
        }
    }
    out
}

/// One line for the registry: `kind name, kind name, ...`, at most `max` items (then
/// `+N more`).
pub fn describe(symbols: &[Symbol], max: usize) -> String {
    let mut parts: Vec<String> = symbols
        .iter()
        .take(max)
        .map(|s| format!("{} {}", s.kind, s.name))
        .collect();
    if symbols.len() > max {
        parts.push(format!("+{} more", symbols.len() - max));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &str, text: &str) -> Vec<String> {
        detect_symbols(path, text)
            .iter()
            .map(|s| format!("{} {}", s.kind, s.name))
            .collect()
    }

    #[test]
    fn rust_public_items_and_methods() {
        let src = r#"//! docs
use std::fmt;
pub struct User { pub name: String }
pub(crate) struct Hidden;
struct Private;
pub enum Role { Admin }
pub trait Store {
    fn get(&self);
}
pub type Id = u64;
pub const MAX: usize = 3;
pub static NAME: &str = "x";
pub mod auth;
pub async fn login() {}
pub const fn zero() -> u32 { 0 }
pub unsafe fn raw() {}
fn helper() {}
impl User {
    pub fn new() -> Self { todo() }
    fn private(&self) {}
}
impl<T: Clone> fmt::Display for Wrapper<T> {
    pub fn fmt(&self) {}
}
// pub fn commented() {}
"#;
        assert_eq!(
            names("src/user.rs", src),
            vec![
                "struct User",
                "enum Role",
                "trait Store",
                "type Id",
                "const MAX",
                "static NAME",
                "mod auth",
                "fn login",
                "fn zero",
                "fn raw",
                "fn User::new",
                "fn Wrapper::fmt",
            ]
        );
    }

    #[test]
    fn python_top_level_public_defs_and_classes() {
        let src = "import os\n\nclass User(Base):\n    def method(self):\n        pass\n\nclass _Private:\n    pass\n\ndef login(user):\n    pass\n\nasync def fetch():\n    pass\n\ndef _helper():\n    pass\n\n\"\"\"\ndef in_docstring():\n\"\"\"\nMAX = 3\n";
        assert_eq!(
            names("app/user.py", src),
            vec!["class User", "def login", "def fetch"]
        );
    }

    #[test]
    fn typescript_and_javascript_exports() {
        let src = "import x from 'y';\nexport function login(u: User): void {}\nexport async function fetchUser() {}\nexport class Session {}\nexport abstract class Base {}\nexport const MAX = 3;\nexport let counter = 0;\nexport interface User { name: string }\nexport type Id = string;\nexport enum Role { Admin }\nexport default function main() {}\nexport { helper, other as renamed };\nfunction local() {}\nconst notExported = 1;\n";
        assert_eq!(
            names("src/auth.ts", src),
            vec![
                "function login",
                "function fetchUser",
                "class Session",
                "class Base",
                "const MAX",
                "let counter",
                "interface User",
                "type Id",
                "enum Role",
                "default main",
                "export helper",
                "export renamed",
            ]
        );
        assert_eq!(
            names(
                "lib/a.mjs",
                "export function* gen() {}\nexport var v = 1;\nexport default {};\n"
            ),
            vec!["function gen", "var v", "default default"]
        );
    }

    #[test]
    fn go_capitalised_top_level_items_and_methods() {
        let src = "package auth\n\nimport \"fmt\"\n\ntype User struct {\n\tName string\n}\n\ntype session struct{}\n\nfunc Login(u User) error { return nil }\n\nfunc helper() {}\n\nfunc (u *User) Save() error { return nil }\n\nfunc (u User) validate() bool { return true }\n\nvar DefaultTimeout = 3\n\nconst (\n\tMaxUsers = 10\n\tminUsers = 1\n)\n\nvar (\n\tErrNotFound = fmt.Errorf(\"x\")\n)\n";
        assert_eq!(
            names("auth/user.go", src),
            vec![
                "type User",
                "func Login",
                "method User.Save",
                "var DefaultTimeout",
                "const MaxUsers",
                "var ErrNotFound",
            ]
        );
        assert!(names("auth/user_test.go", "func TestLogin(t *testing.T) {}").is_empty());
    }

    #[test]
    fn unknown_languages_give_nothing_and_describe_caps() {
        assert!(detect_symbols("README.md", "pub fn x() {}").is_empty());
        let syms = detect_symbols("a.rs", "pub fn a() {}\npub fn b() {}\npub fn c() {}\n");
        assert_eq!(describe(&syms, 2), "fn a, fn b, +1 more");
    }
}
