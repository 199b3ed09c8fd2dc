//! What a port received that was not measured traffic, by kind: the frames the receive path
//! rejected and the news from the UPF its service plane got (Error Indications, End Markers,
//! ...). A step's `rx_rejected` counts them by port and kind.

use std::fmt;

use serde::{Deserialize, Serialize};
use upfbench_stats::PortName;

/// Why a received frame was counted and dropped instead of measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RejectKind {
    /// Not IPv4 (another EtherType or IP version), and not for the service plane.
    NotIpv4,
    /// IPv4 but malformed, fragmented, or neither UDP nor ICMP.
    Malformed,
    /// On N3: IPv4/UDP that is not GTP-U on 2152, or a malformed G-PDU.
    NotGtpu,
    /// A G-PDU or N6 datagram whose inner packet is not IPv4/UDP.
    InnerNotIpv4Udp,
    /// A UDP payload shorter than the measurement tag.
    Untagged,
    /// A tag whose stream id is not one of the run's.
    UnknownStream,
    /// A stream received on the port of its sending side (uplink on N3, downlink on N6).
    WrongPort,
    /// Inner UDP ports that are not the stream's.
    WrongUdpPorts,
    /// An inner UE address outside the stream's UEs.
    UnknownUe,
    /// A G-PDU whose TEID is not the UE's downlink TEID.
    WrongTeid,
    /// A PDU Session Container whose QFI is not the run's.
    WrongQfi,
    /// A UE packet of the other IP family than its stream's (IPv4 for an IPv6 stream, or the
    /// reverse).
    WrongFamily,
    /// ICMP other than an echo request to the tester.
    IcmpOther,
    /// A GTP-U Echo Response.
    GtpuEchoResponse,
    /// A GTP-U Error Indication.
    GtpuErrorIndication,
    /// A GTP-U End Marker.
    GtpuEndMarker,
    /// Other GTP-U signalling.
    GtpuOther,
    /// For the service plane, but not for the tester or not understood.
    Ignored,
}

impl RejectKind {
    /// Every kind, in report order: the receive path's rejects, then the service plane's news.
    pub const ALL: [RejectKind; 18] = [
        RejectKind::NotIpv4,
        RejectKind::Malformed,
        RejectKind::NotGtpu,
        RejectKind::InnerNotIpv4Udp,
        RejectKind::Untagged,
        RejectKind::UnknownStream,
        RejectKind::WrongPort,
        RejectKind::WrongUdpPorts,
        RejectKind::UnknownUe,
        RejectKind::WrongTeid,
        RejectKind::WrongQfi,
        RejectKind::WrongFamily,
        RejectKind::IcmpOther,
        RejectKind::GtpuEchoResponse,
        RejectKind::GtpuErrorIndication,
        RejectKind::GtpuEndMarker,
        RejectKind::GtpuOther,
        RejectKind::Ignored,
    ];

    /// Its name in reports (snake_case: `not_gtpu`, `gtpu_end_marker`).
    pub const fn name(self) -> &'static str {
        match self {
            RejectKind::NotIpv4 => "not_ipv4",
            RejectKind::Malformed => "malformed",
            RejectKind::NotGtpu => "not_gtpu",
            RejectKind::InnerNotIpv4Udp => "inner_not_ipv4_udp",
            RejectKind::Untagged => "untagged",
            RejectKind::UnknownStream => "unknown_stream",
            RejectKind::WrongPort => "wrong_port",
            RejectKind::WrongUdpPorts => "wrong_udp_ports",
            RejectKind::UnknownUe => "unknown_ue",
            RejectKind::WrongTeid => "wrong_teid",
            RejectKind::WrongQfi => "wrong_qfi",
            RejectKind::WrongFamily => "wrong_family",
            RejectKind::IcmpOther => "icmp_other",
            RejectKind::GtpuEchoResponse => "gtpu_echo_response",
            RejectKind::GtpuErrorIndication => "gtpu_error_indication",
            RejectKind::GtpuEndMarker => "gtpu_end_marker",
            RejectKind::GtpuOther => "gtpu_other",
            RejectKind::Ignored => "ignored",
        }
    }

    /// The kind `name` names.
    pub fn from_name(name: &str) -> Option<RejectKind> {
        RejectKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for RejectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for RejectKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for RejectKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        RejectKind::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown reject kind {name:?}")))
    }
}

/// A port and a kind: the key of a step's `rx_rejected`, written `"N3 not_gtpu"` in JSON (a
/// map key is a string there) and in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rejected {
    /// The port that received the frames.
    pub port: PortName,
    /// What they were.
    pub kind: RejectKind,
}

impl Rejected {
    /// `kind` on `port`.
    pub const fn new(port: PortName, kind: RejectKind) -> Rejected {
        Rejected { port, kind }
    }

    /// The key `text` (`N3 not_gtpu`) names.
    pub fn parse(text: &str) -> Option<Rejected> {
        let (port, kind) = text.split_once(' ')?;
        Some(Rejected {
            port: PortName::from_name(port)?,
            kind: RejectKind::from_name(kind)?,
        })
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.port, self.kind)
    }
}

impl Serialize for Rejected {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Rejected {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Rejected::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown rx_rejected key {text:?}: expected a port and a kind, as \"N3 not_gtpu\""
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn keys_are_a_port_and_a_kind_in_one_string() {
        for kind in RejectKind::ALL {
            assert_eq!(RejectKind::from_name(kind.name()), Some(kind));
        }
        let map: BTreeMap<Rejected, u64> = [
            (Rejected::new(PortName::N6, RejectKind::GtpuEndMarker), 1),
            (Rejected::new(PortName::N3, RejectKind::NotGtpu), 2),
        ]
        .into();
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, r#"{"N3 not_gtpu":2,"N6 gtpu_end_marker":1}"#);
        let back: BTreeMap<Rejected, u64> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
        let prose = serde_json::from_str::<BTreeMap<Rejected, u64>>(r#"{"N3 not GTP-U":2}"#);
        assert!(prose.is_err(), "{prose:?}");
    }
}
