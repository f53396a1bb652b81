//! History scan with gix (SPEC §3): walks the configured refs oldest first, incrementally.
//!
//! (Skeleton: implemented by the history-sync work.)
