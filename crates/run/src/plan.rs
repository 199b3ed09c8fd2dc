//! The plan of a run: pure data computed from the system file and the profile before anything
//! is touched — UEs, streams and their flows, and what each worker lcore sends.

pub(crate) mod allowance;
pub mod build;
pub mod churn;
pub(crate) mod mobility;
pub(crate) mod pacing;
pub(crate) mod placement;
pub mod segment;
pub mod sessions;
pub(crate) mod stream;
pub(crate) mod ue;

pub use build::{
    GatePlan, Plan, PlanError, build, build_block, build_pairs, rate_frame_len, ue_table,
};
pub use churn::{ChurnPlan, ChurnStep};
pub use mobility::{HandoverPlan, Move};
pub use pacing::{Pacer, ScheduleSlip};
pub use placement::{PairLcores, Share, WorkerPlan, place, place_pairs};
pub use stream::{Schedule, Spread, StreamPlan, StreamQer, tx_frame_len};
pub use ue::{TeidSequence, UeTable, UeV6, UplinkTeids};
