//! The search of a profile (docs/search.md): a case per payload and direction set, each
//! searched by the RFC 9971 controller ([`upfbench_search`]) and then measured for latency
//! under load, the lines said as it goes and the report's `search` section. Sans-IO: it chooses
//! trials and takes their figures; `upfbench search` measures them on its own ports
//! (`generator/src/commands/search/program.rs`), the coordinator on its agents
//! (`coordinate/src/search.rs`), and both say and report the same.
//!
//! - [`case`]: the cases, how a load is shared over a case's streams ([`case::Mix`]), a
//!   trial's profile.
//! - [`trial`]: a trial's step report as the search sees it, and when the tester limited it.
//! - [`progress`]: the lines, each goal's result, the progress an API client reads.
//! - [`searcher`]: [`ProfileSearch`], the state machine over the cases.

#![forbid(unsafe_code)]

pub mod case;
pub mod progress;
pub mod searcher;
pub mod trial;

pub use searcher::{NextTrial, ProfileSearch, Purpose, SetupError};
