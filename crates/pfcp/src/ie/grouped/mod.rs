//! Grouped IEs (TS 29.244 §7.5.2-§7.5.9): rules and their parts.
//!
//! Emission follows the spec tables' order, except where the reference client (whose messages all
//! the UPFs users measure accept) differs, so that its messages re-encode byte for byte: in a
//! Create PDR the FAR ID precedes the Outer Header Removal.

mod far;
mod pdr;
mod qer;
mod urr;

pub use far::{CreateFar, ForwardingParameters, RemoveFar, UpdateFar, UpdateForwardingParameters};
pub use pdr::{CreatePdr, CreatedPdr, Pdi, RemovePdr, UpdatePdr};
pub use qer::{CreateQer, RemoveQer, UpdateQer};
pub use urr::{CreateUrr, RemoveUrr, UpdateUrr, UsageReport};
