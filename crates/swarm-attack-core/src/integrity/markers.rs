//! Skip, ignore and xfail markers (docs/integrity.md `skip_markers`): the list, and finding one on
//! a line.

/// The markers of docs/integrity.md, plus Go's other skips (`t.SkipNow(`, `t.Skipf(`). Each is
/// found only where it starts a word (`exit(` is not `xit(`); `#[ignore` also takes
/// `#[ignore = "why"]`.
pub const MARKERS: &[&str] = &[
    "@pytest.mark.skip",
    "@pytest.mark.xfail",
    "pytest.skip(",
    "@unittest.skip",
    "#[ignore",
    "it.skip(",
    "describe.skip(",
    "test.skip(",
    "xit(",
    "xdescribe(",
    "t.Skip(",
    "t.SkipNow(",
    "t.Skipf(",
    "@Disabled",
    "@Ignore",
];

/// The first marker on `line`, if any.
pub fn find(line: &str) -> Option<&'static str> {
    MARKERS.iter().copied().find(|m| has_marker(line, m))
}

fn has_marker(line: &str, marker: &str) -> bool {
    let mut from = 0;
    while let Some(i) = line[from..].find(marker) {
        let at = from + i;
        let before_ok = line[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        let after = line[at + marker.len()..].chars().next();
        let after_ok = match marker {
            // `#[ignore]`, `#[ignore = "..."]`, not `#[ignored_thing]`
            "#[ignore" => matches!(after, Some(']') | Some(' ') | Some('=') | Some('(')),
            _ => true,
        };
        if before_ok && after_ok {
            return true;
        }
        from = at + marker.len();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_marker_at_a_word_start() {
        let hits = [
            ("@pytest.mark.skip(reason='later')", "@pytest.mark.skip"),
            (
                "@pytest.mark.skipif(sys.platform == 'win32')",
                "@pytest.mark.skip",
            ),
            ("    @pytest.mark.xfail", "@pytest.mark.xfail"),
            ("    pytest.skip(\"flaky\")", "pytest.skip("),
            ("@unittest.skip('x')", "@unittest.skip"),
            ("#[ignore]", "#[ignore"),
            ("    #[ignore = \"slow\"]", "#[ignore"),
            ("it.skip('works', () => {})", "it.skip("),
            ("describe.skip('suite', () => {})", "describe.skip("),
            ("test.skip('a', () => {})", "test.skip("),
            ("xit('a', () => {})", "xit("),
            ("xdescribe('s', () => {})", "xdescribe("),
            ("\tt.Skip(\"later\")", "t.Skip("),
            ("\tt.SkipNow()", "t.SkipNow("),
            ("@Disabled(\"later\")", "@Disabled"),
            ("@Ignore", "@Ignore"),
        ];
        for (line, want) in hits {
            assert_eq!(find(line), Some(want), "{line}");
        }
        for line in [
            "exit(1)",
            "let split = s.split(',');",
            "#[ignored_attr]",
            "fn t() {}",
            "submit(form)",
            "obj.xit(1)",
        ] {
            assert_eq!(find(line), None, "{line}");
        }
        // a marker quoted in a string still starts a word there: reported (the safe side)
        assert_eq!(find("let s = \"xit(\";"), Some("xit("));
    }
}
