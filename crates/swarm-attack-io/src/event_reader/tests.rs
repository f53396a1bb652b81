//! Tests of the event log reader.

use super::*;
use std::io::Write;

fn read(text: &[u8], filter: Filter) -> (Vec<(u64, String)>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.jsonl");
    std::fs::write(&p, text).unwrap();
    let mut r = LogReader::new(&p, filter, &crate::ui::Ui::captured(Default::default()));
    let mut out = Vec::new();
    let mut sink = |no: u64, l: &[u8], _: Option<&Record>| {
        out.push((no, String::from_utf8_lossy(l).into_owned()));
        Ok(())
    };
    assert!(r.read_all(&mut sink).unwrap());
    (out, r.bad_lines())
}

fn issue(n: u64) -> Filter {
    Filter {
        issue: Some(n),
        ..Default::default()
    }
}

#[test]
fn garbage_in_the_middle_is_counted_and_the_read_goes_on() {
    let text = b"{\"event\":\"a\",\"issue\":1}\nnot json\n{\"event\":\"b\",\"issue\":1,\n\n{\"event\":\"c\",\"issue\":1}\n";
    let (out, bad) = read(text, Filter::default());
    assert_eq!(out.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 5]);
    assert_eq!(bad, 2);
    // With the prefilter: line 2 has no `"issue"` but is still reported; line 3 is a
    // candidate and fails to parse.
    let (out, bad) = read(text, issue(1));
    assert_eq!(out.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 5]);
    assert_eq!(bad, 2);
}

#[test]
fn a_torn_tail_is_skipped_and_a_complete_unterminated_record_is_kept() {
    let (out, bad) = read(b"{\"issue\":1}\n{\"issue\":1,\"ev", Filter::default());
    assert_eq!(out, [(1, "{\"issue\":1}".to_string())]);
    assert_eq!(bad, 0, "a torn tail is not a bad line in the middle");
    let (out, _) = read(b"{\"issue\":1}\n{\"issue\":2}", Filter::default());
    assert_eq!(out.len(), 2);
}

#[test]
fn lines_longer_than_the_buffer_and_many_blocks_are_read() {
    let mut text = Vec::new();
    let long = "y".repeat(3 * BLOCK);
    for i in 0..3000u64 {
        if i == 1500 {
            text.extend_from_slice(format!("{{\"issue\":7,\"long\":\"{long}\"}}\n").as_bytes());
        }
        text.extend_from_slice(
            format!(
                "{{\"ts\":\"t\",\"event\":\"x\",\"issue\":{},\"pad\":\"{}\"}}\n",
                i % 10,
                "z".repeat(500)
            )
            .as_bytes(),
        );
    }
    let (out, bad) = read(&text, issue(7));
    assert_eq!(bad, 0);
    assert_eq!(out.len(), 301);
    assert_eq!(out[150].0, 1501);
    assert!(out[150].1.len() > 3 * BLOCK);
    let (all, _) = read(&text, Filter::default());
    assert_eq!(all.len(), 3001);
}

#[test]
fn follow_sees_appends_and_a_repaired_tail_and_stops_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.jsonl");
    std::fs::write(&p, b"{\"n\":1}\n{\"torn\":").unwrap();
    let stop = AtomicBool::new(false);
    let seen = std::sync::Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut r = LogReader::new(
                &p,
                Filter::default(),
                &crate::ui::Ui::captured(Default::default()),
            );
            let mut sink = |_n: u64, l: &[u8], _: Option<&Record>| {
                seen.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(l).into_owned());
                Ok(())
            };
            r.follow(&mut sink, &stop, Duration::from_millis(5))
                .unwrap();
        });
        let wait_for = |k: usize| {
            for _ in 0..400 {
                if seen.lock().unwrap().len() >= k {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            panic!("follow did not see {k} lines: {:?}", seen.lock().unwrap());
        };
        wait_for(1);
        std::thread::sleep(Duration::from_millis(30));
        // Repair as a writer does: truncate the torn tail and append at once (the file
        // ends up longer than what the reader had read).
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.set_len(8).unwrap();
        f.write_all(b"{\"n\":2,\"pad\":\"xxxxxxxx\"}\n").unwrap();
        wait_for(2);
        f.write_all(b"{\"n\":3}\n").unwrap();
        wait_for(3);
        stop.store(true, Ordering::Relaxed);
    });
    assert_eq!(
        *seen.lock().unwrap(),
        ["{\"n\":1}", "{\"n\":2,\"pad\":\"xxxxxxxx\"}", "{\"n\":3}"]
    );
}

/// What a chunk's lines give: (line number, line, parsed) for each line handed on, the
/// bad lines and the last line number.
type Outcome = (Vec<(u64, Vec<u8>, bool)>, u64, u64);

/// Runs `chunk` (complete lines) through `process_chunk`, or (`by_line`) through the
/// line-by-line definition of the prefiltered read: a line with a hit is parsed, any other
/// line only shape-checked.
fn outcome(chunk: &[u8], filter: &Filter, pre: Option<&Prefilter>, by_line: bool) -> Outcome {
    let (mut bad, mut matched) = (0, 0);
    let mut ctx = LineCtx {
        path: Path::new("f.jsonl"),
        filter,
        bad_lines: &mut bad,
        matched: &mut matched,
        ui: &crate::ui::Ui::captured(Default::default()),
    };
    let mut out = Vec::new();
    let mut sink = |no: u64, l: &[u8], rec: Option<&Record>| {
        out.push((no, l.to_vec(), rec.is_some()));
        Ok(())
    };
    let last = if by_line {
        let mut no = 0;
        let lines = chunk.strip_suffix(b"\n").unwrap_or(chunk);
        // (an empty chunk has no lines)
        for line in lines
            .split(|b| *b == b'\n')
            .take_while(|_| !chunk.is_empty())
        {
            no += 1;
            match pre {
                Some(p) if !p.line_may_match(line) => ctx.skipped(no, line),
                _ => ctx.full(no, line, &mut sink).unwrap(),
            }
        }
        no
    } else {
        process_chunk(chunk, 0, pre, &mut ctx, &mut sink).unwrap()
    };
    (out, bad, last)
}

fn log_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let name = prop::sample::select(vec![
        "issue_done",
        "issue_started",
        "issue_done_x",
        "x_issue_done",
        "verification_failed",
    ]);
    let text = prop::sample::select(vec![
        "plain",
        "issue_done",
        "\\\"event\\\":\\\"issue_done\\\"",
        "\\\"issue\\\":7,",
        "a\\nb",
    ]);
    let blank = prop::sample::select(vec!["", " ", "\t"]);
    let colon = prop::sample::select(vec![":", " : ", ":\t"]);
    prop_oneof![
        8 => (name, 0u32..12, text, blank.clone(), colon).prop_map(|(e, n, t, pad, c)| format!(
            r#"{pad}{{"ts":"2026-01-01T00:00:0{}.000Z","event"{c}"{e}","seq":{n},"issue"{c}{n},"note":"{t}"}}{pad}"#,
            n % 10
        )),
        1 => blank.prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "not json",
            r#"{"event":"issue_done" garbage}"#,
            r#"{"event":"issue_done","issue":7"#,
            r#"{"event":"issue_done","issue":7,"event":"issue_done"}"#,
            r#"{"x":1}"#,
            r#"["event","issue_done"]"#,
            // names and keys spelled with escapes decode to the plain ones
            r#"{"event":"\u0069ssue_done","issue":7}"#,
            r#"{"\u0065vent":"issue_done","\u0069ssue":7}"#,
            r#"{"event":"issue_st\u0061rted","issue":3}"#,
            "{",
            "}",
        ])
        .prop_map(str::to_string),
    ]
}

proptest::proptest! {
    /// The lines between hits are counted and checked in bulk: the same lines are handed on,
    /// with the same numbers, and the same lines are reported as not records, as when each
    /// line is looked at on its own; and every line the unfiltered read hands on that passes
    /// the filter is handed on, and no other.
    #[test]
    fn the_prefiltered_chunk_is_the_line_by_line_read(
        lines in proptest::collection::vec(log_line(), 0..80),
        which in 0usize..3,
    ) {
        let filter = match which {
            0 => Filter { events: vec!["issue_done".into()], ..Default::default() },
            1 => Filter { events: vec!["issue_done".into(), "issue_started".into()], ..Default::default() },
            _ => issue(7),
        };
        let pre = filter.prefilter();
        let chunk: Vec<u8> = lines.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect();
        let fast = outcome(&chunk, &filter, pre.as_ref(), false);
        proptest::prop_assert_eq!(&fast, &outcome(&chunk, &filter, pre.as_ref(), true));
        proptest::prop_assert_eq!(fast.2, lines.len() as u64);
        let unfiltered = outcome(&chunk, &Filter::default(), None, false);
        let expected: Vec<_> = unfiltered
            .0
            .into_iter()
            .filter(|(_, l, _)| {
                let rec = Record::parse(l).ok();
                matches(&filter, l, rec.as_ref())
            })
            .collect();
        proptest::prop_assert_eq!(fast.0, expected);
    }
}
