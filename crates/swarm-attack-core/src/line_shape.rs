//! Whether a block of log lines all look like JSON objects (`{` … `}`, nothing around), with
//! their count — checked in one pass over the bytes, without stopping at each line.
//!
//! The event log reader asks this for the lines its prefilter ruled out (most of a long log
//! with `--event` or `--issue`): they only need counting and a cheap shape check. When any
//! line does not have the plain shape (blank, padded, garbage), the reader checks the block
//! line by line as before; this is only the fast way to say "all plain".

/// How many bytes are checked together (the compiler turns the inner loop into vector
/// compares).
const LANES: usize = 64;

/// The number of lines in `block` (complete lines, each ending with a newline) when every
/// one starts with `{` and ends with `}`; `None` when one does not. An empty block has no
/// lines.
pub fn object_lines(block: &[u8]) -> Option<u64> {
    let Some((&last, body)) = block.split_last() else {
        return Some(0);
    };
    // `body`: the lines without the last newline; each newline in it must have `}` before
    // it and `{` after it.
    if last != b'\n' || body.first() != Some(&b'{') || body.last() != Some(&b'}') {
        return None;
    }
    let m = body.len() - 2; // body.len() >= 2: one byte cannot be both `{` and `}`
    let (before, at, after) = (&body[..m], &body[1..=m], &body[2..]);
    let mut lines = 1u64;
    let full = m - m % LANES;
    let mut k = 0;
    while k < full {
        let p: &[u8; LANES] = before[k..k + LANES].try_into().ok()?;
        let c: &[u8; LANES] = at[k..k + LANES].try_into().ok()?;
        let x: &[u8; LANES] = after[k..k + LANES].try_into().ok()?;
        let mut newlines = 0u8;
        let mut bad = 0u8;
        for j in 0..LANES {
            let nl = u8::from(c[j] == b'\n');
            newlines += nl;
            bad |= nl & (u8::from(p[j] != b'}') | u8::from(x[j] != b'{'));
        }
        if bad != 0 {
            return None;
        }
        lines += u64::from(newlines);
        k += LANES;
    }
    for j in full..m {
        if at[j] == b'\n' {
            if before[j] != b'}' || after[j] != b'{' {
                return None;
            }
            lines += 1;
        }
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same question, answered line by line.
    fn reference(block: &[u8]) -> Option<u64> {
        if block.is_empty() {
            return Some(0);
        }
        let body = block.strip_suffix(b"\n")?;
        let mut n = 0;
        for line in body.split(|b| *b == b'\n') {
            if line.first() != Some(&b'{') || line.last() != Some(&b'}') {
                return None;
            }
            n += 1;
        }
        Some(n)
    }

    #[test]
    fn plain_lines_are_counted_and_any_other_shape_is_refused() {
        assert_eq!(object_lines(b""), Some(0));
        assert_eq!(object_lines(b"{}\n"), Some(1));
        assert_eq!(object_lines(b"{\"a\":1}\n{\"b\":2}\n"), Some(2));
        for other in [
            &b"{}"[..],
            b"\n",
            b"{}\n\n",
            b"\n{}\n",
            b"{\n",
            b"}\n",
            b" {}\n",
            b"{} \n",
            b"{}\r\n",
            b"{}\n{\n",
            b"{}\nx\n{}\n",
        ] {
            assert_eq!(
                object_lines(other),
                None,
                "{:?}",
                String::from_utf8_lossy(other)
            );
        }
        // a bad line at every place of a long block (in the vector part and the rest)
        let line = b"{\"event\":\"issue_started\",\"issue\":7,\"pad\":\"xxxxxxxxxxxxx\"}\n";
        let block: Vec<u8> = line.iter().copied().cycle().take(line.len() * 40).collect();
        assert_eq!(object_lines(&block), Some(40));
        for at in 0..block.len() {
            for byte in [b'\n', b' ', b'{', b'}'] {
                let mut b = block.clone();
                b[at] = byte;
                assert_eq!(object_lines(&b), reference(&b), "byte {byte} at {at}");
            }
        }
    }

    fn line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            6 => "[a-z\":,0-9 ]{0,90}".prop_map(|s| format!("{{{s}}}").into_bytes()),
            1 => "[{} \t\r\nx]{0,4}".prop_map(String::into_bytes),
            1 => Just(b"{".to_vec()),
            1 => Just(b"}".to_vec()),
        ]
    }

    proptest! {
        #[test]
        fn the_count_and_the_verdict_are_the_line_by_line_ones(
            lines in prop::collection::vec(line(), 0..60),
        ) {
            let mut block = Vec::new();
            for l in &lines {
                block.extend_from_slice(l);
                block.push(b'\n');
            }
            prop_assert_eq!(object_lines(&block), reference(&block));
            // and without its last newline (then not a block of complete lines, unless the
            // last line had one of its own)
            if let Some((_, cut)) = block.split_last() {
                prop_assert_eq!(object_lines(cut), reference(cut));
            }
        }
    }
}
