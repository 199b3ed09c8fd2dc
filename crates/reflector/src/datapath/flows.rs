//! Several QoS flows per session: the PDRs that share one uplink TEID or one UE address, told
//! apart per packet, and the QER each one names.
//!
//! A session whose key (the uplink TEID, the downlink UE address) has one PDR, with no SDF
//! filter and no QER to enforce, is forwarded by the table's entry as before, with no work
//! added. Any other key's entry says "flows" and the packet is classified here: the key's
//! [`Flow`]s in order of precedence (the lowest value first, TS 29.244 §5.2.1), the first that
//! matches applies. An uplink flow matches the QFI of the G-PDU's PDU Session Container when its
//! PDI names one; a flow with SDF filters matches when one of them matches the IP packet. A
//! packet no flow matches is dropped and counted.
//!
//! SDF filters follow TS 29.212 §5.4.2: written from the network to the UE (`permit out ...
//! from <remote> to assigned <UE ports>`), applied to a downlink packet as written and to an
//! uplink packet with source and destination swapped; a filter written `in` (from the UE) is
//! read the other way round. The reflector matches the protocol, the remote address and prefix,
//! the UE's address when the filter names one, and both sides' ports, on IPv4 and IPv6
//! packets; a filter's address matches packets of its family only (`any` and `assigned` either).
//! An IPv6 packet's protocol is its Next Header (no extension header is walked: a packet with
//! one has no ports to match). A packet that is neither matches only a flow without filters.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::net::IpAddr;
use std::sync::Arc;

use upfbench_net::Qfi;
use upfbench_pfcp::ie::{
    FilterAddress, FilterDirection, FilterEndpoint, FlowDescription, PortRange,
};
use upfbench_pfcp::{Teid, ie::FilterAction};

use super::qer::{QerCell, Verdict};

/// An address match, `addr & mask == net`, on packets of one family (an IPv4 address in the
/// low 32 bits); None: any address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Net {
    net: u128,
    mask: u128,
    v6: bool,
}

impl Net {
    fn contains(&self, v6: bool, a: u128) -> bool {
        v6 == self.v6 && a & self.mask == self.net
    }
}

/// One side of a compiled filter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Side {
    /// None: any address.
    net: Option<Net>,
    /// Matches nothing (a `deny` filter).
    never: bool,
    /// Empty: any port.
    ports: Box<[PortRange]>,
}

impl Side {
    fn of(e: &FilterEndpoint) -> Side {
        let net = match e.address {
            FilterAddress::Any | FilterAddress::Assigned => None,
            FilterAddress::Network(IpAddr::V4(a), len) => {
                let mask = u128::from(u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0));
                Some(Net {
                    net: u128::from(a.to_bits()) & mask,
                    mask,
                    v6: false,
                })
            }
            FilterAddress::Network(IpAddr::V6(a), len) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                Some(Net {
                    net: a.to_bits() & mask,
                    mask,
                    v6: true,
                })
            }
        };
        Side {
            net,
            never: false,
            ports: e.ports.clone().into_boxed_slice(),
        }
    }

    fn matches(&self, v6: bool, address: u128, port: Option<u16>) -> bool {
        if self.never || self.net.is_some_and(|n| !n.contains(v6, address)) {
            return false;
        }
        self.ports.is_empty() || port.is_some_and(|p| self.ports.iter().any(|r| r.contains(p)))
    }
}

/// An SDF filter compiled for IP packets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketFilter {
    protocol: Option<u8>,
    remote: Side,
    ue: Side,
}

impl PacketFilter {
    /// The filter of `flow` (a `deny` filter matches nothing: PFCP peers send `permit`).
    pub fn new(flow: &FlowDescription) -> PacketFilter {
        let (remote, ue) = match flow.direction {
            FilterDirection::Out => (&flow.source, &flow.destination),
            FilterDirection::In => (&flow.destination, &flow.source),
        };
        let mut f = PacketFilter {
            protocol: flow.protocol,
            remote: Side::of(remote),
            ue: Side::of(ue),
        };
        if flow.action == FilterAction::Deny {
            f.remote.never = true;
        }
        f
    }

    /// Whether the filter matches `p`, a packet going `uplink` (from the UE) or not.
    fn matches(&self, p: &Fields, uplink: bool) -> bool {
        if self.protocol.is_some_and(|proto| proto != p.protocol) {
            return false;
        }
        let (ue, remote) = if uplink {
            (
                (p.source, p.source_port),
                (p.destination, p.destination_port),
            )
        } else {
            (
                (p.destination, p.destination_port),
                (p.source, p.source_port),
            )
        };
        self.ue.matches(p.v6, ue.0, ue.1) && self.remote.matches(p.v6, remote.0, remote.1)
    }
}

/// The fields of an IP packet that filters look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fields {
    protocol: u8,
    /// An IPv6 packet (its addresses whole; an IPv4 packet's in the low 32 bits).
    v6: bool,
    source: u128,
    destination: u128,
    /// TCP, UDP and SCTP only, and only in the first fragment.
    source_port: Option<u16>,
    destination_port: Option<u16>,
}

impl Fields {
    /// The fields of IP packet `ip`, or None when it is neither an IPv4 nor an IPv6 one.
    fn of(ip: &[u8]) -> Option<Fields> {
        let h = ip.get(..20)?;
        if h[0] >> 4 == 6 {
            return Fields::of_v6(ip);
        }
        if h[0] >> 4 != 4 {
            return None;
        }
        let ihl = usize::from(h[0] & 0x0f) * 4;
        let protocol = h[9];
        let first_fragment = u16::from_be_bytes([h[6], h[7]]) & 0x1fff == 0;
        let ports = match protocol {
            6 | 17 | 132 if first_fragment => ip.get(ihl..ihl + 4),
            _ => None,
        };
        let word = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
        Some(Fields {
            protocol,
            v6: false,
            source: u128::from(word(12)),
            destination: u128::from(word(16)),
            source_port: ports.map(|p| u16::from_be_bytes([p[0], p[1]])),
            destination_port: ports.map(|p| u16::from_be_bytes([p[2], p[3]])),
        })
    }

    /// The fields of IPv6 packet `ip` (its Next Header the protocol; ports right behind the
    /// fixed header), or None when it is too short.
    fn of_v6(ip: &[u8]) -> Option<Fields> {
        let h = ip.get(..40)?;
        let protocol = h[6];
        let ports = match protocol {
            6 | 17 | 132 => ip.get(40..44),
            _ => None,
        };
        let address = |at: usize| {
            let mut a = [0u8; 16];
            a.copy_from_slice(&h[at..at + 16]);
            u128::from_be_bytes(a)
        };
        Some(Fields {
            protocol,
            v6: true,
            source: address(8),
            destination: address(24),
            source_port: ports.map(|p| u16::from_be_bytes([p[0], p[1]])),
            destination_port: ports.map(|p| u16::from_be_bytes([p[2], p[3]])),
        })
    }
}

/// One PDR of a key with several (or one that needs classifying), as the workers read it.
#[derive(Debug, Clone)]
pub struct Flow {
    /// The PDR's precedence: the lowest first.
    pub precedence: u32,
    /// Uplink: the QFI the PDI matches, if any.
    pub qfi: Option<Qfi>,
    /// The SDF filters (none: any packet); one matching is enough.
    pub filters: Box<[PacketFilter]>,
    /// The FAR forwards (and, uplink, removes the outer header).
    pub forward: bool,
    /// Downlink: the tunnel (TEID, gNB as a big-endian integer).
    pub tunnel: Option<(Teid, u32)>,
    /// Downlink: the QFI for the DL PDU Session Container.
    pub container_qfi: Option<Qfi>,
    /// The QER enforced, if any.
    pub qer: Option<Arc<QerCell>>,
}

impl PartialEq for Flow {
    fn eq(&self, o: &Flow) -> bool {
        let same_qer = match (&self.qer, &o.qer) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_qer
            && (
                self.precedence,
                self.qfi,
                self.forward,
                self.tunnel,
                self.container_qfi,
            ) == (o.precedence, o.qfi, o.forward, o.tunnel, o.container_qfi)
            && self.filters == o.filters
    }
}

impl Eq for Flow {}

/// A key's flows, by precedence.
pub type Flows = Arc<[Flow]>;

/// What a classified packet gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classified<'a> {
    /// The flow that applies, its QER passed it.
    Pass(&'a Flow),
    /// No flow matched.
    NoFlow,
    /// The flow's FAR does not forward.
    NotForwarded,
    /// The flow's QER policed it.
    Policed,
    /// The flow's QER gate is closed.
    Gated,
}

/// The flow of `flows` for `packet` (an IP packet of `len` bytes; uplink: `qfi` from its
/// container) at TSC tick `now`, and its QER's verdict.
#[inline]
pub fn classify<'a>(
    flows: &'a [Flow],
    packet: &[u8],
    len: usize,
    qfi: Option<Qfi>,
    uplink: bool,
    now: u64,
) -> Classified<'a> {
    let fields = Fields::of(packet);
    let Some(flow) = flows.iter().find(|f| {
        (!uplink || f.qfi.is_none() || f.qfi == qfi)
            && (f.filters.is_empty()
                || fields.is_some_and(|p| f.filters.iter().any(|x| x.matches(&p, uplink))))
    }) else {
        return Classified::NoFlow;
    };
    if !flow.forward {
        return Classified::NotForwarded;
    }
    let dir = if uplink {
        super::qer::UPLINK
    } else {
        super::qer::DOWNLINK
    };
    match flow.qer.as_ref().map(|q| q.admit(dir, len, now)) {
        None | Some(Verdict::Pass) => Classified::Pass(flow),
        Some(Verdict::Policed) => Classified::Policed,
        Some(Verdict::Gated) => Classified::Gated,
    }
}

/// A hasher for the 32-bit keys of the flow maps: one multiplication (Fibonacci hashing).
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, k: u32) {
        self.0 = u64::from(k).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The keys (uplink TEIDs, UE addresses) whose packets are classified, with their flows.
pub type FlowMap = HashMap<u32, Flows, BuildHasherDefault<KeyHasher>>;

#[cfg(test)]
mod tests;
