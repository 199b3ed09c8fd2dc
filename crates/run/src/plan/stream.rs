//! The streams of a run: what each one sends, to which UEs, and the flows it is measured in.
//!
//! A flow is one stream's traffic to or from one UE. Order is owed only within a flow (a UPF
//! spreads UEs over its cores), so each flow has its own sequence numbers and its own receive
//! tracker. Flows are numbered densely: stream `s`'s flow for its `j`-th UE is
//! `s.flow_base + j`.

use core::ops::Range;

use upfbench_stats::Direction;

use upfbench_config::frame::{self, FrameShape};
use upfbench_net::{IpFamily, Qfi};

/// How a stream's packets spread over its UEs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// One packet per UE in turn.
    RoundRobin,
    /// This many consecutive packets per UE, then the next UE.
    PerUe(u32),
}

/// When a stream's packets are due, relative to the start of the measured phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// `packets` in all, paced at the stream's rate from the start (continuous mode).
    Continuous {
        /// Packets to send.
        packets: u64,
    },
    /// `bursts` bursts of `packets` each, paced at the stream's rate, `gap_ns` of silence after
    /// each (single burst: `bursts == 1`).
    Bursts {
        /// Packets per burst.
        packets: u64,
        /// Number of bursts.
        bursts: u32,
        /// Silence between bursts (ns).
        gap_ns: u64,
    },
}

impl Schedule {
    /// Packets in all.
    pub fn total(&self) -> u64 {
        match *self {
            Schedule::Continuous { packets } => packets,
            Schedule::Bursts {
                packets, bursts, ..
            } => packets * u64::from(bursts),
        }
    }
}

/// One stream, direction resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPlan {
    /// Dense id, carried in the measurement tag.
    pub id: u16,
    /// The profile's name for it (with "/uplink" or "/downlink" for a stream sent both ways).
    pub name: String,
    /// Direction.
    pub direction: Direction,
    /// Inner UDP payload bytes (the tag included).
    pub payload_len: u16,
    /// Whether uplink G-PDUs carry a PDU Session Container.
    pub pdu_session_container: bool,
    /// Inner UDP source port.
    pub source_port: u16,
    /// Inner UDP destination port.
    pub destination_port: u16,
    /// The UEs it sends to or from (indices into the UE table).
    pub ues: Range<u32>,
    /// Flow id of its first UE.
    pub flow_base: u32,
    /// Packets per second over the whole stream.
    pub rate_pps: f64,
    /// When the packets are due.
    pub schedule: Schedule,
    /// How packets spread over the UEs.
    pub spread: Spread,
    /// What its frames carry: the UE packets' family (the stream's), N3's transport family, each
    /// port's VLAN tags; [`FrameShape::default`] for IPv4 in IPv4, untagged.
    pub shape: FrameShape,
    /// The QoS flow it belongs to: its uplink's PDU Session Container carries it.
    pub qfi: Option<Qfi>,
    /// The QER that polices it in its direction, when that has an MBR: what the conformance
    /// report reads its passed rate against.
    pub qer: Option<StreamQer>,
}

/// The QER a stream's packets are policed by (TS 29.244 §5.4.4), as the conformance report
/// reads it: one QER may police several QoS flows together, so streams with the same `key` and
/// direction are counted as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamQer {
    /// Which QER: the QFI of the first QoS flow that it polices.
    pub key: Qfi,
    /// Its MBR in the stream's direction, in each session (bit/s, on the UE's IP packets).
    pub mbr_bps: u64,
    /// Its GBR there, in each session, for a GBR flow.
    pub gbr_bps: Option<u64>,
}

impl StreamPlan {
    /// Number of UEs, which is also the number of flows.
    pub fn ue_count(&self) -> u32 {
        self.ues.end - self.ues.start
    }

    /// The flows of this stream.
    pub fn flows(&self) -> Range<u32> {
        self.flow_base..self.flow_base + self.ue_count()
    }

    /// Length of the frames this stream sends (without FCS): a G-PDU on N3 for uplink, a plain
    /// Ethernet/IP/UDP frame on N6 for downlink, of its shape (IPv6 headers, VLAN tags).
    pub fn tx_frame_len(&self) -> u16 {
        let payload = usize::from(self.payload_len);
        let s = &self.shape;
        let len = frame::ETHERNET
            + match self.direction {
                Direction::Uplink => s.n3_tags + s.n3_ip_len(payload, self.pdu_session_container),
                Direction::Downlink => s.n6_tags + s.inner_ip_len(payload),
            };
        len as u16
    }

    /// The frame its rate is counted on (layer 2 with FCS, padded to 64), of its shape: what a
    /// search's loads count in Gbps, VLAN tags and IPv6 headers included.
    pub fn rate_frame_len(&self) -> usize {
        let p = usize::from(self.payload_len);
        match self.direction {
            Direction::Uplink => self.shape.n3_frame_len(p, self.pdu_session_container),
            Direction::Downlink => self.shape.n6_frame_len(p),
        }
    }

    /// The family of the UE packets it sends.
    pub fn family(&self) -> IpFamily {
        self.shape.inner
    }
}

/// Length of a generated frame as built (without FCS or padding).
pub fn tx_frame_len(direction: Direction, payload_len: u16, container: bool) -> u16 {
    let payload = usize::from(payload_len);
    let len = frame::ETHERNET
        + match direction {
            Direction::Uplink => frame::n3_ip_len(payload, container),
            Direction::Downlink => frame::inner_ip_len(payload),
        };
    len as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_lengths_of_the_published_payloads() {
        // 10-byte payload: 60-byte G-PDU (68 with a container), 52-byte plain frame.
        assert_eq!(tx_frame_len(Direction::Uplink, 10, false), 88);
        assert_eq!(tx_frame_len(Direction::Uplink, 10, true), 96);
        assert_eq!(tx_frame_len(Direction::Downlink, 10, false), 52);
        assert_eq!(tx_frame_len(Direction::Downlink, 1400, false), 1442);
    }

    #[test]
    fn a_shaped_stream_counts_ipv6_headers_and_tags() {
        let mut s = StreamPlan {
            id: 0,
            name: "v6".into(),
            direction: Direction::Uplink,
            payload_len: 10,
            pdu_session_container: true,
            source_port: 1,
            destination_port: 2,
            ues: 0..1,
            flow_base: 0,
            rate_pps: 1.0,
            schedule: Schedule::Continuous { packets: 1 },
            spread: Spread::RoundRobin,
            shape: FrameShape::default(),
            qfi: None,
            qer: None,
        };
        assert_eq!(s.tx_frame_len(), 96, "as tx_frame_len says for IPv4");
        s.shape = FrameShape {
            inner: IpFamily::Ipv6,
            n3: IpFamily::Ipv6,
            n3_tags: 4,
            n6_tags: 8,
        };
        // 14 + 4 + 40 + 8 + 8 + 8 + 40 + 8 + 10.
        assert_eq!(s.tx_frame_len(), 140);
        assert_eq!(s.rate_frame_len(), 144, "with its FCS");
        s.direction = Direction::Downlink;
        // 14 + 8 + 40 + 8 + 10.
        assert_eq!(s.tx_frame_len(), 80);
        assert_eq!(s.rate_frame_len(), 84);
        assert_eq!(s.family(), IpFamily::Ipv6);
        s.shape.inner = IpFamily::Ipv4;
        s.shape.n6_tags = 4;
        // 14 + 4 + 20 + 8 + 10 + 4 = 60: padded to 64, as untagged.
        assert_eq!(s.rate_frame_len(), 64);
    }

    #[test]
    fn schedules_count_their_packets() {
        assert_eq!(Schedule::Continuous { packets: 7 }.total(), 7);
        let b = Schedule::Bursts {
            packets: 5,
            bursts: 3,
            gap_ns: 10,
        };
        assert_eq!(b.total(), 15);
    }
}
