//! One-port mode: N6 on N3's device (`n6: {port: n3, vlan: {id: 16}}`), the two told apart by
//! their VLAN tags. Many labs have one port per tester.

use super::{Device, Port, default_descriptors};
use crate::field::join_key;
use crate::issues::Issues;
use crate::reflector::PortName;

impl Device {
    /// What a port that leaves `device` out reads until one-port mode fills it in: no name.
    pub(crate) fn unset() -> Device {
        Device::Vdev(String::new())
    }

    /// Whether the file left the device out.
    pub(crate) fn is_unset(&self) -> bool {
        self.name().is_empty()
    }
}

impl<Peer> Port<Peer> {
    /// Whether the port is on another port's device (one-port mode's N6).
    pub fn shares_device(&self) -> bool {
        self.port.is_some()
    }
}

/// N6 on N3's device: N3's device and its settings that N6 leaves out (devargs, queues, the
/// descriptors) copied into N6, so that each port of a loaded file is whole. What N6 gives
/// itself stays, for the checks to refuse.
pub(crate) fn resolve_one_port<Peer>(n3: &Port<Peer>, n6: &mut Port<Peer>) {
    if n6.port != Some(PortName::N3) || !n6.device.is_unset() {
        return;
    }
    n6.device = n3.device.clone();
    if n6.devargs.is_none() {
        n6.devargs = n3.devargs.clone();
    }
    if n6.queues.is_none() {
        n6.queues = n3.queues;
    }
    if n6.rx_descriptors == default_descriptors() {
        n6.rx_descriptors = n3.rx_descriptors;
    }
    if n6.tx_descriptors == default_descriptors() {
        n6.tx_descriptors = n3.tx_descriptors;
    }
}

/// The ports' `device` and `port` fields of the pair at `prefix` (`pairs[1]`, or empty for the
/// top-level ports): each port names a device or (N6) N3's port; in one-port mode N6 takes N3's
/// settings and its VLAN tags differ from N3's.
pub(crate) fn check_one_port<Peer>(
    n3: Option<&Port<Peer>>,
    n6: Option<&Port<Peer>>,
    prefix: &str,
    issues: &mut Issues,
) {
    let at = |field: &str| join_key(prefix, field);
    check_device_given(n3, n6, prefix, issues);
    if let Some(p) = n3
        && p.port.is_some()
    {
        issues.add(
            at("n3.port"),
            "one-port mode puts N6 on N3's device: write `port: n3` in n6, and a device here",
        );
    }
    let Some(n6) = n6.filter(|p| p.port.is_some()) else {
        return;
    };
    if n6.port == Some(PortName::N6) {
        issues.add(
            at("n6.port"),
            "N6 cannot be on its own device: write `port: n3`",
        );
        return;
    }
    let Some(n3) = n3 else {
        issues.add(at("n6.port"), "N6 on N3's device needs the n3 port");
        return;
    };
    if n6.device.is_unset() {
        return;
    }
    if n6.device != n3.device {
        issues.add(
            at("n6.device"),
            "N6 is on N3's device (`port: n3`): give `device` or `port`, not both",
        );
    }
    let same = |field: &str, equal: bool, issues: &mut Issues| {
        if !equal {
            issues.add(
                at(&join_key("n6", field)),
                format!(
                    "N6 is on N3's device (`port: n3`), whose {field} it takes: leave it out, or \
                     set it in n3"
                ),
            );
        }
    };
    same("devargs", n6.devargs == n3.devargs, issues);
    same("queues", n6.queues == n3.queues, issues);
    same(
        "rx_descriptors",
        n6.rx_descriptors == n3.rx_descriptors,
        issues,
    );
    same(
        "tx_descriptors",
        n6.tx_descriptors == n3.tx_descriptors,
        issues,
    );
    same("speed", n6.speed.is_none(), issues);
    if n6.vlan_ids() == n3.vlan_ids() {
        let field = if n6.qinq.is_some() {
            "n6.qinq"
        } else if n6.vlan.is_some() {
            "n6.vlan"
        } else {
            "n6.port"
        };
        issues.add(
            at(field),
            format!(
                "N3 and N6 on one port are told apart by their VLAN tags, and both are {}: give \
                 them different ids",
                describe(n6.vlan_ids())
            ),
        );
    }
}

/// Each port names a device, or (N6) N3's port.
fn check_device_given<Peer>(
    n3: Option<&Port<Peer>>,
    n6: Option<&Port<Peer>>,
    prefix: &str,
    issues: &mut Issues,
) {
    for (name, port) in [("n3", n3), ("n6", n6)] {
        if let Some(p) = port
            && p.port.is_none()
            && p.device.is_unset()
        {
            issues.add(
                join_key(prefix, &join_key(name, "device")),
                "missing field `device`",
            );
        }
    }
}

/// `untagged`, `VLAN 13`, `QinQ 100/13`.
fn describe(ids: (Option<u16>, Option<u16>)) -> String {
    match ids {
        (_, None) => "untagged".to_owned(),
        (None, Some(v)) => format!("VLAN {v}"),
        (Some(o), Some(v)) => format!("QinQ {o} / VLAN {v}"),
    }
}

#[cfg(test)]
mod tests {
    use upfbench_net::{VlanKind, VlanTags};

    use crate::{Device, IpFamily, PortName};

    const TRUNK: &str = "n3: {device: net_memif0, devargs: 'role=client,socket=/tmp/t.sock', \
                         queues: 1, rx_descriptors: 512, address: 2001:db8:13::131/64, \
                         peer: 2001:db8:13::151, vlan: {id: 13, pcp: 5}, qinq: {id: 100}}\n\
                         n6: {port: n3, address: 192.168.16.152/24, peer: 192.168.16.151, \
                         vlan: {id: 16}, qinq: {id: 100}}\n";

    #[test]
    fn one_port_mode_gives_n6_the_device_and_settings_of_n3() {
        let s = crate::system_from_str(TRUNK, "s.yaml").expect("valid");
        let s = s.pair(0);
        assert!(s.one_port());
        assert_eq!(s.n6.port, Some(PortName::N3));
        assert_eq!(s.n6.device, Device::Vdev("net_memif0".to_owned()));
        assert_eq!(s.n6.devargs, s.n3.devargs);
        assert_eq!((s.n6.queues, s.n6.rx_descriptors), (Some(1), 512));
        assert_eq!(s.n6.tx_descriptors, 1024);
        // Each port its own family.
        assert_eq!(
            (s.n3.family(), s.n6.family()),
            (IpFamily::Ipv6, IpFamily::Ipv4)
        );
        let VlanTags::Double { outer, inner } = s.n3.vlan_tags() else {
            panic!("QinQ: {:?}", s.n3.vlan_tags())
        };
        assert_eq!(
            (outer.kind, outer.vid, outer.pcp),
            (VlanKind::Service, 100, 0)
        );
        assert_eq!(
            (inner.kind, inner.vid, inner.pcp),
            (VlanKind::Customer, 13, 5)
        );
        assert_eq!(s.n6.vlan_tags().len(), 8);
    }

    #[test]
    fn two_devices_are_not_one_port_mode_and_may_be_untagged() {
        let s = crate::system_from_str(
            "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151, \
             vlan: {id: 13}}\n\
             n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
            "s.yaml",
        )
        .expect("valid");
        let s = s.pair(0);
        assert!(!s.one_port());
        assert_eq!(s.n6.vlan_tags(), VlanTags::Untagged);
        assert_eq!(s.n3.vlan_tags().len(), 4);
    }

    #[test]
    fn the_same_device_twice_without_port_is_still_refused() {
        let e = crate::system_from_str(
            "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151, \
             vlan: {id: 13}}\n\
             n6: {device: net_null0, address: 192.168.16.152/24, peer: 192.168.16.151, \
             vlan: {id: 16}}\n",
            "s.yaml",
        )
        .expect_err("two ports on one device need `port: n3`");
        assert!(
            e.to_string()
                .contains("n6.device: net_null0 is also the n3"),
            "{e}"
        );
    }

    #[test]
    fn the_reflector_file_has_one_port_mode_too() {
        let r = crate::reflector_from_str(
            "n3: {device: net_memif0, devargs: 'role=server,socket=/tmp/t.sock', \
             address: 192.168.13.151/24, vlan: {id: 13}}\n\
             n6: {port: n3, address: 192.168.16.151/24, peer: 192.168.16.152, vlan: {id: 16}}\n\
             pfcp: {}\n",
            "r.yaml",
        )
        .expect("valid");
        let n6 = &r.pair(0).n6;
        assert_eq!(n6.device, Device::Vdev("net_memif0".to_owned()));
        assert!(n6.shares_device());
    }
}
