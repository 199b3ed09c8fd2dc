//! What the command line changes of a run's profile: `-d/--duration` and, step by step,
//! `-m/--multiplier`. Each is checked as the profile's own fields are, and what is wrong is
//! reported against the option (`command line: --multiplier: 1000x: streams[0].rate: ...`).

use std::time::Duration;

use super::cross::check_line_rate;
use super::error::{ConfigError, Diagnostic};
use super::issues::{Check, Issues};
use super::multiplier::{Multiplier, Totals, UnknownLineRate, scaled, totals};
use super::profile::{Profile, TxMode, check_rate};
use super::system::{System, check_label};

/// The options, as the diagnostics name them.
const DURATION: &str = "--duration";
const MULTIPLIER: &str = "--multiplier";

fn on_command_line(option: &str, message: String) -> ConfigError {
    ConfigError::invalid(vec![Diagnostic {
        file: "command line".to_owned(),
        line: 0,
        column: 0,
        field: option.to_owned(),
        message,
    }])
}

/// `profile` sending for `duration` (`-d`): its `duration`, the measured phase of each step of
/// a run or a sweep, and its `capacity.step`, the traffic after each batch of a capacity climb.
/// A profile of bursts is refused: their packets, rate and gaps make its length.
pub fn with_duration(profile: &Profile, duration: Duration) -> Result<Profile, ConfigError> {
    if !matches!(profile.tx_mode, TxMode::Continuous) {
        return Err(on_command_line(
            DURATION,
            "the profile's tx_mode sends bursts: their packets, rate and gap make its length, \
             not a duration"
                .to_owned(),
        ));
    }
    let mut p = profile.clone();
    p.duration = duration;
    p.capacity.step = duration;
    let mut issues = Issues::default();
    p.check(&mut issues);
    if issues.is_empty() {
        Ok(p)
    } else {
        Err(ConfigError::invalid(
            issues.caused_by(DURATION, &format!("{duration:?}: ")),
        ))
    }
}

/// A label given on the command line (`--label`), checked as the system file's `label` is.
pub fn check_command_line_label(label: &str) -> Result<(), String> {
    let mut issues = Issues::default();
    check_label(label, &mut issues);
    match issues.messages().next() {
        None => Ok(()),
        Some(m) => Err(format!("{label:?}: {m}")),
    }
}

/// One step's profile under a multiplier: every stream's rate scaled by `factor`.
#[derive(Debug, Clone, PartialEq)]
pub struct Multiplied {
    /// The profile with its streams' rates scaled.
    pub profile: Profile,
    /// What every stream's rate was multiplied by.
    pub factor: f64,
    /// What the step's streams add up to, scaled.
    pub totals: Totals,
}

/// Why a step's profile cannot be scaled.
#[derive(Debug, thiserror::Error)]
pub enum MultiplyError {
    /// A percentage of a line rate nobody knows yet (the ports may tell it once started).
    #[error("command line: {MULTIPLIER}: {given}: {source}")]
    LineRate {
        /// The multiplier as given.
        given: String,
        /// The stream.
        source: UnknownLineRate,
    },
    /// The scaled rates are out of bounds.
    #[error(transparent)]
    Invalid(#[from] ConfigError),
}

/// A factor in a few digits: `2.5`, `0.0333`, `5000`.
pub(crate) fn factor_text(factor: f64) -> String {
    let digits = if factor >= 100.0 { 1 } else { 4 };
    let t = format!("{factor:.digits$}");
    let t = if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.')
    } else {
        &t
    };
    t.to_owned()
}

/// `profile` scaled by `m` for the step whose streams all have `payload` (a sweep's; `None`:
/// their own), on `system` whose ports' line rates are its `speed`s or else `links`. The scaled
/// rates must be within a stream's bounds and, where the system file gives them, within the
/// ports' line rates at the step's payload.
pub fn multiplied(
    system: &System,
    profile: &Profile,
    m: &Multiplier,
    payload: Option<u16>,
    links: [Option<f64>; 2],
) -> Result<Multiplied, MultiplyError> {
    // A multiplier in % of the line rate is of the first pair's ports (each pair's share of the
    // scaled streams is then checked against its own line rates).
    let first = system.pair(0);
    let line = [
        first.n3.speed.map(|b| b as f64).or(links[0]),
        first.n6.speed.map(|b| b as f64).or(links[1]),
    ];
    // The N3 transport and the tags of the ports; each stream's family is its own.
    let ports = first.frame_shape(crate::IpFamily::Ipv4);
    let given = m.given().to_owned();
    let before =
        totals(profile, ports, payload, line).map_err(|source| MultiplyError::LineRate {
            given: given.clone(),
            source,
        })?;
    let factor = m.factor(&before);
    let scaled = scaled(profile, factor);
    let mut issues = Issues::default();
    for (i, st) in scaled.streams.iter().enumerate() {
        check_rate(st.rate, &format!("streams[{i}].rate"), &mut issues);
    }
    let mut at_step = scaled.clone();
    if let Some(p) = payload {
        for st in &mut at_step.streams {
            st.payload = p;
        }
    }
    let container = profile.sessions.pdu_session_container;
    check_line_rate(system, "the system file", &at_step, container, &mut issues);
    if !issues.is_empty() {
        let step = payload.map_or_else(String::new, |p| format!(" at {p} B"));
        let context = if m.is_factor() {
            format!("{given}{step}: ")
        } else {
            format!("{given} (x{}){step}: ", factor_text(factor))
        };
        return Err(ConfigError::invalid(issues.caused_by(MULTIPLIER, &context)).into());
    }
    let after =
        totals(&scaled, ports, payload, line).map_err(|source| MultiplyError::LineRate {
            given: given.clone(),
            source,
        })?;
    Ok(Multiplied {
        profile: scaled,
        factor,
        totals: after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{profile_from_str, system_from_str};

    const SYSTEM: &str = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151, speed: 10Gbps}\n\
                          n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";

    fn profile(extra: &str) -> Profile {
        profile_from_str(
            &format!(
                "name: t\nstreams:\n\
                 \x20 - {{name: ul, direction: uplink, rate: 100kpps, payload: 100}}\n\
                 \x20 - {{name: dl, direction: downlink, rate: 300kpps, payload: 100}}\n{extra}"
            ),
            "p.yaml",
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn system() -> System {
        system_from_str(SYSTEM, "s.yaml").unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_duration_replaces_the_measured_phase_and_the_climbs_step() {
        let p = with_duration(&profile(""), Duration::from_secs(3)).unwrap();
        assert_eq!(p.duration, Duration::from_secs(3));
        assert_eq!(p.capacity.step(), Duration::from_secs(3));
        // What the new duration breaks is said against the option.
        let churn = profile("churn: {rate: 10, lifetime: 1s, start: 2s}\n");
        let e = with_duration(&churn, Duration::from_secs(1)).unwrap_err();
        assert_eq!(e.diagnostics().len(), 2, "{e}");
        assert!(
            e.to_string()
                .starts_with("command line: --duration: 1s: churn."),
            "{e}"
        );
        let bursts = profile("tx_mode: {single_burst: {packets: 10}}\n");
        let e = with_duration(&bursts, Duration::from_secs(1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "command line: --duration: the profile's tx_mode sends bursts: their packets, rate \
             and gap make its length, not a duration"
        );
    }

    #[test]
    fn labels_get_the_system_files_checks() {
        assert_eq!(check_command_line_label("eupf 0.6 xdp"), Ok(()));
        assert!(
            check_command_line_label(" ")
                .unwrap_err()
                .contains("give a name")
        );
        assert!(
            check_command_line_label("a\nb")
                .unwrap_err()
                .contains("one line")
        );
        assert!(
            check_command_line_label(&"x".repeat(41))
                .unwrap_err()
                .contains("at most 40")
        );
    }

    #[test]
    fn a_step_is_scaled_to_the_total_asked_for() {
        let x: Multiplier = "1Mpps".parse().unwrap();
        let m = multiplied(&system(), &profile(""), &x, None, [None, None]).unwrap();
        assert_eq!(m.factor, 2.5);
        assert_eq!(m.totals.pps, 1e6);
        assert_eq!(m.profile.streams[1].rate.value(), 750_000.0);
        // A sweep's step at 1400 B: fewer packets for the same bits.
        let x: Multiplier = "1Gbps".parse().unwrap();
        let small = multiplied(&system(), &profile(""), &x, Some(10), [None, None]).unwrap();
        let large = multiplied(&system(), &profile(""), &x, Some(1400), [None, None]).unwrap();
        for s in [&small, &large] {
            assert!((s.totals.bits_l1 - 1e9).abs() < 1e-3, "{:?}", s.totals);
        }
        assert!(small.totals.pps > 10.0 * large.totals.pps);
    }

    #[test]
    fn rates_scaled_out_of_bounds_are_refused_against_the_option() {
        let x: Multiplier = "5000x".parse().unwrap();
        let e = multiplied(&system(), &profile(""), &x, None, [None, None]).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(
                "command line: --multiplier: 5000x: streams[1].rate: 1.5Gpps is above 1Gpps"
            ),
            "{text}"
        );
        // N3's 10 Gbps: 2.5 Mpps of 1400-byte G-PDUs are about 30 Gbps.
        let x: Multiplier = "25x".parse().unwrap();
        let e = multiplied(&system(), &profile(""), &x, Some(1400), [None, None]).unwrap_err();
        assert!(
            e.to_string().contains(
                "--multiplier: 25x at 1400 B: streams[0].rate: the streams sent on n3 add up to \
                 30.200 Gbps at L1, above its line rate of 10.000 Gbps"
            ),
            "{e}"
        );
        multiplied(&system(), &profile(""), &x, Some(10), [None, None]).expect("fits at 10 B");
        // A total says the factor it came to.
        let x: Multiplier = "900Mpps".parse().unwrap();
        let e = multiplied(&system(), &profile(""), &x, None, [None, None]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("command line: --multiplier: 900Mpps (x2250): streams[0].rate: "),
            "{e}"
        );
        assert_eq!(
            [2.5, 1.0 / 30.0, 5000.0, 0.5].map(factor_text),
            ["2.5", "0.0333", "5000", "0.5"]
        );
    }

    #[test]
    fn a_percentage_waits_for_the_ports_line_rate() {
        let p = profile_from_str(
            "name: t\nstreams: [{name: dl, direction: downlink, rate: 10%, payload: 100}]\n",
            "p.yaml",
        )
        .unwrap();
        let x: Multiplier = "1Mpps".parse().unwrap();
        let e = multiplied(&system(), &p, &x, None, [None, None]).unwrap_err();
        assert!(matches!(e, MultiplyError::LineRate { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "command line: --multiplier: 1Mpps: streams[0]: 10% needs the n6 port's line rate: \
             give `speed` in the system file"
        );
        let m = multiplied(&system(), &p, &x, None, [None, Some(10e9)]).unwrap();
        assert!((m.totals.pps - 1e6).abs() < 1e-6, "{:?}", m.totals);
    }
}
