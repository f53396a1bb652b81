//! The fast way to split a record line into its keys and raw values: a hand-written scan
//! of the plain JSON the log writer produces (strings without escapes or control
//! characters, numbers, literals, nested lists and objects). Anything else (an escape, a
//! syntax error, very deep nesting) is not handled here: the caller then parses the line
//! with serde_json, so a line is accepted, refused and split exactly as serde_json does.

use std::borrow::Cow;

/// Deeper values are left to serde_json (and its recursion limit).
const MAX_DEPTH: usize = 64;

/// The keys and raw value texts of `text`, when it is a plain JSON object; `None` when it
/// is anything else (including JSON this scan does not handle).
pub(super) fn split(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    s.blanks();
    s.eat(b'{')?;
    s.blanks();
    let mut fields = Vec::with_capacity(12);
    if s.peek() == Some(b'}') {
        s.i += 1;
    } else {
        loop {
            let key = s.string()?;
            s.blanks();
            s.eat(b':')?;
            s.blanks();
            let start = s.i;
            s.value(0)?;
            fields.push((
                Cow::Borrowed(&text[key.0 + 1..key.1 - 1]),
                &text[start..s.i],
            ));
            s.blanks();
            match s.next()? {
                b',' => s.blanks(),
                b'}' => break,
                _ => return None,
            }
        }
    }
    s.blanks();
    (s.i == s.b.len()).then_some(fields)
}

struct Scan<'b> {
    b: &'b [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    /// JSON's whitespace.
    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// A string with no escape and no control character; its range, quotes included.
    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.i;
        self.eat(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some((start, self.i)),
                b'\\' | 0..=0x1f => return None,
                _ => {}
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            (self.digits() > 0).then_some(())?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            (self.digits() > 0).then_some(())?;
        }
        // a digit right after a leading zero is not JSON
        (!self.peek().is_some_and(|c| c.is_ascii_digit())).then_some(())
    }

    fn word(&mut self, w: &[u8]) -> Option<()> {
        let end = self.i + w.len();
        (self.b.get(self.i..end)? == w).then_some(())?;
        self.i = end;
        Some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'[' if depth < MAX_DEPTH => self.list(depth + 1, b']', false),
            b'{' if depth < MAX_DEPTH => self.list(depth + 1, b'}', true),
            _ => None,
        }
    }

    /// A list (`keyed`: an object) of values, from its opening to its closing bracket.
    fn list(&mut self, depth: usize, close: u8, keyed: bool) -> Option<()> {
        self.i += 1;
        self.blanks();
        if self.peek() == Some(close) {
            self.i += 1;
            return Some(());
        }
        loop {
            if keyed {
                self.string()?;
                self.blanks();
                self.eat(b':')?;
                self.blanks();
            }
            self.value(depth)?;
            self.blanks();
            match self.next()? {
                b',' => self.blanks(),
                c if c == close => return Some(()),
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// serde_json's split of the same text (what the record parse falls back to).
    fn by_serde(text: &str) -> Option<Vec<(String, String)>> {
        let rec = serde_json::from_str::<super::super::Record>(text).ok()?;
        Some(
            rec.fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    fn by_scan(text: &str) -> Option<Vec<(String, String)>> {
        Some(
            split(text)?
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// The scan answers, or leaves the text to serde_json; when it answers, it is serde's
    /// answer; and it answers for every object without escapes or control characters.
    fn check(text: &str) {
        let scan = by_scan(text);
        let serde = by_serde(text);
        if scan.is_some() {
            assert_eq!(scan, serde, "{text:?}");
        }
        if !text
            .bytes()
            .any(|b| b == b'\\' || b < 0x20 && !b" \t\n\r".contains(&b))
        {
            assert_eq!(scan.is_some(), serde.is_some(), "{text:?}");
        }
    }

    #[test]
    fn the_writers_lines_are_split_as_serde_splits_them() {
        for text in [
            r#"{"ts":"2026-01-01T00:00:03.014Z","event":"issue_done","seq":14,"issue":259,"commit":"0000000e","cost_usd":1.0480,"summary":"Implemented"}"#,
            r#"{"event":"agents_selected","proposals":[{"agent":"claude","confidence":0.82},{"a":[]}],"truncated":[],"ok":true,"x":null,"y":false}"#,
            r#"  { "a" : -0 , "b":1e3,"c":-1.5E+10,"d":"é😀" , "a":{} }  "#,
            "{}",
            " {\t}\r",
        ] {
            assert!(split(text).is_some(), "{text}");
            check(text);
        }
        for text in [
            r#"{"a":"x\"y"}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":1e}"#,
            r#"{"a":-}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":tru}"#,
            r#"{"a":1}x"#,
            r#"{"a":1}}"#,
            r#"[1]"#,
            r#"{"a":"tab	in"}"#,
            r#"{a:1}"#,
            "",
        ] {
            assert!(split(text).is_none(), "{text}");
            check(text);
        }
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(split(&deep).is_none(), "left to serde_json");
    }

    fn blank() -> impl Strategy<Value = String> {
        "[ \t\r\n]{0,2}"
    }

    fn object(depth: u32) -> BoxedStrategy<String> {
        prop::collection::vec(("[a-z\"\\\\]{1,3}", json(depth), blank()), 0..5)
            .prop_map(|items| {
                let items: Vec<String> = items
                    .into_iter()
                    .map(|(k, v, b)| format!("{b}\"{k}\"{b}:{b}{v}"))
                    .collect();
                format!("{{{}}}", items.join(","))
            })
            .boxed()
    }

    fn json(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![
            "\"[a-zé😀 :,{}\\[\\]\\\\\"\t]{0,6}\"",
            "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?",
            Just("true".to_string()),
            Just("false".to_string()),
            Just("null".to_string()),
        ];
        if depth == 0 {
            return leaf.boxed();
        }
        prop_oneof![
            3 => leaf,
            1 => prop::collection::vec((json(depth - 1), blank()), 0..4).prop_map(|items| {
                let items: Vec<String> = items.into_iter().map(|(v, b)| format!("{b}{v}{b}")).collect();
                format!("[{}]", items.join(","))
            }),
            1 => object(depth - 1),
        ]
        .boxed()
    }

    proptest! {
        #[test]
        fn the_scan_is_serde_on_any_text(
            text in object(2),
            cut in any::<prop::sample::Index>(),
            bytes in prop::collection::vec(prop::sample::select(b"{}[]\",:0-.e \\a".to_vec()), 0..3),
        ) {
            check(&text);
            // and the same with a few bytes put in somewhere (mostly not JSON any more)
            let at = cut.index(text.len() + 1);
            if text.is_char_boundary(at) {
                let mut broken = text.clone();
                broken.insert_str(at, std::str::from_utf8(&bytes).unwrap());
                check(&broken);
                check(&broken[..at]);
            }
        }
    }
}
