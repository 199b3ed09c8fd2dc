//! Where a worker's port sends what it forwards: to the destination itself when it is on the
//! port's subnet, else to the port's gateway (the file's `peer`), nowhere when it has none. A
//! worker's two routes are its pair's N3 and N6: a frame leaves by the pair it came in on, and
//! a destination no route of that pair reaches is dropped as `no_route`.

use std::net::IpAddr;

use upfbench_datapath::queues::Side;
use upfbench_datapath::service::{Interface, Interface6};

use super::route6::Route6;

/// One port's route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route {
    /// Our addresses on the port.
    pub interface: Interface,
    /// The next hop for destinations off the subnet, if any (a big-endian integer).
    pub gateway: Option<u32>,
    /// An IPv6 port's route (then `interface` has no IPv4 address and `gateway` is none).
    pub v6: Option<Route6>,
}

impl Route {
    /// The routes of a pair's two ports (by [`Side`]): our `interfaces` of each family on
    /// them, and their `peers` (the gateways, of the port's family), if any.
    pub(crate) fn of_pair(
        interfaces: [Interface; 2],
        interfaces6: [Option<Interface6>; 2],
        peers: [Option<IpAddr>; 2],
    ) -> [Route; 2] {
        Side::BOTH.map(|side| {
            let (i, peer) = (side.index(), peers[side.index()]);
            Route {
                interface: interfaces[i],
                gateway: match peer {
                    Some(IpAddr::V4(a)) => Some(u32::from(a)),
                    _ => None,
                },
                v6: interfaces6[i].map(|interface| Route6 {
                    interface,
                    gateway: match peer {
                        Some(IpAddr::V6(a)) => Some(a),
                        _ => None,
                    },
                }),
            }
        })
    }

    /// The next hop toward `destination` (a big-endian integer), or None: off the subnet with
    /// no gateway (`no_route`).
    #[inline]
    pub(crate) fn next_hop(&self, destination: u32) -> Option<u32> {
        if self.interface.on_link(destination) {
            Some(destination)
        } else {
            self.gateway
        }
    }
}
