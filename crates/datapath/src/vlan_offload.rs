//! Which of the ports' VLAN tags the NIC inserts and strips (issue 29), chosen per device from
//! what its driver offers (`tx_offload_capa`, `rx_offload_capa`) and the ports' `vlan.offload`.
//! Sans-IO: it reads the devices' [`PortInfo`] and says what to enable at configure time, what
//! each port's tags become ([`PortVlans`]) and a line per tagged port for the report.
//!
//! A device inserts its tagged ports' tags when it offers `VLAN_INSERT` (and `QINQ_INSERT` if
//! a port on it is in QinQ), and strips what it receives when it offers `VLAN_STRIP` (with
//! `QINQ_STRIP` too where it offers it): the receive path reads what was stripped from the mbuf
//! and the rest from the frame, so a NIC that strips only the outer tag of a QinQ frame is
//! served too. In one-port mode both ports share the device's offloads, which are used only if
//! neither port says `offload: off`. Untagged devices get none.
//!
//! `net_af_packet` (DPDK 22.11) offers `VLAN_STRIP` and `VLAN_INSERT`, both in software: the
//! kernel hands every received frame's outer tag over apart from the frame, and the PMD puts it
//! back (`rte_vlan_insert`, with TPID 0x8100 whatever the tag's was) unless `VLAN_STRIP` is on;
//! on transmit it inserts the tag of an mbuf that asks for one with `rte_vlan_insert` too. A
//! QinQ port on it with the offloads off gets its S-tags back as C-tags (which are then not
//! ours): [`plan`] warns.

use upfbench_config::{Port as PortSettings, VlanOffload};
use upfbench_dpdk::{Offloads, PortInfo};
use upfbench_net::VlanTags;

use super::queues::Side;
use super::vlan::{PortVlans, TagOffload};

/// What the ports' VLAN tags need of their devices, and what the ports do with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlanPlan {
    /// The ports' tags, each with what its NIC does with them.
    pub vlans: PortVlans,
    /// The offloads to enable on each device (N3's, then N6's unless in one-port mode).
    pub device_offloads: Vec<Offloads>,
    /// For each tagged port (by [`Side`]), how its tags are put on and taken off, and why.
    pub lines: [Option<String>; 2],
    /// What will not work as asked.
    pub warnings: Vec<String>,
}

/// The VLAN plan of ports `n3` and `n6` on devices `infos` (N3's, then N6's; one in one-port
/// mode).
pub fn plan<P>(n3: &PortSettings<P>, n6: &PortSettings<P>, infos: &[PortInfo]) -> VlanPlan {
    let ports = [n3, n6];
    let base = PortVlans::of_ports(n3, n6);
    let device_of = |side: Side| if base.one_port { 0 } else { side.index() };
    let mut offloads = [TagOffload::default(); 2];
    let mut plan = VlanPlan {
        vlans: base,
        device_offloads: vec![Offloads::NONE; infos.len()],
        lines: [None, None],
        warnings: Vec::new(),
    };
    for (d, info) in infos.iter().enumerate() {
        let sides: Vec<Side> = Side::BOTH
            .into_iter()
            .filter(|&s| device_of(s) == d && !base.tags[s.index()].is_empty())
            .collect();
        if sides.is_empty() {
            continue;
        }
        let off = sides
            .iter()
            .any(|s| ports[s.index()].vlan_offload() == VlanOffload::Off);
        let qinq = sides
            .iter()
            .any(|s| matches!(base.tags[s.index()].tags(), VlanTags::Double { .. }));
        let (offload, enable) = device_choice(&info.capabilities.offloads, off, qinq);
        plan.device_offloads[d] = enable;
        for &s in &sides {
            offloads[s.index()] = offload;
            let why = reason(info, offload, off, qinq);
            let tags = describe(base.tags[s.index()].tags());
            plan.lines[s.index()] = Some(format!("{tags}: {}", how(offload, &why)));
            if qinq && !offload.strip && info.driver == "net_af_packet" {
                plan.warnings.push(format!(
                    "{}: net_af_packet puts the outer tag it receives back as an 802.1Q tag \
                     (TPID 0x8100) when VLAN strip is off: QinQ frames will not be recognised; \
                     leave vlan.offload at auto",
                    s.name()
                ));
            }
        }
    }
    plan.vlans = base.with_offloads(offloads);
    plan
}

/// What a device that offers `cap` does with its ports' tags (`off`: a port said so; `qinq`:
/// a port is in QinQ), and the offloads to enable for it.
fn device_choice(cap: &Offloads, off: bool, qinq: bool) -> (TagOffload, Offloads) {
    let insert = !off && cap.tx_vlan_insert && (!qinq || cap.tx_qinq_insert);
    let strip = !off && cap.rx_vlan_strip;
    let enable = Offloads {
        rx_vlan_strip: strip,
        rx_qinq_strip: strip && qinq && cap.rx_qinq_strip,
        tx_vlan_insert: insert,
        tx_qinq_insert: insert && qinq,
        ..Offloads::NONE
    };
    (TagOffload { insert, strip }, enable)
}

/// How a port's tags are put on and taken off, with `why` in brackets.
fn how(o: TagOffload, why: &str) -> String {
    match (o.insert, o.strip) {
        (true, true) => format!("the NIC inserts and strips them ({why})"),
        (true, false) => format!("the NIC inserts them, software reads them ({why})"),
        (false, true) => format!("the NIC strips them, software writes them ({why})"),
        (false, false) => format!("in software ({why})"),
    }
}

/// Why: the driver, and what it lacks or the file said.
fn reason(info: &PortInfo, o: TagOffload, off: bool, qinq: bool) -> String {
    let driver = &info.driver;
    let cap = &info.capabilities.offloads;
    if off {
        return format!("vlan.offload: off; {driver}");
    }
    let mut lacks = Vec::new();
    if !o.insert {
        lacks.push(if qinq && cap.tx_vlan_insert {
            "QinQ insert"
        } else {
            "VLAN insert"
        });
    }
    if !o.strip {
        lacks.push("VLAN strip");
    }
    match lacks.as_slice() {
        [] => driver.clone(),
        l => format!("{driver} offers no {}", l.join(" and no ")),
    }
}

/// A port's tags as the report names them: `VLAN 13`, `QinQ 100/13`.
pub fn describe(tags: VlanTags) -> String {
    match tags {
        VlanTags::Untagged => "untagged".to_owned(),
        VlanTags::Single(t) => format!("VLAN {}", t.vid),
        VlanTags::Double { outer, inner } => format!("QinQ {}/{}", outer.vid, inner.vid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use upfbench_dpdk::{Capabilities, DescLimits};

    fn info(driver: &str, offloads: Offloads) -> PortInfo {
        let desc = DescLimits {
            min: 0,
            max: 4096,
            align: 1,
        };
        PortInfo {
            id: 0,
            name: driver.to_owned(),
            driver: driver.to_owned(),
            socket: None,
            max_rx_queues: 4,
            max_tx_queues: 4,
            rx_desc: desc,
            tx_desc: desc,
            max_rx_pktlen: 1518,
            capabilities: Capabilities {
                offloads,
                rss: false,
                rx_offload_capa: offloads.rx_mask(),
                tx_offload_capa: offloads.tx_mask(),
                rss_hash_types: 0,
            },
        }
    }

    /// What net_af_packet offers in DPDK 22.11.
    const AF_PACKET: Offloads = Offloads {
        rx_vlan_strip: true,
        tx_vlan_insert: true,
        tx_multi_segs: true,
        ..Offloads::NONE
    };

    const NIC: Offloads = Offloads {
        rx_vlan_strip: true,
        rx_qinq_strip: true,
        tx_vlan_insert: true,
        tx_qinq_insert: true,
        ..Offloads::NONE
    };

    fn system(n3: &str, n6: &str) -> upfbench_config::Pair {
        let mut s = upfbench_config::system_from_str(
            &format!(
                "n3: {{device: net_memif0, address: 192.168.13.131/24, \
                 peer: 192.168.13.151{n3}}}\n\
                 n6: {{address: 192.168.16.152/24, peer: 192.168.16.151{n6}}}\n"
            ),
            "s.yaml",
        )
        .expect("valid");
        s.pairs.swap_remove(0)
    }

    fn two(n3: &str, n6: &str) -> upfbench_config::Pair {
        system(n3, &format!(", device: net_memif1{n6}"))
    }

    #[test]
    fn af_packet_inserts_and_strips_a_tagged_port_and_leaves_the_untagged_alone() {
        let s = two(", vlan: {id: 13, pcp: 5}", "");
        let p = plan(&s.n3, &s.n6, &vec![info("net_af_packet", AF_PACKET); 2]);
        let both = TagOffload {
            insert: true,
            strip: true,
        };
        assert_eq!(p.vlans.tags[0].offload(), both);
        assert!(p.vlans.tags[0].inserted_by_nic());
        assert_eq!(p.vlans.tags[0].software_len(), 0);
        assert_eq!(p.vlans.tags[0].len(), 4, "still 4 octets on the wire");
        assert_eq!(
            p.vlans.tags[0].tx_vlan(),
            upfbench_dpdk::TxVlan::single(0xa00d)
        );
        assert_eq!(
            p.device_offloads[0].rx_mask(),
            Offloads {
                rx_vlan_strip: true,
                ..Offloads::NONE
            }
            .rx_mask()
        );
        assert!(p.device_offloads[0].tx_vlan_insert && !p.device_offloads[0].tx_qinq_insert);
        assert_eq!(p.device_offloads[1], Offloads::NONE, "N6 is untagged");
        assert_eq!(
            p.lines,
            [
                Some("VLAN 13: the NIC inserts and strips them (net_af_packet)".to_owned()),
                None
            ]
        );
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn off_memif_and_a_missing_qinq_insert_fall_back_to_software() {
        let s = two(", vlan: {id: 13, offload: off}", ", vlan: {id: 16}");
        let p = plan(
            &s.n3,
            &s.n6,
            &[
                info("net_af_packet", AF_PACKET),
                info("net_memif", Offloads::NONE),
            ],
        );
        assert_eq!(p.vlans.tags[0].offload(), TagOffload::default());
        assert!(!p.vlans.tags[0].inserted_by_nic());
        assert_eq!(p.vlans.tags[0].software_len(), 4);
        assert_eq!(p.device_offloads, [Offloads::NONE, Offloads::NONE]);
        assert_eq!(
            p.lines,
            [
                Some("VLAN 13: in software (vlan.offload: off; net_af_packet)".to_owned()),
                Some(
                    "VLAN 16: in software (net_memif offers no VLAN insert and no VLAN strip)"
                        .to_owned()
                )
            ]
        );
        // QinQ on af_packet: stripped (the outer tag), inserted in software.
        let q = two(", vlan: {id: 13}, qinq: {id: 100}", "");
        let p = plan(&q.n3, &q.n6, &vec![info("net_af_packet", AF_PACKET); 2]);
        assert_eq!(
            p.vlans.tags[0].offload(),
            TagOffload {
                insert: false,
                strip: true
            }
        );
        assert!(p.device_offloads[0].rx_vlan_strip && !p.device_offloads[0].rx_qinq_strip);
        assert_eq!(
            p.lines[0].as_deref(),
            Some(
                "QinQ 100/13: the NIC strips them, software writes them (net_af_packet offers \
                 no QinQ insert)"
            )
        );
        let q_off = two(", vlan: {id: 13, offload: off}, qinq: {id: 100}", "");
        let p = plan(
            &q_off.n3,
            &q_off.n6,
            &vec![info("net_af_packet", AF_PACKET); 2],
        );
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].starts_with("N3: net_af_packet puts"),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn one_port_mode_shares_the_device_and_any_off_turns_it_off() {
        let s = system(
            ", vlan: {id: 13}, qinq: {id: 100}",
            ", port: n3, vlan: {id: 16}",
        );
        let p = plan(&s.n3, &s.n6, &[info("mlx5_pci", NIC)]);
        assert_eq!(p.device_offloads.len(), 1);
        let d = p.device_offloads[0];
        assert!(d.rx_vlan_strip && d.rx_qinq_strip && d.tx_vlan_insert && d.tx_qinq_insert);
        assert_eq!(
            p.vlans.tags[0].tx_vlan(),
            upfbench_dpdk::TxVlan::double(100, 13)
        );
        assert_eq!(p.vlans.tags[1].tx_vlan(), upfbench_dpdk::TxVlan::single(16));
        assert!(
            p.lines
                .iter()
                .all(|l| l.as_deref().is_some_and(|l| l.ends_with("(mlx5_pci)")))
        );
        let off = system(
            ", vlan: {id: 13}",
            ", port: n3, vlan: {id: 16, offload: off}",
        );
        let p = plan(&off.n3, &off.n6, &[info("mlx5_pci", NIC)]);
        assert_eq!(p.device_offloads, [Offloads::NONE]);
        assert!(
            p.vlans
                .tags
                .iter()
                .all(|t| t.offload() == TagOffload::default())
        );
    }
}
