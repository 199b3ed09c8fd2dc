//! The run: its phases as a state machine, and the live output.

pub mod machine;

pub use machine::{Action, Event, RunMachine, State, Timing};
