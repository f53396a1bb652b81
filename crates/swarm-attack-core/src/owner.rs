//! Who holds a task IN_PROGRESS (the task's `owner` field), and when a holder is stale.
//!
//! Format: `<pid>@<host> since <RFC 3339 claim time> session <session id>`. The session id
//! names the run's liveness lock (`.swarm/locks/run-<session>.lock`), which the running
//! process holds for its whole life, so liveness does not depend on pids not being reused.

/// A parsed owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub pid: u32,
    pub host: String,
    /// When the task was claimed (RFC 3339).
    pub since: String,
    pub session: Option<String>,
}

impl Owner {
    /// The text stored in the task.
    pub fn format(&self) -> String {
        let mut s = format!("{}@{} since {}", self.pid, self.host, self.since);
        if let Some(session) = &self.session {
            s.push_str(" session ");
            s.push_str(session);
        }
        s
    }

    /// Parses an owner written by [`Owner::format`]; `None` for anything else.
    pub fn parse(text: &str) -> Option<Owner> {
        let mut words = text.split_whitespace();
        let (pid, host) = words.next()?.split_once('@')?;
        let pid = pid.parse().ok()?;
        let mut since = String::new();
        let mut session = None;
        while let Some(w) = words.next() {
            match w {
                "since" => since = words.next()?.to_string(),
                "session" => session = Some(words.next()?.to_string()),
                _ => {}
            }
        }
        Some(Owner {
            pid,
            host: host.to_string(),
            since,
            session,
        })
    }
}

/// What can be observed about an owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    /// The owning run is running (its liveness lock is held).
    Alive,
    /// The owning run is gone.
    Dead,
    /// Cannot be checked (another host).
    Unknown,
}

/// Whether a task IN_PROGRESS with this owner is stale (to become INTERRUPTED): its run is
/// gone; or, when that cannot be checked (another host), the claim is older than the stale
/// timeout. An owner that cannot be read at all is stale.
pub fn is_stale(
    owner: Option<&Owner>,
    liveness: Liveness,
    age_minutes: Option<u64>,
    stale_timeout_minutes: u64,
) -> bool {
    if owner.is_none() {
        return true;
    }
    match liveness {
        Liveness::Alive => false,
        Liveness::Dead => true,
        Liveness::Unknown => age_minutes.is_none_or(|a| a >= stale_timeout_minutes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_round_trips() {
        let o = Owner {
            pid: 42,
            host: "box".into(),
            since: "2026-01-01T00:00:00.000Z".into(),
            session: Some("20260101T000000Z-42".into()),
        };
        assert_eq!(Owner::parse(&o.format()), Some(o.clone()));
        let bare = Owner { session: None, ..o };
        assert_eq!(Owner::parse(&bare.format()), Some(bare));
        assert_eq!(Owner::parse("someone"), None);
        assert_eq!(Owner::parse("x@y"), None);
    }

    #[test]
    fn staleness() {
        let o = Owner::parse("1@h since t").unwrap();
        assert!(!is_stale(Some(&o), Liveness::Alive, Some(999), 30));
        assert!(is_stale(Some(&o), Liveness::Dead, Some(0), 30));
        assert!(!is_stale(Some(&o), Liveness::Unknown, Some(29), 30));
        assert!(is_stale(Some(&o), Liveness::Unknown, Some(30), 30));
        assert!(is_stale(Some(&o), Liveness::Unknown, None, 30));
        assert!(is_stale(None, Liveness::Alive, None, 30));
    }
}
