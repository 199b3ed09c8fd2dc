//! The control plane: the threads (tokio runtimes) that own the PFCP drivers, driven by the run
//! through commands; the signal handlers' thread; what the run checks and says of the UPF's
//! answers.

pub mod checks;
pub mod client_side;
pub mod failure;
pub mod progress;
pub mod signals;
pub mod upf_side;

pub use signals::Interrupts;
