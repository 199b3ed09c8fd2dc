//! `-m/--multiplier`: the profile's rates scaled from the command line, as TRex users scale a
//! profile with `start -m`.
//!
//! Two kinds of multiplier:
//!
//! - a factor: `50%`, `2x`, `0.5x`, or a bare number (`2`): every stream's rate times it, in
//!   every step;
//! - a total rate: `3Mpps`, `500kpps`, `10Gbps` (layer 1, as every Gbps of the report),
//!   `10Gbps L2`: every stream scaled by one factor so that the profile's streams, every
//!   direction of each, add up to that rate at each step (each payload of a sweep, each batch
//!   of a capacity climb), the streams' proportions kept.
//!
//! TRex differs in two ways: its `%` is a share of the port's line rate (here, of the
//! profile's rates), and its bare `gbps` counts layer 2 (`gbpsl1` layer 1; here `Gbps` is
//! layer 1 and `Gbps L2` or `gbpsl2` layer 2). Units are read without regard to case, and
//! `m` is mega, never milli (`3mpps` is 3 Mpps), as TRex reads them.

use std::fmt;
use std::str::FromStr;

use super::frame::{FrameShape, L1_OVERHEAD};
use super::profile::{MAX_PPS, Profile};
use super::units::Rate;

/// The largest total bit rate accepted: 1 Tbps, as for a stream.
const MAX_BPS: f64 = 1e12;

/// The largest factor accepted: far beyond any profile's sense, short of overflowing a rate.
const MAX_FACTOR: f64 = 1e6;

/// What the multiplier asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MultiplierKind {
    /// Every stream's rate times this (`2x`, `50%`: 0.5).
    Factor(f64),
    /// The streams' total in packets per second.
    TotalPps(f64),
    /// The streams' total in bits per second at layer 1 (frame, FCS, preamble and gap).
    TotalBitsL1(f64),
    /// The streams' total in bits per second at layer 2 (frame with its FCS).
    TotalBitsL2(f64),
}

/// A multiplier as given on the command line, with what it asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Multiplier {
    given: String,
    kind: MultiplierKind,
}

/// What a profile sends in all at one step: every stream, every direction of each.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Totals {
    /// Packets per second.
    pub pps: f64,
    /// Bits per second at layer 1.
    pub bits_l1: f64,
    /// Bits per second at layer 2.
    pub bits_l2: f64,
}

/// A stream whose rate is a percentage of a line rate nobody knows: its packet rate, and so
/// the profile's total, cannot be known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "streams[{stream}]: {rate} needs the {port} port's line rate: give `speed` in the system file"
)]
pub struct UnknownLineRate {
    /// The stream's index in the profile.
    pub stream: usize,
    /// Its rate as written.
    pub rate: String,
    /// "n3" or "n6".
    pub port: &'static str,
}

const FORMS: &str = "write a factor (50%, 2x, 0.5) or a total rate (3Mpps, 500kpps, 10Gbps, \
                     10Gbps L2)";

impl Multiplier {
    /// The text as given.
    pub fn given(&self) -> &str {
        &self.given
    }

    /// What it asks for.
    pub fn kind(&self) -> MultiplierKind {
        self.kind
    }

    /// Whether it is a factor, the same at every step.
    pub(crate) fn is_factor(&self) -> bool {
        matches!(self.kind, MultiplierKind::Factor(_))
    }

    /// The factor every stream's rate is multiplied by at a step whose streams add up to
    /// `totals` as the profile writes them.
    pub fn factor(&self, totals: &Totals) -> f64 {
        match self.kind {
            MultiplierKind::Factor(f) => f,
            MultiplierKind::TotalPps(pps) => pps / totals.pps,
            MultiplierKind::TotalBitsL1(bps) => bps / totals.bits_l1,
            MultiplierKind::TotalBitsL2(bps) => bps / totals.bits_l2,
        }
    }
}

impl fmt::Display for Multiplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.given)
    }
}

/// `"2.5 Mpps"` → `(2.5, "Mpps")`; a sign is kept for the message that refuses it.
fn split(text: &str) -> Option<(f64, &str)> {
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || c == '_' || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    let (num, unit) = text.split_at(end);
    let num = num.replace('_', "").parse().ok()?;
    Some((num, unit.trim()))
}

/// The SI prefix of a rate's unit, without regard to case: `m` is mega.
fn si(prefix: &str) -> Option<f64> {
    Some(match prefix.to_ascii_lowercase().as_str() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        _ => return None,
    })
}

/// The kind of a unit, scaled: `Mpps`, `gbps`, `Gbps L2`, `gbpsl1`, `Gbit/s`.
fn unit(unit: &str, num: f64) -> Option<MultiplierKind> {
    let lower = unit.to_ascii_lowercase();
    let compact: String = lower.split_whitespace().collect();
    if let Some(p) = compact.strip_suffix("pps") {
        return si(p).map(|m| MultiplierKind::TotalPps(num * m));
    }
    let (bits, l2) = match compact
        .strip_suffix("l1")
        .map(|b| (b, false))
        .or_else(|| compact.strip_suffix("l2").map(|b| (b, true)))
    {
        Some(split) => split,
        None => (compact.as_str(), false),
    };
    let p = bits
        .strip_suffix("bps")
        .or_else(|| bits.strip_suffix("bit/s"))?;
    let bps = num * si(p)?;
    Some(if l2 {
        MultiplierKind::TotalBitsL2(bps)
    } else {
        MultiplierKind::TotalBitsL1(bps)
    })
}

impl FromStr for Multiplier {
    type Err = String;

    fn from_str(text: &str) -> Result<Multiplier, String> {
        let t = text.trim();
        let Some((num, rest)) = split(t) else {
            return Err(format!("{text:?} does not start with a number: {FORMS}"));
        };
        let kind = match rest {
            "" | "x" | "X" => MultiplierKind::Factor(num),
            "%" => MultiplierKind::Factor(num / 100.0),
            u => unit(u, num).ok_or_else(|| format!("{text:?}: unknown unit {u:?}: {FORMS}"))?,
        };
        let value = match kind {
            MultiplierKind::Factor(v)
            | MultiplierKind::TotalPps(v)
            | MultiplierKind::TotalBitsL1(v)
            | MultiplierKind::TotalBitsL2(v) => v,
        };
        if !value.is_finite() || value < 0.0 {
            return Err(format!(
                "{text:?}: a multiplier cannot be negative: {FORMS}"
            ));
        }
        if value == 0.0 {
            return Err(format!(
                "{text:?} sends nothing: a multiplier must be above zero"
            ));
        }
        let too_much = match kind {
            MultiplierKind::Factor(f) => (f > MAX_FACTOR).then_some("a factor of 1000000"),
            MultiplierKind::TotalPps(pps) => (pps > MAX_PPS).then_some("1Gpps"),
            MultiplierKind::TotalBitsL1(b) | MultiplierKind::TotalBitsL2(b) => {
                (b > MAX_BPS).then_some("1Tbps")
            }
        };
        if let Some(limit) = too_much {
            return Err(format!(
                "{text:?} is above {limit}, more than any port carries"
            ));
        }
        Ok(Multiplier {
            given: t.to_owned(),
            kind,
        })
    }
}

/// What `profile` sends in all with every stream's payload `payload` (a sweep's step; `None`:
/// each stream's own), its percentages of a line rate taken of `line` (N3, N6), on ports whose
/// N3 transport and VLAN tags are `ports`' (4 bytes a tag, in every frame). Each direction is
/// counted on the frames it sends: uplink G-PDUs on N3, downlink plain on N6.
pub(crate) fn totals(
    profile: &Profile,
    ports: FrameShape,
    payload: Option<u16>,
    line: [Option<f64>; 2],
) -> Result<Totals, UnknownLineRate> {
    let container = profile.sessions.pdu_session_container;
    let mut t = Totals::default();
    for (i, st) in profile.streams.iter().enumerate() {
        let p = usize::from(payload.unwrap_or(st.payload));
        let shape = FrameShape {
            inner: profile.stream_family(st),
            ..ports
        };
        let ways = [
            (
                st.direction.uplink(),
                shape.n3_frame_len(p, container),
                line[0],
                "n3",
            ),
            (
                st.direction.downlink(),
                shape.n6_frame_len(p),
                line[1],
                "n6",
            ),
        ];
        for (sends, frame, line, port) in ways {
            if !sends {
                continue;
            }
            let uplink = port == "n3";
            let ip_len = shape.inner_ip_len(p);
            let pps = profile
                .stream_pps(st, uplink, frame, ip_len, line)
                .ok_or_else(|| UnknownLineRate {
                    stream: i,
                    rate: st.rate.to_string(),
                    port,
                })?;
            t.pps += pps;
            t.bits_l2 += pps * (frame * 8) as f64;
            t.bits_l1 += pps * ((frame + L1_OVERHEAD) * 8) as f64;
        }
    }
    Ok(t)
}

/// `profile` with every stream's rate times `factor`, in the unit it is written in.
pub(crate) fn scaled(profile: &Profile, factor: f64) -> Profile {
    let mut p = profile.clone();
    for st in &mut p.streams {
        st.rate = match st.rate {
            Rate::Pps(v) => Rate::Pps(v * factor),
            Rate::BitsL1(v) => Rate::BitsL1(v * factor),
            Rate::BitsL2(v) => Rate::BitsL2(v * factor),
            Rate::LinePercent(v) => Rate::LinePercent(v * factor),
            Rate::MbrPercent(v) => Rate::MbrPercent(v * factor),
        };
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> MultiplierKind {
        text.parse::<Multiplier>()
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .kind()
    }

    fn err(text: &str) -> String {
        text.parse::<Multiplier>().expect_err(text)
    }

    #[test]
    fn factors_in_every_form() {
        assert_eq!(m("50%"), MultiplierKind::Factor(0.5));
        assert_eq!(m("2x"), MultiplierKind::Factor(2.0));
        assert_eq!(m("0.25X"), MultiplierKind::Factor(0.25));
        assert_eq!(m("3"), MultiplierKind::Factor(3.0));
        assert_eq!(m(" 150 % "), MultiplierKind::Factor(1.5));
        assert_eq!(m("1_000x"), MultiplierKind::Factor(1000.0));
    }

    #[test]
    fn total_rates_in_every_form() {
        assert_eq!(m("3Mpps"), MultiplierKind::TotalPps(3e6));
        assert_eq!(m("3mpps"), MultiplierKind::TotalPps(3e6), "m is mega");
        assert_eq!(m("500 kpps"), MultiplierKind::TotalPps(5e5));
        assert_eq!(m("100000pps"), MultiplierKind::TotalPps(1e5));
        assert_eq!(m("10Gbps"), MultiplierKind::TotalBitsL1(1e10));
        assert_eq!(m("10gbps"), MultiplierKind::TotalBitsL1(1e10));
        assert_eq!(m("10Gbps L1"), MultiplierKind::TotalBitsL1(1e10));
        assert_eq!(m("10gbpsl1"), MultiplierKind::TotalBitsL1(1e10));
        assert_eq!(m("2.5Gbps L2"), MultiplierKind::TotalBitsL2(2.5e9));
        assert_eq!(m("100mbpsl2"), MultiplierKind::TotalBitsL2(1e8));
        assert_eq!(m("1Gbit/s"), MultiplierKind::TotalBitsL1(1e9));
        assert_eq!(m("1Tbps"), MultiplierKind::TotalBitsL1(1e12));
    }

    #[test]
    fn the_text_is_kept_as_given() {
        let x: Multiplier = " 50% ".parse().unwrap();
        assert_eq!((x.given(), x.to_string().as_str()), ("50%", "50%"));
        assert!(x.is_factor());
        assert!(!"1Mpps".parse::<Multiplier>().unwrap().is_factor());
    }

    #[test]
    fn meaningless_multipliers_say_why() {
        for zero in ["0", "0%", "0x", "0pps", "0Gbps", "0.0"] {
            assert!(err(zero).contains("sends nothing"), "{zero}: {}", err(zero));
        }
        for negative in ["-50%", "-2x", "-1", "-3Mpps"] {
            assert!(
                err(negative).contains("cannot be negative"),
                "{negative}: {}",
                err(negative)
            );
        }
        assert_eq!(
            err("5 furlongs"),
            "\"5 furlongs\": unknown unit \"furlongs\": write a factor (50%, 2x, 0.5) or a \
             total rate (3Mpps, 500kpps, 10Gbps, 10Gbps L2)"
        );
        assert!(err("3Xpps").contains("unknown unit \"Xpps\""));
        assert!(err("10Gbps L3").contains("unknown unit"));
        assert!(err("fast").contains("does not start with a number"));
        assert!(err("").contains("does not start with a number"));
        assert!(err("x2").contains("does not start with a number"));
        assert!(err("2Gpps").contains("above 1Gpps"));
        assert!(err("2Tbps").contains("above 1Tbps"));
        assert!(err("2000000x").contains("above a factor"));
    }

    fn profile(streams: &str) -> Profile {
        crate::profile_from_str(&format!("name: t\nstreams:\n{streams}"), "p.yaml")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn totals_count_every_direction_on_its_own_frames() {
        let p = profile(
            "  - {name: a, direction: both, rate: 100kpps, payload: 10}\n\
             \x20 - {name: b, direction: downlink, rate: 50kpps, payload: 1400}\n",
        );
        let t = totals(&p, FrameShape::default(), None, [None, None]).unwrap();
        assert_eq!(t.pps, 250_000.0);
        // Uplink 10 B: a 100-byte G-PDU (container); downlink 10 B: 64; 1400 B: 1446.
        let l2 = 100_000.0 * (100.0 + 64.0) * 8.0 + 50_000.0 * 1446.0 * 8.0;
        assert!((t.bits_l2 - l2).abs() < 1e-3, "{t:?}");
        let l1 = l2 + 250_000.0 * 20.0 * 8.0;
        assert!((t.bits_l1 - l1).abs() < 1e-3, "{t:?}");
        // A sweep's step: every stream at its payload.
        let t = totals(&p, FrameShape::default(), Some(1400), [None, None]).unwrap();
        assert_eq!(t.pps, 250_000.0);
        let l2 = 100_000.0 * (1490.0 + 1446.0) * 8.0 + 50_000.0 * 1446.0 * 8.0;
        assert!((t.bits_l2 - l2).abs() < 1e-3, "{t:?}");
    }

    #[test]
    fn totals_count_the_ports_vlan_tags_in_every_frame() {
        let p = profile(
            "  - {name: a, direction: both, rate: 100kpps, payload: 10}\n\
             \x20 - {name: b, direction: downlink, rate: 50kpps, payload: 1400}\n",
        );
        let untagged = totals(&p, FrameShape::default(), None, [None, None]).unwrap();
        // N3 in QinQ (8 bytes), N6 in one 802.1Q tag (4 bytes).
        let tagged = FrameShape {
            n3_tags: 8,
            n6_tags: 4,
            ..FrameShape::default()
        };
        let t = totals(&p, tagged, None, [None, None]).unwrap();
        assert_eq!(t.pps, untagged.pps);
        // Uplink 10 B: 100 + 8. Downlink 10 B: still 64 (14 + 4 + 28 + 10 + 4 = 60, padded);
        // 1400 B: 1446 + 4.
        let l2 = 100_000.0 * (108.0 + 64.0) * 8.0 + 50_000.0 * 1450.0 * 8.0;
        assert!((t.bits_l2 - l2).abs() < 1e-3, "{t:?}");
        assert!((t.bits_l1 - (l2 + 250_000.0 * 160.0)).abs() < 1e-3, "{t:?}");
        // A total in Gbps gives the tagged ports fewer packets than the untagged ones.
        let x: Multiplier = "1Gbps".parse().unwrap();
        assert!(x.factor(&t) < x.factor(&untagged));
    }

    #[test]
    fn a_percentage_needs_its_line_rate() {
        let p = profile("  - {name: a, direction: downlink, rate: 10%, payload: 10}\n");
        let e = totals(&p, FrameShape::default(), None, [Some(1e9), None]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "streams[0]: 10% needs the n6 port's line rate: give `speed` in the system file"
        );
        let t = totals(&p, FrameShape::default(), None, [None, Some(1e9)]).unwrap();
        assert!((t.bits_l1 - 1e8).abs() < 1e-3, "{t:?}");
    }

    #[test]
    fn a_total_scales_every_stream_by_one_factor_keeping_their_proportions() {
        let p = profile(
            "  - {name: ul, direction: uplink, rate: 300kpps, payload: 100}\n\
             \x20 - {name: dl, direction: downlink, rate: 1Gbps L1, payload: 1400}\n",
        );
        let before = totals(&p, FrameShape::default(), None, [None, None]).unwrap();
        for (given, unit) in [
            ("3Mpps", 0),
            ("10Gbps", 1),
            ("4Gbps L2", 2),
            ("50%", 3),
            ("2x", 3),
        ] {
            let x: Multiplier = given.parse().unwrap();
            let f = x.factor(&before);
            let after = totals(&scaled(&p, f), FrameShape::default(), None, [None, None]).unwrap();
            let (got, want) = match unit {
                0 => (after.pps, 3e6),
                1 => (after.bits_l1, 1e10),
                2 => (after.bits_l2, 4e9),
                _ => (after.pps, before.pps * f),
            };
            assert!((got - want).abs() / want < 1e-12, "{given}: {got} {want}");
            // The proportions: every stream by the same factor.
            let (a, b) = (&scaled(&p, f).streams, &p.streams);
            for (s, o) in a.iter().zip(b) {
                assert!(
                    (s.rate.value() / o.rate.value() - f).abs() < 1e-12,
                    "{given}"
                );
            }
        }
        let half = scaled(&p, 0.5);
        assert_eq!(half.streams[0].rate, Rate::Pps(150_000.0));
        assert_eq!(half.streams[1].rate, Rate::BitsL1(0.5e9));
    }
}
