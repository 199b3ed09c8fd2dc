//! The checks of a machine's EAL, cores and ports, shared by the system file and the reflector
//! file.

use std::net::{IpAddr, Ipv4Addr};

use upfbench_net::MacAddr;

use super::{Cores, Device, Eal};
use crate::devargs::{devarg, virtio_queue_pairs};
use crate::field::{join_index, join_key};
use crate::issues::Issues;
use crate::units::{IpPrefix, Ipv4Prefix};

/// Largest lcore id of the DPDK build (`RTE_MAX_LCORE` = 128 in Debian's 22.11).
pub(crate) const MAX_LCORE: u32 = 128;

/// CPUs a CPU set holds (the kernel's `CPU_SETSIZE`, which EAL's `--lcores` uses).
const MAX_CPU: u32 = 1024;

/// EAL options that other fields of the file set: giving them twice would disagree.
const EAL_OPTIONS_SET_ELSEWHERE: &[(&str, &str)] = &[
    ("-l", "cores"),
    ("--lcores", "cores"),
    ("-c", "cores"),
    ("--main-lcore", "cores.main"),
    ("--master-lcore", "cores.main"),
    ("--file-prefix", "eal.file_prefix"),
];

/// The EAL arguments and file prefix; `ports` are the devices upfbench adds, each with how
/// messages name its port (`the n3 port`, `pair a's n3 port`).
pub(crate) fn check_eal(eal: &Eal, ports: &[(String, &Device)], issues: &mut Issues) {
    let mut args = eal.args.iter().enumerate().peekable();
    while let Some((i, arg)) = args.next() {
        let field = join_index("eal.args", i);
        let (option, inline_value) = match arg.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (arg.as_str(), None),
        };
        if let Some((_, owner)) = EAL_OPTIONS_SET_ELSEWHERE.iter().find(|(o, _)| *o == option) {
            issues.add(
                field,
                format!("{option} is set from `{owner}`: remove it from the EAL arguments"),
            );
            continue;
        }
        if matches!(option, "--vdev" | "-a" | "--allow" | "-w") {
            let value = match inline_value {
                Some(v) => Some(v.to_owned()),
                None => args.peek().map(|(_, v)| (*v).clone()),
            };
            let name = value.as_deref().and_then(|v| v.split(',').next());
            for (port, device) in ports {
                if name == Some(device.name()) {
                    issues.add(
                        field.clone(),
                        format!(
                            "{} is {port}'s device, which upfbench adds with its devargs: \
                             remove it from the EAL arguments",
                            device.name()
                        ),
                    );
                }
            }
        }
    }
    if let Some(prefix) = &eal.file_prefix
        && (prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    {
        issues.add(
            "eal.file_prefix",
            format!("{prefix:?}: use letters, digits, '-' and '_' (it names a directory)"),
        );
    }
}

/// The main lcore and the CPUs of the lcores (each pair's workers: `pairs::check_pairs`);
/// `cores.workers` holds every pair's workers.
pub(crate) fn check_cores(cores: &Cores, listed: bool, issues: &mut Issues) {
    if cores.main >= MAX_LCORE {
        issues.add(
            "cores.main",
            format!(
                "lcore {} is beyond DPDK's limit of {MAX_LCORE} lcores",
                cores.main
            ),
        );
    }
    for (&lcore, &cpu) in &cores.cpus {
        let field = join_key("cores.cpus", &lcore.to_string());
        if lcore != cores.main && !cores.workers.contains(&lcore) {
            issues.add(
                field,
                format!(
                    "lcore {lcore} is neither cores.main nor one of {}: map the lcores the \
                     file uses",
                    if listed {
                        "the pairs' workers"
                    } else {
                        "cores.workers"
                    }
                ),
            );
        } else if cpu >= MAX_CPU {
            issues.add(
                field,
                format!("CPU {cpu} is beyond the kernel's CPU sets ({MAX_CPU} CPUs)"),
            );
        }
    }
}

/// What the system and reflector ports have in common.
pub(crate) struct PortView<'a> {
    pub(crate) name: &'a str,
    pub(crate) device: &'a Device,
    pub(crate) devargs: Option<&'a str>,
    pub(crate) queues: Option<u16>,
    pub(crate) rx_descriptors: u16,
    pub(crate) tx_descriptors: u16,
    pub(crate) address: IpPrefix,
    pub(crate) peer: Option<IpAddr>,
    pub(crate) peer_mac: Option<MacAddr>,
    pub(crate) mtu: Option<u16>,
    pub(crate) speed: Option<u64>,
    /// On the other port's device (one-port mode).
    pub(crate) shares_device: bool,
}

/// One port's settings.
pub(crate) fn check_port(p: &PortView<'_>, issues: &mut Issues) {
    let f = |field: &str| join_key(p.name, field);
    if let Some(devargs) = p.devargs {
        for part in devargs.split(',') {
            let ok = part
                .split_once('=')
                .is_some_and(|(k, _)| !k.trim().is_empty());
            if !ok {
                issues.add(
                    f("devargs"),
                    format!(
                        "{part:?} is not key=value (devargs are comma-separated key=value pairs)"
                    ),
                );
                break;
            }
        }
    }
    if let Some(q) = p.queues
        && !(1..=64).contains(&q)
    {
        issues.add(f("queues"), format!("{q} queues: use 1 to 64"));
    }
    for (field, n) in [
        ("rx_descriptors", p.rx_descriptors),
        ("tx_descriptors", p.tx_descriptors),
    ] {
        if !n.is_power_of_two() || !(32..=32768).contains(&n) {
            issues.add(
                f(field),
                format!("{n} descriptors: use a power of two from 32 to 32768"),
            );
        }
    }
    link_addresses(p, issues);
    if let Some(MacAddr(mac)) = p.peer_mac
        && (mac == [0; 6] || mac[0] & 1 == 1)
    {
        issues.add(
            f("peer_mac"),
            "a peer's MAC must be a unicast address (first octet even, not all zeros)",
        );
    }
    if let Some(mtu) = p.mtu
        && !(576..=9600).contains(&mtu)
    {
        issues.add(f("mtu"), format!("MTU {mtu}: use 576 to 9600"));
    }
    if p.speed == Some(0) {
        issues.add(f("speed"), "a line rate of 0 carries nothing");
    }
}

/// The link's addresses, of either family: the peer of the address's family (an IPv6 N3 with
/// an IPv4 N6 is fine, the two ends of one link are of one family).
fn link_addresses(p: &PortView<'_>, issues: &mut Issues) {
    let f = |field: &str| join_key(p.name, field);
    if let Some(peer) = p.peer
        && peer.is_ipv6() != p.address.addr.is_ipv6()
    {
        issues.add(
            f("peer"),
            format!(
                "{peer} is {} and the port's address {} is {}: the two ends of a link are of \
                 one family",
                family_name(peer),
                p.address,
                family_name(p.address.addr)
            ),
        );
        return;
    }
    match (p.address.v4(), p.peer) {
        (Some(a), Some(IpAddr::V4(peer))) => check_ipv4_link(p, a, Some(peer), issues),
        (Some(a), _) => check_ipv4_link(p, a, None, issues),
        (None, peer) => check_ipv6_link(p, peer, issues),
    }
}

fn family_name(a: IpAddr) -> &'static str {
    if a.is_ipv6() { "IPv6" } else { "IPv4" }
}
/// An IPv4 interface address and its peer.
fn check_ipv4_link(p: &PortView<'_>, a: Ipv4Prefix, peer: Option<Ipv4Addr>, issues: &mut Issues) {
    let f = |field: &str| join_key(p.name, field);
    if a.len == 0 || a.len > 32 {
        issues.add(
            f("address"),
            format!("{a}: the prefix must be 1 to 32 bits long"),
        );
    } else if a.len <= 30 && (a.is_network() || a.addr == a.last()) {
        issues.add(
            f("address"),
            format!(
                "{a} is the {} address of its subnet, not an interface address",
                if a.is_network() {
                    "network"
                } else {
                    "broadcast"
                }
            ),
        );
    } else if a.addr.is_unspecified() || a.addr.is_multicast() || a.addr.is_broadcast() {
        issues.add(f("address"), format!("{a} is not a unicast address"));
    }
    if let Some(peer) = peer {
        if peer == a.addr {
            issues.add(f("peer"), format!("{peer} is this port's own address"));
        } else if !a.contains(peer) {
            issues.add(
                f("peer"),
                format!(
                    "{peer} is not on this port's subnet {}/{} (the peer must be reachable \
                     without a router)",
                    a.network(),
                    a.len
                ),
            );
        }
    }
}

/// An IPv6 interface address and its peer (RFC 4291): a unicast address that is not the
/// subnet-router anycast address of its prefix (all host bits zero), the peer on its prefix.
fn check_ipv6_link(p: &PortView<'_>, peer: Option<IpAddr>, issues: &mut Issues) {
    let f = |field: &str| join_key(p.name, field);
    let a = p.address;
    let IpAddr::V6(addr) = a.addr else {
        return;
    };
    if a.len == 0 {
        issues.add(
            f("address"),
            format!("{a}: the prefix must be 1 to 128 bits long"),
        );
    } else if addr.is_unspecified() || addr.is_multicast() || addr.is_loopback() {
        issues.add(f("address"), format!("{a} is not a unicast address"));
    } else if a.len < 127 && a.is_network() {
        issues.add(
            f("address"),
            format!(
                "{a} is the subnet-router anycast address of its prefix (RFC 4291 §2.6.1), not an \
                 interface address"
            ),
        );
    }
    if let Some(peer) = peer {
        if peer == a.addr {
            issues.add(f("peer"), format!("{peer} is this port's own address"));
        } else if !a.contains(peer) {
            issues.add(
                f("peer"),
                format!(
                    "{peer} is not on this port's prefix {}/{} (the peer must be reachable \
                     without a router)",
                    a.network(),
                    a.len
                ),
            );
        }
    }
}

/// A port's queues against the `workers` of its pair (listed at the field `workers_field`):
/// each worker owns one receive and one transmit queue of each port (queue `i` is worker `i`'s:
/// DPDK's queues are not shared between lcores, and the workers take no lock), so a port has
/// exactly as many queues as its pair has workers.
pub(crate) fn check_queues(
    workers: usize,
    workers_field: &str,
    p: &PortView<'_>,
    issues: &mut Issues,
) {
    if let Some(q) = p.queues
        && (1..=64).contains(&q)
        && workers > 0
        && usize::from(q) != workers
    {
        issues.add(
            join_key(p.name, "queues"),
            format!(
                "{q} queues for {workers} worker{}: each worker owns one receive and one \
                 transmit queue of each port, so give {workers} ({workers_field}), or leave the \
                 field out",
                if workers == 1 { "" } else { "s" }
            ),
        );
    }
    // A virtio-user or vhost port has only the queue pairs its arguments give it (one by
    // default), whatever the port's configuration asks for.
    match virtio_queue_pairs(p.device.name(), p.devargs) {
        Some(Err(m)) => issues.add(join_key(p.name, "devargs"), m),
        Some(Ok(pairs)) if workers > usize::from(pairs) => issues.add(
            join_key(p.name, "devargs"),
            format!(
                "{} has {pairs} queue pair{} ({}) and each of the {workers} workers needs one \
                 of its own: give queues={workers} in the devargs",
                p.device.name(),
                if pairs == 1 { "" } else { "s" },
                if devarg(p.devargs, "queues").is_some() {
                    format!("queues={pairs}")
                } else {
                    "the PMD's default without queues=".to_owned()
                },
            ),
        ),
        _ => {}
    }
}

/// Two ports: different devices, different subnets.
pub(crate) fn check_port_pair(a: &PortView<'_>, b: &PortView<'_>, issues: &mut Issues) {
    if a.device == b.device && !b.shares_device && !b.device.is_unset() {
        issues.add(
            join_key(b.name, "device"),
            format!(
                "{} is also the {} port's device: N3 and N6 need ports of their own",
                b.device.name(),
                a.name
            ),
        );
    }
    if a.address.len > 0 && b.address.len > 0 && a.address.overlaps(&b.address) {
        issues.add(
            join_key(b.name, "address"),
            format!(
                "{} overlaps the {} subnet {}: N3 and N6 are different links",
                b.address, a.name, a.address
            ),
        );
    }
}

/// The longest label: a column group's name in a comparison table.
const LABEL_MAX_CHARS: usize = 40;

/// The system file's `label`: a name for a comparison's column group, one line, short.
pub(crate) fn check_label(label: &str, issues: &mut Issues) {
    if label.trim().is_empty() {
        issues.add("label", "give a name, or leave `label` out");
    } else if label.chars().any(char::is_control) {
        issues.add("label", "one line of text, no control characters");
    } else if label.chars().count() > LABEL_MAX_CHARS {
        issues.add(
            "label",
            format!(
                "{} characters: at most {LABEL_MAX_CHARS} (it heads a comparison's columns)",
                label.chars().count()
            ),
        );
    }
}
