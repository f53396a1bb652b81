//! Which event records `events` prints: the filter (`--issue`, `--event`, `--since`,
//! `--until`), the cheap byte prefilter that lets the reader skip most lines without parsing
//! them, record timestamps and the time arguments (RFC 3339, a date, or a relative age).

use crate::record::Record;
use memchr::memmem;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

/// The fields of a record the filter looks at. Parsing a line into it also checks that the
/// whole line is valid JSON.
#[derive(Debug, Deserialize)]
pub struct Head<'a> {
    #[serde(default, borrow)]
    pub ts: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub event: Option<Cow<'a, str>>,
    #[serde(default)]
    pub issue: Option<Value>,
}

impl<'a> Head<'a> {
    /// Parses one line (without its newline); the error says why it is not a JSON record.
    pub fn parse(line: &'a [u8]) -> Result<Head<'a>, String> {
        match line.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => serde_json::from_slice(line).map_err(|e| e.to_string()),
            Some(_) => Err("not a JSON object".into()),
            None => Err("empty line".into()),
        }
    }

    /// The record's `issue` when it is a whole number.
    pub fn issue_number(&self) -> Option<u64> {
        self.issue.as_ref().and_then(Value::as_u64)
    }
}

/// Parses a record's `ts`: RFC 3339 (any fraction of a second, `Z` or an offset); a time
/// without an offset (hand-written lines) is taken as UTC.
pub fn parse_ts(s: &str) -> Option<OffsetDateTime> {
    let s = s.trim();
    if let Ok(t) = OffsetDateTime::parse(s, &Rfc3339) {
        return Some(t);
    }
    let with_z = format!("{s}Z");
    OffsetDateTime::parse(&with_z, &Rfc3339).ok()
}

/// Parses a `--since`/`--until` value: RFC 3339 (`2026-01-01T12:00:00Z`), a date
/// (`2026-01-01`, midnight UTC), or an age before `now` like `2h`, `30m`, `7d`, `1h30m`
/// (units `s`, `m`, `h`, `d`, `w`). `None` when it is none of these.
pub fn parse_time_arg(arg: &str, now: OffsetDateTime) -> Option<OffsetDateTime> {
    let arg = arg.trim();
    if arg.is_empty() {
        return None;
    }
    if let Some(age) = parse_age(arg) {
        return now.checked_sub(age);
    }
    if arg.len() == 10
        && let Some(t) = parse_ts(&format!("{arg}T00:00:00Z"))
    {
        return Some(t);
    }
    if arg.contains('T') || arg.contains('t') {
        return parse_ts(arg);
    }
    None
}

fn parse_age(arg: &str) -> Option<Duration> {
    let mut total = Duration::ZERO;
    let mut digits = String::new();
    let mut any = false;
    for c in arg.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let n: i64 = digits.parse().ok()?;
        digits.clear();
        let unit = match c {
            's' => Duration::SECOND,
            'm' => Duration::MINUTE,
            'h' => Duration::HOUR,
            'd' => Duration::DAY,
            'w' => Duration::WEEK,
            _ => return None,
        };
        total = total.checked_add(unit.checked_mul(i32::try_from(n).ok()?)?)?;
        any = true;
    }
    (any && digits.is_empty()).then_some(total)
}

/// The record filter; all set conditions must hold.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub issue: Option<u64>,
    /// Any of these names (empty: any event).
    pub events: Vec<String>,
    /// `ts >= since`.
    pub since: Option<OffsetDateTime>,
    /// `ts <= until`.
    pub until: Option<OffsetDateTime>,
}

impl Filter {
    /// Whether a parsed record passes. A record without a readable `ts` never passes a time
    /// condition.
    pub fn matches(&self, head: &Head) -> bool {
        self.matches_parts(
            head.issue_number(),
            head.event.as_deref(),
            head.ts.as_deref(),
        )
    }

    /// [`Filter::matches`] for a borrowed record (the same fields).
    pub fn matches_record(&self, rec: &Record) -> bool {
        if self.issue.is_none()
            && self.events.is_empty()
            && self.since.is_none()
            && self.until.is_none()
        {
            return true;
        }
        self.matches_parts(
            rec.issue_number(),
            rec.event().as_deref(),
            rec.ts().as_deref(),
        )
    }

    fn matches_parts(&self, issue: Option<u64>, event: Option<&str>, ts: Option<&str>) -> bool {
        if let Some(n) = self.issue
            && issue != Some(n)
        {
            return false;
        }
        if !self.events.is_empty() {
            let Some(name) = event else {
                return false;
            };
            if !self.events.iter().any(|e| e == name) {
                return false;
            }
        }
        if self.since.is_some() || self.until.is_some() {
            let Some(t) = ts.and_then(parse_ts) else {
                return false;
            };
            if self.since.is_some_and(|s| t < s) || self.until.is_some_and(|u| t > u) {
                return false;
            }
        }
        true
    }

    /// A byte prefilter for this filter, when one applies (`--issue` or `--event`).
    pub fn prefilter(&self) -> Option<Prefilter> {
        if let Some(n) = self.issue {
            return Some(Prefilter::Issue {
                finder: Box::new(memmem::Finder::new(b"\"issue\"").into_owned()),
                digits: n.to_string().into_bytes(),
            });
        }
        if !self.events.is_empty() {
            return Some(Prefilter::Events(
                self.events
                    .iter()
                    .map(|e| memmem::Finder::new(format!("\"{e}\"").as_bytes()).into_owned())
                    .collect(),
            ));
        }
        None
    }
}

/// Finds, without parsing JSON, the places where a key has a wanted value: `"issue"` then
/// optional blanks, `:`, blanks and the number; or a quoted event name preceded by `"event"`,
/// blanks, `:` and blanks (the name is rarer than the key, so it is what is searched for).
/// A line with no such place cannot match the filter; a line with one is then parsed and
/// checked (the prefilter may say yes for a nested key, never no for a match).
#[derive(Debug, Clone)]
pub enum Prefilter {
    Issue {
        finder: Box<memmem::Finder<'static>>,
        digits: Vec<u8>,
    },
    /// One finder per wanted name (quoted).
    Events(Vec<memmem::Finder<'static>>),
}

impl Prefilter {
    /// Positions in `hay` where the key has a wanted value, in increasing order. A `\u`
    /// escape is a hit too: a key or name spelled with escapes (`"\u0069ssue_done"`)
    /// decodes to the plain one, so its line must be parsed (the log's own writer never
    /// escapes a letter, so this costs nothing on the tool's logs).
    pub fn hits<'h>(&'h self, hay: &'h [u8]) -> Box<dyn Iterator<Item = usize> + 'h> {
        if memmem::find(hay, b"\\u").is_some() {
            let mut all: Vec<usize> = self.plain_hits(hay).collect();
            all.extend(memmem::find_iter(hay, b"\\u"));
            all.sort_unstable();
            all.dedup();
            return Box::new(all.into_iter());
        }
        self.plain_hits(hay)
    }

    /// [`Self::hits`] without the escapes.
    fn plain_hits<'h>(&'h self, hay: &'h [u8]) -> Box<dyn Iterator<Item = usize> + 'h> {
        match self {
            Prefilter::Issue { finder, digits } => Box::new(
                finder
                    .find_iter(hay)
                    .filter(move |&p| number_follows(&hay[p + finder.needle().len()..], digits)),
            ),
            Prefilter::Events(finders) if finders.len() == 1 => Box::new(
                finders[0]
                    .find_iter(hay)
                    .filter(move |&p| event_key_precedes(&hay[..p])),
            ),
            Prefilter::Events(finders) => {
                let mut all: Vec<usize> = finders
                    .iter()
                    .flat_map(|f| f.find_iter(hay).filter(|&p| event_key_precedes(&hay[..p])))
                    .collect();
                all.sort_unstable();
                Box::new(all.into_iter())
            }
        }
    }

    /// Whether a line contains a place where the key has a wanted value.
    pub fn line_may_match(&self, line: &[u8]) -> bool {
        self.hits(line).next().is_some()
    }
}

/// `rest` (after `"issue"`) is blanks, `:`, blanks and exactly the number `digits`.
fn number_follows(rest: &[u8], digits: &[u8]) -> bool {
    let rest = skip_blanks(rest);
    let Some(rest) = rest.strip_prefix(b":") else {
        return false;
    };
    let rest = skip_blanks(rest);
    rest.starts_with(digits)
        && !rest
            .get(digits.len())
            .is_some_and(|b| b.is_ascii_digit() || *b == b'.' || *b == b'e')
}

/// `before` (what precedes a quoted name) ends with `"event"`, blanks, `:` and blanks.
fn event_key_precedes(before: &[u8]) -> bool {
    let before = skip_blanks_back(before);
    let Some(before) = before.strip_suffix(b":") else {
        return false;
    };
    skip_blanks_back(before).ends_with(b"\"event\"")
}

fn skip_blanks_back(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .rev()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\r'))
        .count();
    &b[..b.len() - n]
}

fn skip_blanks(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\r'))
        .count();
    &b[n..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-01-10 12:00:00 UTC);

    #[test]
    fn time_arguments_accept_rfc3339_dates_and_relative_ages() {
        let p = |s: &str| parse_time_arg(s, NOW);
        assert_eq!(p("2h"), Some(datetime!(2026-01-10 10:00:00 UTC)));
        assert_eq!(p("30m"), Some(datetime!(2026-01-10 11:30:00 UTC)));
        assert_eq!(p("7d"), Some(datetime!(2026-01-03 12:00:00 UTC)));
        assert_eq!(p("1w"), Some(datetime!(2026-01-03 12:00:00 UTC)));
        assert_eq!(p("1h30m"), Some(datetime!(2026-01-10 10:30:00 UTC)));
        assert_eq!(p("45s"), Some(datetime!(2026-01-10 11:59:15 UTC)));
        assert_eq!(
            p("2026-01-01T08:00:00+02:00"),
            Some(datetime!(2026-01-01 06:00:00 UTC))
        );
        assert_eq!(
            p("2026-01-01T08:00:00.5Z"),
            Some(datetime!(2026-01-01 08:00:00.5 UTC))
        );
        assert_eq!(p("2026-01-02"), Some(datetime!(2026-01-02 00:00:00 UTC)));
        for bad in ["", "yesterday", "2x", "h", "5", "2026-13-01", "2h5", "-2h"] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn record_timestamps_of_both_formats_parse() {
        assert_eq!(
            parse_ts("2025-03-01T10:00:00.123456Z"),
            Some(datetime!(2025-03-01 10:00:00.123456 UTC))
        );
        assert_eq!(
            parse_ts("2025-03-01T10:00:00"),
            Some(datetime!(2025-03-01 10:00:00 UTC))
        );
        assert_eq!(parse_ts("nonsense"), None);
    }

    fn head(line: &str) -> Head<'_> {
        Head::parse(line.as_bytes()).unwrap()
    }

    #[test]
    fn filter_conditions_apply_together_and_apart() {
        let a = r#"{"ts":"2026-01-01T10:00:00Z","event":"issue_started","issue":3}"#;
        let b = r#"{"ts":"2026-01-02T10:00:00Z","event":"issue_done","issue":3}"#;
        let c = r#"{"ts":"2026-01-02T10:00:00Z","event":"issue_done","issue":4}"#;
        let d = r#"{"event":"git_sync"}"#;
        let pass = |f: &Filter| -> Vec<usize> {
            [a, b, c, d]
                .iter()
                .enumerate()
                .filter(|(_, l)| f.matches(&head(l)))
                .map(|(i, _)| i)
                .collect()
        };
        assert_eq!(pass(&Filter::default()), [0, 1, 2, 3]);
        let issue = Filter {
            issue: Some(3),
            ..Default::default()
        };
        assert_eq!(pass(&issue), [0, 1]);
        let ev = Filter {
            events: vec!["issue_done".into(), "git_sync".into()],
            ..Default::default()
        };
        assert_eq!(pass(&ev), [1, 2, 3]);
        let since = Filter {
            since: Some(datetime!(2026-01-02 00:00 UTC)),
            ..Default::default()
        };
        assert_eq!(pass(&since), [1, 2], "no ts: never passes a time condition");
        let until = Filter {
            until: Some(datetime!(2026-01-01 10:00 UTC)),
            ..Default::default()
        };
        assert_eq!(pass(&until), [0], "until is inclusive");
        let all = Filter {
            issue: Some(3),
            events: vec!["issue_done".into()],
            since: Some(datetime!(2026-01-02 00:00 UTC)),
            until: Some(datetime!(2026-01-03 00:00 UTC)),
        };
        assert_eq!(pass(&all), [1]);
    }

    #[test]
    fn heads_reject_lines_that_are_not_json_objects() {
        assert!(Head::parse(b"[1,2]").is_err());
        assert!(Head::parse(b"   ").is_err());
        assert!(Head::parse(br#"{"ts":"x","event":"#).is_err());
        assert!(Head::parse(br#"{"ts":"x"} trailing"#).is_err());
        let h = head(r#"{"ts": "x", "event": "issue_done", "issue": 2, "extra": {"a": [1]}}"#);
        assert_eq!(h.issue_number(), Some(2));
    }

    #[test]
    fn the_prefilter_never_misses_a_match_and_skips_other_numbers() {
        let f = Filter {
            issue: Some(7),
            ..Default::default()
        };
        let p = f.prefilter().unwrap();
        for yes in [
            r#"{"event":"x","issue":7,"a":1}"#,
            r#"{"event":"x","issue":7}"#,
            r#"{"ts": "t", "event": "x", "issue": 7}"#,
            "{\"issue\"\t:\t7 }",
        ] {
            assert!(p.line_may_match(yes.as_bytes()), "{yes}");
        }
        for no in [
            r#"{"event":"x","issue":77}"#,
            r#"{"event":"x","issue":17}"#,
            r#"{"event":"x","blocking_issue":7}"#,
            r#"{"event":"x","issue":7.5}"#,
            r#"{"event":"x","reason":"issue 7"}"#,
        ] {
            assert!(!p.line_may_match(no.as_bytes()), "{no}");
        }
        let f = Filter {
            events: vec!["issue_done".into()],
            ..Default::default()
        };
        let p = f.prefilter().unwrap();
        assert!(p.line_may_match(br#"{"ts": "t", "event": "issue_done"}"#));
        assert!(p.line_may_match(b"{\"event\"\t :\r \"issue_done\",\"x\":1}"));
        assert!(!p.line_may_match(br#"{"event":"issue_done_x"}"#));
        assert!(!p.line_may_match(br#"{"event":"issue_started"}"#));
        // the name in another field, or in a text, is no hit
        assert!(!p.line_may_match(br#"{"event":"x","last_event":"issue_done"}"#));
        assert!(!p.line_may_match(br#"{"event":"x","note":"\"event\":\"issue_done\""}"#));
        assert!(!p.line_may_match(br#"{"event":"x","note":"issue_done"}"#));
        let two = Filter {
            events: vec!["b".into(), "a".into()],
            ..Default::default()
        };
        let hay = br#"{"event":"a"} {"event":"b"} {"event":"c"} {"event":"a"}"#;
        assert_eq!(
            two.prefilter().unwrap().hits(hay).collect::<Vec<_>>(),
            [9, 23, 51]
        );
        let hay = b"{\"issue\":7}\n{\"issue\":8}\n{\"issue\":7}\n";
        assert_eq!(
            Filter {
                issue: Some(7),
                ..Default::default()
            }
            .prefilter()
            .unwrap()
            .hits(hay)
            .collect::<Vec<_>>(),
            [1, 25]
        );
    }
}
