//! The simulated UPFs: deterministic functions of a trial's load and duration in whole packets,
//! the same here as in the script (`support/mlrsearch_sim.py`, whose docstring has the
//! formulas); the test checks that every trial of the script's counts the same here.

use serde_json::{Value, json};
use upfbench_search::{LatencyPoints, TrialRequest, TrialResult};

/// A trial's 99th percentile of latency at or under a latency-limited UPF's knee (ns).
pub(crate) const LATENCY_LOW_NS: u64 = 20_000;
/// A trial's 99th percentile of latency above a latency-limited UPF's knee (ns).
pub(crate) const LATENCY_HIGH_NS: u64 = 2_000_000;

/// A simulated UPF: what it loses of a trial, in whole packets, and how late it forwards.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Upf {
    /// Forwards up to `capacity` pps, drops the rest.
    Sharp { capacity: f64 },
    /// Loses `steepness × (load / knee − 1)²` of the packets above the knee (at most all).
    Soft { knee: f64, steepness: f64 },
    /// As `Soft`, the loss times `1 + spread × (u − 0.5)`, u drawn for each trial in turn:
    /// the trials at one load differ, so a load's class and its conditional throughput's
    /// quantile depend on the mix.
    Noisy {
        knee: f64,
        steepness: f64,
        spread: f64,
        seed: u64,
    },
    /// Loses `ratio` of the packets at any load.
    ConstantLoss { ratio: f64 },
    /// Loses as `Sharp` at `capacity`; its 99th percentile of latency is [`LATENCY_LOW_NS`]
    /// up to `latency_knee` pps and [`LATENCY_HIGH_NS`] above: a queue that fills before
    /// anything is dropped. MLRsearch, which knows no latency, is told that a trial above the
    /// knee lost every packet, as a goal with a latency bound sees it.
    LatencyLimited { capacity: f64, latency_knee: f64 },
}

/// One simulated trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Packets {
    /// Packets sent.
    pub(crate) sent: u64,
    /// Packets lost.
    pub(crate) lost: u64,
    /// The trial's 99th percentile of latency (ns).
    pub(crate) p99_ns: u64,
}

/// xorshift64*, the script's `Noise`: units in [0, 1).
struct Noise(u64);

impl Noise {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Upf {
    /// The same UPF with its noise seeded by `seed` (a UPF without noise as it is).
    pub(crate) fn with_seed(self, seed: u64) -> Upf {
        match self {
            Upf::Noisy {
                knee,
                steepness,
                spread,
                ..
            } => Upf::Noisy {
                knee,
                steepness,
                spread,
                seed,
            },
            other => other,
        }
    }

    /// The UPF as the script reads it.
    pub(crate) fn spec(self) -> Value {
        match self {
            Upf::Sharp { capacity } => json!({"kind": "sharp", "capacity": capacity}),
            Upf::Soft { knee, steepness } => {
                json!({"kind": "soft", "knee": knee, "steepness": steepness})
            }
            Upf::Noisy {
                knee,
                steepness,
                spread,
                seed,
            } => json!({
                "kind": "noisy", "knee": knee, "steepness": steepness, "spread": spread,
                "seed": seed,
            }),
            Upf::ConstantLoss { ratio } => json!({"kind": "constant_loss", "ratio": ratio}),
            Upf::LatencyLimited {
                capacity,
                latency_knee,
            } => json!({
                "kind": "latency_limited", "capacity": capacity, "latency_knee": latency_knee,
            }),
        }
    }

    /// The UPF over a search: each trial's packets, as the script's measurer computes them
    /// (same operations in the same order, the same noise sequence).
    pub(crate) fn simulate(self) -> impl FnMut(TrialRequest) -> Packets {
        let mut noise = Noise(match self {
            Upf::Noisy { seed, .. } => seed | 1,
            _ => 1,
        });
        move |r| {
            let sent = (r.load * r.duration_s + 0.5).floor() as u64;
            let soft = |knee: f64, steepness: f64, factor: f64| {
                let excess = r.load / knee - 1.0;
                let ratio = if excess > 0.0 {
                    (steepness * excess * excess * factor).min(1.0)
                } else {
                    0.0
                };
                (sent as f64 * ratio).ceil() as u64
            };
            let sharp =
                |capacity: f64| sent.saturating_sub((capacity * r.duration_s).floor() as u64);
            let lost = match self {
                Upf::Sharp { capacity } | Upf::LatencyLimited { capacity, .. } => sharp(capacity),
                Upf::Soft { knee, steepness } => soft(knee, steepness, 1.0),
                Upf::Noisy {
                    knee,
                    steepness,
                    spread,
                    ..
                } => soft(knee, steepness, 1.0 + spread * (noise.unit() - 0.5)),
                Upf::ConstantLoss { ratio } => (sent as f64 * ratio + 0.5).floor() as u64,
            };
            let p99_ns = match self {
                Upf::LatencyLimited { latency_knee, .. } if r.load > latency_knee => {
                    LATENCY_HIGH_NS
                }
                _ => LATENCY_LOW_NS,
            };
            Packets { sent, lost, p99_ns }
        }
    }
}

/// A trial of `p`'s packets at `r`, with its latency; the loss ratio as MLRsearch computes
/// it from the counts.
pub(crate) fn counted(r: TrialRequest, p: Packets) -> TrialResult {
    let loss_ratio = if p.sent == 0 {
        0.0
    } else {
        p.lost as f64 / p.sent as f64
    };
    TrialResult {
        latency: Some(LatencyPoints {
            p50_ns: p.p99_ns / 2,
            p90_ns: p.p99_ns,
            p99_ns: p.p99_ns,
            p99_9_ns: p.p99_ns,
            p99_99_ns: p.p99_ns,
            max_ns: p.p99_ns,
        }),
        ..TrialResult::lossy(r.load, r.duration_s, loss_ratio)
    }
}
