//! The JSON bodies v1 takes. Unknown fields are refused, as the configuration files refuse
//! them: a misspelt option is an error, not a default.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a whole run on one box does (`POST /v1/runs`): the command line's four modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// `upfbench run`.
    Run,
    /// `upfbench sweep`.
    Sweep,
    /// `upfbench search`.
    Search,
    /// `upfbench capacity`.
    Capacity,
}

/// The options of a run that the command line gives as flags.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunOptions {
    /// Each step's measured duration (`-d`), in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The rate multiplier (`-m`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiplier: Option<f64>,
    /// The payloads to run (`--payloads`), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payloads: Option<Vec<u16>>,
}

/// `POST /v1/runs`: a whole run on the agent's box, its profile given as the YAML a file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// Which command.
    pub mode: RunMode,
    /// The profile, as a profile file's text (docs/reference/profile.md).
    pub profile_yaml: String,
    /// The flags.
    #[serde(default)]
    pub options: RunOptions,
}

/// `POST /v1/steps`: arm a step of the loaded segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepRequest {
    /// The step's number in the run (from 1).
    pub step: u32,
    /// Its payload, in bytes, in place of every stream's (a sweep's step, a search's case);
    /// absent: each stream's own (`upfbench run`'s one step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<u16>,
    /// Its load: the multiplier of every stream's rate (a search's trial load over the
    /// profile's rates).
    pub load: f64,
    /// Its measured phase, in ms.
    pub duration_ms: u64,
    /// Its warm-up, in ms.
    pub warmup_ms: u64,
}

/// `POST /v1/steps/{n}/start` and `/stop`: when, on the agent's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct At {
    /// Unix time in ns.
    pub at_unix_ns: u64,
}

/// A segment's UEs: global indices, so that UE i is the same UE on every agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UeBlock {
    /// The first UE's index.
    pub first: u32,
    /// How many.
    pub count: u32,
}

/// A segment's uplink TEIDs: the tester's sequence, or those the UPF chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum UplinkTeids {
    /// `first + i × step` for UE i of the run.
    Sequence {
        /// UE 0's.
        first: u32,
        /// Between two UEs.
        step: u32,
    },
    /// The UPF's choice (CH=1): base64 of big-endian u32s, one per UE of the block.
    Chosen(String),
}

/// `PUT /v1/segment`: what one agent does of a run (docs/scale.md §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// The run's name.
    pub run: String,
    /// This agent's name.
    pub agent: String,
    /// Its index among the run's agents.
    pub index: u32,
    /// The run's agents.
    pub agents: u32,
    /// The profile, as JSON of the profile file's schema (schema/profile.schema.json).
    pub profile: serde_json::Value,
    /// Its UEs.
    pub ues: UeBlock,
    /// Their uplink TEIDs.
    pub uplink_teids: UplinkTeids,
    /// The UPF's N3 address when the coordinator knows it (else the system file's peer).
    #[serde(default)]
    pub upf_n3: Option<String>,
}
