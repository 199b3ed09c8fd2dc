//! The kernel's network interfaces: MTU, up or down, routes through them, and the PCI device
//! behind each.

use std::collections::BTreeMap;

use super::Root;
use super::pci::is_full_address;

const NET: &str = "/sys/class/net";
/// `IFF_UP` of the interface's flags.
const IFF_UP: u32 = 0x1;
/// `RTF_LOCAL` of an IPv6 route's flags.
const RTF_LOCAL: u32 = 0x8000_0000;

/// A kernel network interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Its name (`eth0`, `ens1f0np0`).
    pub name: String,
    /// Its MTU.
    pub mtu: Option<u32>,
    /// Administratively up (`IFF_UP`).
    pub up: bool,
    /// Routes through it (IPv4, and IPv6 other than link-local and multicast): a sign that it
    /// carries the machine's own traffic.
    pub routes: usize,
    /// The PCI device behind it (its address with the domain), if any.
    pub pci: Option<String>,
}

impl Interface {
    /// Every interface under `root`, by name.
    pub(crate) fn read_all(root: &Root) -> Vec<Interface> {
        let routes = routes_per_interface(root);
        root.list(NET)
            .into_iter()
            .map(|name| {
                let dir = format!("{NET}/{name}");
                let flags = root
                    .read(&format!("{dir}/flags"))
                    .and_then(|f| u32::from_str_radix(f.trim_start_matches("0x"), 16).ok())
                    .unwrap_or(0);
                // The link's target is the device's path in /sys/devices: the last PCI address
                // on it is the function (a virtio NIC's interface sits below `virtioN`).
                let pci = root.link_target(&dir).and_then(|t| {
                    t.iter()
                        .rev()
                        .filter_map(|c| c.to_str())
                        .find(|c| is_full_address(c))
                        .map(str::to_owned)
                });
                Interface {
                    mtu: root.read_number(&format!("{dir}/mtu")).map(|m| m as u32),
                    up: flags & IFF_UP != 0,
                    routes: routes.get(&name).copied().unwrap_or(0),
                    pci,
                    name,
                }
            })
            .collect()
    }
}

/// Routes per interface name, from `/proc/net/route` and `/proc/net/ipv6_route`.
fn routes_per_interface(root: &Root) -> BTreeMap<String, usize> {
    let mut routes = BTreeMap::new();
    if let Some(v4) = root.read("/proc/net/route") {
        for line in v4.lines().skip(1) {
            if let Some(name) = line.split_whitespace().next() {
                *routes.entry(name.to_owned()).or_default() += 1;
            }
        }
    }
    if let Some(v6) = root.read("/proc/net/ipv6_route") {
        for line in v6.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(dest), Some(name)) = (f.first(), f.last()) else {
                continue;
            };
            // fe80::/10 and ff00::/8 come with every interface that has IPv6 at all.
            let link_local = dest.starts_with("fe8")
                || dest.starts_with("fe9")
                || dest.starts_with("fea")
                || dest.starts_with("feb");
            // The local table's routes to the interface's own addresses (RTF_LOCAL) come
            // with every address.
            let local = f
                .get(8)
                .and_then(|fl| u32::from_str_radix(fl, 16).ok())
                .is_some_and(|fl| fl & RTF_LOCAL != 0);
            if f.len() >= 10 && !link_local && !local && !dest.starts_with("ff") && *name != "lo" {
                *routes.entry((*name).to_owned()).or_default() += 1;
            }
        }
    }
    routes
}
