//! The rules table the UPF side fills and the reflector's datapath reads: sessions by UP SEID,
//! uplink by TEID, downlink by UE address, and the change events that let a datapath mirror it.

use core::net::{Ipv4Addr, SocketAddr};
use std::collections::HashMap;

use super::ruleset::RuleSet;
use crate::ie::Fseid;
use crate::types::{PdrId, Qfi, Seid, Teid};

/// A GTP-U tunnel endpoint to encapsulate towards (Outer Header Creation GTP-U/UDP/IPv4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tunnel {
    /// The TEID to put in the GTP-U header.
    pub teid: Teid,
    /// The gNB's address.
    pub address: Ipv4Addr,
}

/// An uplink PDR: G-PDUs to this F-TEID belong to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UplinkRule {
    /// The session.
    pub up_seid: Seid,
    /// The PDR.
    pub pdr_id: PdrId,
    /// The local TEID matched.
    pub teid: Teid,
    /// The local N3 address of the F-TEID.
    pub address: Ipv4Addr,
    /// The UE address the PDI names as source, if any.
    pub ue_address: Option<Ipv4Addr>,
    /// The QFI the PDI matches, if any.
    pub qfi: Option<Qfi>,
    /// Outer Header Removal was asked for (decapsulate).
    pub remove_outer_header: bool,
    /// The FAR forwards (else it drops or buffers).
    pub forward: bool,
}

/// A downlink PDR: packets to this UE address belong to the session and leave through its
/// tunnel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DownlinkRule {
    /// The session.
    pub up_seid: Seid,
    /// The PDR.
    pub pdr_id: PdrId,
    /// The UE address matched as destination.
    pub ue_address: Ipv4Addr,
    /// The FAR's Outer Header Creation, if any.
    pub tunnel: Option<Tunnel>,
    /// The QFI of the PDR's first QER that sets one (for the PDU Session Container).
    pub qfi: Option<Qfi>,
    /// The FAR forwards (else it drops or buffers).
    pub forward: bool,
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
        /// The UE whose downlink moved.
        ue_address: Ipv4Addr,
        /// The tunnel it left.
        previous: Tunnel,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct UpSession {
    pub(crate) peer: SocketAddr,
    pub(crate) rules: RuleSet,
    pub(crate) view: SessionRules,
}

/// The sessions and the datapath lookups.
#[derive(Debug, Clone, Default)]
pub struct RulesTable {
    /// Boxed: growing the map moves a pointer per session, not the session (hundreds of
    /// bytes). Unboxed, the map's doubling at 458,752 and 917,504 sessions held up a
    /// million-session climb for up to 2.6 s.
    sessions: HashMap<Seid, Box<UpSession>>,
    by_teid: HashMap<Teid, Seid>,
    by_ue: HashMap<Ipv4Addr, Seid>,
}

impl RulesTable {
    /// Sessions.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether there is no session.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// A session by UP SEID.
    pub fn session(&self, up_seid: Seid) -> Option<&SessionRules> {
        self.sessions.get(&up_seid).map(|s| &s.view)
    }

    /// All sessions, in no particular order.
    pub fn sessions(&self) -> impl Iterator<Item = &SessionRules> + '_ {
        self.sessions.values().map(|s| &s.view)
    }

    /// The uplink PDR matching a G-PDU's TEID.
    pub fn uplink(&self, teid: Teid) -> Option<&UplinkRule> {
        let s = self.session(*self.by_teid.get(&teid)?)?;
        s.uplink.iter().find(|u| u.teid == teid)
    }

    /// The downlink PDR matching a packet to `ue`, with its tunnel.
    pub fn downlink(&self, ue: Ipv4Addr) -> Option<&DownlinkRule> {
        let s = self.session(*self.by_ue.get(&ue)?)?;
        s.downlink.iter().find(|d| d.ue_address == ue)
    }

    /// Uplink TEIDs indexed.
    pub fn uplink_count(&self) -> usize {
        self.by_teid.len()
    }

    /// UE addresses indexed.
    pub fn downlink_count(&self) -> usize {
        self.by_ue.len()
    }

    pub(crate) fn get(&self, up_seid: Seid) -> Option<&UpSession> {
        self.sessions.get(&up_seid).map(|s| &**s)
    }

    pub(crate) fn contains(&self, up_seid: Seid) -> bool {
        self.sessions.contains_key(&up_seid)
    }

    pub(crate) fn teid_owner(&self, teid: Teid) -> Option<Seid> {
        self.by_teid.get(&teid).copied()
    }

    pub(crate) fn ue_owner(&self, ue: Ipv4Addr) -> Option<Seid> {
        self.by_ue.get(&ue).copied()
    }

    fn index(&mut self, v: &SessionRules) {
        for u in &v.uplink {
            self.by_teid.insert(u.teid, v.up_seid);
        }
        for d in &v.downlink {
            self.by_ue.insert(d.ue_address, v.up_seid);
        }
    }

    fn unindex(&mut self, v: &SessionRules) {
        for u in &v.uplink {
            self.by_teid.remove(&u.teid);
        }
        for d in &v.downlink {
            self.by_ue.remove(&d.ue_address);
        }
    }

    /// Adds or replaces a session; returns the previous view.
    pub(crate) fn put(&mut self, s: UpSession) -> Option<SessionRules> {
        let previous = self.sessions.remove(&s.view.up_seid).map(|p| {
            self.unindex(&p.view);
            p.view
        });
        self.index(&s.view);
        self.sessions.insert(s.view.up_seid, Box::new(s));
        previous
    }

    pub(crate) fn remove(&mut self, up_seid: Seid) -> Option<SessionRules> {
        let s = self.sessions.remove(&up_seid)?;
        self.unindex(&s.view);
        Some(s.view)
    }

    pub(crate) fn drain(&mut self) -> Vec<SessionRules> {
        self.by_teid.clear();
        self.by_ue.clear();
        self.sessions.drain().map(|(_, s)| s.view).collect()
    }
}
