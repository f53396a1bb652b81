//! The clock and the session id. `SWARM_ATTACK_NOW` (RFC 3339) fixes the clock for tests.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Now, in UTC.
pub fn now() -> OffsetDateTime {
    if let Ok(fixed) = crate::env::var("SWARM_ATTACK_NOW")
        && let Ok(t) = OffsetDateTime::parse(&fixed, &Rfc3339)
    {
        return t;
    }
    OffsetDateTime::now_utc()
}

/// Formats a time as RFC 3339 UTC with a `Z` and whole seconds... or milliseconds.
pub fn format(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    t.format(&fmt)
        .unwrap_or_else(|_| t.format(&Rfc3339).unwrap_or_default())
}

/// Now as RFC 3339 UTC (`2026-01-01T00:00:00.000Z`).
pub fn now_rfc3339() -> String {
    format(now())
}

/// The id of this process run, used as the events' `session`.
pub fn session_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let t = now().to_offset(time::UtcOffset::UTC);
        let fmt = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
        format!(
            "{}-{}",
            t.format(&fmt).unwrap_or_default(),
            std::process::id()
        )
    })
}
