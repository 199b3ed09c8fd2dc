//! `-m` and `-d` over agents: a run's or a sweep's steps at a multiple of the profile's rates
//! (`2x`, `50%`, or a total in pps when every stream's rate is in pps: the agents' ports and
//! frames are theirs, so a total in bits or a share of a line rate is refused), for the
//! duration given; the report's record of what the multiplier came to.

use anyhow::{Result, anyhow, bail};
use upfbench_cli::RunArgs;
use upfbench_config::overrides::with_duration;
use upfbench_config::{MultiplierKind, Profile};
use upfbench_profile_search::case::profile_pps;
use upfbench_report::{MultipliedStep, MultiplierReport, StepReport};

/// The load every step is asked at (a multiple of the profile's rates), and the profile with
/// `-d`'s duration; for a search (`search`), neither is taken.
pub(super) fn load_and_profile(
    args: &RunArgs,
    search: bool,
    profile: Profile,
) -> Result<(f64, Profile)> {
    if args.metrics.metrics.is_some() {
        bail!(
            "--metrics is not built for runs over agents yet: each agent serves its own /metrics"
        );
    }
    if search && (args.multiplier.is_some() || args.duration.is_some()) {
        bail!(
            "a multiplier and a duration are for run and sweep: a search chooses its loads, and \
             its trials' durations are its `search` section's"
        );
    }
    let profile = match args.duration {
        Some(d) => with_duration(&profile, d).map_err(|e| anyhow!("{e}"))?,
        None => profile,
    };
    let load = match args.multiplier.as_ref().map(|m| (m.given(), m.kind())) {
        None => 1.0,
        Some((_, MultiplierKind::Factor(f))) => f,
        Some((given, MultiplierKind::TotalPps(pps))) => match profile_pps(&profile) {
            Some(total) if total > 0.0 => pps / total,
            _ => bail!(
                "-m {given} over agents: a total in pps needs every stream's rate in pps (the \
                 frames are the agents'); give a factor (`2x`, `50%`)"
            ),
        },
        Some((given, _)) => bail!(
            "-m {given} over agents: a total in bits per second needs the agents' frames; give \
             a factor (`2x`, `50%`) or a total in pps"
        ),
    };
    Ok((load, profile))
}

/// What `-m` made of each of `steps` at `load`: its planned pps when the rates are in pps
/// (else the pps it offered), and the Gbit/s of that many of the frames it sent.
pub(super) fn record(
    given: &str,
    load: f64,
    profile: &Profile,
    steps: &[StepReport],
) -> MultiplierReport {
    let planned = profile_pps(profile).map(|p| p * load);
    MultiplierReport {
        given: given.to_owned(),
        steps: steps
            .iter()
            .map(|s| {
                let (packets, bytes) = s.directions.iter().fold((0u64, 0u64), |(p, b), d| {
                    (p + d.tx.packets, b + d.tx.bytes_l2)
                });
                let offered = if s.duration_s > 0.0 {
                    packets as f64 / s.duration_s
                } else {
                    0.0
                };
                let pps = planned.unwrap_or(offered);
                let frame = if packets > 0 {
                    bytes as f64 / packets as f64
                } else {
                    0.0
                };
                MultipliedStep {
                    step: s.label.clone(),
                    factor: load,
                    pps,
                    gbps_l1: pps * (frame + 20.0) * 8.0 / 1e9,
                    gbps_l2: pps * frame * 8.0 / 1e9,
                }
            })
            .collect(),
    }
}
