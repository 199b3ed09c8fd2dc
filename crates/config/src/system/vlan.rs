//! A port's VLAN tags (802.1Q, and 802.1ad outside it for QinQ) and one-port mode, where N6 is
//! on N3's device and the two are told apart by their tags.

use serde::Deserialize;
use upfbench_net::{VlanId, VlanKind, VlanRepr, VlanTags};

use super::Port;
use crate::field::join_key;
use crate::issues::Issues;

/// A VLAN tag of a port: `{id: 13, pcp: 5}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Vlan {
    /// The VLAN id, 1 to 4094 (IEEE 802.1Q reserves 0 and 4095).
    pub id: u16,
    /// The priority code point, 0 to 7.
    #[serde(default)]
    pub pcp: u8,
    /// `auto`: the NIC inserts and strips the port's tags where it offers the VLAN offloads
    /// (`VLAN_INSERT` and `VLAN_STRIP`, and `QINQ_INSERT` for QinQ); `off`: the tags are
    /// written and read in software. In `vlan` only (the port's tags as a whole); in one-port
    /// mode the device's tags are offloaded only if neither port says `off`. Absent: `auto`.
    #[serde(default)]
    pub offload: Option<VlanOffload>,
}

/// Whether the NIC inserts and strips a port's VLAN tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VlanOffload {
    /// Where the NIC offers the offloads.
    #[default]
    Auto,
    /// Never: software tagging (for tests, and NICs whose offload misbehaves).
    Off,
}

impl Vlan {
    /// The tag of `kind` (a checked file's id and PCP are valid).
    fn repr(self, kind: VlanKind) -> VlanRepr {
        VlanRepr {
            kind,
            pcp: self.pcp,
            dei: false,
            vid: self.id,
        }
    }
}

impl<Peer> Port<Peer> {
    /// The tags of every frame the port sends and receives, outermost first: none, the `vlan`
    /// C-tag, or the `qinq` S-tag outside it. What the datapath puts on (or has the NIC insert)
    /// and strips; 4 bytes each on the wire.
    pub fn vlan_tags(&self) -> VlanTags {
        match (self.qinq, self.vlan) {
            (_, None) => VlanTags::Untagged,
            (None, Some(v)) => VlanTags::Single(v.repr(VlanKind::Customer)),
            (Some(outer), Some(inner)) => VlanTags::Double {
                outer: outer.repr(VlanKind::Service),
                inner: inner.repr(VlanKind::Customer),
            },
        }
    }

    /// Whether the NIC may insert and strip the port's tags (`vlan.offload`; `auto` when
    /// absent or untagged).
    pub fn vlan_offload(&self) -> VlanOffload {
        self.vlan.and_then(|v| v.offload).unwrap_or_default()
    }

    /// The VLAN ids that tell the port's frames apart, outer first: `(qinq, vlan)`.
    pub(crate) fn vlan_ids(&self) -> (Option<u16>, Option<u16>) {
        (self.qinq.map(|v| v.id), self.vlan.map(|v| v.id))
    }
}

/// One tag's id and PCP.
fn check_tag(tag: Vlan, field: &str, issues: &mut Issues) {
    if let Err(e) = VlanId::new(tag.id) {
        issues.add(join_key(field, "id"), e.to_string());
    }
    if tag.pcp > 7 {
        issues.add(
            join_key(field, "pcp"),
            format!("PCP {} does not fit 3 bits: use 0 to 7", tag.pcp),
        );
    }
}

/// The tags of the port `name`: each valid, and QinQ's outer tag only around an inner one.
pub(crate) fn check_vlans<Peer>(port: &Port<Peer>, name: &str, issues: &mut Issues) {
    if let Some(v) = port.vlan {
        check_tag(v, &join_key(name, "vlan"), issues);
    }
    if let Some(q) = port.qinq {
        check_tag(q, &join_key(name, "qinq"), issues);
        if q.offload.is_some() {
            issues.add(
                join_key(&join_key(name, "qinq"), "offload"),
                "the offload is the port's, for both tags: give it in `vlan`",
            );
        }
        if port.vlan.is_none() {
            issues.add(
                join_key(name, "qinq"),
                "the QinQ tag is the outer one around `vlan`: give `vlan` too",
            );
        }
    }
}
