//! Fault injection for the test suite, compiled into debug builds only (the integration
//! tests run the debug binary): `SWARM_ATTACK_TEST_PANIC=<place>` makes the code at that
//! place panic, to prove that a panic anywhere there ends the command cleanly. Places:
//! `worker` (a `run` worker thread, before it starts on its issue). In a release build
//! the variable is ignored and [`panic_if_asked`] does nothing.

/// The variable naming the place to panic at.
pub const PANIC_ENV: &str = "SWARM_ATTACK_TEST_PANIC";

/// Panics when `SWARM_ATTACK_TEST_PANIC` names `place` (debug builds only).
pub fn panic_if_asked(place: &str) {
    if cfg!(debug_assertions)
        && crate::env::var(PANIC_ENV).is_ok_and(|v| v.split(',').any(|p| p.trim() == place))
    {
        panic!("{PANIC_ENV}={place}: a panic injected by the test suite");
    }
}
