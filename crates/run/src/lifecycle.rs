//! The life cycle of a run: associate, establish, resolve, the steps, report, delete, release,
//! as a sans-IO state machine.

pub(crate) mod machine;

pub use machine::{Action, Event, Lifecycle, State, Timing};
