//! What the agent says of itself: `GET /health`, `GET /v1` and `GET /v1/clock`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the agent is in its cycle (docs/scale.md §3): on `/health`, in `/v1/status` and as
/// the `/metrics` gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentState {
    /// Its ports are up, no segment is loaded.
    Idle,
    /// A segment is loaded (`PUT /v1/segment`), no step is armed.
    Loaded,
    /// A step is armed (`POST /v1/steps`): its workers wait for the start time.
    Armed,
    /// A step is running.
    Running,
    /// A step has ended and its result waits to be read (`GET /v1/steps/{n}/result`).
    Collected,
}

/// `GET /health`: the one answer given without a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// The agent's state.
    pub state: AgentState,
}

/// One of the agent's ports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PortInfo {
    /// The DPDK device (`0000:3b:00.0`, `net_memif0`).
    pub device: String,
    /// Its address with its prefix length (`192.168.13.131/24`): on N3 the gNB's address as
    /// the UPF sees it.
    pub address: String,
    /// The next hop on this link: on N3 the UPF's N3 address, on N6 the data network's router.
    pub peer: String,
}

/// One of the agent's port pairs (docs/scale.md §2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PairInfo {
    /// Its name (`p0`, or the system file's).
    pub name: String,
    /// Its share of the agent's sessions (1 or more).
    pub weight: u32,
    /// Its workers' lcores.
    pub workers: Vec<u32>,
    /// The N3 port.
    pub n3: PortInfo,
    /// The N6 port.
    pub n6: PortInfo,
}

/// `GET /v1`: the agent, for a coordinator that builds the sessions' plans (N3 addresses and
/// peers per pair) and checks that every agent speaks its API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    /// The agent's name (its system file's, or its host's).
    pub name: String,
    /// upfbench's version (`0.1.0`).
    pub version: String,
    /// The API's major version: 1.
    pub api_version: u32,
    /// Its TSC's frequency as calibrated at start (ticks per second).
    pub tsc_hz: f64,
    /// Its port pairs.
    pub pairs: Vec<PairInfo>,
}

/// `GET /v1/clock`: the agent's wall clock, for the coordinator's estimate of its offset
/// (Cristian's method, docs/scale.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Clock {
    /// Unix time in ns when the request was answered.
    pub unix_ns: u64,
}
