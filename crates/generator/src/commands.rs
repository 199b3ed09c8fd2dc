//! The generator's commands, each wiring the parts together and owning its exits: `run` and
//! `sweep` ([`generate`]), `search` ([`search`]), `capacity` ([`capacity`]) and `validate`
//! ([`validate`]); and what they share: the peers they wait for ([`peers`]), the live line
//! ([`live`]), the kernel's counters of the tester's interfaces ([`kernel_counters`]) and the
//! user's hook between steps ([`step_hook`]).

pub mod capacity;
pub mod generate;
pub mod kernel_counters;
pub mod live;
pub mod peers;
pub mod search;
pub mod step_hook;
pub mod validate;
