//! The control plane's thread: a tokio runtime that owns the PFCP node's driver and the signal
//! handlers, driven by the run through commands.

pub mod checks;
pub mod client_side;
pub mod progress;
pub mod signals;
pub mod upf_side;

pub use signals::Interrupts;
