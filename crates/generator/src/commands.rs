//! The generator's commands, each wiring the parts together and owning its exits: `run` and
//! `sweep` ([`generate`]), `search` (`search`), `capacity` (`capacity`) and `validate`
//! ([`validate`]); and what they share: the peers they wait for (`peers`), the live line
//! (`live`), the kernel's counters of the tester's interfaces (`kernel_counters`) and the
//! user's hook between steps (`step_hook`).

pub mod agent;
pub(crate) mod capacity;
pub mod generate;
pub(crate) mod kernel_counters;
pub(crate) mod live;
pub(crate) mod peers;
pub(crate) mod search;
pub(crate) mod step_hook;
pub mod validate;
