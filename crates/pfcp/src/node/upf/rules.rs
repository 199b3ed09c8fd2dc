//! The rules the reflector's datapath reads, one session at a time (its uplink and downlink
//! PDRs), and the change events that let a datapath mirror the [`RulesTable`].
//!
//! [`RulesTable`]: super::RulesTable

use core::net::{IpAddr, Ipv4Addr};

use crate::ie::{BitRate, FlowDescription, Fseid, GateStatus};
use crate::plan::UeIpv6Prefix;
use crate::types::{PdrId, Precedence, QerId, Qfi, Seid, Teid};

/// A GTP-U tunnel endpoint to encapsulate towards (Outer Header Creation GTP-U/UDP/IPv4 or
/// GTP-U/UDP/IPv6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tunnel {
    /// The TEID to put in the GTP-U header.
    pub teid: Teid,
    /// The gNB's address, of the family the Outer Header Creation asked for.
    pub address: IpAddr,
}

/// An uplink PDR: G-PDUs to this F-TEID belong to the session.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UplinkRule {
    /// The session.
    pub up_seid: Seid,
    /// The PDR.
    pub pdr_id: PdrId,
    /// Its precedence: of the PDRs a packet matches, the lowest value applies.
    pub precedence: Precedence,
    /// The local TEID matched.
    pub teid: Teid,
    /// The local N3 address of the F-TEID (its IPv4 address when it gives both).
    pub address: IpAddr,
    /// The UE address the PDI names as source, if any.
    pub ue_address: Option<Ipv4Addr>,
    /// The QFI the PDI matches, if any.
    pub qfi: Option<Qfi>,
    /// The PDI's SDF filters, parsed (none: every packet of the F-TEID and QFI); a packet
    /// matches the PDR when it matches any of them.
    pub sdf_filters: Vec<FlowDescription>,
    /// The PDR's first QER, if it names one: its gate and bit rates apply to the PDR's packets.
    pub qer: Option<QerId>,
    /// Outer Header Removal was asked for (decapsulate).
    pub remove_outer_header: bool,
    /// The FAR forwards (else it drops or buffers).
    pub forward: bool,
}

/// A downlink PDR: packets to this UE address belong to the session and leave through its
/// tunnel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DownlinkRule {
    /// The session.
    pub up_seid: Seid,
    /// The PDR.
    pub pdr_id: PdrId,
    /// Its precedence: of the PDRs a packet matches, the lowest value applies.
    pub precedence: Precedence,
    /// The UE's IPv4 address matched as destination, if the PDI names one.
    pub ue_address: Option<Ipv4Addr>,
    /// The UE's IPv6 prefix matched as destination (host bits clear), if the PDI names one: a
    /// packet to any address in it is the UE's. A dual-stack UE's PDR names both.
    pub ue_prefix: Option<UeIpv6Prefix>,
    /// The PDI's SDF filters, parsed (none: every packet to the UE); a packet matches the PDR
    /// when it matches any of them.
    pub sdf_filters: Vec<FlowDescription>,
    /// The FAR's Outer Header Creation, if any.
    pub tunnel: Option<Tunnel>,
    /// The QFI of the PDR's first QER that sets one (for the PDU Session Container).
    pub qfi: Option<Qfi>,
    /// The PDR's first QER, if it names one: its gate and bit rates apply to the PDR's packets.
    pub qer: Option<QerId>,
    /// The FAR forwards (else it drops or buffers).
    pub forward: bool,
}

/// A QER as the datapath enforces it (TS 29.244 §5.2.1A): the gates and bit rates of the PDRs
/// that name it, which may be several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QerRule {
    /// The QER.
    pub qer_id: QerId,
    /// The QFI it sets, if any.
    pub qfi: Option<Qfi>,
    /// Its gates (closed: the PDRs' packets are dropped that way).
    pub gate: GateStatus,
    /// Its Maximum Bit Rate per direction, if any.
    pub mbr: Option<BitRate>,
    /// Its Guaranteed Bit Rate per direction, if any (not enforced: a UPF polices the MBR).
    pub gbr: Option<BitRate>,
}

/// One session as the datapath sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionRules {
    /// Our SEID.
    pub up_seid: Seid,
    /// The CP function's F-SEID.
    pub cp_f_seid: Fseid,
    /// Uplink PDRs.
    pub uplink: Vec<UplinkRule>,
    /// Downlink PDRs.
    pub downlink: Vec<DownlinkRule>,
    /// The QERs the PDRs name.
    pub qers: Vec<QerRule>,
}

impl SessionRules {
    /// The QER `id`, if the session has it.
    pub fn qer(&self, id: QerId) -> Option<&QerRule> {
        self.qers.iter().find(|q| q.qer_id == id)
    }
}

/// What changed in the table; one event per applied establishment, modification, deletion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleChange {
    /// A session was established.
    Installed(SessionRules),
    /// A session was modified: remove `previous`'s entries, add `current`'s.
    Modified {
        /// Before.
        previous: SessionRules,
        /// After.
        current: SessionRules,
    },
    /// A session was deleted (by request, association release, or peer restart).
    Removed(SessionRules),
    /// A modification moved a downlink tunnel and asked for End Markers (PFCPSMReq-Flags
    /// SNDEM in its Update Forwarding Parameters, TS 29.244 §5.2.2.3.1): one goes on the
    /// `previous` tunnel once no G-PDU follows it there. Follows the [`RuleChange::Modified`]
    /// that moved the tunnel.
    EndMarker {
        /// The UE whose downlink moved: its IPv4 address (none for an IPv6-only UE).
        ue_address: Option<Ipv4Addr>,
        /// The tunnel it left.
        previous: Tunnel,
    },
}
