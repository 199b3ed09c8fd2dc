//! How a port is started: queues, descriptors, RSS, offloads (checksums, segments, VLAN tags).

use crate::sys;

/// The configuration [`crate::Port::start`] applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortConfig {
    /// Receive queues (each one is polled by one lcore).
    pub rx_queues: u16,
    /// Transmit queues (each one is fed by one lcore).
    pub tx_queues: u16,
    /// Descriptors per receive queue (adjusted to the port's limits).
    pub rx_desc: u16,
    /// Descriptors per transmit queue (adjusted to the port's limits).
    pub tx_desc: u16,
    /// Spread received packets across the receive queues by an IP/UDP/TCP hash.
    pub rss: bool,
    /// Offloads to enable; each must be offered by the port ([`crate::Capabilities::offloads`]).
    pub offloads: Offloads,
}

impl Default for PortConfig {
    /// One queue each way, 1024 descriptors each, no RSS, no offloads.
    fn default() -> Self {
        PortConfig {
            rx_queues: 1,
            tx_queues: 1,
            rx_desc: 1024,
            tx_desc: 1024,
            rss: false,
            offloads: Offloads::NONE,
        }
    }
}

/// Checksum, multi-segment and VLAN offloads, by name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offloads {
    /// Check IPv4 header checksums on receive ([`crate::Mbuf::rx_ip_checksum`]).
    pub rx_ipv4_checksum: bool,
    /// Check UDP checksums on receive ([`crate::Mbuf::rx_l4_checksum`]).
    pub rx_udp_checksum: bool,
    /// Receive frames larger than one mbuf as chains of segments.
    pub rx_scatter: bool,
    /// Compute IPv4 header checksums on transmit ([`crate::Mbuf::request_tx_checksum`]).
    pub tx_ipv4_checksum: bool,
    /// Compute UDP checksums on transmit ([`crate::Mbuf::request_tx_checksum`]).
    pub tx_udp_checksum: bool,
    /// Transmit chained (multi-segment) mbufs.
    pub tx_multi_segs: bool,
    /// Promise that every transmitted mbuf comes from one pool and is not shared, so the port may
    /// free them in bulk.
    pub tx_fast_free: bool,
    /// Strip the (outer) VLAN tag of received frames into the mbuf ([`crate::Mbuf::stripped_tags`]).
    pub rx_vlan_strip: bool,
    /// Strip both tags of received QinQ frames into the mbuf.
    pub rx_qinq_strip: bool,
    /// Insert the VLAN tag an mbuf asks for on transmit ([`crate::Mbuf::set_tx_vlan`]).
    pub tx_vlan_insert: bool,
    /// Insert the outer (QinQ) tag an mbuf asks for on transmit.
    pub tx_qinq_insert: bool,
}

/// (field getter, DPDK flag, name) for each receive offload.
type OffloadBit = (fn(&Offloads) -> bool, fn(&mut Offloads), u64, &'static str);

const RX_BITS: &[OffloadBit] = &[
    (
        |o| o.rx_ipv4_checksum,
        |o| o.rx_ipv4_checksum = true,
        sys::RTE_ETH_RX_OFFLOAD_IPV4_CKSUM,
        "rx IPv4 checksum",
    ),
    (
        |o| o.rx_udp_checksum,
        |o| o.rx_udp_checksum = true,
        sys::RTE_ETH_RX_OFFLOAD_UDP_CKSUM,
        "rx UDP checksum",
    ),
    (
        |o| o.rx_scatter,
        |o| o.rx_scatter = true,
        sys::RTE_ETH_RX_OFFLOAD_SCATTER,
        "rx scatter",
    ),
    (
        |o| o.rx_vlan_strip,
        |o| o.rx_vlan_strip = true,
        sys::RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
        "rx VLAN strip",
    ),
    (
        |o| o.rx_qinq_strip,
        |o| o.rx_qinq_strip = true,
        sys::RTE_ETH_RX_OFFLOAD_QINQ_STRIP,
        "rx QinQ strip",
    ),
];

const TX_BITS: &[OffloadBit] = &[
    (
        |o| o.tx_ipv4_checksum,
        |o| o.tx_ipv4_checksum = true,
        sys::RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
        "tx IPv4 checksum",
    ),
    (
        |o| o.tx_udp_checksum,
        |o| o.tx_udp_checksum = true,
        sys::RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
        "tx UDP checksum",
    ),
    (
        |o| o.tx_multi_segs,
        |o| o.tx_multi_segs = true,
        sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
        "tx multi-segment",
    ),
    (
        |o| o.tx_fast_free,
        |o| o.tx_fast_free = true,
        sys::RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE,
        "tx fast free",
    ),
    (
        |o| o.tx_vlan_insert,
        |o| o.tx_vlan_insert = true,
        sys::RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
        "tx VLAN insert",
    ),
    (
        |o| o.tx_qinq_insert,
        |o| o.tx_qinq_insert = true,
        sys::RTE_ETH_TX_OFFLOAD_QINQ_INSERT,
        "tx QinQ insert",
    ),
];

impl Offloads {
    /// No offload.
    pub const NONE: Offloads = Offloads {
        rx_ipv4_checksum: false,
        rx_udp_checksum: false,
        rx_scatter: false,
        tx_ipv4_checksum: false,
        tx_udp_checksum: false,
        tx_multi_segs: false,
        tx_fast_free: false,
        rx_vlan_strip: false,
        rx_qinq_strip: false,
        tx_vlan_insert: false,
        tx_qinq_insert: false,
    };

    /// The offloads named in DPDK's receive and transmit capability masks.
    pub fn from_capa(rx_capa: u64, tx_capa: u64) -> Self {
        let mut o = Offloads::NONE;
        for (_, set, bit, _) in RX_BITS {
            if rx_capa & bit != 0 {
                set(&mut o);
            }
        }
        for (_, set, bit, _) in TX_BITS {
            if tx_capa & bit != 0 {
                set(&mut o);
            }
        }
        o
    }

    /// The offloads in both `self` and `other`: what was asked for and is offered.
    pub fn intersect(self, other: Offloads) -> Offloads {
        Offloads {
            rx_ipv4_checksum: self.rx_ipv4_checksum && other.rx_ipv4_checksum,
            rx_udp_checksum: self.rx_udp_checksum && other.rx_udp_checksum,
            rx_scatter: self.rx_scatter && other.rx_scatter,
            tx_ipv4_checksum: self.tx_ipv4_checksum && other.tx_ipv4_checksum,
            tx_udp_checksum: self.tx_udp_checksum && other.tx_udp_checksum,
            tx_multi_segs: self.tx_multi_segs && other.tx_multi_segs,
            tx_fast_free: self.tx_fast_free && other.tx_fast_free,
            rx_vlan_strip: self.rx_vlan_strip && other.rx_vlan_strip,
            rx_qinq_strip: self.rx_qinq_strip && other.rx_qinq_strip,
            tx_vlan_insert: self.tx_vlan_insert && other.tx_vlan_insert,
            tx_qinq_insert: self.tx_qinq_insert && other.tx_qinq_insert,
        }
    }

    /// DPDK's receive offload mask (`RTE_ETH_RX_OFFLOAD_*`).
    pub fn rx_mask(&self) -> u64 {
        RX_BITS
            .iter()
            .filter(|(get, ..)| get(self))
            .fold(0, |m, (_, _, bit, _)| m | bit)
    }

    /// DPDK's transmit offload mask (`RTE_ETH_TX_OFFLOAD_*`).
    pub fn tx_mask(&self) -> u64 {
        TX_BITS
            .iter()
            .filter(|(get, ..)| get(self))
            .fold(0, |m, (_, _, bit, _)| m | bit)
    }

    /// Names of the offloads in `self` that are not in `offered`.
    pub fn missing_from(&self, offered: &Offloads) -> Vec<&'static str> {
        RX_BITS
            .iter()
            .chain(TX_BITS)
            .filter(|(get, ..)| get(self) && !get(offered))
            .map(|(.., name)| *name)
            .collect()
    }
}

/// The hash types RSS is asked for: IPv4/IPv6 addresses and UDP/TCP ports.
pub(crate) const RSS_HASH: u64 = sys::RTE_ETH_RSS_IP | sys::RTE_ETH_RSS_UDP | sys::RTE_ETH_RSS_TCP;

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Offloads = Offloads {
        rx_ipv4_checksum: true,
        rx_udp_checksum: true,
        rx_scatter: true,
        tx_ipv4_checksum: true,
        tx_udp_checksum: true,
        tx_multi_segs: true,
        tx_fast_free: true,
        rx_vlan_strip: true,
        rx_qinq_strip: true,
        tx_vlan_insert: true,
        tx_qinq_insert: true,
    };

    #[test]
    fn masks_are_dpdk_flags() {
        let o = Offloads {
            rx_udp_checksum: true,
            tx_multi_segs: true,
            ..Offloads::NONE
        };
        assert_eq!(o.rx_mask(), sys::RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
        assert_eq!(o.tx_mask(), sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
        assert_eq!(Offloads::NONE.rx_mask() | Offloads::NONE.tx_mask(), 0);
    }

    #[test]
    fn capability_masks_round_trip() {
        assert_eq!(Offloads::from_capa(ALL.rx_mask(), ALL.tx_mask()), ALL);
        assert_eq!(Offloads::from_capa(0, 0), Offloads::NONE);
        // Flags that have no name here are ignored.
        let timestamp = sys::RTE_ETH_RX_OFFLOAD_TIMESTAMP;
        assert_eq!(Offloads::from_capa(timestamp, 0), Offloads::NONE);
        // net_af_packet's masks (DPDK 22.11): VLAN strip, multi-segment and VLAN insert.
        let af_packet = Offloads::from_capa(
            sys::RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
            sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS | sys::RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
        );
        assert!(af_packet.rx_vlan_strip && af_packet.tx_vlan_insert && af_packet.tx_multi_segs);
        assert!(!af_packet.rx_qinq_strip && !af_packet.tx_qinq_insert);
    }

    #[test]
    fn missing_offloads_are_named() {
        let asked = Offloads {
            rx_ipv4_checksum: true,
            tx_fast_free: true,
            ..Offloads::NONE
        };
        let offered = Offloads {
            rx_ipv4_checksum: true,
            ..Offloads::NONE
        };
        assert_eq!(asked.missing_from(&offered), ["tx fast free"]);
        assert!(asked.missing_from(&ALL).is_empty());
        assert_eq!(asked.intersect(offered), offered);
    }

    #[test]
    fn rss_asks_for_ip_udp_tcp() {
        assert_eq!(RSS_HASH & sys::RTE_ETH_RSS_IP, sys::RTE_ETH_RSS_IP);
        assert_ne!(RSS_HASH & sys::RTE_ETH_RSS_UDP, 0);
        assert_ne!(RSS_HASH & sys::RTE_ETH_RSS_TCP, 0);
    }
}
