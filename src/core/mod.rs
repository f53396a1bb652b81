//! The pure core: rules with no I/O, no async, no clock. Every SPEC rule has exactly one
//! implementation here.

pub mod audit;
pub mod coordination;
pub mod event_filter;
pub mod events;
pub mod evidence;
pub mod greenlight;
pub mod issues;
pub mod readiness;
pub mod stage;
pub mod state;
