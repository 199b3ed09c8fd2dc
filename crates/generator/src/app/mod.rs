//! One module per command: each wires the parts together and owns its exits.

pub mod ports;
pub mod validate;
