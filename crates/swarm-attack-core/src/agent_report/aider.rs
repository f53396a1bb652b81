//! aider prints no JSON; its usage lines read `Tokens: 2.3k sent, 1.1k cache hit, 150
//! received. Cost: $0.0073 message, $0.0073 session.` The last line gives the session's
//! cost; tokens are summed over the messages.
//!
//! A failed model call prints `litellm.<Kind>Error: …` (wrapped at 80 columns) and aider
//! still exits 0; a retryable one is followed by `Retrying in 0.5 seconds...`. The last
//! such error, when neither a retry nor a usage line follows it, is the run's failure.

use super::{AgentReport, Source, classify};

/// `2.3k` → 2300, `150` → 150.
fn count(word: &str) -> Option<u64> {
    let w = word.trim().trim_end_matches(',');
    let (num, mult) = match w.chars().last()? {
        'k' => (&w[..w.len() - 1], 1_000.0),
        'M' => (&w[..w.len() - 1], 1_000_000.0),
        _ => (w, 1.0),
    };
    num.parse::<f64>().ok().map(|n| (n * mult).round() as u64)
}

pub fn parse(stdout: &str) -> Option<AgentReport> {
    let mut r = AgentReport {
        source: Some(Source::Aider),
        ..AgentReport::default()
    };
    let mut seen = false;
    // the last model-call error not retried or followed by an answer: (message, still
    // collecting its wrapped lines)
    let mut failure: Option<(String, bool)> = None;
    for line in stdout.lines() {
        let line = line.trim();
        if let Some((msg, open)) = failure.as_mut().filter(|(_, open)| *open) {
            if line.is_empty() {
                *open = false;
            } else if !line.starts_with("Retrying in ") {
                msg.push(' ');
                msg.push_str(line);
            }
        }
        if line.starts_with("litellm.") && line.contains("Error") {
            failure = Some((line.to_string(), true));
        }
        if line.starts_with("Retrying in ") {
            failure = None;
        }
        if let Some(rest) = line.strip_prefix("Tokens: ") {
            seen = true;
            failure = None;
            let tokens = rest.split(". Cost:").next().unwrap_or("");
            let mut sent = 0;
            for part in tokens.split(", ") {
                let mut it = part.split_whitespace();
                let n = it.next().and_then(count).unwrap_or(0);
                match it.collect::<Vec<_>>().join(" ").as_str() {
                    "sent" => sent += n,
                    "cache hit" => {
                        r.tokens_cached = Some(r.tokens_cached.unwrap_or(0) + n);
                        sent += n;
                    }
                    "cache write" => sent += n,
                    "received" => r.tokens_out = Some(r.tokens_out.unwrap_or(0) + n),
                    _ => {}
                }
            }
            r.tokens_in = Some(r.tokens_in.unwrap_or(0) + sent);
            r.turns = Some(r.turns.unwrap_or(0) + 1);
        }
        if let Some(i) = line.find("Cost: $") {
            let after = &line[i..];
            if let Some(sess) = after.split(", $").nth(1) {
                let num = sess.split_whitespace().next().unwrap_or("");
                r.cost_usd = num.parse::<f64>().ok();
            }
        }
    }
    r.complete = seen;
    if let Some((msg, _)) = failure {
        r.is_error = true;
        r.error_kind = classify(&msg);
        r.message = Some(msg);
        return Some(r);
    }
    seen.then_some(r)
}
