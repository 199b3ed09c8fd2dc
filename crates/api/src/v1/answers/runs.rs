//! The answers about whole runs on one box: `POST /v1/runs` and `GET /v1/runs/{id}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::steps::LiveFigures;

/// `POST /v1/runs`: the run's id, for the routes under `/v1/runs/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunId {
    /// 1 to 64 of A-Z a-z 0-9 . _ : -
    pub id: String,
}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunPhase {
    /// Bringing up its sessions and checks.
    Starting,
    /// Running its steps.
    Running,
    /// Stopping (asked to, or failed): its report is being written.
    Stopping,
    /// Ended; its report is there.
    Finished,
    /// Ended without a report.
    Failed,
}

/// A search's progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchProgress {
    /// Trials run so far.
    pub trials: u32,
    /// The goal being searched for.
    pub goal: String,
    /// The highest load found passing so far (packets per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower_pps: Option<f64>,
    /// The lowest load found failing so far (packets per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper_pps: Option<f64>,
}

/// `GET /v1/runs/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunState {
    /// The run's id.
    pub id: String,
    /// Where it is.
    pub phase: RunPhase,
    /// The step running (from 1), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// The run's steps, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u32>,
    /// The last second's figures, while a step runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveFigures>,
    /// A search's progress (mode `search`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchProgress>,
    /// Why it failed (phase `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
