//! The wait a rate-limited CLI asks for, read from its error text: `retry after 2 s`,
//! `Retry-After: 30` (HTTP: seconds), `"retry_after": 12`, `"retry_after_ms": 500`,
//! `try again in 1.5s` / `in 6m0s` / `in 2 hours 5 minutes` (OpenAI, Codex),
//! `"retryDelay": "30s"` (Google's `RetryInfo`, Gemini). A bare number is seconds.

/// The phrases a wait follows (lower case). Longer ones first, so `retry_after_ms` is not
/// read as `retry_after`.
const TRIGGERS: &[&str] = &[
    "retry_after_ms",
    "retry-after-ms",
    "retry after",
    "retry-after",
    "retry_after",
    "retryafter",
    "retrydelay",
    "retry_delay",
    "try again in",
    "retry in",
    "retrying in",
];

/// The first wait named in `text`, in milliseconds.
pub fn retry_after_ms(text: &str) -> Option<u64> {
    let lower = text.to_lowercase();
    let mut best: Option<(usize, u64)> = None;
    for trigger in TRIGGERS {
        let mut from = 0;
        while let Some(i) = lower[from..].find(trigger) {
            let at = from + i;
            from = at + trigger.len();
            let bare_unit = if trigger.ends_with("ms") { 1 } else { 1000 };
            if let Some(ms) = duration_at(&lower[from..], bare_unit)
                && best.is_none_or(|(b, _)| at < b)
            {
                best = Some((at, ms));
                break;
            }
        }
    }
    best.map(|(_, ms)| ms)
}

/// A duration at the start of `s` (after separators such as `:`, `=`, quotes, spaces):
/// one or more `<number> <unit>` parts; a number without a unit counts `bare_unit` ms.
fn duration_at(s: &str, bare_unit: u64) -> Option<u64> {
    let s = s.trim_start_matches([' ', ':', '=', '"', '\'', '\t']);
    let mut rest = s;
    let mut total = 0f64;
    let mut parts = 0;
    loop {
        let digits = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
            .last()
            .map(|(i, c)| i + c.len_utf8())
            .unwrap_or(0);
        if digits == 0 {
            break;
        }
        let Ok(n) = rest[..digits].trim_end_matches('.').parse::<f64>() else {
            break;
        };
        let after = rest[digits..].trim_start();
        let word: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        let unit = match word.as_str() {
            "ms" | "millisecond" | "milliseconds" => 1.0,
            "s" | "sec" | "secs" | "second" | "seconds" => 1000.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
            _ if parts == 0 => {
                // a bare number (HTTP Retry-After), unless a word follows that is no unit
                if word.is_empty() {
                    total = n * bare_unit as f64;
                    parts = 1;
                }
                break;
            }
            _ => break,
        };
        total += n * unit;
        parts += 1;
        rest = after[word.len()..].trim_start_matches([' ', ',']);
        rest = rest.strip_prefix("and ").unwrap_or(rest);
    }
    (parts > 0 && total.is_finite() && total >= 0.0).then(|| total.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::retry_after_ms;

    #[test]
    fn reads_the_usual_spellings() {
        let cases: &[(&str, Option<u64>)] = &[
            ("rate limited, retry after 2 s", Some(2000)),
            ("Rate limited. Retry after 2s.", Some(2000)),
            ("retry after 1.5 seconds", Some(1500)),
            ("HTTP 429\nRetry-After: 30\n", Some(30_000)),
            (r#"{"error": {"retry_after": 12}}"#, Some(12_000)),
            (r#"{"retry_after_ms": 500}"#, Some(500)),
            (
                "Rate limit reached for gpt-5 in organization org-x on tokens per min. Please try again in 1.898s.",
                Some(1898),
            ),
            ("Please try again in 120ms.", Some(120)),
            ("please try again in 6m0s", Some(360_000)),
            (
                "You've hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes.",
                Some(7_500_000),
            ),
            (
                r#"{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"}"#,
                Some(30_000),
            ),
            ("Retrying in 4 minutes and 10 seconds", Some(250_000)),
        ];
        for (text, want) in cases {
            assert_eq!(retry_after_ms(text), *want, "{text}");
        }
    }

    #[test]
    fn no_wait_without_a_number_or_with_an_unknown_unit() {
        for text in [
            "rate limited",
            "429 Too Many Requests",
            "retry after the quota resets",
            "try again in a few days",
            "retry after 3 days",
            "",
        ] {
            assert_eq!(retry_after_ms(text), None, "{text}");
        }
    }

    #[test]
    fn the_first_wait_named_wins() {
        assert_eq!(
            retry_after_ms("retry after 3 s (Retry-After: 60)"),
            Some(3000)
        );
    }
}
