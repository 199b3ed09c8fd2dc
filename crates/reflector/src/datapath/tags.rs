//! VLAN tags on the reflector's ports: what a worker receives on a tagged port is sorted by its
//! tags and stripped before it is forwarded, and what it sends is tagged for the port it leaves
//! by. In software (memif has no VLAN offload; see docs/traffic-shapes.md), or where the NIC
//! has the offloads, by it: a frame it stripped carries its tags in the mbuf
//! ([`upfbench_dpdk::StrippedTags`]), and a frame sent asks it to insert them
//! ([`PortTags::tx_vlan`]).
//!
//! In one-port mode (N3 and N6 on one device) each role has its own queues, which a peer that
//! sends each role's frames on its own queues (the generator over memif) keeps apart; a frame
//! that comes on the other role's queue (a NIC's RSS put it there) is still forwarded as the
//! port its tags name. Per frame: a comparison of the tags, a 12-byte move and an `adj` on
//! receive, a `prepend` and a 12-byte move on send (three stores into the mbuf where the NIC
//! inserts); no allocation.

use upfbench_datapath::queues::Side;
use upfbench_datapath::service::ServicePlane;
use upfbench_datapath::vlan::{PortTags, PortVlans};
use upfbench_dpdk::{Mbuf, MbufBurst};

/// The Ethernet addresses, which a VLAN tag follows.
const ADDRESSES_LEN: usize = 12;

/// Sorts burst `rx`, received on `side`'s queue, into `roles` by the tags each frame carries,
/// which are removed. A frame with other tags (or none) goes to the service plane, which counts
/// it, and is freed; so is a frame its role's burst has no room for (counted in `no_room`).
#[inline]
pub(super) fn untag<'p, const N: usize, const M: usize>(
    vlans: &PortVlans,
    side: Side,
    rx: &mut MbufBurst<'p, N>,
    roles: &mut [MbufBurst<'p, M>; 2],
    service: &mut ServicePlane<'p>,
    no_room: &mut u64,
) {
    rx.drain_each(|mut m| {
        let stripped = m.stripped_tags();
        let Some((port, len)) = vlans.side_of_received(side, stripped, m.data()) else {
            service.handle_received(side, stripped, m.data());
            return;
        };
        m.data_mut().copy_within(..ADDRESSES_LEN, len);
        if m.adj(len).is_err() || roles[port.index()].push(m).is_err() {
            *no_room += 1;
        }
    });
}

/// Tags `m`, an untagged frame, for a port with `tags` (or has the NIC insert them); false
/// (`m` unchanged) without the headroom.
#[inline(always)]
pub(super) fn tag(m: &mut Mbuf<'_>, tags: &PortTags) -> bool {
    if tags.is_empty() {
        return true;
    }
    if tags.inserted_by_nic() {
        m.set_tx_vlan(&tags.tx_vlan());
        return true;
    }
    m.prepend(tags.len()).is_ok() && tags.tag_prepended(m.data_mut())
}
