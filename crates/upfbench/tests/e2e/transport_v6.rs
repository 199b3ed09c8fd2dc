//! N3 and N6 over IPv6 (issue 29): the shipped pair deploy/systems/memif-v6.yaml and
//! memif-v6-reflector.yaml with profiles/ipv6.yaml, as a user runs them: every session over
//! PFCP with its F-TEID and tunnel in IPv6, every packet back both ways, the next hops of both
//! sides found by Neighbor Discovery. Then what the generator puts on the wire, on `net_pcap`
//! ports and decoded by tshark: G-PDUs in IPv6 between our N3 address and the UPF's, IPv6 on
//! N6 from our N6 address; with no MAC given, a Neighbor Solicitation for each peer, which
//! the reflector (on `net_pcap` ports reading that capture) answers with a Neighbor
//! Advertisement.

use std::time::Duration;

use upfbench_config as config;
use upfbench_testkit::eal::process_args_yaml;

use crate::harness;
use crate::harness::{Process, Scratch, UPFBENCH, patch, serial, total, tshark_fields, unique};
use crate::ipv6::{assert_every_stream_whole, shape, shipped_profile, streams};
use crate::memif::{Memif, finish};

/// Uplink of a 300-byte payload: IPv6/UDP in GTP-U (with its PDU Session Container) over
/// IPv6, FCS: 14 + 40 + 8 + 16 + 40 + 8 + 300 + 4.
const UPLINK_L2: u64 = 430;
/// Downlink of a 300-byte payload, IPv6, FCS: 14 + 40 + 8 + 300 + 4.
const DOWNLINK_L2: u64 = 366;

#[test]
fn memif_v6_ipv6_ues_over_ipv6_n3_and_n6_every_packet_both_ways() {
    let _serial = serial();
    let files = ["memif-v6.yaml", "memif-v6-reflector.yaml"];
    let prefixes = ["upfbench-gen-v6", "upfbench-reflect-v6"];
    let bed = Memif::shipped("v6n3", files, prefixes, &shipped_profile("ipv6"), |s, r| {
        (s, r)
    });
    let (system, _) = config::load_run(&bed.system, &bed.profile).expect("checked");
    assert!(system.pair(0).n3.address.addr.is_ipv6() && system.pair(0).n6.address.addr.is_ipv6());
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print("v6n3");
    assert_every_stream_whole(&o, 4, 2);
    for s in streams(&o) {
        let (family, l2, l1) = shape(s);
        let want = if s["name"] == "ul" {
            UPLINK_L2
        } else {
            DOWNLINK_L2
        };
        assert_eq!((family.as_str(), l2, l1), ("ipv6", want, want + 20), "{s}");
    }
    // The generator found both UPF addresses by Neighbor Discovery (its solicitations answered).
    for line in [
        "NDP: resolving N3 2001:db8:13::151, N6 2001:db8:16::151 ",
        "N3: 2001:db8:13::151 is at ",
        "N6: 2001:db8:16::151 is at ",
    ] {
        assert!(o.stdout.contains(line), "{line}: {}", o.stdout);
    }
    // The reflector asked for its next hops (the gNB on N3, its N6 peer) by solicitation, not
    // ARP, and both answered.
    let r = &o.reflector;
    println!(
        "v6n3: reflector solicitations {} next hops resolved {} arp requests {}",
        total(r, "neighbor solicitations"),
        total(r, "next hops resolved"),
        total(r, "arp requests")
    );
    assert!(total(r, "neighbor solicitations") >= 2, "{r:?}");
    assert_eq!(total(r, "next hops resolved"), 2, "{r:?}");
    assert_eq!(total(r, "arp requests"), 0, "{r:?}");
    let latency = |name: &str, f: &harness::Figures| {
        println!("v6n3: {name} p50 {:.2} us", f.p50_ns as f64 / 1e3);
    };
    latency("UL", &o.uplink);
    latency("DL", &o.downlink);
}

/// One port of each family, the memif-v6 pair changed by `n3_v4` (N3 over IPv4, N6 over IPv6)
/// or not (N3 over IPv6, N6 over IPv4), with the shipped `profile`: every stream whole.
fn mixed(case: &str, n3_v4: bool, profile: &str, streams: usize) {
    let files = ["memif-v6.yaml", "memif-v6-reflector.yaml"];
    let prefixes = ["upfbench-gen-v6", "upfbench-reflect-v6"];
    let bed = Memif::shipped(case, files, prefixes, &shipped_profile(profile), |s, r| {
        if n3_v4 {
            let s = patch(
                &s,
                "address: 2001:db8:13::131/64\n  peer: 2001:db8:13::151",
                "address: 192.168.13.131/24\n  peer: 192.168.13.151",
            );
            let r = patch(
                &r,
                "address: 2001:db8:13::151/64",
                "address: 192.168.13.151/24",
            );
            (s, r)
        } else {
            let s = patch(
                &s,
                "address: 2001:db8:16::152/64\n  peer: 2001:db8:16::151",
                "address: 192.168.16.152/24\n  peer: 192.168.16.151",
            );
            let r = patch(
                &r,
                "address: 2001:db8:16::151/64\n  peer: 2001:db8:16::152",
                "address: 192.168.16.151/24\n  peer: 192.168.16.152",
            );
            (s, r)
        }
    });
    let (system, _) = config::load_run(&bed.system, &bed.profile).expect("checked");
    assert_eq!(system.pair(0).n3.address.addr.is_ipv4(), n3_v4);
    assert_eq!(system.pair(0).n6.address.addr.is_ipv6(), n3_v4);
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print(case);
    assert_every_stream_whole(&o, 4, streams);
    // One next hop by ARP and one by Neighbor Discovery, each side.
    assert!(o.stdout.contains("ARP/NDP: resolving "), "{}", o.stdout);
    let r = &o.reflector;
    assert!(
        total(r, "arp requests") >= 1 && total(r, "neighbor solicitations") >= 1,
        "{r:?}"
    );
    assert_eq!(total(r, "next hops resolved"), 2, "{r:?}");
}

#[test]
fn memif_n3_over_ipv6_n6_over_ipv4_carries_dual_stack_ues() {
    let _serial = serial();
    mixed("v6n3-v4n6", false, "dual-stack", 4);
}

#[test]
fn memif_n3_over_ipv4_n6_over_ipv6_carries_ipv6_ues() {
    let _serial = serial();
    mixed("v4n3-v6n6", true, "ipv6", 2);
}

/// A generator on two `net_pcap` ports over IPv6, no PFCP: what it sends on N3 goes to
/// `n3.pcap`, on N6 to `n6.pcap`; nothing is received.
struct Capture {
    scratch: Scratch,
    prefix: String,
}

impl Capture {
    fn new(case: &str) -> Capture {
        let scratch = Scratch::new(case);
        write_empty_pcap(&scratch.path().join("empty.pcap"));
        Capture {
            prefix: unique(&format!("{case}-gen")),
            scratch,
        }
    }

    fn dir(&self) -> String {
        self.scratch.path().display().to_string()
    }

    /// `upfbench run` to its end, the peers' MACs given when `peer_macs` (else asked for by
    /// solicitation, once each, and the run ends there).
    fn run(&self, peer_macs: bool) -> Process {
        let dir = self.dir();
        let mac = |m: &str| {
            if peer_macs {
                format!("  peer_mac: {m}\n")
            } else {
                String::new()
            }
        };
        let system = format!(
            "kind: system\n\
             eal:\n  args: {eal_args}\n  file_prefix: {prefix}\n\
             cores: {{main: 0, workers: [1]}}\n\
             n3:\n  device: net_pcap0\n  \
             devargs: rx_pcap={dir}/empty.pcap,tx_pcap={dir}/n3.pcap\n  \
             address: 2001:db8:13::131/64\n  peer: 2001:db8:13::151\n{}\
             n6:\n  device: net_pcap1\n  \
             devargs: rx_pcap={dir}/empty.pcap,tx_pcap={dir}/n6.pcap\n  \
             address: 2001:db8:16::152/64\n  peer: 2001:db8:16::151\n{}\
             arp: {{timeout: 200ms, retries: 0}}\n\
             reports: {dir}/reports\n",
            mac("02:00:00:00:13:51"),
            mac("02:00:00:00:16:51"),
            prefix = self.prefix,
            eal_args = process_args_yaml(256),
        );
        let profile = "name: wire\n\
                       sessions: {count: 2, pdn_type: ipv6}\n\
                       streams:\n  \
                       - {name: ul, direction: uplink, rate: 1kpps, payload: 100}\n  \
                       - {name: dl, direction: downlink, rate: 1kpps, payload: 100}\n\
                       duration: 1s\n";
        let system = self.scratch.write("system.yaml", &system);
        let profile = self.scratch.write("profile.yaml", profile);
        config::load_run(&system, &profile).unwrap_or_else(|e| panic!("{e}"));
        let mut p = Process::spawn(
            "generator",
            &self.scratch,
            None,
            &[
                UPFBENCH,
                "run",
                system.to_str().expect("utf-8"),
                profile.to_str().expect("utf-8"),
            ],
            Some(&self.prefix),
        );
        p.wait(Duration::from_secs(30));
        p
    }

    /// The reflector (echo mode on N3: no PFCP needed; its service plane answers as in upf
    /// mode) on two `net_pcap` ports for 2 s: N3 reads what the generator's N3 sent (`n3.pcap`)
    /// and writes what it sends to `refl-n3.pcap`.
    fn reflector(&self) -> Process {
        let dir = self.dir();
        let prefix = unique("v6-wire-refl");
        let reflector = format!(
            "kind: reflector\n\
             eal:\n  args: {eal_args}\n  file_prefix: {prefix}\n\
             cores: {{main: 1, workers: [0]}}\n\
             n3:\n  device: net_pcap0\n  \
             devargs: rx_pcap={dir}/n3.pcap,tx_pcap={dir}/refl-n3.pcap\n  \
             address: 2001:db8:13::151/64\n\
             n6:\n  device: net_pcap1\n  \
             devargs: rx_pcap={dir}/empty.pcap,tx_pcap={dir}/refl-n6.pcap\n  \
             address: 2001:db8:16::151/64\n\
             mode: {{echo: n3}}\n",
            eal_args = process_args_yaml(256),
        );
        harness::reflect_for_2s(&self.scratch, &prefix, &reflector)
    }

    /// `file`'s frames as tshark decodes `fields`, separated by spaces.
    fn frames(&self, file: &str, fields: &[&str]) -> Vec<String> {
        tshark_fields(&self.scratch.path().join(file), " ", fields)
    }
}

/// A capture file with no packet (libpcap's header, Ethernet).
fn write_empty_pcap(path: &std::path::Path) {
    let mut header = Vec::new();
    header.extend(0xa1b2_c3d4u32.to_le_bytes());
    header.extend(2u16.to_le_bytes());
    header.extend(4u16.to_le_bytes());
    header.extend(0i32.to_le_bytes());
    header.extend(0u32.to_le_bytes());
    header.extend(65535u32.to_le_bytes());
    header.extend(1u32.to_le_bytes());
    std::fs::write(path, header).expect("empty capture");
}

#[test]
fn pcap_v6_g_pdus_go_over_ipv6_between_the_n3_addresses() {
    let _serial = serial();
    let bed = Capture::new("v6-wire");
    let generator = bed.run(true);
    assert!(
        generator.stdout().contains("reports:"),
        "{}",
        generator.logs()
    );
    // tshark lists an IPv6-in-IPv6 G-PDU's outer addresses first, the inner ones after a comma.
    let fields = ["frame.protocols", "ipv6.src", "ipv6.dst", "gtp.teid"];
    let n3 = bed.frames("n3.pcap", &fields);
    println!(
        "v6-wire: N3 sent {} frames, first {:?}",
        n3.len(),
        n3.first()
    );
    assert!(n3.len() >= 1000, "{} frames", n3.len());
    for f in &n3 {
        let f: Vec<&str> = f.split(' ').collect();
        assert!(
            f[0].starts_with("eth:ethertype:ipv6:udp:gtp:ipv6:udp"),
            "{f:?}"
        );
        let (src, dst) = (
            f[1].split(',').collect::<Vec<_>>(),
            f[2].split(',').collect::<Vec<_>>(),
        );
        assert_eq!(
            (src[0], dst[0]),
            ("2001:db8:13::131", "2001:db8:13::151"),
            "{f:?}"
        );
        assert!(src[1].starts_with("2001:db8:45:"), "the UE inside: {f:?}");
        assert!(!f[3].is_empty(), "a TEID: {f:?}");
    }
    let n6 = bed.frames("n6.pcap", &fields);
    println!(
        "v6-wire: N6 sent {} frames, first {:?}",
        n6.len(),
        n6.first()
    );
    assert!(n6.len() >= 1000, "{} frames", n6.len());
    for f in &n6 {
        let f: Vec<&str> = f.split(' ').collect();
        assert!(f[0].starts_with("eth:ethertype:ipv6:udp"), "{f:?}");
        assert!(!f[0].contains("gtp"), "{f:?}");
        assert_eq!(f[1], "2001:db8:16::152", "from our N6 address: {f:?}");
        assert!(f[2].starts_with("2001:db8:45:"), "to the UE: {f:?}");
    }
}

#[test]
fn pcap_v6_each_peer_is_solicited_and_the_reflector_advertises() {
    let _serial = serial();
    let bed = Capture::new("v6-ndp");
    let generator = bed.run(false);
    assert!(
        generator.stderr().contains("Neighbor Advertisement"),
        "{}",
        generator.logs()
    );
    let fields = [
        "frame.protocols",
        "eth.dst",
        "ipv6.dst",
        "icmpv6.type",
        "icmpv6.nd.ns.target_address",
    ];
    for (side, peer, group, mac) in [
        (
            "n3",
            "2001:db8:13::151",
            "ff02::1:ff00:151",
            "33:33:ff:00:01:51",
        ),
        (
            "n6",
            "2001:db8:16::151",
            "ff02::1:ff00:151",
            "33:33:ff:00:01:51",
        ),
    ] {
        let sent = bed.frames(&format!("{side}.pcap"), &fields);
        println!("v6-ndp: {side} sent {sent:?}");
        assert!(!sent.is_empty(), "{side}: no solicitation");
        let want = format!("eth:ethertype:ipv6:icmpv6 {mac} {group} 135 {peer}");
        assert!(sent.iter().all(|f| f == &want), "{side}: {sent:?}");
    }
    // The reflector owns 2001:db8:13::151 on N3: it answers the solicitation with an
    // advertisement to the generator, carrying the target and its MAC.
    let reflector = bed.reflector();
    assert!(
        reflector.stdout().contains("echo on N3"),
        "{}",
        reflector.logs()
    );
    let answered = bed.frames(
        "refl-n3.pcap",
        &[
            "icmpv6.type",
            "ipv6.src",
            "ipv6.dst",
            "icmpv6.nd.na.target_address",
            "icmpv6.nd.na.flag.s",
        ],
    );
    println!("v6-ndp: the reflector sent {answered:?}");
    let na: Vec<&String> = answered.iter().filter(|f| f.starts_with("136 ")).collect();
    assert!(!na.is_empty(), "no advertisement: {answered:?}");
    for f in na {
        assert_eq!(
            f, "136 2001:db8:13::151 2001:db8:13::131 2001:db8:13::151 1",
            "solicited, from its address to ours"
        );
    }
}
