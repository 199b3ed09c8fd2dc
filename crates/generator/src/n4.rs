//! The generator's control plane on N4: the thread (a tokio runtime) that owns the PFCP client
//! driver, driven by the run through commands ([`client_side`]); what the run checks and says of
//! the UPF's answers (`checks`, `failure`, `progress`).

pub(crate) mod checks;
pub mod client_side;
pub(crate) mod failure;
pub(crate) mod progress;
