//! What a unified diff (`git diff`) adds and removes, per file: the added lines with their
//! line numbers in the new version, and the removed lines. Used by the test-integrity checks
//! (docs/integrity.md: lines added to test files) and to anchor review findings (docs/review.md: a
//! line the candidate added or changed).

/// One file of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileDiff {
    /// The path in the new version (the old path for a deleted file).
    pub path: String,
    /// The file is gone in the new version.
    pub deleted: bool,
    /// Added lines: (line number in the new version, from 1; text without the `+`).
    pub added: Vec<(u32, String)>,
    /// Removed lines (text without the `-`).
    pub removed: Vec<String>,
}

/// Parses a `git diff` patch (any context size). Binary files appear with no lines.
pub fn parse(diff: &str) -> Vec<FileDiff> {
    let mut out: Vec<FileDiff> = Vec::new();
    let mut cur: Option<FileDiff> = None;
    let mut old_path: Option<String> = None;
    let mut new_line: u32 = 0;
    // lines left in the current hunk (old side, new side), from its header
    let (mut old_left, mut new_left) = (0u32, 0u32);
    for line in diff.lines() {
        let in_hunk = old_left > 0 || new_left > 0;
        if in_hunk {
            let Some(f) = cur.as_mut() else {
                old_left = 0;
                new_left = 0;
                continue;
            };
            if let Some(text) = line.strip_prefix('+') {
                f.added.push((new_line, text.to_string()));
                new_line += 1;
                new_left = new_left.saturating_sub(1);
            } else if let Some(text) = line.strip_prefix('-') {
                f.removed.push(text.to_string());
                old_left = old_left.saturating_sub(1);
            } else if line.starts_with('\\') {
                // `\ No newline at end of file`
            } else {
                new_line += 1;
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            out.extend(cur.take());
            old_path = None;
            // `a/x b/x`: the new path is the second half (exact when both are equal)
            let path = rest
                .split_once(" b/")
                .map(|(_, b)| unquote(b))
                .unwrap_or_default();
            cur = Some(FileDiff {
                path,
                ..FileDiff::default()
            });
        } else if let Some(p) = line.strip_prefix("--- ") {
            old_path = strip_side(p, "a/");
        } else if let Some(p) = line.strip_prefix("+++ ") {
            let f = cur.get_or_insert_with(FileDiff::default);
            match strip_side(p, "b/") {
                Some(new) => f.path = new,
                None => {
                    f.deleted = true;
                    if let Some(old) = old_path.clone() {
                        f.path = old;
                    }
                }
            }
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let (o, n, start) = hunk_header(rest);
            old_left = o;
            new_left = n;
            new_line = start;
        }
    }
    out.extend(cur);
    out
}

/// `a/path` → `path`; `/dev/null` → `None`.
fn strip_side(p: &str, side: &str) -> Option<String> {
    let p = unquote(p.trim_end_matches('\t'));
    if p == "/dev/null" {
        return None;
    }
    Some(p.strip_prefix(side).map(str::to_string).unwrap_or(p))
}

/// Git's C-style quoting of unusual paths (`"a/sp\"ace"`).
fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return s.to_string();
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// `-a,b +c,d @@ ...` → (b, d, c); a missing count is 1.
fn hunk_header(rest: &str) -> (u32, u32, u32) {
    let side = |sign: char| -> (u32, u32) {
        let Some(w) = rest.split_whitespace().find(|w| w.starts_with(sign)) else {
            return (1, 1);
        };
        let mut it = w[1..].split(',');
        let start = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        let count = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        (start, count)
    };
    let (_, old_count) = side('-');
    let (new_start, new_count) = side('+');
    (old_count, new_count, new_start.max(1))
}

/// The lines of a new file, all added (numbered from 1).
pub fn all_added(path: &str, text: &str) -> FileDiff {
    FileDiff {
        path: path.to_string(),
        deleted: false,
        added: text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u32 + 1, l.to_string()))
            .collect(),
        removed: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/src/a.rs b/src/a.rs
index 1111111..2222222 100644
--- a/src/a.rs
+++ b/src/a.rs
@@ -1,3 +1,4 @@
 fn a() {
-    1
+    2
+    // three
 }
@@ -10,3 +11,3 @@ fn b() {
 x
--- an sql comment
+y
 z
diff --git a/tests/old.rs b/tests/old.rs
deleted file mode 100644
index 3333333..0000000
--- a/tests/old.rs
+++ /dev/null
@@ -1,2 +0,0 @@
-#[test]
-fn t() {}
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+--- not a header
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
";

    #[test]
    fn parses_added_lines_with_new_numbers() {
        let files = parse(PATCH);
        assert_eq!(files.len(), 4);
        assert_eq!(files[0].path, "src/a.rs");
        assert_eq!(
            files[0].added,
            vec![
                (2, "    2".to_string()),
                (3, "    // three".to_string()),
                (12, "y".to_string())
            ]
        );
        assert_eq!(
            files[0].removed,
            vec!["    1".to_string(), "-- an sql comment".to_string()]
        );
        assert!(files[1].deleted);
        assert_eq!(files[1].path, "tests/old.rs");
        assert_eq!(files[1].removed.len(), 2);
        assert_eq!(files[2].path, "new.txt");
        assert_eq!(
            files[2].added,
            vec![(1, "hello".into()), (2, "--- not a header".into())]
        );
        assert_eq!(files[3].path, "img.png");
        assert!(files[3].added.is_empty());
    }

    #[test]
    fn quoted_paths_and_new_files() {
        let p = "diff --git \"a/sp \\\"q\\\"\" \"b/sp \\\"q\\\"\"\n--- \"a/sp \\\"q\\\"\"\n+++ \"b/sp \\\"q\\\"\"\n@@ -1 +1 @@\n-a\n+b\n";
        let f = parse(p);
        assert_eq!(f[0].path, "sp \"q\"");
        assert_eq!(f[0].added, vec![(1, "b".into())]);
        let n = all_added("x", "a\nb\n");
        assert_eq!(n.added, vec![(1, "a".into()), (2, "b".into())]);
    }
}
