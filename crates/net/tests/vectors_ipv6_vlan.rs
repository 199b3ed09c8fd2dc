//! Reference vectors made with Scapy and checked with tshark (`testdata/make_net_ipv6_vlan.py`):
//! IPv6, ICMPv6 with Neighbor Discovery, and VLAN tags. Every frame decodes to the fields Scapy
//! reads from it, and re-emitting those fields gives back its bytes.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{Map, Value};
use upfbench_net::ipv4::PROTOCOL_UDP;
use upfbench_net::ipv6::PROTOCOL_ICMPV6;
use upfbench_net::{
    ArpOperation, ArpPacket, ArpRepr, Icmpv4Packet, Icmpv4Repr, Icmpv6Packet, Icmpv6Repr,
    Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr, MacAddr, NeighborAdvert, NeighborSolicit,
    TaggedEthernetRepr, UdpPacket, UdpRepr, VlanKind, VlanRepr, VlanTags, udp,
};

const VECTORS: &str = include_str!("../testdata/net_ipv6_vlan.json");

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
    assert_eq!(
        all.len(),
        16,
        "net_ipv6_vlan.json changed: review these tests"
    );
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

fn mac(v: &Value) -> MacAddr {
    let b = hex(&v.as_str().unwrap().replace(':', ""));
    MacAddr(b.try_into().unwrap())
}

fn ip4(v: &Value) -> Ipv4Addr {
    v.as_str().unwrap().parse().unwrap()
}

fn ip6(v: &Value) -> Ipv6Addr {
    v.as_str().unwrap().parse().unwrap()
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn flag(v: &Value) -> bool {
    v.as_bool().unwrap()
}

/// The fields a vector may have: every one is checked by `check_decode`.
const KNOWN_FIELDS: [&str; 11] = [
    "eth_src",
    "eth_dst",
    "vlans",
    "ethertype",
    "header_len",
    "arp",
    "ipv4",
    "icmp",
    "ipv6",
    "icmpv6",
    "udp",
];

/// The Ethernet header and tags of the vector's fields.
fn ethernet(f: &Map<String, Value>) -> TaggedEthernetRepr {
    let tag = |t: &Value| VlanRepr {
        kind: VlanKind::from_tpid(num(&t["tpid"]) as u16).unwrap(),
        pcp: num(&t["pcp"]) as u8,
        dei: num(&t["dei"]) == 1,
        vid: num(&t["vid"]) as u16,
    };
    let tags = match f["vlans"].as_array().unwrap().as_slice() {
        [] => VlanTags::Untagged,
        [one] => VlanTags::Single(tag(one)),
        [outer, inner] => VlanTags::Double {
            outer: tag(outer),
            inner: tag(inner),
        },
        more => panic!("{} tags", more.len()),
    };
    TaggedEthernetRepr {
        source: mac(&f["eth_src"]),
        destination: mac(&f["eth_dst"]),
        tags,
        ethertype: num(&f["ethertype"]) as u16,
    }
}

/// The ICMPv6 message of the vector's fields.
fn icmpv6_repr<'a>(ic: &Value, data: &'a [u8]) -> Icmpv6Repr<'a> {
    let target = || ip6(&ic["target"]);
    match num(&ic["type"]) {
        128 => Icmpv6Repr::EchoRequest {
            identifier: num(&ic["id"]) as u16,
            sequence: num(&ic["seq"]) as u16,
            data,
        },
        129 => Icmpv6Repr::EchoReply {
            identifier: num(&ic["id"]) as u16,
            sequence: num(&ic["seq"]) as u16,
            data,
        },
        135 => Icmpv6Repr::NeighborSolicit(NeighborSolicit {
            target: target(),
            source_link_layer: ic.get("source_lladdr").map(mac),
        }),
        136 => Icmpv6Repr::NeighborAdvert(NeighborAdvert {
            router: flag(&ic["router"]),
            solicited: flag(&ic["solicited"]),
            override_flag: flag(&ic["override"]),
            target: target(),
            target_link_layer: ic.get("target_lladdr").map(mac),
        }),
        _ => Icmpv6Repr::Other {
            msg_type: num(&ic["type"]) as u8,
            code: num(&ic["code"]) as u8,
            rest_of_header: hex(ic["rest_of_header"].as_str().unwrap())
                .try_into()
                .unwrap(),
            data,
        },
    }
}

fn ipv4_repr(fi: &Value) -> Ipv4Repr {
    Ipv4Repr {
        source: ip4(&fi["src"]),
        destination: ip4(&fi["dst"]),
        protocol: num(&fi["protocol"]) as u8,
        payload_len: num(&fi["total_length"]) as usize - 20,
        ttl: num(&fi["ttl"]) as u8,
        dscp_ecn: num(&fi["tos"]) as u8,
        identification: num(&fi["id"]) as u16,
        dont_fragment: flag(&fi["df"]),
    }
}

fn ipv6_repr(fi: &Value) -> Ipv6Repr {
    Ipv6Repr {
        source: ip6(&fi["src"]),
        destination: ip6(&fi["dst"]),
        next_header: num(&fi["next_header"]) as u8,
        payload_len: num(&fi["payload_length"]) as usize,
        hop_limit: num(&fi["hop_limit"]) as u8,
        traffic_class: num(&fi["traffic_class"]) as u8,
        flow_label: num(&fi["flow_label"]) as u32,
    }
}

/// Decodes `v` layer by layer and checks each field against Scapy's.
fn check_decode(v: &Vector) {
    let (name, f) = (&v.name, &v.fields);
    for key in f.keys() {
        assert!(
            KNOWN_FIELDS.contains(&key.as_str()),
            "{name}: field {key} is not checked"
        );
    }
    let eth = TaggedEthernetRepr::parse(&v.bytes).unwrap();
    assert_eq!(eth, ethernet(f), "{name}");
    assert_eq!(eth.header_len() as u64, num(&f["header_len"]), "{name}");
    let body = &v.bytes[eth.header_len()..];
    if let Some(a) = f.get("arp") {
        let arp = ArpRepr::parse(&ArpPacket::new_checked(body).unwrap()).unwrap();
        assert_eq!(arp.operation, ArpOperation::Request, "{name}");
        assert_eq!(
            (arp.sender_mac, arp.sender_ip),
            (mac(&a["sender_mac"]), ip4(&a["sender_ip"]))
        );
        assert_eq!(arp.target_ip, ip4(&a["target_ip"]), "{name}");
    }
    if let Some(fi) = f.get("ipv4") {
        let p = Ipv4Packet::new_checked(body).unwrap();
        let r = Ipv4Repr::parse(&p).unwrap();
        assert_eq!(r, ipv4_repr(fi), "{name}");
        assert_eq!(u64::from(p.checksum()), num(&fi["checksum"]), "{name}");
        if let Some(fc) = f.get("icmp") {
            let m = Icmpv4Packet::new_checked(p.payload_slice()).unwrap();
            assert_eq!(u64::from(m.checksum()), num(&fc["checksum"]), "{name}");
            let data = hex(fc["data"].as_str().unwrap());
            let want = Icmpv4Repr::EchoRequest {
                identifier: num(&fc["id"]) as u16,
                sequence: num(&fc["seq"]) as u16,
                data: &data,
            };
            assert_eq!(Icmpv4Repr::parse(&m), Ok(want), "{name}");
        }
        if let Some(fu) = f.get("udp") {
            let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
            assert_eq!(
                UdpRepr::parse(&u, r.source, r.destination),
                Ok(udp_repr(fu))
            );
            check_udp(name, &u, fu);
        }
    }
    if let Some(fi) = f.get("ipv6") {
        check_ipv6(v, body, fi);
    }
}

fn check_ipv6(v: &Vector, body: &[u8], fi: &Value) {
    let (name, f) = (&v.name, &v.fields);
    let p = Ipv6Packet::new_checked(body).unwrap();
    let r = Ipv6Repr::parse(&p).unwrap();
    assert_eq!(r, ipv6_repr(fi), "{name}");
    if let Some(ic) = f.get("icmpv6") {
        assert_eq!(r.next_header, PROTOCOL_ICMPV6);
        let m = Icmpv6Packet::new_checked(p.payload_slice()).unwrap();
        assert!(m.verify_checksum(&r.source, &r.destination), "{name}");
        assert_eq!(u64::from(m.checksum()), num(&ic["checksum"]), "{name}");
        assert_eq!(
            hex_of(&m.rest_of_header()),
            ic["rest_of_header"].as_str().unwrap()
        );
        let data = hex(ic["data"].as_str().unwrap());
        let parsed = Icmpv6Repr::parse(&m, &r.source, &r.destination).unwrap();
        assert_eq!(parsed, icmpv6_repr(ic, &data), "{name}");
    }
    if let Some(fu) = f.get("udp") {
        assert_eq!(r.next_header, PROTOCOL_UDP);
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        assert!(u.verify_checksum_ipv6(&r.source, &r.destination), "{name}");
        let parsed = UdpRepr::parse_ipv6(&u, &r.source, &r.destination);
        assert_eq!(parsed, Ok(udp_repr(fu)), "{name}");
        check_udp(name, &u, fu);
    }
}

fn udp_repr(fu: &Value) -> UdpRepr {
    UdpRepr {
        source_port: num(&fu["sport"]) as u16,
        destination_port: num(&fu["dport"]) as u16,
    }
}

fn check_udp(name: &str, u: &UdpPacket<&[u8]>, fu: &Value) {
    assert_eq!(u.len() as u64, num(&fu["length"]), "{name}");
    assert_eq!(u64::from(u.checksum()), num(&fu["checksum"]), "{name}");
    assert_eq!(u.payload(), hex(fu["payload"].as_str().unwrap()), "{name}");
}

/// Builds `v`'s frame again from its fields with the emitters.
fn emit(v: &Vector) -> Vec<u8> {
    let f = &v.fields;
    let mut out = vec![0u8; v.bytes.len()];
    let eth = ethernet(f);
    eth.emit(&mut out).unwrap();
    let body = &mut out[eth.header_len()..];
    if let Some(a) = f.get("arp") {
        let r = ArpRepr::request(
            mac(&a["sender_mac"]),
            ip4(&a["sender_ip"]),
            ip4(&a["target_ip"]),
        );
        r.emit(body).unwrap();
    }
    if let Some(fi) = f.get("ipv4") {
        let r = ipv4_repr(fi);
        r.emit(body).unwrap();
        let payload = &mut body[20..20 + r.payload_len];
        if let Some(fc) = f.get("icmp") {
            let data = hex(fc["data"].as_str().unwrap());
            let echo = Icmpv4Repr::EchoRequest {
                identifier: num(&fc["id"]) as u16,
                sequence: num(&fc["seq"]) as u16,
                data: &data,
            };
            echo.emit(payload).unwrap();
        }
        if let Some(fu) = f.get("udp") {
            emit_udp(payload, fu);
            let mut u = UdpPacket::new_checked(payload).unwrap();
            u.fill_checksum(r.source, r.destination);
        }
    }
    if let Some(fi) = f.get("ipv6") {
        let r = ipv6_repr(fi);
        r.emit(body).unwrap();
        let payload = &mut body[40..40 + r.payload_len];
        if let Some(ic) = f.get("icmpv6") {
            let data = hex(ic["data"].as_str().unwrap());
            icmpv6_repr(ic, &data)
                .emit(payload, &r.source, &r.destination)
                .unwrap();
        }
        if let Some(fu) = f.get("udp") {
            emit_udp(payload, fu);
            let mut u = UdpPacket::new_checked(payload).unwrap();
            u.fill_checksum_ipv6(&r.source, &r.destination);
        }
    }
    out
}

fn emit_udp(segment: &mut [u8], fu: &Value) {
    let data = hex(fu["payload"].as_str().unwrap());
    udp_repr(fu).emit(segment, data.len()).unwrap();
    segment[udp::HEADER_LEN..].copy_from_slice(&data);
}

#[test]
fn every_vector_decodes_to_its_fields() {
    for v in &vectors() {
        check_decode(v);
    }
}

#[test]
fn every_vector_but_the_skipped_option_emits_to_its_bytes() {
    let all = vectors();
    let mut left_out = Vec::new();
    let mut emitted = 0;
    for v in &all {
        // The MTU option is skipped on parsing, as RFC 4861 §4.3 says: the emitter writes the
        // link-layer address option only. `the_mtu_option_is_skipped` checks that vector.
        if v.name == "ndp_ns_mtu_option" {
            left_out.push(v.name.as_str());
            continue;
        }
        assert_eq!(hex_of(&emit(v)), hex_of(&v.bytes), "{}", v.name);
        emitted += 1;
    }
    assert_eq!(left_out, ["ndp_ns_mtu_option"]);
    assert_eq!(emitted, 15);
}

#[test]
fn the_mtu_option_is_skipped() {
    let all = vectors();
    let with = all.iter().find(|v| v.name == "ndp_ns_mtu_option").unwrap();
    let without = all.iter().find(|v| v.name == "ndp_ns").unwrap();
    fn ns(v: &Vector) -> (Icmpv6Repr<'_>, usize) {
        let p = Ipv6Packet::new_checked(&v.bytes[14..]).unwrap();
        let m = Icmpv6Packet::new_checked(p.payload_slice()).unwrap();
        let r = Icmpv6Repr::parse(&m, &p.source(), &p.destination()).unwrap();
        (r, r.buffer_len())
    }
    let (a, a_len) = ns(with);
    let (b, b_len) = ns(without);
    assert_eq!(a, b);
    assert_eq!((a_len, b_len), (32, 32));
}

#[test]
fn the_priority_tag_reads_as_vid_0() {
    let v = vectors()
        .into_iter()
        .find(|v| v.name == "priority_tagged_icmp")
        .unwrap();
    let eth = TaggedEthernetRepr::parse(&v.bytes).unwrap();
    let VlanTags::Single(tag) = eth.tags else {
        panic!("one tag")
    };
    assert_eq!((tag.vid, tag.pcp), (0, 6));
}
