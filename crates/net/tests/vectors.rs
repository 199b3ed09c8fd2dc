//! Reference vectors made with Scapy (`testdata/make_net.py`): every frame decodes to the fields
//! Scapy reads from it, and re-emitting those fields gives back its bytes.

use std::net::Ipv4Addr;

use serde_json::{Map, Value};
use upfbench_net::ethernet::{self, ETHERTYPE_ARP, ETHERTYPE_IPV4};
use upfbench_net::ipv4::{PROTOCOL_ICMP, PROTOCOL_UDP};
use upfbench_net::{
    ArpOperation, ArpPacket, ArpRepr, EthernetFrame, EthernetRepr, Icmpv4Packet, Icmpv4Repr,
    Ipv4Packet, Ipv4Repr, MacAddr, UdpPacket, UdpRepr, checksum, udp,
};

const VECTORS: &str = include_str!("../testdata/net.json");

struct Vector {
    name: String,
    bytes: Vec<u8>,
    fields: Map<String, Value>,
}

fn vectors() -> Vec<Vector> {
    let doc: Value = serde_json::from_str(VECTORS).unwrap();
    doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap().to_owned(),
            bytes: hex(v["hex"].as_str().unwrap()),
            fields: v["fields"].as_object().unwrap().clone(),
        })
        .collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn mac(v: &Value) -> MacAddr {
    let b = hex(&v.as_str().unwrap().replace(':', ""));
    MacAddr(b.try_into().unwrap())
}

fn ip(v: &Value) -> Ipv4Addr {
    v.as_str().unwrap().parse().unwrap()
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn icmp_repr<'a>(f: &Value, data: &'a [u8]) -> Icmpv4Repr<'a> {
    let (identifier, sequence) = (num(&f["id"]) as u16, num(&f["seq"]) as u16);
    match (num(&f["type"]), num(&f["code"])) {
        (8, 0) => Icmpv4Repr::EchoRequest {
            identifier,
            sequence,
            data,
        },
        (0, 0) => Icmpv4Repr::EchoReply {
            identifier,
            sequence,
            data,
        },
        _ => unreachable!("echo vectors only"),
    }
}

/// The fields a vector may have: every one is checked by `check_decode`.
const KNOWN_FIELDS: [&str; 7] = [
    "eth_src",
    "eth_dst",
    "ethertype",
    "arp",
    "ipv4",
    "icmp",
    "udp",
];

/// Decodes `v` layer by layer and checks each field against Scapy's.
fn check_decode(v: &Vector) {
    let name = &v.name;
    let f = &v.fields;
    // Every field listed is one this function checks: none is passed over.
    for key in f.keys() {
        assert!(
            KNOWN_FIELDS.contains(&key.as_str()),
            "{name}: field {key} is not checked"
        );
    }
    let eth = EthernetFrame::new_checked(&v.bytes[..]).unwrap();
    let e = EthernetRepr::parse(&eth);
    assert_eq!(e.source, mac(&f["eth_src"]), "{name}");
    assert_eq!(e.destination, mac(&f["eth_dst"]), "{name}");
    assert_eq!(u64::from(e.ethertype), num(&f["ethertype"]), "{name}");
    if let Some(a) = f.get("arp") {
        assert_eq!(e.ethertype, ETHERTYPE_ARP);
        check_arp(name, eth.payload(), a);
        return;
    }
    assert_eq!(e.ethertype, ETHERTYPE_IPV4);
    let p = Ipv4Packet::new_checked(eth.payload()).unwrap();
    let r = check_ipv4(name, &p, &f["ipv4"]);
    if let Some(fc) = f.get("icmp") {
        assert_eq!(r.protocol, PROTOCOL_ICMP);
        check_icmp(name, p.payload(), fc);
    }
    if let Some(fu) = f.get("udp") {
        assert_eq!(r.protocol, PROTOCOL_UDP);
        check_udp(name, p.payload(), &r, fu);
    }
}

/// An ARP packet against Scapy's fields.
fn check_arp(name: &str, bytes: &[u8], a: &Value) {
    let arp = ArpRepr::parse(&ArpPacket::new_checked(bytes).unwrap()).unwrap();
    let op = match num(&a["op"]) {
        1 => ArpOperation::Request,
        2 => ArpOperation::Reply,
        op => panic!("{name}: operation {op}"),
    };
    let want = ArpRepr {
        operation: op,
        sender_mac: mac(&a["sender_mac"]),
        sender_ip: ip(&a["sender_ip"]),
        target_mac: mac(&a["target_mac"]),
        target_ip: ip(&a["target_ip"]),
    };
    assert_eq!(arp, want, "{name}");
}

/// An IPv4 header against Scapy's fields; returns its representation.
fn check_ipv4(name: &str, p: &Ipv4Packet<&[u8]>, fi: &Value) -> Ipv4Repr {
    let r = Ipv4Repr::parse(p).unwrap();
    assert_eq!(r.source, ip(&fi["src"]), "{name}");
    assert_eq!(r.destination, ip(&fi["dst"]), "{name}");
    assert_eq!(u64::from(r.protocol), num(&fi["protocol"]), "{name}");
    assert_eq!(u64::from(r.ttl), num(&fi["ttl"]), "{name}");
    assert_eq!(u64::from(r.dscp_ecn), num(&fi["tos"]), "{name}");
    assert_eq!(u64::from(r.identification), num(&fi["id"]), "{name}");
    assert_eq!(r.dont_fragment, fi["df"].as_bool().unwrap(), "{name}");
    assert_eq!(p.header_len() as u64, num(&fi["ihl"]) * 4, "{name}");
    assert_eq!(p.total_len() as u64, num(&fi["total_length"]), "{name}");
    assert_eq!(u64::from(p.checksum()), num(&fi["checksum"]), "{name}");
    r
}

/// An ICMPv4 message against Scapy's fields.
fn check_icmp(name: &str, bytes: &[u8], fc: &Value) {
    let m = Icmpv4Packet::new_checked(bytes).unwrap();
    assert!(m.verify_checksum(), "{name}");
    assert_eq!(u64::from(m.checksum()), num(&fc["checksum"]), "{name}");
    let repr = Icmpv4Repr::parse(&m).unwrap();
    let data = hex(fc["data"].as_str().unwrap());
    assert_eq!(repr.data(), &data[..], "{name}");
    if fc.get("id").is_some() {
        assert_eq!(repr, icmp_repr(fc, &data), "{name}");
    } else {
        assert_eq!(
            repr,
            Icmpv4Repr::Other {
                msg_type: num(&fc["type"]) as u8,
                code: num(&fc["code"]) as u8,
                rest_of_header: hex(fc["rest_of_header"].as_str().unwrap())
                    .try_into()
                    .unwrap(),
                data: &data,
            },
            "{name}"
        );
    }
}

/// A UDP datagram against Scapy's fields.
fn check_udp(name: &str, bytes: &[u8], r: &Ipv4Repr, fu: &Value) {
    let u = UdpPacket::new_checked(bytes).unwrap();
    let repr = UdpRepr::parse(&u, r.source, r.destination).unwrap();
    assert_eq!(u64::from(repr.source_port), num(&fu["sport"]), "{name}");
    assert_eq!(
        u64::from(repr.destination_port),
        num(&fu["dport"]),
        "{name}"
    );
    assert_eq!(u.len() as u64, num(&fu["length"]), "{name}");
    assert_eq!(u64::from(u.checksum()), num(&fu["checksum"]), "{name}");
    assert_eq!(u.payload(), hex(fu["payload"].as_str().unwrap()), "{name}");
}

/// Builds `v`'s frame again from its fields with the emitters.
fn emit(v: &Vector) -> Vec<u8> {
    let f = &v.fields;
    let mut out = vec![0u8; v.bytes.len()];
    EthernetRepr {
        source: mac(&f["eth_src"]),
        destination: mac(&f["eth_dst"]),
        ethertype: num(&f["ethertype"]) as u16,
    }
    .emit(&mut out)
    .unwrap();
    let body = &mut out[ethernet::HEADER_LEN..];
    if let Some(a) = f.get("arp") {
        let request = ArpRepr::request(
            mac(&a["sender_mac"]),
            ip(&a["sender_ip"]),
            ip(&a["target_ip"]),
        );
        let repr = if num(&a["op"]) == 1 {
            request
        } else {
            // A reply is the answer to the request it reverses.
            ArpRepr::request(
                mac(&a["target_mac"]),
                ip(&a["target_ip"]),
                ip(&a["sender_ip"]),
            )
            .reply(mac(&a["sender_mac"]))
        };
        repr.emit(body).unwrap();
        return out;
    }
    let fi = &f["ipv4"];
    let (source, destination) = (ip(&fi["src"]), ip(&fi["dst"]));
    let total = num(&fi["total_length"]) as usize;
    let ipv4 = Ipv4Repr {
        source,
        destination,
        protocol: num(&fi["protocol"]) as u8,
        payload_len: total - 20,
        ttl: num(&fi["ttl"]) as u8,
        dscp_ecn: num(&fi["tos"]) as u8,
        identification: num(&fi["id"]) as u16,
        dont_fragment: fi["df"].as_bool().unwrap(),
    };
    ipv4.emit(body).unwrap();
    let payload = &mut body[20..total];
    if let Some(fc) = f.get("icmp") {
        let data = hex(fc["data"].as_str().unwrap());
        icmp_repr(fc, &data).emit(payload).unwrap();
    }
    if let Some(fu) = f.get("udp") {
        let data = hex(fu["payload"].as_str().unwrap());
        UdpRepr {
            source_port: num(&fu["sport"]) as u16,
            destination_port: num(&fu["dport"]) as u16,
        }
        .emit(payload, data.len())
        .unwrap();
        payload[udp::HEADER_LEN..].copy_from_slice(&data);
        if num(&fu["checksum"]) != 0 {
            let c = checksum::udp_ipv4(source, destination, payload);
            payload[udp::field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        }
    }
    out
}

#[test]
fn every_vector_decodes_to_its_fields() {
    let all = vectors();
    assert_eq!(all.len(), 10, "net.json changed: review these tests");
    for v in &all {
        check_decode(v);
    }
}

#[test]
fn every_vector_without_ipv4_options_emits_to_its_bytes() {
    let all = vectors();
    assert_eq!(all.len(), 10, "net.json changed: review these tests");
    let mut left_out = Vec::new();
    let mut emitted = 0;
    for v in &all {
        // An IPv4 option or a quoted datagram: the emitters write neither; these two have tests
        // of their own below.
        if v.fields.get("ipv4").is_some_and(|i| num(&i["ihl"]) != 5)
            || v.fields.get("icmp").is_some_and(|i| i.get("id").is_none())
        {
            left_out.push(v.name.as_str());
            continue;
        }
        assert_eq!(hex_of(&emit(v)), hex_of(&v.bytes), "{}", v.name);
        emitted += 1;
    }
    assert_eq!(left_out, ["icmp_port_unreachable", "udp_ipv4_router_alert"]);
    assert_eq!(emitted, 8);
}

#[test]
fn other_icmp_round_trips_through_its_repr() {
    let v = vectors()
        .into_iter()
        .find(|v| v.name == "icmp_port_unreachable")
        .unwrap();
    let p = Ipv4Packet::new_checked(&v.bytes[ethernet::HEADER_LEN..]).unwrap();
    let msg = p.payload();
    let repr = Icmpv4Repr::parse(&Icmpv4Packet::new_checked(msg).unwrap()).unwrap();
    assert!(matches!(
        repr,
        Icmpv4Repr::Other {
            msg_type: 3,
            code: 3,
            ..
        }
    ));
    assert_eq!(repr.buffer_len(), msg.len());
    let mut out = vec![0u8; repr.buffer_len()];
    repr.emit(&mut out).unwrap();
    assert_eq!(out, msg);
}

#[test]
fn the_option_is_skipped_and_the_payload_found() {
    let v = vectors()
        .into_iter()
        .find(|v| v.name == "udp_ipv4_router_alert")
        .unwrap();
    let p = Ipv4Packet::new_checked(&v.bytes[ethernet::HEADER_LEN..]).unwrap();
    assert_eq!(p.header_len(), 24);
    assert_eq!(
        p.options(),
        [0x94, 0x04, 0x00, 0x00],
        "Router Alert, RFC 2113"
    );
    let u = UdpPacket::new_checked(p.payload()).unwrap();
    assert_eq!(u.payload(), b"opt");
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
