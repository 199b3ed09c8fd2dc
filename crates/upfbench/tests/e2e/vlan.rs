//! N3 and N6 on VLANs, in one-port mode (issue 29): the shipped pair
//! deploy/systems/memif-vlan.yaml and memif-vlan-reflector.yaml (one memif link, N3 on VLAN 13
//! with PCP 5, N6 on VLAN 16) run end to end with nothing lost, the report's sizes counting the
//! tag; and what the generator puts on the wire, captured by DPDK's pcap PMD (one device, a
//! capture per queue: queue 0 is N3's, queue 1 N6's) and decoded by tshark: every frame carries
//! its port's VLAN id and PCP, ARP included; and the reflector (echo mode, on `net_pcap` ports
//! reading that capture) strips the tag of what it receives and tags what it sends back with
//! its own port's VLAN id and PCP.

use std::path::PathBuf;
use std::time::Duration;

use upfbench_config as config;
use upfbench_testkit::eal::process_args_yaml;

use crate::harness;
use crate::harness::{
    Process, Scratch, UPFBENCH, num, patch, serial, total, tshark_fields, unique,
};
use crate::memif::{Memif, finish, profile};

/// Uplink G-PDU of a 100-byte payload with a PDU Session Container, one 802.1Q tag, FCS:
/// 14 + 4 + 20 + 8 + 16 + 20 + 8 + 100 + 4.
const UPLINK_L2: u64 = 194;
/// Downlink frame of a 100-byte payload, one tag, FCS: 14 + 4 + 20 + 8 + 100 + 4.
const DOWNLINK_L2: u64 = 150;

#[test]
fn memif_vlan_one_port_every_packet_back_tags_counted() {
    let _serial = serial();
    let files = ["memif-vlan.yaml", "memif-vlan-reflector.yaml"];
    let prefixes = ["upfbench-gen-vlan", "upfbench-reflect-vlan"];
    let bed = Memif::shipped("vlan", files, prefixes, &profile(4, 3, "500ms"), |s, r| {
        (s, r)
    });
    let (system, _) = config::load_run(&bed.system, &bed.profile).expect("checked");
    assert!(
        system.pair(0).one_port(),
        "the shipped file is one-port mode"
    );
    every_packet_back(&bed, "vlan", [UPLINK_L2, DOWNLINK_L2]);
}

/// Two memif links, N3 in QinQ (S-tag 100 around VLAN 13, PCP 5), N6 on VLAN 16 (PCP 3): the
/// embedded default's pair with the tags added on both sides.
#[test]
fn memif_vlan_two_ports_qinq_every_packet_back_tags_counted() {
    let _serial = serial();
    let files = ["memif.yaml", "memif-reflector.yaml"];
    let prefixes = ["upfbench-gen", "upfbench-reflect"];
    let n3 = "  vlan: {id: 13, pcp: 5}\n  qinq: {id: 100}\n";
    let n6 = "  vlan: {id: 16, pcp: 3}\n";
    let tag = |text: &str, after: &str, tags: &str| patch(text, after, &format!("{after}{tags}"));
    let bed = Memif::shipped("vlan2", files, prefixes, &profile(4, 3, "500ms"), |s, r| {
        let s = tag(&s, "peer: 192.168.13.151\n", n3);
        let s = tag(&s, "peer: 192.168.16.151\n", n6);
        let r = tag(&r, "address: 192.168.13.151/24\n", n3);
        let r = tag(&r, "peer: 192.168.16.152\n", n6);
        (s, r)
    });
    let (system, _) = config::load_run(&bed.system, &bed.profile).expect("checked");
    assert!(!system.pair(0).one_port());
    assert_eq!(
        (
            system.pair(0).n3.vlan_tags().len(),
            system.pair(0).n6.vlan_tags().len()
        ),
        (8, 4)
    );
    every_packet_back(&bed, "vlan2", [UPLINK_L2 + 4, DOWNLINK_L2]);
}

/// Runs `bed`'s profile against its reflector and checks that every packet came back each way,
/// the reflector forwarded as much each way, and the report counted frames of `l2` bytes
/// (uplink, downlink: FCS and tags included).
fn every_packet_back(bed: &Memif, case: &str, l2: [u64; 2]) {
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(bed, &mut reflector, &generator, status);
    o.print(case);
    o.assert_clean_end(4);
    for (name, f) in o.both() {
        assert!(f.sent > 0, "{name}: sent nothing");
        assert_eq!(
            (f.received, f.lost),
            (f.sent, 0),
            "{name}: every packet back"
        );
    }
    assert_eq!(o.uplink.sent, o.downlink.sent, "one rate each way");
    // The reflector forwarded each way what it received on that port's VLAN (the warm-up's
    // packets too, which need not be as many each way), and dropped nothing
    // (`assert_clean_end`).
    let r = &o.reflector;
    let (ul, dl) = (total(r, "uplink forwarded"), total(r, "downlink forwarded"));
    assert!(ul >= o.uplink.sent && dl >= o.downlink.sent, "{r:?}");
    // What it received on each port's VLAN is what it forwarded from there and the service
    // frames (ARP): nothing was taken for the other port.
    let service = |port: &str| total(r, &format!("service frames {port}"));
    assert_eq!(total(r, "received N3"), ul + service("N3"), "{r:?}");
    assert_eq!(total(r, "received N6"), dl + service("N6"), "{r:?}");
    // The report's sizes count the tags: 4 bytes a tag in every frame, both ways.
    let step = &o.report["steps"][0];
    for (i, (name, l2)) in [("uplink", l2[0]), ("downlink", l2[1])]
        .into_iter()
        .enumerate()
    {
        let d = &step["directions"][i];
        assert_eq!(d["direction"], name);
        let packets = num(d, &["tx", "packets"]);
        println!("{case}: {name} {packets} frames of {l2} B at L2");
        assert_eq!(num(d, &["tx", "bytes_l2"]), packets * l2, "{name}: {d}");
        assert_eq!(num(d, &["tx", "bytes_l1"]), packets * (l2 + 20), "{name}");
        assert_eq!(num(d, &["rx", "packets"]), packets, "{name}");
    }
}

/// A generator in one-port mode on one `net_pcap` device of two queues: what each queue sends
/// is written to `n3.pcap` (queue 0, N3's) and `n6.pcap` (queue 1, N6's); nothing is received.
struct TrunkCapture {
    scratch: Scratch,
    system: PathBuf,
    profile: PathBuf,
    prefix: String,
}

impl TrunkCapture {
    /// With the peers' MACs given (`peer_mac`), traffic flows without ARP; without, ARP asks
    /// `arp_tries` times on each VLAN and the run ends there.
    fn new(case: &str, peer_macs: bool) -> TrunkCapture {
        let scratch = Scratch::new(case);
        let dir = scratch.path().display().to_string();
        write_empty_pcap(&scratch.path().join("empty.pcap"));
        let prefix = unique(&format!("{case}-gen"));
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
             devargs: rx_pcap={dir}/empty.pcap,rx_pcap={dir}/empty.pcap,\
             tx_pcap={dir}/n3.pcap,tx_pcap={dir}/n6.pcap\n  \
             address: 192.168.13.131/24\n  peer: 192.168.13.151\n{}  \
             vlan: {{id: 13, pcp: 5}}\n\
             n6:\n  port: n3\n  address: 192.168.16.152/24\n  peer: 192.168.16.151\n{}  \
             vlan: {{id: 16}}\n\
             arp: {{timeout: 200ms, retries: 1}}\n\
             reports: {dir}/reports\n",
            mac("02:00:00:00:01:51"),
            mac("02:00:00:00:16:51"),
            eal_args = process_args_yaml(256),
        );
        let profile = "name: trunk\n\
                       streams:\n  \
                       - {name: ul, direction: uplink, rate: 1kpps, payload: 100}\n  \
                       - {name: dl, direction: downlink, rate: 1kpps, payload: 100}\n\
                       duration: 1s\n";
        let bed = TrunkCapture {
            system: scratch.write("system.yaml", &system),
            profile: scratch.write("profile.yaml", profile),
            scratch,
            prefix,
        };
        config::load_run(&bed.system, &bed.profile).unwrap_or_else(|e| panic!("{e}"));
        bed
    }

    /// `upfbench run` to its end (no PFCP section: the UPF is not programmed).
    fn run(&self) -> Process {
        let mut p = Process::spawn(
            "generator",
            &self.scratch,
            None,
            &[
                UPFBENCH,
                "run",
                self.system.to_str().expect("utf-8"),
                self.profile.to_str().expect("utf-8"),
            ],
            Some(&self.prefix),
        );
        p.wait(Duration::from_secs(30));
        p
    }

    /// Each frame queue `side` sent, as tshark decodes it: `vlan.id vlan.priority
    /// eth.type-after-the-tag protocols`.
    fn sent(&self, side: &str) -> Vec<String> {
        let file = self.scratch.path().join(format!("{side}.pcap"));
        tshark_fields(
            &file,
            "/s",
            &["vlan.id", "vlan.priority", "vlan.etype", "frame.protocols"],
        )
    }

    /// The reflector in echo mode on N3 (VLAN 13, PCP 2; N6 on VLAN 16), two `net_pcap` ports:
    /// N3 receives what the generator's N3 queue sent (`n3.pcap`) and writes what it sends back
    /// to `echo.pcap`; it runs for 2 s.
    fn echo_n3(&self) -> Process {
        let dir = self.scratch.path().display().to_string();
        let prefix = unique("vlan-echo-refl");
        let reflector = format!(
            "kind: reflector\n\
             eal:\n  args: {eal_args}\n  file_prefix: {prefix}\n\
             cores: {{main: 1, workers: [0]}}\n\
             n3:\n  device: net_pcap0\n  devargs: rx_pcap={dir}/n3.pcap,tx_pcap={dir}/echo.pcap\n  \
             address: 192.168.13.151/24\n  vlan: {{id: 13, pcp: 2}}\n\
             n6:\n  device: net_pcap1\n  \
             devargs: rx_pcap={dir}/empty.pcap,tx_pcap={dir}/echo-n6.pcap\n  \
             address: 192.168.16.151/24\n  vlan: {{id: 16}}\n\
             mode: {{echo: n3}}\n",
            eal_args = process_args_yaml(256),
        );
        harness::reflect_for_2s(&self.scratch, &prefix, &reflector)
    }

    /// `file`'s frames as `vlan.id vlan.priority frame.len ip.src ip.dst`.
    fn frames(&self, file: &str) -> Vec<String> {
        let file = self.scratch.path().join(file);
        let fields = ["vlan.id", "vlan.priority", "frame.len", "ip.src", "ip.dst"];
        tshark_fields(&file, " ", &fields)
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
fn pcap_one_port_each_frame_carries_its_ports_vlan_and_pcp() {
    let _serial = serial();
    let bed = TrunkCapture::new("vlan-wire", true);
    let generator = bed.run();
    assert!(
        generator.stdout().contains("reports:"),
        "{}",
        generator.logs()
    );
    for (side, want, proto) in [("n3", "13 5 0x0800", "gtp"), ("n6", "16 0 0x0800", "udp")] {
        let sent = bed.sent(side);
        println!(
            "vlan-wire: {side} sent {} frames, first {:?}",
            sent.len(),
            sent.first()
        );
        // 1 kpps for 1 s after a warm-up: at least the measured second's.
        assert!(sent.len() >= 1000, "{side}: {} frames", sent.len());
        for f in &sent {
            assert!(f.starts_with(&format!("{want} ")), "{side}: {f}");
            assert!(f.contains(":vlan:ethertype:ip:udp"), "{side}: {f}");
            assert_eq!(f.contains(":gtp"), proto == "gtp", "{side}: {f}");
        }
    }
    // The reflector takes N3's frames on VLAN 13 (PCP 5 as they come), strips the tag, echoes
    // them and tags them again as its own N3 port says: VLAN 13, PCP 2.
    let reflector = bed.echo_n3();
    assert!(
        reflector.stdout().contains("echo on N3"),
        "{}",
        reflector.logs()
    );
    let sent = bed.frames("n3.pcap");
    let echoed = bed.frames("echo.pcap");
    println!(
        "vlan-wire: the reflector echoed {} of {} frames, first {:?}",
        echoed.len(),
        sent.len(),
        echoed.first()
    );
    assert_eq!(echoed.len(), sent.len());
    for (s, e) in sent.iter().zip(&echoed) {
        let s: Vec<&str> = s.split(' ').collect();
        let e: Vec<&str> = e.split(' ').collect();
        // The outer addresses swapped (tshark lists the outer first).
        assert_eq!((s[0], s[1]), ("13", "5"), "{s:?}");
        assert_eq!((e[0], e[1], e[2]), ("13", "2", s[2]), "{e:?} for {s:?}");
        let (s_src, s_dst) = (s[3].split(',').next(), s[4].split(',').next());
        let (e_src, e_dst) = (e[3].split(',').next(), e[4].split(',').next());
        assert_eq!((e_src, e_dst), (s_dst, s_src), "{e:?} for {s:?}");
    }
}

#[test]
fn pcap_one_port_arp_asks_on_each_vlan() {
    let _serial = serial();
    let bed = TrunkCapture::new("vlan-arp", false);
    let generator = bed.run();
    assert!(
        generator.stderr().contains("no ARP reply"),
        "{}",
        generator.logs()
    );
    for (side, want) in [("n3", "13 5 0x0806"), ("n6", "16 0 0x0806")] {
        let sent = bed.sent(side);
        println!("vlan-arp: {side} sent {sent:?}");
        assert!(!sent.is_empty(), "{side}: no ARP request");
        for f in &sent {
            assert!(f.starts_with(&format!("{want} ")), "{side}: {f}");
            assert!(f.ends_with(":vlan:ethertype:arp"), "{side}: {f}");
        }
    }
}
