//! The control plane on N4: the threads (tokio runtimes) that own the PFCP drivers, driven by
//! the run through commands (the generator's client side, the reflector's UPF side); what the
//! run checks and says of the UPF's answers.

pub mod checks;
pub mod client_side;
pub mod failure;
pub mod progress;
pub mod upf_side;
