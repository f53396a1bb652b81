//! A borrowed record reads every field exactly as a parsed `Map` does, and accepts exactly
//! the lines the reader's head parse accepts.

use super::*;

const VALUES: &[&str] = &[
    r#""plain""#,
    r#""""#,
    r#""with \"escapes\" \n and \u00e9 \\""#,
    r#""é unicode as is""#,
    "0",
    "7",
    "-0",
    "-12",
    "1.0",
    "2.5",
    "1e3",
    "1E-2",
    "-1.5e10",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "true",
    "false",
    "null",
    "[]",
    r#"[1, "a", null, [2]]"#,
    "{}",
    r#"{"b": 1, "a": [true, {"c": "d"}]}"#,
];

#[test]
fn raw_fields_read_as_parsed_ones() {
    for raw in VALUES {
        let line = format!(r#"{{"k": {raw}}}"#);
        let map: Map<String, Value> = serde_json::from_str(&line).unwrap();
        let rec = Record::parse(line.as_bytes()).unwrap();
        let (a, b) = (rec.field("k").unwrap(), map.field("k").unwrap());
        assert!(matches!(a, Field::Raw(_)));
        assert_eq!(a.as_str(), b.as_str(), "as_str of {raw}");
        assert_eq!(a.text(), b.text(), "text of {raw}");
        assert_eq!(a.as_u64(), b.as_u64(), "as_u64 of {raw}");
        assert_eq!(a.as_i64(), b.as_i64(), "as_i64 of {raw}");
        assert_eq!(
            a.as_f64().map(f64::to_bits),
            b.as_f64().map(f64::to_bits),
            "as_f64 of {raw}"
        );
        assert_eq!(a.as_bool(), b.as_bool(), "as_bool of {raw}");
        assert_eq!(a.is_null(), b.is_null(), "is_null of {raw}");
        assert_eq!(a.is_number(), b.is_number(), "is_number of {raw}");
        assert_eq!(a.json_text(), b.json_text(), "json_text of {raw}");
        assert_eq!(a.to_value(), b.to_value(), "to_value of {raw}");
    }
    let rec = Record::parse(b"{}").unwrap();
    assert!(rec.field("k").is_none());
}

#[test]
fn repeated_keys_read_as_the_last_value_in_the_first_place() {
    let line = r#"{"a": 1, "b": "x", "\u0061": 2, "c": null, "b": "y"}"#;
    let map: Map<String, Value> = serde_json::from_str(line).unwrap();
    let rec = Record::parse(line.as_bytes()).unwrap();
    assert_eq!(rec.field("a").and_then(Field::as_u64), Some(2));
    assert_eq!(rec.field("b").and_then(Field::text).as_deref(), Some("y"));
    let text = |e: Vec<(&str, Field)>| -> Vec<(String, String)> {
        e.into_iter()
            .map(|(k, v)| (k.to_string(), v.json_text()))
            .collect()
    };
    assert_eq!(text(rec.entries()), text(map.entries()));
    assert_eq!(text(rec.entries()).len(), 3);
}

#[test]
fn records_accept_exactly_the_lines_heads_accept() {
    let lines: &[&[u8]] = &[
        br#"{"ts":"2026-01-01T00:00:00Z","event":"issue_done","issue":3,"x":[1,{"y":null}]}"#,
        br#"  {"event": "e"}  "#,
        b"{}",
        br#"{"ts":null,"event":null,"issue":null}"#,
        br#"{"ts":5,"event":"e"}"#,
        br#"{"event":["e"]}"#,
        br#"{"event":"a","event":"b"}"#,
        br#"{"issue":1,"\u0069ssue":2}"#,
        br#"{"ts":"a","\u0074s":"b"}"#,
        br#"{"issue":1e400}"#,
        br#"{"issue":[1e400]}"#,
        br#"{"issue":"\ud800"}"#,
        br#"{"event":"\ud800"}"#,
        br#"{"event":"\u00e9"}"#,
        br#"{"other":"\ud800"}"#,
        br#"{"other":["\uD83D\uDE00", "\\ud800"]}"#,
        br#"{"other":{"x":"\udc00"}}"#,
        br#"{"other":1e400}"#,
        br#"{"other":[1,{"x":-2e999}]}"#,
        br#"{"other":["a\"1e400",2,"\\",1e300]}"#,
        br#"{"other":"1e400"}"#,
        br#"{"ts":"x"} trailing"#,
        br#"{"ts":"x""#,
        b"[1,2]",
        b"not json",
        b"   ",
        b"",
        b"{\"other\":\"\xff\"}",
        b"{\"event\":\"\xff\"}",
        b"{\"\xff\":1}",
    ];
    for line in lines {
        let head = Head::parse(line);
        let rec = Record::parse(line);
        let shown = String::from_utf8_lossy(line);
        match (&head, &rec) {
            (Ok(h), Ok(r)) => {
                assert!(
                    serde_json::from_slice::<Map<String, Value>>(line).is_ok(),
                    "{shown}"
                );
                assert_eq!(h.ts, r.ts(), "{shown}");
                assert_eq!(h.event, r.event(), "{shown}");
                assert_eq!(h.issue_number(), r.issue_number(), "{shown}");
            }
            (Err(why), Err(NotARecord::Bad(also))) => assert_eq!(why, also, "{shown}"),
            // a value the head's parse skips over but that no reader can read
            (Ok(_), Err(NotARecord::Unreadable)) => {
                assert!(
                    serde_json::from_slice::<Map<String, Value>>(line).is_err(),
                    "{shown}"
                );
            }
            _ => panic!("{shown}: head {head:?}, record {rec:?}"),
        }
    }
}
