use std::net::Ipv4Addr;

use upfbench_pfcp::ie::{BitRate, GateStatus};
use upfbench_testkit::upf_frames::inner;

use super::*;
use crate::datapath::qer::QerPolicy;

const UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 2);
const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);

fn filter(text: &str) -> PacketFilter {
    PacketFilter::new(&text.parse().expect("a flow description"))
}

fn qfi(v: u8) -> Option<Qfi> {
    Some(Qfi::new(v).unwrap())
}

fn flow(precedence: u32, qfi: Option<Qfi>, filters: &[&str]) -> Flow {
    Flow {
        precedence,
        qfi,
        filters: filters.iter().map(|f| filter(f)).collect(),
        forward: true,
        tunnel: None,
        container_qfi: None,
        qer: None,
    }
}

/// Which flow (by precedence) `packet` gets, uplink with `q` or downlink.
fn which(flows: &[Flow], packet: &[u8], q: Option<Qfi>, uplink: bool) -> Option<u32> {
    match classify(flows, packet, packet.len(), q, uplink, 0) {
        Classified::Pass(f) => Some(f.precedence),
        Classified::NoFlow => None,
        other => panic!("{other:?}"),
    }
}

#[test]
fn uplink_flows_are_told_apart_by_their_qfi() {
    let flows = [
        flow(10, qfi(1), &[]),
        flow(20, qfi(5), &[]),
        flow(30, None, &[]),
    ];
    let p = inner(UE, DN, (1000, 5001), &[0; 20]);
    assert_eq!(which(&flows, &p, qfi(1), true), Some(10));
    assert_eq!(which(&flows, &p, qfi(5), true), Some(20));
    // Another QFI, or none: the flow that names none.
    assert_eq!(which(&flows, &p, qfi(9), true), Some(30));
    assert_eq!(which(&flows, &p, None, true), Some(30));
    assert_eq!(which(&flows[..2], &p, None, true), None);
    // Downlink packets carry no QFI: the PDR's QFI is not looked at.
    assert_eq!(which(&flows, &p, None, false), Some(10));
}

#[test]
fn sdf_filters_match_as_written_downlink_and_swapped_uplink() {
    // The design page's filters: ports on the source (remote) side.
    let flows = [
        flow(1, None, &["permit out 17 from any 5001 to assigned"]),
        flow(2, None, &["permit out 17 from any 5005 to assigned"]),
        flow(9, None, &[]),
    ];
    let dl = |port| inner(DN, UE, (port, 40_000), &[0; 20]);
    let ul = |port| inner(UE, DN, (40_000, port), &[0; 20]);
    assert_eq!(which(&flows, &dl(5001), None, false), Some(1));
    assert_eq!(which(&flows, &dl(5005), None, false), Some(2));
    assert_eq!(which(&flows, &dl(5002), None, false), Some(9));
    assert_eq!(which(&flows, &ul(5001), None, true), Some(1));
    assert_eq!(which(&flows, &ul(5005), None, true), Some(2));
    // Uplink from port 5001 to another port is not the flow: the UE side has any port.
    let from_5001 = inner(UE, DN, (5001, 80), &[0; 20]);
    assert_eq!(which(&flows, &from_5001, None, true), Some(9));
    // TCP to 5001 is not UDP.
    let mut tcp = dl(5001);
    tcp[9] = 6;
    assert_eq!(which(&flows, &tcp, None, false), Some(9));
}

#[test]
fn addresses_prefixes_port_lists_and_in_filters() {
    let flows = [
        flow(
            1,
            None,
            &["permit out 17 from 192.168.16.0/24 1000-2000,3000 to assigned"],
        ),
        flow(2, None, &["permit in 6 from assigned 7000 to 8.8.8.0/24"]),
        flow(3, None, &["permit out ip from 2001:db8::/32 to assigned"]),
        flow(4, None, &["permit out ip from any to 10.45.0.3"]),
    ];
    let dl = |src: Ipv4Addr, sport| inner(src, UE, (sport, 9), &[0; 8]);
    assert_eq!(which(&flows, &dl(DN, 1500), None, false), Some(1));
    assert_eq!(which(&flows, &dl(DN, 3000), None, false), Some(1));
    assert_eq!(which(&flows, &dl(DN, 2500), None, false), None);
    assert_eq!(
        which(
            &flows,
            &dl(Ipv4Addr::new(192, 168, 17, 1), 1500),
            None,
            false
        ),
        None
    );
    // `in`: from the UE's port 7000 to 8.8.8.0/24, TCP; downlink is the reverse.
    let mut up = inner(UE, Ipv4Addr::new(8, 8, 8, 8), (7000, 443), &[0; 8]);
    up[9] = 6;
    assert_eq!(which(&flows, &up, None, true), Some(2));
    let mut down = inner(Ipv4Addr::new(8, 8, 8, 8), UE, (443, 7000), &[0; 8]);
    down[9] = 6;
    assert_eq!(which(&flows, &down, None, false), Some(2));
    // A v6 filter matches no v4 packet; a UE address named must be the packet's.
    let to_other_ue = inner(DN, Ipv4Addr::new(10, 45, 0, 3), (1, 1), &[0; 8]);
    assert_eq!(which(&flows, &to_other_ue, None, false), Some(4));
    // Not a whole IP packet (an IPv6 version on 36 bytes): only a flow without filters.
    let mut v6 = to_other_ue.clone();
    v6[0] = 0x60;
    assert_eq!(which(&flows, &v6, None, false), None);
    assert_eq!(which(&[flow(7, None, &[])], &v6, None, false), Some(7));
}

/// An IPv6/UDP packet from `src` to `dst` with `ports`.
fn inner6(src: &str, dst: &str, (sport, dport): (u16, u16)) -> Vec<u8> {
    let mut p = vec![0u8; 40 + 8 + 8];
    p[0] = 0x60;
    p[4..6].copy_from_slice(&16u16.to_be_bytes());
    p[6] = 17;
    p[7] = 64;
    p[8..24].copy_from_slice(&src.parse::<std::net::Ipv6Addr>().unwrap().octets());
    p[24..40].copy_from_slice(&dst.parse::<std::net::Ipv6Addr>().unwrap().octets());
    p[40..42].copy_from_slice(&sport.to_be_bytes());
    p[42..44].copy_from_slice(&dport.to_be_bytes());
    p
}

#[test]
fn ipv6_packets_match_ipv6_filters_and_the_any_ones() {
    // The shape of profiles/qos.yaml for an IPv6 UE: two flows by the data network's port, a
    // catch-all; an IPv4 filter beside.
    let flows = [
        flow(
            101,
            None,
            &["permit out 17 from 2001:db8:16::/64 5001 to assigned"],
        ),
        flow(102, None, &["permit out 17 from any 5005 to assigned"]),
        flow(
            103,
            None,
            &["permit out 17 from 192.168.16.0/24 6000 to assigned"],
        ),
        flow(0xffff, None, &[]),
    ];
    let ue = "2001:db8:45::2";
    let dl = |src: &str, sport| inner6(src, ue, (sport, 9));
    assert_eq!(
        which(&flows, &dl("2001:db8:16::152", 5001), None, false),
        Some(101)
    );
    assert_eq!(
        which(&flows, &dl("2001:db8:17::1", 5001), None, false),
        Some(0xffff)
    );
    assert_eq!(
        which(&flows, &dl("2001:db8:17::1", 5005), None, false),
        Some(102)
    );
    // An IPv4 filter's address never matches an IPv6 packet (nor an IPv6 one an IPv4 packet).
    assert_eq!(
        which(&flows, &dl("2001:db8:16::152", 6000), None, false),
        Some(0xffff)
    );
    let v4 = inner(Ipv4Addr::new(192, 168, 16, 152), UE, (6000, 9), &[0; 8]);
    assert_eq!(which(&flows, &v4, None, false), Some(103));
    let v4_5001 = inner(Ipv4Addr::new(192, 168, 16, 152), UE, (5001, 9), &[0; 8]);
    assert_eq!(which(&flows, &v4_5001, None, false), Some(0xffff));
    // Uplink: the same filter with the addresses and ports swapped.
    let ul = inner6(ue, "2001:db8:16::152", (9, 5001));
    assert_eq!(which(&flows, &ul, None, true), Some(101));
    // A UE address named matches that UE only; another protocol no UDP filter.
    let named = [flow(1, None, &["permit out ip from any to 2001:db8:45::2"])];
    assert_eq!(
        which(&named, &dl("2001:db8:16::152", 1), None, false),
        Some(1)
    );
    let other_ue = inner6("2001:db8:16::152", "2001:db8:45:1::2", (1, 9));
    assert_eq!(which(&named, &other_ue, None, false), None);
    let mut tcp = dl("2001:db8:16::152", 5001);
    tcp[6] = 6;
    assert_eq!(which(&flows, &tcp, None, false), Some(0xffff));
}

#[test]
fn a_flows_qer_passes_polices_or_gates_and_a_dropping_far_wins() {
    let p = QerPolicy::new(1_000_000_000);
    let cell = Arc::new(QerCell::new(
        GateStatus::OPEN,
        Some(BitRate {
            ul_kbps: 12,
            dl_kbps: 0,
        }),
        &p,
    ));
    let mut f = flow(1, None, &[]);
    f.qer = Some(Arc::clone(&cell));
    let flows = [f];
    let pkt = inner(UE, DN, (1, 2), &[0; 1_000]);
    let len = pkt.len();
    assert!(matches!(
        classify(&flows, &pkt, len, None, true, 0),
        Classified::Pass(_)
    ));
    // The 1,500-byte burst is spent: the next is policed; downlink has no MBR.
    assert_eq!(
        classify(&flows, &pkt, len, None, true, 1),
        Classified::Policed
    );
    assert!(matches!(
        classify(&flows, &pkt, len, None, false, 1),
        Classified::Pass(_)
    ));
    cell.configure(GateStatus::CLOSED, None, &p);
    assert_eq!(
        classify(&flows, &pkt, len, None, false, 2),
        Classified::Gated
    );
    let mut dropping = flows[0].clone();
    dropping.forward = false;
    assert_eq!(
        classify(&[dropping], &pkt, len, None, false, 3),
        Classified::NotForwarded
    );
    let c = cell.counts(crate::datapath::qer::UPLINK);
    assert_eq!((c.passed, c.policed, c.gated), (1, 1, 0));
    assert_eq!(cell.counts(crate::datapath::qer::DOWNLINK).gated, 1);
}

#[test]
fn the_key_hasher_spreads_consecutive_keys() {
    let mut m = FlowMap::default();
    for k in 0..1_000u32 {
        m.insert(k, Arc::from(vec![flow(k, None, &[])]));
    }
    assert!((0..1_000u32).all(|k| m.get(&k).is_some_and(|f| f[0].precedence == k)));
    assert!(!m.contains_key(&1_000));
}
