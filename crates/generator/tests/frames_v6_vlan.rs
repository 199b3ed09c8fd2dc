//! The frames of IPv6 UEs, of N3 over IPv6, and of tagged ports (802.1Q and QinQ), in every
//! combination, as the TX worker writes them (the patch window behind the tags, or the whole
//! frame per packet for IPv6), decode with tshark (an independent dissector) to the configured
//! VLANs, addresses, ports and TEID, with every checksum good and nothing malformed; the tag
//! sits where docs/measurement.md says. tshark must be installed (CI installs it).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::process::Command;

use upfbench_datapath::service::Interface;
use upfbench_datapath::vlan::{PortTags, TagOffload};
use upfbench_dpdk::TxVlan;
use upfbench_generator::datapath::frames::{Endpoints, Endpoints6, StreamFrame, stream_frame};
use upfbench_generator::datapath::tx::{TxLayout, write_whole};
use upfbench_net::tag::{TAG_LEN, Tag};
use upfbench_net::{MacAddr, Qfi, Teid, VlanId};
use upfbench_run::plan::{Schedule, Spread, StreamPlan};
use upfbench_stats::Direction;

const N3: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const N6: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
const UPF: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);
const N3_6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x131);
const UPF_6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x151);
const DN_6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x16, 0, 0, 0, 0, 0x152);

fn vid(v: u16) -> VlanId {
    VlanId::new(v).unwrap()
}

fn endpoints(n3_over_v6: bool, tags: [PortTags; 2]) -> Endpoints {
    let iface = |address, last| Interface {
        mac: MacAddr([2, 0, 0, 0, 0, last]),
        address,
        prefix_len: 24,
        secondary: None,
    };
    Endpoints {
        local: [iface(N3, 0x31), iface(N6, 0x52)],
        upf_n3: UPF,
        next_hop_mac: [MacAddr([2, 0, 0, 0, 0, 0x51]); 2],
        v6: Endpoints6 {
            n3: n3_over_v6.then_some((N3_6, UPF_6)),
            dn_host: Some(DN_6),
        },
        tags,
    }
}

fn stream(direction: Direction, payload_len: u16, container: bool) -> StreamPlan {
    StreamPlan {
        id: 3,
        name: "s".into(),
        direction,
        payload_len,
        pdu_session_container: container,
        source_port: 4321,
        destination_port: 5678,
        ues: 0..300,
        flow_base: 0,
        rate_pps: 1.0,
        schedule: Schedule::Continuous { packets: 1 },
        spread: Spread::RoundRobin,
        shape: Default::default(),
        qfi: None,
        qer: None,
    }
}

fn ue(v6: bool, i: u32) -> IpAddr {
    if v6 {
        IpAddr::V6(Ipv6Addr::from(
            u128::from(Ipv6Addr::new(0x2001, 0xdb8, 0x45, 0, 0, 0, 0, 2)) + (u128::from(i) << 64),
        ))
    } else {
        IpAddr::V4(Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 45, 0, 2)) + i))
    }
}

/// What a frame must decode to.
#[derive(Debug, Clone)]
struct Expected {
    len: usize,
    /// The C-tag's VID, or "S/C" with QinQ, or "".
    vlans: String,
    teid: Option<Teid>,
    outer: Option<(IpAddr, IpAddr)>,
    inner: (IpAddr, IpAddr),
    tag_at: usize,
    tag: Tag,
}

/// Packets to UEs 0, 1 and 299 of `s` written into one buffer, again and again, as a pool's
/// mbuf is.
fn packets(s: &StreamPlan, v6_ue: bool, e: &Endpoints, vlans: &str) -> Vec<(Vec<u8>, Expected)> {
    let teid = |i: u32| Teid(0x100 + i);
    let frame: StreamFrame = stream_frame(s, ue(v6_ue, 0), teid(0), Some(qfi()), e).unwrap();
    let range = frame.patch_range(TAG_LEN);
    let mut buffer = frame.bytes.clone();
    let written = frame.written_whole(TAG_LEN);
    assert_eq!(
        written,
        v6_ue || e.v6.n3.is_some() && s.direction == Direction::Uplink
    );
    let layout = TxLayout::of(&frame.template);
    let dn: IpAddr = if v6_ue { DN_6.into() } else { N6.into() };
    [0u32, 1, 299]
        .into_iter()
        .map(|i| {
            let tag = Tag {
                stream: s.id,
                sequence: 7 + i,
                tx_time: 0xdead_beef - i,
            };
            if written {
                let n = write_whole(
                    &frame.template,
                    frame.head(),
                    &mut buffer,
                    teid(i),
                    ue(v6_ue, i),
                    &tag.to_bytes(),
                )
                .unwrap();
                assert_eq!(n, frame.len());
            } else {
                let IpAddr::V4(a) = ue(v6_ue, i) else {
                    unreachable!()
                };
                let patch = frame.template.ue_patch::<TAG_LEN>(teid(i), a);
                layout.patch(&mut buffer[range.clone()], &patch, &tag);
            }
            let uplink = s.direction == Direction::Uplink;
            let outer: Option<(IpAddr, IpAddr)> = match (uplink, e.v6.n3) {
                (false, _) => None,
                (true, Some((a, b))) => Some((a.into(), b.into())),
                (true, None) => Some((N3.into(), UPF.into())),
            };
            let expected = Expected {
                len: frame.len(),
                vlans: vlans.to_owned(),
                teid: uplink.then_some(teid(i)),
                outer,
                inner: if uplink {
                    (ue(v6_ue, i), dn)
                } else {
                    (dn, ue(v6_ue, i))
                },
                tag_at: frame.template.payload_offset() + frame.tags_len,
                tag,
            };
            (buffer.clone(), expected)
        })
        .collect()
}

fn qfi() -> Qfi {
    Qfi::new(9).unwrap()
}

fn all() -> Vec<(Vec<u8>, Expected)> {
    let dot1q = PortTags::dot1q(vid(13), 5, None).unwrap();
    let n6_tag = PortTags::dot1q(vid(16), 0, None).unwrap();
    let qinq = PortTags::dot1q(vid(13), 0, Some((vid(100), 3))).unwrap();
    let mut out = Vec::new();
    for (tags, n3_vlans, n6_vlans) in [
        ([PortTags::UNTAGGED; 2], "", ""),
        ([dot1q, n6_tag], "13", "16"),
        ([qinq, n6_tag], "100/13", "16"),
    ] {
        for n3_v6 in [false, true] {
            let e = endpoints(n3_v6, tags);
            for v6_ue in [false, true] {
                for payload in [10, 1400] {
                    for container in [false, true] {
                        let s = stream(Direction::Uplink, payload, container);
                        out.extend(packets(&s, v6_ue, &e, n3_vlans));
                    }
                    if !n3_v6 {
                        let s = stream(Direction::Downlink, payload, false);
                        out.extend(packets(&s, v6_ue, &e, n6_vlans));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn lengths_count_the_tags_and_v6_headers_and_the_tag_is_where_the_docs_say() {
    let e = endpoints(false, [PortTags::UNTAGGED; 2]);
    let len =
        |s: &StreamPlan, v6, e: &Endpoints| stream_frame(s, ue(v6, 0), Teid(1), None, e).unwrap();
    let ul = stream(Direction::Uplink, 10, false);
    let dl = stream(Direction::Downlink, 10, false);
    // docs/measurement.md, "IPv6 and VLAN on the wire": the tag's offsets.
    let f = len(&ul, true, &e);
    assert_eq!(
        f.template.payload_offset(),
        98,
        "UE IPv6 over an IPv4 transport"
    );
    assert_eq!(f.len(), 108);
    let e6 = endpoints(true, [PortTags::UNTAGGED; 2]);
    assert_eq!(
        len(&ul, false, &e6).template.payload_offset(),
        98,
        "IPv4 UE over IPv6"
    );
    assert_eq!(
        len(&ul, true, &e6).template.payload_offset(),
        118,
        "IPv6 over IPv6"
    );
    assert_eq!(
        len(&dl, true, &e).template.payload_offset(),
        62,
        "downlink IPv6 on N6"
    );
    let qinq = PortTags::dot1q(vid(13), 0, Some((vid(100), 0))).unwrap();
    let tagged = endpoints(true, [qinq, PortTags::UNTAGGED]);
    let f = len(&ul, true, &tagged);
    assert_eq!((f.len(), f.tags_len), (128 + 8, 8), "QinQ adds 8 octets");
    assert_eq!(f.patch_range(TAG_LEN), 0..136, "written whole");
    let v4 = endpoints(false, [qinq, PortTags::UNTAGGED]);
    let f = len(&ul, false, &v4);
    let untagged = len(&ul, false, &e);
    assert_eq!(f.len(), untagged.len() + 8);
    let (r, u) = (
        f.patch_range(TAG_LEN),
        untagged.template.patch_range(TAG_LEN).unwrap(),
    );
    assert_eq!(
        (r.start, r.end),
        (u.start + 8, u.end + 8),
        "the window moves behind the tags"
    );
}

#[test]
fn every_frame_carries_its_tag_at_its_offset() {
    for (f, want) in all() {
        assert_eq!(f.len(), want.len, "{want:?}");
        let t = &f[want.tag_at..want.tag_at + TAG_LEN];
        assert_eq!(t, want.tag.to_bytes(), "{want:?}");
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
    "vlan.id",
    "gtp.teid",
    "ip.src",
    "ipv6.src",
    "ip.dst",
    "ipv6.dst",
    "udp.srcport",
    "udp.checksum.status",
    "ip.checksum.status",
    "_ws.malformed",
    "_ws.expert.severity",
    "ieee8021ad.id",
];

#[test]
fn tshark_dissects_every_frame_to_its_vlans_addresses_and_good_checksums() {
    let all = all();
    let dir = std::env::temp_dir().join(format!("upfbench-frames6-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("frames.pcap");
    write_pcap(
        &pcap,
        &all.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
    );
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(&pcap).args([
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
    let out = cmd
        .output()
        .expect("tshark must be installed (apt-get install tshark)");
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

/// One row: length, VLANs, TEID, the addresses of each family outer then inner, the UDP
/// checksums good (outer, when computed, and inner), nothing malformed, no expert item.
fn check_row(row: &[&str], want: &Expected) {
    assert_eq!(row[0], want.len.to_string(), "{row:?} {want:?}");
    // "S/C": an 802.1ad tag outside an 802.1Q one.
    let (s_tag, c_tag) = want.vlans.split_once('/').unwrap_or(("", &want.vlans));
    assert_eq!((row[12], row[1]), (s_tag, c_tag), "VLANs {row:?}");
    let teid = want
        .teid
        .map(|t| format!("{:#010x}", t.get()))
        .unwrap_or_default();
    assert_eq!(row[2], teid, "{row:?}");
    let addresses: Vec<(IpAddr, IpAddr)> = want.outer.into_iter().chain([want.inner]).collect();
    let of = |v6: bool, pick: fn(&(IpAddr, IpAddr)) -> IpAddr| {
        addresses
            .iter()
            .map(pick)
            .filter(|a| a.is_ipv6() == v6)
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    assert_eq!(row[3], of(false, |a| a.0), "IPv4 sources {row:?}");
    assert_eq!(row[4], of(true, |a| a.0), "IPv6 sources {row:?}");
    assert_eq!(row[5], of(false, |a| a.1), "IPv4 destinations {row:?}");
    assert_eq!(row[6], of(true, |a| a.1), "IPv6 destinations {row:?}");
    assert_eq!(row[7].split(',').next_back(), Some("4321"), "{row:?}");
    // Status 1 is good; an outer IPv4 UDP checksum of 0 is "not present" (status 2).
    let udp: Vec<&str> = row[8].split(',').collect();
    assert_eq!(udp.last(), Some(&"1"), "inner UDP checksum {row:?}");
    let outer_v6 = matches!(want.outer, Some((IpAddr::V6(_), _)));
    if outer_v6 {
        assert_eq!(udp[0], "1", "outer UDP checksum over IPv6 {row:?}");
    }
    assert!(
        row[9].split(',').all(|s| s.is_empty() || s == "1"),
        "IPv4 checksums {row:?}"
    );
    assert_eq!(row[10], "", "malformed: {row:?}");
    assert_eq!(row[11], "", "expert items: {row:?}");
}

#[test]
fn where_the_nic_inserts_the_tags_the_frame_is_untagged_and_its_length_counts_them() {
    let both = TagOffload {
        insert: true,
        strip: true,
    };
    let qinq = PortTags::dot1q(vid(13), 5, Some((vid(100), 0))).unwrap();
    let n6 = PortTags::dot1q(vid(16), 0, None).unwrap();
    let plain = endpoints(false, [PortTags::UNTAGGED; 2]);
    let nic = endpoints(false, [qinq.with_offload(both), n6.with_offload(both)]);
    for (s, extra, tx_vlan) in [
        (
            stream(Direction::Uplink, 100, true),
            8,
            TxVlan::double(100, 0xa00d),
        ),
        (
            stream(Direction::Downlink, 100, false),
            4,
            TxVlan::single(16),
        ),
    ] {
        let untagged = stream_frame(&s, ue(false, 0), Teid(1), None, &plain).unwrap();
        let f = stream_frame(&s, ue(false, 0), Teid(1), None, &nic).unwrap();
        assert_eq!(f.bytes, untagged.bytes, "the bytes handed to the port");
        assert_eq!((f.tags_len, f.tx_vlan), (0, tx_vlan));
        assert_eq!(f.len(), untagged.len() + extra, "the wire's length");
        assert_eq!(f.patch_range(TAG_LEN), untagged.patch_range(TAG_LEN));
        assert_eq!(f.head(), &untagged.bytes[..12], "no tag to write back");
    }
    // Stripping alone leaves the tags in the template.
    let strip = endpoints(
        false,
        [
            qinq.with_offload(TagOffload {
                insert: false,
                strip: true,
            }),
            PortTags::UNTAGGED,
        ],
    );
    let ul = stream(Direction::Uplink, 100, true);
    let f = stream_frame(&ul, ue(false, 0), Teid(1), None, &strip).unwrap();
    assert_eq!((f.tags_len, f.tx_vlan), (8, TxVlan::NONE));
    assert_eq!(
        f.bytes,
        qinq.tagged(
            &stream_frame(&ul, ue(false, 0), Teid(1), None, &plain)
                .unwrap()
                .bytes
        )
    );
}
