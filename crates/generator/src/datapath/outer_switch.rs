//! A moving UE's uplink: at its handover it leaves from the target gNB's address. A share with
//! moving UEs writes each packet's outer IPv4 checksum and source from its UE's
//! [`OuterSwitch`], chosen by the packet's send tick against the UE's switch tick: no
//! cross-thread traffic, the worker switches on its own clock.

use std::net::Ipv4Addr;

use upfbench_gtpu::PacketTemplate;
use upfbench_net::{checksum, ethernet, ipv4};

/// Where the outer IPv4 header's checksum starts in an uplink frame (after Ethernet): a share
/// of moving UEs patches from there, the checksum and the source address before the rest.
pub(crate) const OUTER_CHECKSUM_AT: usize = ethernet::HEADER_LEN + ipv4::field::CHECKSUM.start;
/// The outer checksum and source address: what a handover changes in an uplink frame.
pub(super) const OUTER_LEN: usize = 6;

/// A UE's uplink as a share of moving UEs sends it: the outer IPv4 checksum and source address
/// (the gNB it is at) before and after its handover, and when it moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OuterSwitch {
    /// When it moves, from the start of the measured phase (ns); `None`: it stays.
    pub at_ns: Option<u64>,
    /// The tick it moves at in this phase (`u64::MAX`: not in this phase).
    pub(super) at_tick: u64,
    /// Checksum and source at the source gNB.
    before: [u8; OUTER_LEN],
    /// At the target gNB.
    after: [u8; OUTER_LEN],
}

impl OuterSwitch {
    /// The switch of a UE of `template` (an uplink frame) to `target` at `at_ns`, if it moves.
    pub(crate) fn new(
        template: &PacketTemplate,
        target: Ipv4Addr,
        at_ns: Option<u64>,
    ) -> OuterSwitch {
        let frame = template.bytes();
        let ip = &frame[ethernet::HEADER_LEN..];
        let ihl = usize::from(ip[0] & 0x0f) * 4;
        let mut header = ip[..ihl].to_vec();
        let before: [u8; OUTER_LEN] = frame[OUTER_CHECKSUM_AT..OUTER_CHECKSUM_AT + OUTER_LEN]
            .try_into()
            .expect("6 bytes");
        header[ipv4::field::SOURCE].copy_from_slice(&target.octets());
        let sum = checksum::ipv4_header(&header);
        let mut after = [0u8; OUTER_LEN];
        after[..2].copy_from_slice(&sum.to_be_bytes());
        after[2..].copy_from_slice(&target.octets());
        OuterSwitch {
            at_ns,
            at_tick: u64::MAX,
            before,
            after,
        }
    }

    /// The checksum and source of a packet sent at tick `now`.
    #[inline(always)]
    pub(super) fn outer(&self, now: u64) -> &[u8; OUTER_LEN] {
        if now >= self.at_tick {
            &self.after
        } else {
            &self.before
        }
    }
}

#[cfg(test)]
mod tests {
    use upfbench_net::{MacAddr, Teid};
    use upfbench_stats::Direction;

    use super::*;
    use crate::datapath::frames::{Endpoints, stream_template};
    use upfbench_datapath::service::Interface;
    use upfbench_run::plan::{Schedule, Spread, StreamPlan};

    fn uplink_template() -> PacketTemplate {
        let iface = |a| Interface {
            mac: MacAddr([2, 0, 0, 0, 0, 1]),
            address: a,
            prefix_len: 24,
            secondary: None,
        };
        let stream = StreamPlan {
            id: 0,
            name: "ul".into(),
            direction: Direction::Uplink,
            payload_len: 10,
            pdu_session_container: true,
            source_port: 10_000,
            destination_port: 20_000,
            ues: 0..1,
            flow_base: 0,
            rate_pps: 1.0,
            schedule: Schedule::Continuous { packets: 1 },
            spread: Spread::RoundRobin,
            shape: Default::default(),
            qfi: None,
            qer: None,
        };
        let e = Endpoints {
            local: [
                iface(Ipv4Addr::new(192, 168, 13, 131)),
                iface(Ipv4Addr::new(192, 168, 16, 152)),
            ],
            upf_n3: Ipv4Addr::new(192, 168, 13, 151),
            next_hop_mac: [MacAddr([2, 0, 0, 0, 0, 2]); 2],
            v6: crate::datapath::frames::Endpoints6::NONE,
            tags: [upfbench_datapath::vlan::PortTags::UNTAGGED; 2],
        };
        stream_template(&stream, Ipv4Addr::new(10, 45, 0, 2), Teid(1), None, &e).unwrap()
    }

    #[test]
    fn the_switch_rewrites_source_and_checksum_at_its_tick() {
        let t = uplink_template();
        let frame = t.bytes().to_vec();
        let target = Ipv4Addr::new(192, 168, 13, 132);
        let mut m = OuterSwitch::new(&t, target, Some(5));
        assert_eq!(
            m.outer(0),
            m.outer(u64::MAX - 1),
            "not in this phase: stays"
        );
        m.at_tick = 100;
        assert_eq!(
            m.outer(99),
            &frame[OUTER_CHECKSUM_AT..OUTER_CHECKSUM_AT + OUTER_LEN]
        );
        let mut moved = frame.clone();
        moved[OUTER_CHECKSUM_AT..OUTER_CHECKSUM_AT + OUTER_LEN].copy_from_slice(m.outer(100));
        let ip = upfbench_net::Ipv4Packet::new_checked(&moved[ethernet::HEADER_LEN..]).unwrap();
        assert_eq!(ip.source(), target);
        assert!(ip.verify_checksum());
        // Everything else as the template.
        assert_eq!(moved[..OUTER_CHECKSUM_AT], frame[..OUTER_CHECKSUM_AT]);
        assert_eq!(
            moved[OUTER_CHECKSUM_AT + OUTER_LEN..],
            frame[OUTER_CHECKSUM_AT + OUTER_LEN..]
        );
    }
}
