//! The rules table the UPF side fills and the reflector's datapath reads: sessions by UP SEID,
//! uplink by TEID, downlink by UE address and by UE IPv6 prefix.

use core::net::{Ipv4Addr, SocketAddr};
use std::collections::HashMap;

use super::rules::{DownlinkRule, SessionRules, UplinkRule};
use super::ruleset::RuleSet;
use crate::plan::UeIpv6Prefix;
use crate::types::{Seid, Teid};

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
    by_prefix: HashMap<UeIpv6Prefix, Seid>,
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
        s.downlink.iter().find(|d| d.ue_address == Some(ue))
    }

    /// The downlink PDR of the UE IPv6 prefix `prefix` (exactly that prefix), with its tunnel.
    pub fn downlink_v6(&self, prefix: UeIpv6Prefix) -> Option<&DownlinkRule> {
        let s = self.session(*self.by_prefix.get(&prefix)?)?;
        s.downlink.iter().find(|d| d.ue_prefix == Some(prefix))
    }

    /// Uplink TEIDs indexed.
    pub fn uplink_count(&self) -> usize {
        self.by_teid.len()
    }

    /// UE IPv4 addresses indexed.
    pub fn downlink_count(&self) -> usize {
        self.by_ue.len()
    }

    /// UE IPv6 prefixes indexed.
    pub fn downlink_v6_count(&self) -> usize {
        self.by_prefix.len()
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

    pub(crate) fn prefix_owner(&self, prefix: UeIpv6Prefix) -> Option<Seid> {
        self.by_prefix.get(&prefix).copied()
    }

    fn index(&mut self, v: &SessionRules) {
        for u in &v.uplink {
            self.by_teid.insert(u.teid, v.up_seid);
        }
        for d in &v.downlink {
            if let Some(ue) = d.ue_address {
                self.by_ue.insert(ue, v.up_seid);
            }
            if let Some(p) = d.ue_prefix {
                self.by_prefix.insert(p, v.up_seid);
            }
        }
    }

    fn unindex(&mut self, v: &SessionRules) {
        for u in &v.uplink {
            self.by_teid.remove(&u.teid);
        }
        for d in &v.downlink {
            if let Some(ue) = d.ue_address {
                self.by_ue.remove(&ue);
            }
            if let Some(p) = d.ue_prefix {
                self.by_prefix.remove(&p);
            }
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
        self.by_prefix.clear();
        self.sessions.drain().map(|(_, s)| s.view).collect()
    }
}
