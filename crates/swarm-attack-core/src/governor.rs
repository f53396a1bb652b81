//! The rate-limit governor (docs/budgets.md "Rate limits: the governor"): one state for all the
//! workers of a run, told about every rate-limited (or overloaded) agent run and every run that was
//! not. Pure: times are milliseconds on a clock the caller keeps.
//!
//! - A limit pauses every worker (no agent starts before [`Governor::paused_until`]): the
//!   wait is the CLI's retry-after when it named one, else `base_ms`, doubled for each
//!   further wave of limits without a normal agent run in between, at most `max_wait_ms`
//!   (never less than the retry-after).
//! - Limits reported by agent runs that started before the current pause was decided belong
//!   to the same wave: they only extend the pause to their own retry-after.
//! - The second and every further consecutive wave halves the concurrency (at least 1);
//!   every `recover_after` normal agent runs at the current concurrency give one worker
//!   back, up to `--workers`.
//! - When the run's total back-off would exceed `max_total_ms`, the governor gives up: the
//!   run stops (exit 1), nothing waits.

/// The governor's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `--workers`: the concurrency to start with and to recover to.
    pub workers: u32,
    /// The first wait when the CLI named none.
    pub base_ms: u64,
    /// The longest single wait (unless the CLI asked for more).
    pub max_wait_ms: u64,
    /// The most back-off a run accepts in total before it stops.
    pub max_total_ms: u64,
    /// Normal agent runs that give one worker back.
    pub recover_after: u32,
}

impl Settings {
    /// The defaults for `workers` and a total of `max_total_minutes`.
    pub fn new(workers: u32, max_total_minutes: f64) -> Settings {
        Settings {
            workers: workers.max(1),
            base_ms: 30_000,
            max_wait_ms: 600_000,
            max_total_ms: (max_total_minutes.max(0.0) * 60_000.0).round() as u64,
            recover_after: RECOVER_AFTER,
        }
    }
}

/// Normal agent runs at the current concurrency that give one worker back.
pub const RECOVER_AFTER: u32 = 5;

/// The governor's answer to a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Every worker waits `wait_ms` from now; `workers` run at once afterwards.
    Wait { wait_ms: u64, workers: u32 },
    /// The total back-off would exceed the maximum: stop the run.
    GiveUp { total_ms: u64 },
}

/// What an agent run holds while it runs: the wave it started in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(u64);

/// The shared back-off state of one run.
#[derive(Debug, Clone)]
pub struct Governor {
    s: Settings,
    workers: u32,
    /// Consecutive waves of limits (reset by a normal run started after the last pause).
    level: u32,
    /// Incremented by each new wave.
    epoch: u64,
    paused_until: u64,
    total_ms: u64,
    successes: u32,
    gave_up: bool,
}

impl Governor {
    pub fn new(s: Settings) -> Governor {
        Governor {
            s,
            workers: s.workers.max(1),
            level: 0,
            epoch: 0,
            paused_until: 0,
            total_ms: 0,
            successes: 0,
            gave_up: false,
        }
    }

    /// How many agents may run at once now.
    pub fn workers(&self) -> u32 {
        self.workers
    }

    /// No agent starts before this time.
    pub fn paused_until(&self) -> u64 {
        self.paused_until
    }

    /// The back-off decided so far in this run.
    pub fn total_ms(&self) -> u64 {
        self.total_ms
    }

    /// The run was stopped for a persistent limit.
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }

    /// The ticket of an agent run starting now.
    pub fn ticket(&self) -> Ticket {
        Ticket(self.epoch)
    }

    /// An agent run (holding `ticket`) was rate-limited at `now`; the CLI asked to wait
    /// `retry_after_ms` (when it said).
    pub fn limited(&mut self, now: u64, ticket: Ticket, retry_after_ms: Option<u64>) -> Decision {
        if self.gave_up {
            return Decision::GiveUp {
                total_ms: self.total_ms,
            };
        }
        let wait = if ticket.0 >= self.epoch {
            // a new wave
            self.epoch += 1;
            self.level += 1;
            self.successes = 0;
            if self.level >= 2 {
                self.workers = (self.workers / 2).max(1);
            }
            let base = retry_after_ms.unwrap_or(self.s.base_ms).max(1);
            let doubled = base.saturating_mul(1u64 << (self.level - 1).min(20));
            doubled
                .min(self.s.max_wait_ms)
                .max(retry_after_ms.unwrap_or(0))
        } else {
            retry_after_ms.unwrap_or(0)
        };
        let until = self.paused_until.max(now.saturating_add(wait));
        let added = until - self.paused_until.max(now);
        if self.total_ms + added > self.s.max_total_ms {
            self.gave_up = true;
            return Decision::GiveUp {
                total_ms: self.total_ms + added,
            };
        }
        self.total_ms += added;
        self.paused_until = until;
        Decision::Wait {
            wait_ms: until.saturating_sub(now),
            workers: self.workers,
        }
    }

    /// An agent run (holding `ticket`) ended without a limit. Returns the new concurrency
    /// when a worker was given back.
    pub fn succeeded(&mut self, ticket: Ticket) -> Option<u32> {
        if ticket.0 < self.epoch {
            // started before the last pause: says nothing about the present
            return None;
        }
        self.level = 0;
        if self.workers >= self.s.workers {
            return None;
        }
        self.successes += 1;
        if self.successes >= self.s.recover_after.max(1) {
            self.successes = 0;
            self.workers += 1;
            return Some(self.workers);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gov(workers: u32) -> Governor {
        Governor::new(Settings {
            workers,
            base_ms: 1000,
            max_wait_ms: 60_000,
            max_total_ms: 100_000,
            recover_after: 3,
        })
    }

    #[test]
    fn one_wave_pauses_everyone_for_the_retry_after_and_keeps_the_workers() {
        let mut g = gov(4);
        let t = g.ticket();
        assert_eq!(
            g.limited(10, t, Some(2000)),
            Decision::Wait {
                wait_ms: 2000,
                workers: 4
            }
        );
        assert_eq!(g.paused_until(), 2010);
        // the other agents of the same wave: no escalation; the pause lasts at least their
        // own retry-after
        assert_eq!(
            g.limited(500, t, Some(2000)),
            Decision::Wait {
                wait_ms: 2000,
                workers: 4
            }
        );
        assert_eq!(g.paused_until(), 2500);
        assert_eq!(
            g.limited(600, t, None),
            Decision::Wait {
                wait_ms: 1900,
                workers: 4
            }
        );
        // a longer retry-after of the same wave extends the pause
        assert_eq!(
            g.limited(700, t, Some(3000)),
            Decision::Wait {
                wait_ms: 3000,
                workers: 4
            }
        );
        assert_eq!(g.total_ms(), 3690);
    }

    #[test]
    fn repeated_waves_back_off_exponentially_and_halve_the_workers() {
        let mut g = gov(8);
        let waits: Vec<(u64, u32)> = (0..4)
            .map(|i| {
                let now = i * 100_000;
                match g.limited(now, g.ticket(), Some(2000)) {
                    Decision::Wait { wait_ms, workers } => (wait_ms, workers),
                    d => panic!("{d:?}"),
                }
            })
            .collect();
        assert_eq!(waits, vec![(2000, 8), (4000, 4), (8000, 2), (16000, 1)]);
        // without a retry-after: the base, doubled; capped at max_wait_ms
        let mut g = gov(2);
        let w: Vec<u64> = (0..6)
            .map(|i| match g.limited(i * 100_000, g.ticket(), None) {
                Decision::Wait { wait_ms, .. } => wait_ms,
                d => panic!("{d:?}"),
            })
            .collect();
        assert_eq!(w, vec![1000, 2000, 4000, 8000, 16000, 32000]);
        // a retry-after above the cap is still honoured
        let mut g = gov(2);
        assert_eq!(
            g.limited(0, g.ticket(), Some(90_000)),
            Decision::Wait {
                wait_ms: 90_000,
                workers: 2
            }
        );
    }

    #[test]
    fn a_normal_run_resets_the_back_off_and_workers_recover_slowly() {
        let mut g = gov(4);
        g.limited(0, g.ticket(), Some(1000));
        g.limited(5000, g.ticket(), Some(1000));
        assert_eq!(g.workers(), 2);
        // a run that started before the last pause says nothing
        let old = Ticket(0);
        assert_eq!(g.succeeded(old), None);
        let t = g.ticket();
        assert_eq!(g.succeeded(t), None);
        assert_eq!(g.succeeded(t), None);
        assert_eq!(g.succeeded(t), Some(3), "+1 worker after 3 normal runs");
        for _ in 0..2 {
            assert_eq!(g.succeeded(t), None);
        }
        assert_eq!(g.succeeded(t), Some(4));
        for _ in 0..5 {
            assert_eq!(g.succeeded(t), None, "never above --workers");
        }
        // the level was reset: the next limit waits the retry-after again, no halving
        assert_eq!(
            g.limited(50_000, g.ticket(), Some(1000)),
            Decision::Wait {
                wait_ms: 1000,
                workers: 4
            }
        );
    }

    #[test]
    fn a_persistent_limit_gives_up_past_the_total() {
        let mut g = Governor::new(Settings::new(2, 0.05)); // 3 s in total
        assert!(matches!(
            g.limited(0, g.ticket(), Some(2000)),
            Decision::Wait { wait_ms: 2000, .. }
        ));
        assert_eq!(
            g.limited(2500, g.ticket(), Some(2000)),
            Decision::GiveUp { total_ms: 6000 }
        );
        assert!(g.gave_up());
        assert_eq!(g.total_ms(), 2000, "the refused wait is not counted");
        assert_eq!(
            g.limited(9000, g.ticket(), Some(1)),
            Decision::GiveUp { total_ms: 2000 }
        );
        let s = Settings::new(3, 30.0);
        assert_eq!(s.max_total_ms, 1_800_000);
    }
}
