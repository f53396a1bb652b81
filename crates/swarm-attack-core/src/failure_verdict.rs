//! The failure analysis's recommendation (issue 7: with `llm.command`, a failed attempt is
//! analysed: retry / modify approach / skip / escalate).

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Retry,
    ModifyApproach,
    Skip,
    Escalate,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Retry => "retry",
            Verdict::ModifyApproach => "modify approach",
            Verdict::Skip => "skip",
            Verdict::Escalate => "escalate",
        }
    }
}

/// Reads the verdict from the first non-empty line of an answer (`escalate`, `skip`,
/// `modify`, `retry`, in that precedence); anything else is `Retry`.
pub fn parse(answer: &str) -> Verdict {
    let first = answer
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_lowercase();
    if first.contains("escalate") {
        Verdict::Escalate
    } else if first.contains("skip") {
        Verdict::Skip
    } else if first.contains("modify") {
        Verdict::ModifyApproach
    } else {
        Verdict::Retry
    }
}

/// The question asked of `llm.command` (purpose `failure-analysis`).
pub fn prompt(issue: u32, title: &str, failure: &str) -> String {
    format!(
        "An automated coding agent's attempt at issue #{issue} (\"{title}\") failed.\n\n\
         ## Failure\n\n{failure}\n\n\
         ## Your answer\n\n\
         On the first line write exactly one of: retry, modify approach, skip, escalate.\n\
         - retry: a transient or small mistake; try again as before\n\
         - modify approach: the approach is wrong; say what to change\n\
         - skip: the issue cannot or need not be done by an agent\n\
         - escalate: a human must decide (missing access, contradictory requirements)\n\
         Then, in a few sentences, what the next attempt should do differently.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(parse("\nESCALATE\nneeds a human"), Verdict::Escalate);
        assert_eq!(parse("Modify approach: use X"), Verdict::ModifyApproach);
        assert_eq!(parse("skip"), Verdict::Skip);
        assert_eq!(parse("retry"), Verdict::Retry);
        assert_eq!(parse("no idea"), Verdict::Retry);
        assert_eq!(parse(""), Verdict::Retry);
        assert!(prompt(3, "t", "boom").contains("boom"));
    }
}
