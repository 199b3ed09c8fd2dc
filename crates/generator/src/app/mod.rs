//! One module per command: each wires the parts together and owns its exits.

pub mod capacity;
pub mod compare;
pub mod doctor;
pub mod generate;
pub mod kernel_counters;
pub mod live;
pub mod machine;
pub mod metrics;
pub mod nics;
pub mod out;
pub mod peers;
pub mod ports;
pub mod reflect;
pub mod reflect_lines;
pub mod search;
pub mod signals;
pub mod stale_socket;
pub mod step_hook;
pub mod validate;
