//! The frames the TX path sends, for each payload size of the published measurements, decode
//! to the configured fields with crates/gtpu and with tshark (an independent dissector): TEID,
//! QFI of the PDU Session Container, outer and inner addresses, UDP ports, lengths, valid IPv4
//! and UDP checksums, the tag. Each frame is the stream's template with its patch window
//! patched the way the TX worker does it (the window of a `TemplatePool` mbuf, with the
//! constant layout the TX loop is compiled for), for several UEs. tshark must be installed (CI
//! installs it); without it the test fails.

use std::net::Ipv4Addr;
use std::path::Path;
use std::process::Command;

use upfbench_config as config;
use upfbench_datapath::service::Interface;
use upfbench_datapath::vlan::PortTags;
use upfbench_generator::datapath::frames::{Endpoints, Endpoints6, stream_template};
use upfbench_generator::datapath::tx::TxLayout;
use upfbench_gtpu::{Ipv4Packet, UdpPacket, decapsulate, udp_payload};
use upfbench_net::tag::{TAG_LEN, Tag, TagView};
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_run::plan::{self, Plan, StreamPlan, UplinkTeids};
use upfbench_stats::Direction;

const SYSTEM: &str = include_str!("../../../deploy/systems/memif.yaml");

fn plan(container: bool, payload: u16) -> Plan {
    let profile = format!(
        "name: f\nsessions: {{count: 300, qfi: 9, pdu_session_container: {container}, uplink_pdr_qfi: {container}}}\nstreams:\n  - {{name: x, direction: both, rate: 1kpps, payload: 300, src_port: 4321, dst_port: 5678}}\nduration: 1s\n"
    );
    let (s, p) = config::run_from_str(SYSTEM, "memif.yaml", &profile, "f.yaml").expect("valid");
    plan::build(&s, &p, Some(payload), [Some(1e10), Some(1e10)]).expect("plan")
}

const US_N3: Interface = Interface {
    mac: MacAddr([2, 0, 0, 0, 0x13, 0x31]),
    address: Ipv4Addr::new(192, 168, 13, 131),
    prefix_len: 24,
    secondary: None,
};
const US_N6: Interface = Interface {
    mac: MacAddr([2, 0, 0, 0, 0x16, 0x52]),
    address: Ipv4Addr::new(192, 168, 16, 152),
    prefix_len: 24,
    secondary: None,
};
const UPF_N3: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);

fn endpoints() -> Endpoints {
    Endpoints {
        local: [US_N3, US_N6],
        upf_n3: UPF_N3,
        next_hop_mac: [
            MacAddr([2, 0, 0, 0, 0x13, 0x51]),
            MacAddr([2, 0, 0, 0, 0x16, 0x51]),
        ],
        v6: Endpoints6::NONE,
        tags: [PortTags::UNTAGGED; 2],
    }
}

/// What a frame must decode to.
#[derive(Debug, Clone, PartialEq)]
struct Expected {
    len: usize,
    teid: Option<Teid>,
    qfi: Option<Qfi>,
    outer: Option<(Ipv4Addr, Ipv4Addr)>,
    inner: (Ipv4Addr, Ipv4Addr),
    ports: (u16, u16),
    tag: Tag,
}

/// The frames of `stream` to UEs 0, 1 and 299 of the plan, as the TX worker patches them.
fn frames(plan: &Plan, stream: &StreamPlan) -> Vec<(Vec<u8>, Expected)> {
    let qfi = plan.qfi;
    let teid_of = |ue: u32| match plan.ues.uplink_teid {
        UplinkTeids::Sequence(s) => s.get(ue),
        UplinkTeids::ChosenByUpf => Teid::ZERO,
    };
    let e = endpoints();
    let first = stream.ues.start;
    let template = stream_template(stream, plan.ues.address_v4(first), teid_of(first), qfi, &e)
        .expect("template");
    let range = template.patch_range(TAG_LEN).expect("a patch window");
    // The TX loop runs on constant offsets for every frame the generator builds.
    let layout = TxLayout::of(&template);
    assert!(
        !matches!(layout, TxLayout::Other(_)),
        "{:?} frame of {} B (container {}): no constant layout, {layout:?}",
        stream.direction,
        template.len(),
        stream.pdu_session_container
    );
    // One buffer patched again and again, as a pool's mbufs are (the TX worker does not copy
    // the window back from the template between packets): each frame must still be exact.
    let mut buffer = template.bytes().to_vec();
    [0u32, 1, 299]
        .into_iter()
        .enumerate()
        .map(|(k, ue)| {
            let tag = Tag {
                stream: stream.id,
                sequence: 1000 + k as u32,
                tx_time: 0xdead_beef - k as u32,
            };
            layout.patch(
                &mut buffer[range.clone()],
                &template.ue_patch::<TAG_LEN>(teid_of(ue), plan.ues.address_v4(ue)),
                &tag,
            );
            let f = buffer.clone();
            let ue_ip = plan.ues.address_v4(ue);
            let dn = US_N6.address;
            let expected = match stream.direction {
                Direction::Uplink => Expected {
                    len: usize::from(stream.tx_frame_len()),
                    teid: Some(teid_of(ue)),
                    qfi: stream.pdu_session_container.then_some(Qfi::new(9).unwrap()),
                    outer: Some((US_N3.address, UPF_N3)),
                    inner: (ue_ip, dn),
                    ports: (4321, 5678),
                    tag,
                },
                Direction::Downlink => Expected {
                    len: usize::from(stream.tx_frame_len()),
                    teid: None,
                    qfi: None,
                    outer: None,
                    inner: (dn, ue_ip),
                    ports: (4321, 5678),
                    tag,
                },
            };
            (f, expected)
        })
        .collect()
}

fn all_frames() -> Vec<(Vec<u8>, Expected)> {
    let mut out = Vec::new();
    for payload in [10, 300, 1400] {
        for container in [true, false] {
            let p = plan(container, payload);
            for s in &p.streams {
                if s.direction == Direction::Downlink && !container {
                    continue; // the downlink frame does not depend on the container
                }
                out.extend(frames(&p, s));
            }
        }
    }
    out
}

/// A UDP checksum that is present (not 0) and right.
fn udp_checksum_ok(ip: &Ipv4Packet<&[u8]>) -> bool {
    UdpPacket::new_checked(ip.payload())
        .is_ok_and(|u| u.checksum() != 0 && u.verify_checksum(ip.source(), ip.destination()))
}

#[test]
fn every_frame_decodes_to_its_fields_with_gtpu() {
    for (f, want) in all_frames() {
        assert_eq!(f.len(), want.len);
        let inner = match want.teid {
            Some(teid) => {
                let d = decapsulate(&f).expect("a G-PDU");
                assert_eq!(d.teid(), teid);
                assert_eq!(d.qfi(), want.qfi);
                assert!(d.frame().datagram().verify_checksums(), "outer checksums");
                let outer = d.frame().datagram();
                assert_eq!(Some((outer.source(), outer.destination())), want.outer);
                d.inner()
            }
            None => &f[14..],
        };
        let ip = Ipv4Packet::new_checked(inner).expect("inner IPv4");
        assert!(ip.verify_checksum(), "inner IPv4 checksum of {want:?}");
        assert_eq!((ip.source(), ip.destination()), want.inner);
        assert!(udp_checksum_ok(&ip), "inner UDP checksum of {want:?}");
        let udp = UdpPacket::new_checked(ip.payload()).unwrap();
        assert_eq!((udp.source_port(), udp.destination_port()), want.ports);
        let payload = udp_payload(inner).expect("UDP payload");
        let v = TagView::new_checked(payload).unwrap();
        assert_eq!(
            Tag {
                stream: v.stream(),
                sequence: v.sequence(),
                tx_time: v.tx_time()
            },
            want.tag
        );
    }
}

fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    let mut out = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        for v in [i as u32, 0, f.len() as u32, f.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    std::fs::write(path, out).expect("write pcap");
}

const FIELDS: &[&str] = &[
    "frame.len",
    "gtp.teid",
    "gtp.ext_hdr.pdu_ses_con.qos_flow_id",
    "ip.src",
    "ip.dst",
    "udp.srcport",
    "udp.dstport",
    "ip.checksum.status",
    "udp.checksum.status",
    "_ws.malformed",
    "_ws.expert.severity",
];

#[test]
fn tshark_dissects_every_frame_to_the_same_fields() {
    let all = all_frames();
    let dir = std::env::temp_dir().join(format!("upfbench-frames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("frames.pcap");
    write_pcap(
        &pcap,
        &all.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
    );
    let out = tshark_fields(&pcap);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(';').collect()).collect();
    assert_eq!(rows.len(), all.len());
    for (row, (_, want)) in rows.iter().zip(&all) {
        check_row(row, want);
    }
}

/// tshark's FIELDS of every frame of the capture, checksums verified.
fn tshark_fields(pcap: &Path) -> std::process::Output {
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(pcap).args([
        "-o",
        "ip.check_checksum:TRUE",
        "-o",
        "udp.check_checksum:TRUE",
        "-T",
        "fields",
        "-E",
        "separator=;",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=,",
    ]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    cmd.output()
        .expect("tshark must be installed (apt-get install tshark)")
}

/// One frame's row: length, TEID, QFI, addresses and ports outer then inner, good checksums,
/// nothing malformed and no expert item.
fn check_row(row: &[&str], want: &Expected) {
    let ips = |a: Ipv4Addr, b: Ipv4Addr| (a.to_string(), b.to_string());
    let (src, dst) = match want.outer {
        Some((os, od)) => (
            format!("{},{}", ips(os, od).0, want.inner.0),
            format!("{},{}", od, want.inner.1),
        ),
        None => ips(want.inner.0, want.inner.1),
    };
    let port = |p: u16| match want.outer {
        Some(_) => format!("2152,{p}"),
        None => p.to_string(),
    };
    assert_eq!(row[0], want.len.to_string(), "{row:?}");
    let teid = want
        .teid
        .map(|t| format!("{:#010x}", t.get()))
        .unwrap_or_default();
    assert_eq!(row[1], teid, "{row:?}");
    assert_eq!(
        row[2],
        want.qfi.map(|q| q.to_string()).unwrap_or_default(),
        "{row:?}"
    );
    assert_eq!(
        (row[3].to_owned(), row[4].to_owned()),
        (src, dst),
        "{row:?}"
    );
    assert_eq!(
        (row[5], row[6]),
        (&*port(want.ports.0), &*port(want.ports.1)),
        "{row:?}"
    );
    // 1 = good: every IPv4 header checksum verifies, and the inner UDP checksum.
    assert!(
        row[7].split(',').all(|s| s == "1"),
        "IPv4 checksums: {row:?}"
    );
    assert_eq!(
        row[8].split(',').next_back(),
        Some("1"),
        "inner UDP checksum: {row:?}"
    );
    assert_eq!(row[9], "", "malformed: {row:?}");
    assert_eq!(row[10], "", "expert items: {row:?}");
}
