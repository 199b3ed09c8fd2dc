//! The answers of v1: what each route gives back on success (the errors are
//! [`Problem`](crate::Problem) documents). Answers may gain fields within v1; clients ignore
//! those they do not know.

mod agent;
mod result;
mod runs;
mod steps;

pub use agent::{AgentInfo, AgentState, Clock, Health, PairInfo, PortInfo};
pub use result::{
    DirectionFigures, LatencySettings, PairResult, QfiFigures, SecondDirection, SecondFigures,
    StepResult, StreamFigures,
};
pub use runs::{RunId, RunPhase, RunState, SearchProgress};
pub use steps::{
    Armed, LiveDirection, LiveFigures, LivePair, PairShare, SegmentSummary, Status, StreamShare,
};

#[cfg(test)]
mod tests;
