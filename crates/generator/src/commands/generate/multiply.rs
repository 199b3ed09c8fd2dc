//! `-m/--multiplier` in a run: each step's profile scaled (a total rate comes to a factor of
//! its own at each step), checked before EAL on the line rates the system file gives, made on
//! the ports' own once they are up; and its record in the report.

use anyhow::{Result, anyhow};
use upfbench_report::{MultipliedStep, MultiplierReport};

use super::Setup;
use upfbench_config::overrides::{Multiplied, MultiplyError, multiplied};
use upfbench_config::{Multiplier, Profile, System};

/// Checks `m` at every step (`payloads`, as the run's) before anything starts. A percentage of
/// a line rate the system file does not give waits for the port's.
pub(super) fn check(
    system: &System,
    profile: &Profile,
    m: &Multiplier,
    payloads: &[Option<u16>],
) -> Result<()> {
    for &p in payloads {
        match multiplied(system, profile, m, p, [None, None]) {
            Ok(_) | Err(MultiplyError::LineRate { .. }) => {}
            Err(e) => return Err(anyhow!("{e}")),
        }
    }
    Ok(())
}

/// Each step's profile under the run's multiplier (in the order of `setup.payloads`) on ports
/// of line rates `links`, and its record for the report; nothing without `-m`.
pub(super) fn steps(
    setup: &Setup<'_>,
    links: [Option<f64>; 2],
) -> Result<(Vec<Multiplied>, Option<MultiplierReport>)> {
    let Some(m) = setup.multiplier else {
        return Ok((Vec::new(), None));
    };
    let all = setup
        .payloads
        .iter()
        .map(|&p| multiplied(setup.system, setup.profile, m, p, links))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow!("{e}"))?;
    let steps = setup
        .payloads
        .iter()
        .zip(&all)
        .map(|(p, s)| MultipliedStep {
            step: match p {
                Some(p) => format!("{p} B"),
                None if setup.capacity => "every batch".to_owned(),
                None => "run".to_owned(),
            },
            factor: s.factor,
            pps: s.totals.pps,
            gbps_l1: s.totals.bits_l1 / 1e9,
            gbps_l2: s.totals.bits_l2 / 1e9,
        })
        .collect();
    let report = MultiplierReport {
        given: m.given().to_owned(),
        steps,
    };
    Ok((all, Some(report)))
}
