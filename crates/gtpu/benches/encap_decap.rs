//! G-PDU encapsulation and decapsulation, ns per packet, for inner UDP payloads of 10, 300 and
//! 1400 bytes (the sizes of the published UPF measurements), over IPv4 and over IPv6 (`ipv6`
//! cases: the outer UDP checksum is then always computed).

use std::hint::black_box;
use std::net::{Ipv4Addr, Ipv6Addr};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use upfbench_gtpu::{
    Encapsulator, Ipv4Packet, Ipv4Repr, OuterHeaders, PacketTemplate, PduSessionContainer,
    UdpChecksum, UdpPacket, UdpRepr, UeAddress, decapsulate, emit_ipv4_udp,
};
use upfbench_net::{MacAddr, Qfi, Teid, ipv4, udp};

const PAYLOADS: [usize; 3] = [10, 300, 1400];
const HEADROOM: usize = 128;

fn outer(pdusc: bool, udp_checksum: UdpChecksum) -> OuterHeaders {
    let mut h = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        Ipv4Addr::new(192, 168, 13, 131),
        Ipv4Addr::new(192, 168, 13, 151),
        Teid(1),
    );
    if pdusc {
        h.pdu_session_container = Some(PduSessionContainer::uplink(Qfi::new(9).unwrap()));
    }
    h.udp_checksum = udp_checksum;
    h
}

/// A buffer with `HEADROOM` octets of room and an inner IPv4/UDP packet with `payload` bytes.
fn inner_packet(payload: usize) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; HEADROOM + ipv4::MIN_HEADER_LEN + udp::HEADER_LEN + payload];
    let ip = Ipv4Repr::udp(
        Ipv4Addr::new(10, 45, 0, 2),
        Ipv4Addr::new(192, 168, 16, 152),
    );
    let udp = UdpRepr {
        source_port: 10000,
        destination_port: 20000,
    };
    let data = vec![b'x'; payload];
    let len = emit_ipv4_udp(&mut buf[HEADROOM..], &ip, &udp, &data, UdpChecksum::Compute).unwrap();
    (buf, len)
}

/// The IPv6 twin of [`outer`]: the outer UDP checksum is computed, as IPv6 requires.
fn outer_v6(pdusc: bool) -> OuterHeaders<Ipv6Addr> {
    let mut h = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        "2001:db8:13::131".parse().unwrap(),
        "2001:db8:13::151".parse().unwrap(),
        Teid(1),
    );
    if pdusc {
        h.pdu_session_container = Some(PduSessionContainer::uplink(Qfi::new(9).unwrap()));
    }
    h
}

fn encapsulate(c: &mut Criterion) {
    let cases = [
        ("plain", false, UdpChecksum::Zero),
        ("pdusc", true, UdpChecksum::Zero),
        ("plain_udp_checksum", false, UdpChecksum::Compute),
    ];
    let mut g = c.benchmark_group("encapsulate");
    g.throughput(Throughput::Elements(1));
    for (name, pdusc, csum) in cases {
        let encap = Encapsulator::new(&outer(pdusc, csum)).unwrap();
        for payload in PAYLOADS {
            let (mut buf, len) = inner_packet(payload);
            g.bench_with_input(BenchmarkId::new(name, payload), &payload, |b, _| {
                b.iter(|| {
                    let r = encap.encapsulate(black_box(&mut buf), HEADROOM..HEADROOM + len);
                    black_box(r).unwrap()
                })
            });
        }
    }
    let encap = Encapsulator::new(&outer_v6(false)).unwrap();
    for payload in PAYLOADS {
        let (mut buf, len) = inner_packet(payload);
        g.bench_with_input(BenchmarkId::new("ipv6", payload), &payload, |b, _| {
            b.iter(|| {
                let r = encap.encapsulate(black_box(&mut buf), HEADROOM..HEADROOM + len);
                black_box(r).unwrap()
            })
        });
    }
    g.finish();
}

fn frame(payload: usize, pdusc: bool) -> Vec<u8> {
    frame_of(
        &Encapsulator::new(&outer(pdusc, UdpChecksum::Zero)).unwrap(),
        payload,
    )
}

fn frame_of(encap: &Encapsulator, payload: usize) -> Vec<u8> {
    let (mut buf, len) = inner_packet(payload);
    let r = encap
        .encapsulate(&mut buf, HEADROOM..HEADROOM + len)
        .unwrap();
    buf[r].to_vec()
}

fn decap(c: &mut Criterion) {
    let mut g = c.benchmark_group("decapsulate");
    g.throughput(Throughput::Elements(1));
    for (name, pdusc) in [("plain", false), ("pdusc", true)] {
        for payload in PAYLOADS {
            let f = frame(payload, pdusc);
            g.bench_with_input(BenchmarkId::new(name, payload), &payload, |b, _| {
                b.iter(|| {
                    let d = decapsulate(black_box(&f)).unwrap();
                    black_box((d.teid(), d.qfi(), d.inner().len()))
                })
            });
        }
    }
    let encap = Encapsulator::new(&outer_v6(true)).unwrap();
    for payload in PAYLOADS {
        let f = frame_of(&encap, payload);
        g.bench_with_input(BenchmarkId::new("ipv6_pdusc", payload), &payload, |b, _| {
            b.iter(|| {
                let d = decapsulate(black_box(&f)).unwrap();
                black_box((d.teid(), d.qfi(), d.inner().len()))
            })
        });
    }
    g.finish();

    // What an RX worker does: decapsulate, check the inner IPv4/UDP headers and read the
    // 10-byte measurement tag at the start of the inner payload.
    let mut g = c.benchmark_group("decapsulate_to_inner_payload");
    g.throughput(Throughput::Elements(1));
    for payload in PAYLOADS {
        let f = frame(payload, true);
        g.bench_with_input(BenchmarkId::new("pdusc", payload), &payload, |b, _| {
            b.iter(|| {
                let d = decapsulate(black_box(&f)).unwrap();
                let ip = Ipv4Packet::new_checked(d.inner()).unwrap();
                let udp = UdpPacket::new_checked(ip.payload_slice()).unwrap();
                let tag: [u8; 10] = udp.payload_slice()[..10].try_into().unwrap();
                black_box((d.teid(), udp.destination_port(), tag))
            })
        });
    }
    g.finish();
}

/// What a TX worker does per packet: copy the template into the packet buffer, patch TEID, UE
/// address and the 10-byte tag, then stamp the 4-byte time last, checksums updated
/// incrementally (inner UDP checksum on; outer UDP checksum 0 over IPv4, `gpdu`, and computed
/// over IPv6, `gpdu_ipv6`, where it is updated incrementally too).
fn template(c: &mut Criterion) {
    let ip = Ipv4Repr::udp(
        Ipv4Addr::new(10, 45, 0, 2),
        Ipv4Addr::new(192, 168, 16, 152),
    );
    let udp = UdpRepr {
        source_port: 10000,
        destination_port: 20000,
    };
    let mut g = c.benchmark_group("template_write_and_stamp");
    g.throughput(Throughput::Elements(1));
    let encaps = [
        (
            "gpdu",
            Encapsulator::new(&outer(false, UdpChecksum::Zero)).unwrap(),
        ),
        ("gpdu_ipv6", Encapsulator::new(&outer_v6(false)).unwrap()),
    ];
    for (name, encap) in &encaps {
        for payload in PAYLOADS {
            let t = PacketTemplate::gpdu(
                encap,
                &ip,
                &udp,
                &vec![b'x'; payload],
                UdpChecksum::Compute,
                UeAddress::Source,
            )
            .unwrap();
            let mut buf = vec![0u8; 2048];
            let mut seq = 0u32;
            g.bench_with_input(BenchmarkId::new(*name, payload), &payload, |b, _| {
                b.iter(|| {
                    seq = seq.wrapping_add(1);
                    let mut tag = [0u8; 10];
                    tag[2..6].copy_from_slice(&seq.to_be_bytes());
                    let ue = Ipv4Addr::from(0x0a2d_0002 + (seq & 0xff));
                    let n = t
                        .write(black_box(&mut buf), Teid(seq & 0xff), ue, &tag)
                        .unwrap();
                    t.stamp(&mut buf, 6, &black_box(seq).to_be_bytes()).unwrap();
                    black_box(n)
                })
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = encapsulate, decap, template
}
criterion_main!(benches);
