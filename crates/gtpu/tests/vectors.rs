//! Reference vectors: `testdata/gtpu.json` (the project's reference set, made by
//! Scapy and checked by Wireshark) and `testdata/gtpu_extra.json` (made here by
//! `testdata/make_gtpu_extra.py`, also Scapy and tshark). Every vector must decode to exactly
//! its listed fields, and emitting from those fields must give the same bytes. Each test counts
//! the vectors of each file it checked and names those it left out, so that none is passed over
//! unnoticed (a file that lost vectors, a filter that takes fewer).

use std::net::{IpAddr, Ipv4Addr};

use serde_json::{Map, Value, json};
use upfbench_gtpu::ie::{self, InformationElements};
use upfbench_gtpu::{
    DlPduSessionInformation, Encapsulator, EthernetFrame, EthernetRepr, GtpuDatagram, GtpuPacket,
    GtpuRepr, Ipv4Packet, Ipv4Repr, Message, OuterHeaders, ParseError, PduSessionContainer, Ppi,
    QfiSequenceNumber, UdpChecksum, UdpPacket, UdpRepr, UlPduSessionInformation, UlQosMonitoring,
    decapsulate, emit_ipv4_udp, ethernet,
};
use upfbench_net::{MacAddr, Qfi, Teid};

const SHARED: &str = include_str!("../testdata/gtpu.json");
const EXTRA: &str = include_str!("../testdata/gtpu_extra.json");

const UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 2);

struct Vector {
    name: String,
    description: String,
    bytes: Vec<u8>,
    fields: Map<String, Value>,
}

fn load(text: &str) -> Vec<Vector> {
    let doc: Value = serde_json::from_str(text).expect("vector file is JSON");
    doc["vectors"]
        .as_array()
        .expect("vectors array")
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().expect("name").to_owned(),
            description: v["description"].as_str().expect("description").to_owned(),
            bytes: hex(v["hex"].as_str().expect("hex")),
            fields: v["fields"].as_object().expect("fields").clone(),
        })
        .collect()
}

/// The vectors of `gtpu.json`, all 13 of them.
fn shared() -> Vec<Vector> {
    let vectors = load(SHARED);
    assert_eq!(vectors.len(), 13, "gtpu.json changed: review these tests");
    vectors
}

/// The vectors of `gtpu_extra.json`, all 6 of them.
fn extra() -> Vec<Vector> {
    let vectors = load(EXTRA);
    assert_eq!(
        vectors.len(),
        6,
        "gtpu_extra.json changed: review these tests"
    );
    vectors
}

/// Runs `check` on every one of `vectors` that `take` takes, and asserts that the vectors it
/// left out are exactly those named in `left_out`, in order: every other vector of the file was
/// checked, and a vector added, lost or renamed, or a filter that stops taking some, fails the
/// test instead of shrinking it. Returns how many were checked.
fn check_each(
    vectors: &[Vector],
    left_out: &[&str],
    take: impl Fn(&Vector) -> bool,
    mut check: impl FnMut(&Vector),
) -> usize {
    let mut skipped = Vec::new();
    let mut checked = 0;
    for v in vectors {
        if take(v) {
            check(v);
            checked += 1;
        } else {
            skipped.push(v.name.as_str());
        }
    }
    assert_eq!(skipped, left_out, "the vectors left out");
    assert_eq!(checked, vectors.len() - left_out.len());
    checked
}

/// The N6 vectors: plain IPv4/UDP, no GTP-U.
const N6: [&str; 3] = [
    "n6_dl_udp_payload10",
    "n6_dl_udp_payload300",
    "n6_dl_udp_payload1400",
];

/// The GTP-U vectors of `gtpu.json` that are not G-PDUs.
const NOT_GPDU: [&str; 4] = [
    "echo_request",
    "echo_response",
    "error_indication",
    "end_marker",
];

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

impl Vector {
    fn starts_at_ipv4(&self) -> bool {
        self.description.contains("starting at the IPv4 header")
    }
}

/// The MAC addresses of the vectors' links, by the sender's IPv4 address: (source, destination).
fn macs(sender: Ipv4Addr) -> (MacAddr, MacAddr) {
    let mac = |a: u8, b: u8| MacAddr([2, 0, 0, 0, a, b]);
    match sender.octets() {
        [192, 168, 13, 131] => (mac(0x13, 0x31), mac(0x13, 0x51)),
        [192, 168, 13, 151] => (mac(0x13, 0x51), mac(0x13, 0x31)),
        [192, 168, 16, 152] => (mac(0x16, 0x52), mac(0x16, 0x51)),
        other => panic!("no MAC for {other:?}"),
    }
}

fn ip(v: &Value) -> Ipv4Addr {
    v.as_str()
        .expect("address string")
        .parse()
        .expect("IPv4 address")
}

/// Decodes every field the vectors list, using the crate's views and representations.
fn decode(v: &Vector) -> Map<String, Value> {
    let mut f = Map::new();
    let datagram = if v.starts_at_ipv4() {
        &v.bytes[..]
    } else {
        f.insert("frame_len".into(), json!(v.bytes.len()));
        check_ethernet_header(v);
        &v.bytes[ethernet::HEADER_LEN..]
    };
    let outer = Ipv4Packet::new_checked(datagram).expect("IPv4");
    let outer_repr = Ipv4Repr::parse(&outer).expect("IPv4 header checksum and no fragment");
    let udp = UdpPacket::new_checked(outer.payload()).expect("UDP");
    UdpRepr::parse(&udp, outer.source(), outer.destination()).expect("UDP checksum");
    if udp.destination_port() != upfbench_gtpu::GTPU_PORT {
        // An N6 packet: plain IPv4/UDP.
        f.insert("src".into(), json!(outer_repr.source.to_string()));
        f.insert("dst".into(), json!(outer_repr.destination.to_string()));
        f.insert("payload_len".into(), json!(udp.payload().len()));
        return f;
    }
    let d = GtpuDatagram::parse(datagram).expect("GTP-U datagram");
    assert!(d.verify_checksums());
    f.insert("outer_src".into(), json!(d.source().to_string()));
    f.insert("outer_dst".into(), json!(d.destination().to_string()));
    f.insert("udp_dport".into(), json!(d.udp().destination_port()));
    let g = d.gtpu();
    decode_gtpu_header(&g, &mut f);
    if let Some(c) = g.pdu_session_container() {
        decode_pdu_session_container(&c, &mut f);
    }
    if let Ok((inner, _)) = d.t_pdu() {
        decode_t_pdu(inner, &mut f);
    }
    decode_ies(&g, &mut f);
    f
}

/// The frame's Ethernet header: IPv4, between the MAC addresses of the sender's link.
fn check_ethernet_header(v: &Vector) {
    let eth = EthernetFrame::new_checked(&v.bytes[..]).expect("Ethernet");
    assert_eq!(eth.ethertype(), ethernet::ETHERTYPE_IPV4, "{}", v.name);
    let ip4 = Ipv4Packet::new_checked(eth.payload()).expect("IPv4");
    let (src, dst) = macs(ip4.source());
    assert_eq!(
        EthernetRepr::parse(&eth),
        EthernetRepr {
            source: src,
            destination: dst,
            ethertype: ethernet::ETHERTYPE_IPV4
        }
    );
}

/// The GTP-U header's fields: message type, TEID, length, the optional sequence and N-PDU
/// numbers, the extension headers' names and the UDP Port extension.
fn decode_gtpu_header(g: &GtpuPacket<&[u8]>, f: &mut Map<String, Value>) {
    f.insert("gtp_msg_type".into(), json!(g.message_type().0));
    f.insert("teid".into(), json!(g.teid().0));
    f.insert("gtp_length".into(), json!(g.length()));
    if let Some(seq) = g.sequence_number() {
        f.insert("seq".into(), json!(seq));
    }
    if let Some(n) = g.npdu_number() {
        f.insert("npdu".into(), json!(n));
    }
    let names: Vec<Value> = g
        .extension_headers()
        .map(|e| match e.extension_type {
            upfbench_gtpu::ExtensionHeaderType::PDU_SESSION_CONTAINER => {
                json!("pdu_session_container")
            }
            upfbench_gtpu::ExtensionHeaderType::UDP_PORT => json!("udp_port"),
            other => json!(other.0),
        })
        .collect();
    if !names.is_empty() {
        f.insert("extension_headers".into(), Value::Array(names));
    }
    if let Some(port) = g.udp_port() {
        f.insert("udp_port".into(), json!(port));
    }
}

/// The PDU Session Container's fields, downlink or uplink.
fn decode_pdu_session_container(c: &PduSessionContainer, f: &mut Map<String, Value>) {
    f.insert("pdu_type".into(), json!(c.pdu_type()));
    f.insert("qfi".into(), json!(c.qfi().get()));
    match c {
        PduSessionContainer::Downlink(dl) => {
            f.insert("rqi".into(), json!(dl.rqi));
            if let Some(ppi) = dl.ppi {
                f.insert("ppi".into(), json!(ppi.get()));
            }
            if let Some(ts) = dl.dl_sending_time_stamp {
                f.insert("dl_sending_time_stamp".into(), json!(ts));
            }
            if let Some(sn) = dl.dl_qfi_sequence_number {
                f.insert("dl_qfi_sequence_number".into(), json!(sn.get()));
            }
        }
        PduSessionContainer::Uplink(ul) => {
            if let Some(m) = ul.qos_monitoring {
                f.insert(
                    "dl_sending_time_stamp_repeated".into(),
                    json!(m.dl_sending_time_stamp_repeated),
                );
                f.insert(
                    "dl_received_time_stamp".into(),
                    json!(m.dl_received_time_stamp),
                );
                f.insert(
                    "ul_sending_time_stamp".into(),
                    json!(m.ul_sending_time_stamp),
                );
            }
            let opt = [
                ("dl_delay_result", ul.dl_delay_result),
                ("ul_delay_result", ul.ul_delay_result),
                (
                    "ul_qfi_sequence_number",
                    ul.ul_qfi_sequence_number.map(|s| s.get()),
                ),
                ("n3_n9_delay_result", ul.n3_n9_delay_result),
            ];
            for (k, val) in opt {
                if let Some(val) = val {
                    f.insert(k.into(), json!(val));
                }
            }
        }
    }
}

/// The T-PDU's inner IPv4/UDP addresses, ports and payload length, checksums verified.
fn decode_t_pdu(inner: &[u8], f: &mut Map<String, Value>) {
    let ip4 = Ipv4Packet::new_checked(inner).expect("inner IPv4");
    Ipv4Repr::parse(&ip4).expect("inner IPv4 checksum");
    let u = UdpPacket::new_checked(ip4.payload()).expect("inner UDP");
    UdpRepr::parse(&u, ip4.source(), ip4.destination()).expect("inner UDP checksum");
    f.insert("inner_src".into(), json!(ip4.source().to_string()));
    f.insert("inner_dst".into(), json!(ip4.destination().to_string()));
    f.insert("inner_udp_sport".into(), json!(u.source_port()));
    f.insert("inner_udp_dport".into(), json!(u.destination_port()));
    f.insert("payload_len".into(), json!(u.payload().len()));
}

/// The IEs, walked leniently through the view so that one bad IE does not hide the others.
fn decode_ies(g: &GtpuPacket<&[u8]>, f: &mut Map<String, Value>) {
    for item in InformationElements::new(g.payload(), g.header_len()) {
        let Ok(item) = item else { break };
        match item.ie_type {
            ie::IE_TEID_DATA_I => {
                let b = item.value;
                f.insert(
                    "teid_data_i".into(),
                    json!(u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
                );
            }
            ie::IE_GTPU_PEER_ADDRESS => {
                if let Ok(addr) = ie::parse_peer_address(&item) {
                    f.insert("gsn_address".into(), json!(addr.to_string()));
                }
            }
            _ => {}
        }
    }
}

fn num(f: &Map<String, Value>, k: &str) -> Option<u64> {
    f.get(k).and_then(Value::as_u64)
}

/// Builds the vector's bytes from its fields and the conventions of the generator (TTL 64,
/// IPv4 id 0, no DF, UDP ports 2152 outside and 10000/20000 inside, UDP checksums filled,
/// payload of 'x' uplink and 'y' downlink, Recovery 0, sequence number 0 when S is needed).
fn emit(v: &Vector) -> Vec<u8> {
    let f = &v.fields;
    let mut buf = vec![0u8; 4096];
    let ipv4_at = if v.starts_at_ipv4() {
        0
    } else {
        ethernet::HEADER_LEN
    };

    if f.contains_key("src") {
        // N6 downlink.
        let (src, dst) = (ip(&f["src"]), ip(&f["dst"]));
        let payload = vec![b'y'; num(f, "payload_len").unwrap() as usize];
        let len = emit_ipv4_udp(
            &mut buf[ipv4_at..],
            &ipv4_repr(src, dst),
            &UdpRepr {
                source_port: 20000,
                destination_port: 10000,
            },
            &payload,
            UdpChecksum::Compute,
        )
        .unwrap();
        emit_ethernet(&mut buf, src);
        buf.truncate(ipv4_at + len);
        return buf;
    }

    let msg_type = num(f, "gtp_msg_type").unwrap_or(255) as u8;
    let gtp = emit_gtpu(f, msg_type);
    let (src, dst) = outer_addresses(f, msg_type);
    let gtpu_port = upfbench_gtpu::GTPU_PORT;
    let len = emit_ipv4_udp(
        &mut buf[ipv4_at..],
        &ipv4_repr(src, dst),
        &UdpRepr {
            source_port: gtpu_port,
            destination_port: gtpu_port,
        },
        &gtp,
        UdpChecksum::Compute,
    )
    .unwrap();
    if !v.starts_at_ipv4() {
        emit_ethernet(&mut buf, src);
    }
    buf.truncate(ipv4_at + len);
    buf
}

/// The GTP-U message (header, extensions, IEs or T-PDU) of the vector's fields.
fn emit_gtpu(f: &Map<String, Value>, msg_type: u8) -> Vec<u8> {
    let inner = if msg_type == 255 {
        emit_inner_datagram(f)
    } else {
        Vec::new()
    };
    let message = match msg_type {
        255 => Message::GPdu { t_pdu: &inner },
        1 => Message::EchoRequest,
        2 => Message::EchoResponse { recovery: 0 },
        26 => Message::ErrorIndication {
            teid_data_i: Teid(num(f, "teid_data_i").unwrap() as u32),
            peer_address: IpAddr::V4(ip(&f["gsn_address"])),
        },
        254 => Message::EndMarker,
        other => panic!("no emitter for message type {other}"),
    };
    let needs_seq = matches!(msg_type, 1 | 2 | 26);
    let repr = GtpuRepr {
        teid: Teid(num(f, "teid").unwrap_or(0) as u32),
        sequence_number: num(f, "seq").map(|s| s as u16).or(needs_seq.then_some(0)),
        npdu_number: num(f, "npdu").map(|n| n as u8),
        pdu_session_container: container(f),
        udp_port: num(f, "udp_port").map(|p| p as u16),
        message,
    };
    let mut gtp = vec![0u8; repr.buffer_len()];
    repr.emit(&mut gtp).unwrap();
    gtp
}

/// A G-PDU's inner IPv4/UDP datagram: ports 10000/20000 by direction unless listed, payload of
/// 'x' uplink and 'y' downlink.
fn emit_inner_datagram(f: &Map<String, Value>) -> Vec<u8> {
    let mut inner = vec![0u8; 2048];
    let (src, dst) = (ip(&f["inner_src"]), ip(&f["inner_dst"]));
    let uplink = src == UE;
    let (sport, dport) = if uplink {
        (10000, 20000)
    } else {
        (20000, 10000)
    };
    let sport = num(f, "inner_udp_sport").map_or(sport, |p| p as u16);
    let dport = num(f, "inner_udp_dport").map_or(dport, |p| p as u16);
    let payload = vec![if uplink { b'x' } else { b'y' }; num(f, "payload_len").unwrap() as usize];
    let len = emit_ipv4_udp(
        &mut inner,
        &ipv4_repr(src, dst),
        &UdpRepr {
            source_port: sport,
            destination_port: dport,
        },
        &payload,
        UdpChecksum::Compute,
    )
    .unwrap();
    inner.truncate(len);
    inner
}

/// The outer addresses, when not listed: the N3 pair by direction. Uplink G-PDUs (from the
/// UE) and Echo Requests go from the tester to the UPF; the rest come from the UPF.
fn outer_addresses(f: &Map<String, Value>, msg_type: u8) -> (Ipv4Addr, Ipv4Addr) {
    let tester = Ipv4Addr::new(192, 168, 13, 131);
    let upf = Ipv4Addr::new(192, 168, 13, 151);
    let uplink = f.get("inner_src").map(ip) == Some(UE) || msg_type == 1;
    match f.get("outer_src") {
        Some(s) => (ip(s), ip(&f["outer_dst"])),
        None if uplink => (tester, upf),
        None => (upf, tester),
    }
}

fn ipv4_repr(source: Ipv4Addr, destination: Ipv4Addr) -> Ipv4Repr {
    Ipv4Repr::udp(source, destination)
}

fn emit_ethernet(buf: &mut [u8], sender: Ipv4Addr) {
    let (source, destination) = macs(sender);
    EthernetRepr {
        source,
        destination,
        ethertype: ethernet::ETHERTYPE_IPV4,
    }
    .emit(buf)
    .unwrap();
}

fn container(f: &Map<String, Value>) -> Option<PduSessionContainer> {
    let num = |k: &str| f.get(k).and_then(Value::as_u64);
    let qfi = Qfi::new(num("qfi")? as u8).unwrap();
    let sn = |k: &str| num(k).map(|s| QfiSequenceNumber::new(s as u32).unwrap());
    Some(match num("pdu_type")? {
        0 => PduSessionContainer::Downlink(DlPduSessionInformation {
            qfi,
            rqi: f.get("rqi").and_then(Value::as_bool).unwrap_or(false),
            ppi: num("ppi").map(|p| Ppi::new(p as u8).unwrap()),
            dl_sending_time_stamp: num("dl_sending_time_stamp"),
            dl_qfi_sequence_number: sn("dl_qfi_sequence_number"),
        }),
        1 => PduSessionContainer::Uplink(UlPduSessionInformation {
            qfi,
            qos_monitoring: num("ul_sending_time_stamp").map(|ul| UlQosMonitoring {
                dl_sending_time_stamp_repeated: num("dl_sending_time_stamp_repeated").unwrap(),
                dl_received_time_stamp: num("dl_received_time_stamp").unwrap(),
                ul_sending_time_stamp: ul,
            }),
            dl_delay_result: num("dl_delay_result").map(|d| d as u32),
            ul_delay_result: num("ul_delay_result").map(|d| d as u32),
            ul_qfi_sequence_number: sn("ul_qfi_sequence_number"),
            n3_n9_delay_result: num("n3_n9_delay_result").map(|d| d as u32),
        }),
        other => panic!("PDU type {other}"),
    })
}

/// The shared `error_indication` vector lists `gsn_address` 192.168.13.151, but its GTP-U Peer
/// Address IE is empty (type 133, length 0: Scapy drops the address when the IE length is left
/// unset; Wireshark says "unknown type or wrong length"). TS 29.281 §8.4 allows 4 or 16 octets.
const DEFECTIVE: (&str, &str) = ("error_indication", "gsn_address");

fn check_fields(v: &Vector) {
    let decoded = decode(v);
    for (key, expected) in &v.fields {
        if (v.name.as_str(), key.as_str()) == DEFECTIVE {
            assert!(
                !decoded.contains_key(key),
                "{}: {key} should not decode",
                v.name
            );
            continue;
        }
        assert_eq!(decoded.get(key), Some(expected), "{}: field {key}", v.name);
    }
}

fn check_emit(v: &Vector) {
    assert_ne!(
        v.name, DEFECTIVE.0,
        "covered by `shared_error_indication_has_an_empty_peer_address`"
    );
    assert_eq!(
        hex_of(&emit(v)),
        hex_of(&v.bytes),
        "{}: emitted bytes",
        v.name
    );
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn shared_vectors_decode_to_their_fields() {
    assert_eq!(check_each(&shared(), &[], |_| true, check_fields), 13);
}

#[test]
fn shared_vectors_emit_to_their_bytes() {
    // The defective one: `shared_error_indication_has_an_empty_peer_address`.
    let emitted = check_each(
        &shared(),
        &[DEFECTIVE.0],
        |v| v.name != DEFECTIVE.0,
        check_emit,
    );
    assert_eq!(emitted, 12);
}

#[test]
fn extra_vectors_decode_to_their_fields() {
    assert_eq!(check_each(&extra(), &[], |_| true, check_fields), 6);
}

#[test]
fn extra_vectors_emit_to_their_bytes() {
    assert_eq!(check_each(&extra(), &[], |_| true, check_emit), 6);
}

#[test]
fn every_gtpu_vector_round_trips_through_gtpu_repr() {
    let round_trip = |v: &Vector| {
        let start = if v.starts_at_ipv4() {
            0
        } else {
            ethernet::HEADER_LEN
        };
        let d = GtpuDatagram::parse(&v.bytes[start..]).unwrap();
        let msg = &v.bytes[start + d.gtpu_offset()..];
        let repr = GtpuRepr::parse_bytes(msg).unwrap();
        let mut out = vec![0u8; repr.buffer_len()];
        repr.emit(&mut out).unwrap();
        assert_eq!(out, msg[..d.gtpu().message_len()], "{}", v.name);
    };
    let take = |v: &Vector| v.name != DEFECTIVE.0 && !v.fields.contains_key("src");
    let left_out = [N6[0], N6[1], N6[2], DEFECTIVE.0];
    assert_eq!(check_each(&shared(), &left_out, take, round_trip), 9);
    assert_eq!(check_each(&extra(), &[], take, round_trip), 6);
}

#[test]
fn shared_error_indication_has_an_empty_peer_address() {
    let shared = shared();
    let v = shared.iter().find(|v| v.name == DEFECTIVE.0).unwrap();
    let d = GtpuDatagram::parse(&v.bytes).unwrap();
    let msg = &v.bytes[d.gtpu_offset()..];
    // Header 12 octets, TEID Data I 5 octets, then the Peer Address IE.
    assert_eq!(
        GtpuRepr::parse_bytes(msg),
        Err(ParseError::BadIeLength {
            offset: 17,
            ie_type: 133,
            length: 0
        })
    );
    // Emitting from the listed fields gives the corrected extra vector, byte for byte.
    let extra = extra();
    let fixed = extra
        .iter()
        .find(|v| v.name == "error_indication_peer_ipv4")
        .unwrap();
    assert_eq!(hex_of(&emit(v)), hex_of(&fixed.bytes));
}

#[test]
fn encapsulator_reproduces_the_gpdu_frames() {
    let encapsulate = |v: &Vector| {
        let d = decapsulate(&v.bytes).unwrap();
        let outer = d.frame().datagram();
        let (src_mac, dst_mac) = macs(outer.source());
        let mut headers = OuterHeaders::new(
            src_mac,
            dst_mac,
            outer.source(),
            outer.destination(),
            Teid(v.fields["teid"].as_u64().unwrap() as u32),
        );
        headers.udp_checksum = UdpChecksum::Compute;
        headers.pdu_session_container = container(&v.fields);
        let encap = Encapsulator::new(&headers).unwrap();
        assert_eq!(encap.outer_len(), d.inner_offset(), "{}", v.name);
        // Inner packet after 7 octets of extra headroom: the encapsulator must write only in
        // front of it.
        let mut buf = vec![0xee; 7 + v.bytes.len()];
        let inner = 7 + d.inner_offset()..buf.len();
        buf[inner.clone()].copy_from_slice(d.inner());
        let frame = encap.encapsulate(&mut buf, inner).unwrap();
        assert_eq!(frame, 7..buf.len());
        assert_eq!(buf[..7], [0xee; 7]);
        assert_eq!(hex_of(&buf[frame]), hex_of(&v.bytes), "{}", v.name);
    };
    // G-PDU frames without a sequence number (the encapsulator writes none).
    let take = |v: &Vector| {
        !v.starts_at_ipv4() && v.fields.contains_key("inner_src") && !v.fields.contains_key("seq")
    };
    let left_out: Vec<&str> = N6.iter().chain(&NOT_GPDU).copied().collect();
    assert_eq!(check_each(&shared(), &left_out, take, encapsulate), 6);
    let left_out = [
        "error_indication_peer_ipv4",
        "error_indication_udp_port",
        "ul_gpdu_seq_npdu_payload10",
    ];
    assert_eq!(check_each(&extra(), &left_out, take, encapsulate), 3);
}

#[test]
fn decapsulate_finds_the_inner_packet_of_every_gpdu_frame() {
    let find = |v: &Vector| {
        let d = decapsulate(&v.bytes).unwrap();
        assert_eq!(
            d.inner().as_ptr(),
            v.bytes[d.inner_offset()..].as_ptr(),
            "{}",
            v.name
        );
        assert_eq!(d.teid().0 as u64, v.fields["teid"].as_u64().unwrap());
        assert_eq!(
            d.qfi().map(|q| q.get() as u64),
            v.fields.get("qfi").and_then(Value::as_u64)
        );
        let ip4 = Ipv4Packet::new_checked(d.inner()).unwrap();
        assert_eq!(ip4.source(), ip(&v.fields["inner_src"]), "{}", v.name);
    };
    let take = |v: &Vector| !v.starts_at_ipv4() && v.fields.contains_key("inner_src");
    let left_out: Vec<&str> = N6.iter().chain(&NOT_GPDU).copied().collect();
    assert_eq!(check_each(&shared(), &left_out, take, find), 6);
    let left_out = ["error_indication_peer_ipv4", "error_indication_udp_port"];
    assert_eq!(check_each(&extra(), &left_out, take, find), 4);
}

#[test]
fn decapsulate_refuses_non_gpdu_and_plain_frames() {
    let shared = shared();
    let n6 = shared
        .iter()
        .find(|v| v.name == "n6_dl_udp_payload10")
        .unwrap();
    assert_eq!(
        decapsulate(&n6.bytes),
        Err(ParseError::UnexpectedPort {
            offset: 14 + 20 + 2,
            port: 10000
        })
    );
    let echo = shared.iter().find(|v| v.name == "echo_request").unwrap();
    let mut frame = vec![0u8; ethernet::HEADER_LEN];
    EthernetRepr {
        source: MacAddr::default(),
        destination: MacAddr::default(),
        ethertype: ethernet::ETHERTYPE_IPV4,
    }
    .emit(&mut frame)
    .unwrap();
    frame.extend_from_slice(&echo.bytes);
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::UnexpectedMessageType {
            offset: 14 + 28 + 1,
            message_type: 1,
            expected: 255
        })
    );
    let gtp = GtpuPacket::new_checked(&echo.bytes[28..]).unwrap();
    assert_eq!(gtp.sequence_number(), Some(0x1234));
}
