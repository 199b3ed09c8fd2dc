//! Reference vectors with IPv6: `testdata/gtpu_ipv6.json` (made by `testdata/make_gtpu_ipv6.py`
//! with Scapy, checked with tshark). G-PDUs over IPv6 transport and with IPv6 UE packets, an
//! IPv6 N6 packet, an Echo Request and an Error Indication over IPv6. Every vector decodes to
//! exactly its listed fields, the encapsulator and the templates rebuild the G-PDUs byte for
//! byte, and the other messages re-emit to their bytes.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde_json::{Map, Value, json};
use upfbench_gtpu::ie::{self, InformationElements};
use upfbench_gtpu::{
    Encapsulator, EthernetRepr, GtpuFrame, GtpuRepr, IpHeader, Ipv4Packet, Ipv4Repr, Ipv6Packet,
    Ipv6Repr, Message, OuterHeaders, PacketTemplate, PduSessionContainer, TunnelAddress,
    UdpChecksum, UdpPacket, UdpRepr, UeAddress, decapsulate, emit_ip_udp, ethernet, udp_payload,
};
use upfbench_net::{IpFamily, MacAddr, Qfi, Teid};

const VECTORS: &str = include_str!("../testdata/gtpu_ipv6.json");

struct Vector {
    name: String,
    bytes: Vec<u8>,
    fields: Map<String, Value>,
}

fn vectors() -> Vec<Vector> {
    let doc: Value = serde_json::from_str(VECTORS).unwrap();
    let all: Vec<Vector> = doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap().to_owned(),
            bytes: hex(v["hex"].as_str().unwrap()),
            fields: v["fields"].as_object().unwrap().clone(),
        })
        .collect();
    assert_eq!(all.len(), 9, "gtpu_ipv6.json changed: review these tests");
    all
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn ip(v: &Value) -> IpAddr {
    v.as_str().unwrap().parse().unwrap()
}

fn num(f: &Map<String, Value>, k: &str) -> Option<u64> {
    f.get(k).and_then(Value::as_u64)
}

/// The MAC addresses of the vectors' links by the sender: (source, destination).
fn macs(sender: IpAddr) -> (MacAddr, MacAddr) {
    let mac = |a: u8, b: u8| MacAddr([2, 0, 0, 0, a, b]);
    match sender.to_string().as_str() {
        "2001:db8:13::131" | "192.168.13.131" => (mac(0x13, 0x31), mac(0x13, 0x51)),
        "2001:db8:13::151" | "192.168.13.151" => (mac(0x13, 0x51), mac(0x13, 0x31)),
        "2001:db8:16::152" => (mac(0x16, 0x52), mac(0x16, 0x51)),
        other => panic!("no MAC for {other}"),
    }
}

/// Every field the vectors list, decoded with the crate's views and representations.
fn decode(v: &Vector) -> Map<String, Value> {
    let mut f = Map::new();
    f.insert("frame_len".into(), json!(v.bytes.len()));
    let Ok(frame) = GtpuFrame::parse(&v.bytes) else {
        // The N6 packet: plain IPv6/UDP.
        let p = Ipv6Packet::new_checked(&v.bytes[ethernet::HEADER_LEN..]).unwrap();
        decode_inner(p.into_inner(), &mut f);
        f.remove("inner_udp_sport");
        f.remove("inner_udp_dport");
        for k in ["src", "dst"] {
            let inner = f.remove(&format!("inner_{k}")).unwrap();
            f.insert(k.into(), inner);
        }
        return f;
    };
    let d = frame.datagram();
    assert!(d.verify_checksums(), "{}", v.name);
    f.insert("outer_src".into(), json!(d.source_ip().to_string()));
    f.insert("outer_dst".into(), json!(d.destination_ip().to_string()));
    f.insert("udp_dport".into(), json!(d.udp().destination_port()));
    f.insert("udp_checksum".into(), json!(d.udp().checksum()));
    let g = d.gtpu();
    f.insert("gtp_msg_type".into(), json!(g.message_type().0));
    f.insert("teid".into(), json!(g.teid().0));
    f.insert("gtp_length".into(), json!(g.length()));
    if let Some(seq) = g.sequence_number() {
        f.insert("seq".into(), json!(seq));
    }
    if let Some(c) = g.pdu_session_container() {
        f.insert("pdu_type".into(), json!(c.pdu_type()));
        f.insert("qfi".into(), json!(c.qfi().get()));
    }
    // The IEs of the messages that have them (a G-PDU's body is its T-PDU).
    let ies = if g.message_type().0 == 255 {
        &[][..]
    } else {
        g.payload()
    };
    for item in InformationElements::new(ies, g.header_len()) {
        let item = item.unwrap();
        match item.ie_type {
            ie::IE_TEID_DATA_I => {
                let b = item.value;
                let t = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                f.insert("teid_data_i".into(), json!(t));
            }
            ie::IE_GTPU_PEER_ADDRESS => {
                let addr = ie::parse_peer_address(&item).unwrap();
                f.insert("gsn_address".into(), json!(addr.to_string()));
            }
            _ => {}
        }
    }
    if let Ok((inner, _)) = d.t_pdu() {
        decode_inner(inner, &mut f);
    }
    f
}

/// A UE's packet, IPv4 or IPv6 by its version, checksums verified.
fn decode_inner(inner: &[u8], f: &mut Map<String, Value>) {
    let (src, dst, udp) = if inner[0] >> 4 == 6 {
        let p = Ipv6Packet::new_checked(inner).unwrap();
        let r = Ipv6Repr::parse(&p).unwrap();
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        UdpRepr::parse_ipv6(&u, &r.source, &r.destination).unwrap();
        (IpAddr::V6(r.source), IpAddr::V6(r.destination), u)
    } else {
        let p = Ipv4Packet::new_checked(inner).unwrap();
        let r = Ipv4Repr::parse(&p).unwrap();
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        UdpRepr::parse(&u, r.source, r.destination).unwrap();
        (IpAddr::V4(r.source), IpAddr::V4(r.destination), u)
    };
    assert_eq!(udp_payload(inner).unwrap(), udp.payload());
    f.insert("inner_src".into(), json!(src.to_string()));
    f.insert("inner_dst".into(), json!(dst.to_string()));
    f.insert("inner_udp_sport".into(), json!(udp.source_port()));
    f.insert("inner_udp_dport".into(), json!(udp.destination_port()));
    f.insert("payload_len".into(), json!(udp.payload().len()));
}

#[test]
fn every_vector_decodes_to_its_fields() {
    for v in &vectors() {
        assert_eq!(decode(v), v.fields, "{}", v.name);
    }
}

/// The UE's packet of a G-PDU vector: its header and payload, by the generator's conventions
/// (TTL or hop limit 64, IPv4 id 0, ports 10000/20000 by direction, 'x' up and 'y' down).
struct Inner {
    ip: InnerIp,
    udp: UdpRepr,
    payload: Vec<u8>,
    uplink: bool,
}

enum InnerIp {
    V4(Ipv4Repr),
    V6(Ipv6Repr),
}

fn inner(f: &Map<String, Value>) -> Inner {
    let (src, dst) = (ip(&f["inner_src"]), ip(&f["inner_dst"]));
    let uplink =
        src.to_string().starts_with("10.45.") || src.to_string().starts_with("2001:db8:45:");
    let ip = match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => InnerIp::V4(Ipv4Repr::udp(s, d)),
        (IpAddr::V6(s), IpAddr::V6(d)) => InnerIp::V6(Ipv6Repr::udp(s, d)),
        _ => panic!("mixed families"),
    };
    let udp = UdpRepr {
        source_port: num(f, "inner_udp_sport").unwrap() as u16,
        destination_port: num(f, "inner_udp_dport").unwrap() as u16,
    };
    let payload = vec![if uplink { b'x' } else { b'y' }; num(f, "payload_len").unwrap() as usize];
    Inner {
        ip,
        udp,
        payload,
        uplink,
    }
}

fn container(f: &Map<String, Value>) -> Option<PduSessionContainer> {
    let qfi = Qfi::new(num(f, "qfi")? as u8).unwrap();
    Some(match num(f, "pdu_type")? {
        0 => PduSessionContainer::downlink(qfi),
        _ => PduSessionContainer::uplink(qfi),
    })
}

/// The encapsulator of a G-PDU vector's tunnel, outer UDP checksum computed.
fn encapsulator(f: &Map<String, Value>) -> Encapsulator {
    fn build<A: TunnelAddress>(f: &Map<String, Value>, s: A, d: A) -> Encapsulator {
        let (src_mac, dst_mac) = macs(s.into());
        let mut h = OuterHeaders::new(src_mac, dst_mac, s, d, Teid(num(f, "teid").unwrap() as u32));
        h.udp_checksum = UdpChecksum::Compute;
        h.pdu_session_container = container(f);
        Encapsulator::new(&h).unwrap()
    }
    match (ip(&f["outer_src"]), ip(&f["outer_dst"])) {
        (IpAddr::V4(s), IpAddr::V4(d)) => build(f, s, d),
        (IpAddr::V6(s), IpAddr::V6(d)) => build(f, s, d),
        _ => panic!("mixed families"),
    }
}

fn emit_inner(i: &Inner, buf: &mut [u8]) -> usize {
    match &i.ip {
        InnerIp::V4(h) => emit_ip_udp(buf, h, &i.udp, &i.payload, UdpChecksum::Compute),
        InnerIp::V6(h) => emit_ip_udp(buf, h, &i.udp, &i.payload, UdpChecksum::Compute),
    }
    .unwrap()
}

fn template(encap: &Encapsulator, i: &Inner) -> PacketTemplate {
    let ue = if i.uplink {
        UeAddress::Source
    } else {
        UeAddress::Destination
    };
    fn of<H: IpHeader>(e: &Encapsulator, h: &H, i: &Inner, ue: UeAddress) -> PacketTemplate {
        PacketTemplate::gpdu(e, h, &i.udp, &i.payload, UdpChecksum::Compute, ue).unwrap()
    }
    match &i.ip {
        InnerIp::V4(h) => of(encap, h, i, ue),
        InnerIp::V6(h) => of(encap, h, i, ue),
    }
}

const GPDUS: [&str; 6] = [
    "ul_gpdu_v6_payload10",
    "ul_gpdu_v6_pdusc_qfi9_payload300",
    "dl_gpdu_v6_pdusc_qfi1_payload1400",
    "ul_gpdu_inner_v6_payload10",
    "dl_gpdu_inner_v6_pdusc_qfi5_payload300",
    "ul_gpdu_v6_inner_v6_pdusc_qfi9_payload1400",
];

#[test]
fn the_encapsulator_rebuilds_every_gpdu() {
    let all = vectors();
    let gpdus: Vec<&Vector> = all
        .iter()
        .filter(|v| v.fields.contains_key("inner_src"))
        .collect();
    let names: Vec<&str> = gpdus.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, GPDUS);
    for v in gpdus {
        let encap = encapsulator(&v.fields);
        let d = decapsulate(&v.bytes).unwrap();
        assert_eq!(encap.outer_len(), d.inner_offset(), "{}", v.name);
        let i = inner(&v.fields);
        let mut buf = vec![0u8; v.bytes.len() + 5];
        let start = 5 + encap.outer_len();
        let n = emit_inner(&i, &mut buf[start..]);
        let frame = encap.encapsulate(&mut buf, start..start + n).unwrap();
        assert_eq!(hex_of(&buf[frame]), hex_of(&v.bytes), "{}", v.name);
    }
}

#[test]
fn templates_write_every_gpdu_and_keep_the_checksums_right() {
    for v in vectors()
        .iter()
        .filter(|v| GPDUS.contains(&v.name.as_str()))
    {
        let (encap, i) = (encapsulator(&v.fields), inner(&v.fields));
        let t = template(&encap, &i);
        assert_eq!(hex_of(t.bytes()), hex_of(&v.bytes), "{}", v.name);
        let teid = Teid(num(&v.fields, "teid").unwrap() as u32);
        let ue = if i.uplink { "inner_src" } else { "inner_dst" };
        let tag = [b'x'; 10].map(|x| if i.uplink { x } else { b'y' });
        let mut out = vec![0u8; t.len()];
        match ip(&v.fields[ue]) {
            IpAddr::V4(a) => t.write(&mut out, teid, a, &tag),
            IpAddr::V6(a) => t.write_ipv6(&mut out, teid, a, &tag),
        }
        .unwrap();
        assert_eq!(
            hex_of(&out),
            hex_of(&v.bytes),
            "{}: the template's own values",
            v.name
        );
        // Another UE, TEID and tag, then a stamp: every checksum, outer ones included, right.
        let other_tag = *b"0123456789";
        match t.inner_family() {
            IpFamily::Ipv4 => t.write(&mut out, Teid(7), Ipv4Addr::new(10, 45, 3, 4), &other_tag),
            IpFamily::Ipv6 => {
                let a: Ipv6Addr = "2001:db8:45::3:4".parse().unwrap();
                t.write_ipv6(&mut out, Teid(7), a, &other_tag)
            }
        }
        .unwrap();
        t.stamp(&mut out, 6, &[0xde, 0xad, 0xbe, 0xef]).unwrap();
        let d = decapsulate(&out).unwrap();
        assert_eq!(d.teid(), Teid(7), "{}", v.name);
        assert!(d.frame().datagram().verify_checksums(), "{}: outer", v.name);
        let mut f = Map::new();
        decode_inner(d.inner(), &mut f);
        assert_eq!(
            &udp_payload(d.inner()).unwrap()[..10],
            b"012345\xde\xad\xbe\xef"
        );
    }
}

#[test]
fn the_other_messages_re_emit_to_their_bytes() {
    let all = vectors();
    let others: Vec<&Vector> = all
        .iter()
        .filter(|v| !GPDUS.contains(&v.name.as_str()))
        .collect();
    let names: Vec<&str> = others.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "n6_dl_udp_v6_payload10",
            "echo_request_v6",
            "error_indication_v6_peer_ipv6"
        ]
    );
    for v in others {
        let f = &v.fields;
        let (payload, src, dst, ports) = if let Some(s) = f.get("src") {
            let p = vec![b'y'; num(f, "payload_len").unwrap() as usize];
            (p, ip(s), ip(&f["dst"]), (20000, 10000))
        } else {
            let message = match num(f, "gtp_msg_type").unwrap() {
                1 => Message::EchoRequest,
                _ => Message::ErrorIndication {
                    teid_data_i: Teid(num(f, "teid_data_i").unwrap() as u32),
                    peer_address: ip(&f["gsn_address"]),
                },
            };
            let repr = GtpuRepr {
                teid: Teid(0),
                sequence_number: num(f, "seq").map(|s| s as u16),
                npdu_number: None,
                pdu_session_container: None,
                udp_port: None,
                message,
            };
            let mut gtp = vec![0u8; repr.buffer_len()];
            repr.emit(&mut gtp).unwrap();
            (gtp, ip(&f["outer_src"]), ip(&f["outer_dst"]), (2152, 2152))
        };
        let (IpAddr::V6(s), IpAddr::V6(d)) = (src, dst) else {
            panic!("{}: IPv6", v.name)
        };
        let mut out = vec![0u8; v.bytes.len()];
        let (smac, dmac) = macs(src);
        let eth = EthernetRepr {
            source: smac,
            destination: dmac,
            ethertype: 0x86dd,
        };
        eth.emit(&mut out).unwrap();
        let udp = UdpRepr {
            source_port: ports.0,
            destination_port: ports.1,
        };
        let n = emit_ip_udp(
            &mut out[14..],
            &Ipv6Repr::udp(s, d),
            &udp,
            &payload,
            UdpChecksum::Compute,
        )
        .unwrap();
        assert_eq!(14 + n, v.bytes.len());
        assert_eq!(hex_of(&out), hex_of(&v.bytes), "{}", v.name);
    }
}
