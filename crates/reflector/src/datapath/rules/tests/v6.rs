//! IPv6 and dual-stack UEs in the mirror: a downlink PDR's UE prefix is a key of the prefix
//! table, its gNB resolved as an IPv4 UE's is, and a deletion or modification takes it out.

use std::net::Ipv6Addr;

use upfbench_pfcp::plan::UeIpv6Prefix;

use super::*;

fn prefix(i: u32) -> UeIpv6Prefix {
    UeIpv6Prefix {
        prefix: Ipv6Addr::new(0x2001, 0xdb8, 0x45, i as u16, 0, 0, 0, 0),
        len: 64,
    }
}

/// UE `i`'s address in its /64.
fn ue6(i: u32) -> u128 {
    prefix(i).prefix.to_bits() | 2
}

/// [`session`] with UE `i`'s IPv6 prefix, and its IPv4 address when `dual`.
fn session6(i: u32, dl_teid: Teid, gnb: Ipv4Addr, dual: bool) -> SessionRules {
    let mut s = session(i, Teid(100 + i), dl_teid, gnb, None);
    for d in &mut s.downlink {
        d.ue_prefix = Some(prefix(i));
        if !dual {
            d.ue_address = None;
        }
    }
    s
}

fn dl6(t: &ForwardingTable, i: u32) -> Option<DownlinkEntry> {
    t.downlink_v6.get(ue6(i)).map(|r| r.entry)
}

#[test]
fn an_ipv6_ue_is_found_by_its_prefix_and_its_gnb_is_resolved() {
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(session6(0, Teid(7), GNB_A, false)));
    let t = m.snapshot().unwrap();
    let e = dl6(&t, 0).expect("the UE's /64");
    assert_eq!(
        (e.forward, e.teid, e.gnb),
        (true, Teid(7), u32::from(GNB_A))
    );
    assert_eq!(dl6(&t, 1), None);
    assert_eq!(dl(&t, 0), None, "no IPv4 address");
    assert_eq!(&*t.gnbs, &[u32::from(GNB_A)]);
    assert_eq!(t.uplink.get(100).map(|u| u.forward), Some(true));
}

#[test]
fn a_dual_stack_ue_is_in_both_tables_and_a_deletion_takes_it_out_of_both() {
    let mut m = RulesMirror::default();
    let s = session6(3, Teid(9), GNB_B, true);
    m.apply(&RuleChange::Installed(s.clone()));
    m.apply(&RuleChange::Installed(session6(4, Teid(10), GNB_A, false)));
    let t = m.snapshot().unwrap();
    assert_eq!(dl(&t, 3).map(|e| e.teid), Some(Teid(9)));
    assert_eq!(dl6(&t, 3).map(|e| e.teid), Some(Teid(9)));
    assert_eq!(&*t.gnbs, &[u32::from(GNB_A), u32::from(GNB_B)]);
    m.apply(&RuleChange::Removed(s));
    let after = m.snapshot().unwrap();
    assert_eq!((dl(&after, 3), dl6(&after, 3)), (None, None));
    assert_eq!(dl6(&after, 4).map(|e| e.teid), Some(Teid(10)));
    // GNB_B's only tunnels were the dual-stack UE's (counted once per family).
    assert_eq!(&*after.gnbs, &[u32::from(GNB_A)]);
    // The table published before is unchanged: the prefix table was copied, not changed.
    assert_eq!(dl6(&t, 3).map(|e| e.teid), Some(Teid(9)));
}

#[test]
fn a_modification_moves_an_ipv6_ues_tunnel() {
    let mut m = RulesMirror::default();
    let before = session6(1, Teid(5), GNB_A, false);
    m.apply(&RuleChange::Installed(before.clone()));
    let after = session6(1, Teid(6), GNB_B, false);
    m.apply(&RuleChange::Modified {
        previous: before,
        current: after,
    });
    let t = m.snapshot().unwrap();
    let e = dl6(&t, 1).unwrap();
    assert_eq!((e.teid, e.gnb), (Teid(6), u32::from(GNB_B)));
    assert_eq!(&*t.gnbs, &[u32::from(GNB_B)]);
    assert_eq!(t.downlink_v6.len(), 1);
}

/// [`session`] over an IPv6 N3: its downlink tunnel to the IPv6 gNB `gnb`.
fn session_over_v6(i: u32, dl_teid: Teid, gnb: Ipv6Addr) -> SessionRules {
    let mut s = session(i, Teid(100 + i), dl_teid, Ipv4Addr::UNSPECIFIED, None);
    for d in &mut s.downlink {
        d.tunnel = Some(Tunnel {
            teid: dl_teid,
            address: gnb.into(),
        });
    }
    s
}

#[test]
fn an_ipv6_gnb_is_named_by_a_key_it_keeps_for_the_run() {
    let a: Ipv6Addr = "2001:db8:13::131".parse().unwrap();
    let b: Ipv6Addr = "2001:db8:13::132".parse().unwrap();
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(session_over_v6(0, Teid(2), a)));
    m.apply(&RuleChange::Installed(session_over_v6(1, Teid(4), b)));
    m.apply(&RuleChange::Installed(session_over_v6(2, Teid(6), a)));
    let t = m.snapshot().unwrap();
    assert_eq!(&t.gnbs_v6[..], &[a, b]);
    let keys: Vec<u32> = (0..3).map(|i| dl(&t, i).unwrap().gnb).collect();
    assert_eq!(keys, [0, 1, 0], "one key per gNB");
    assert_eq!(
        (t.gnb_v6(0), t.gnb_v6(1), t.gnb_v6(2)),
        (Some(a), Some(b), None)
    );
    assert_eq!(&t.gnbs[..], &[0, 1], "both gNBs' keys to resolve");
    // Once its last tunnel is gone, a gNB is not resolved, but it keeps its key: a worker's
    // cached headers toward it stay right.
    m.apply(&RuleChange::Removed(session_over_v6(1, Teid(4), b)));
    let t = m.snapshot().unwrap();
    assert_eq!(&t.gnbs[..], &[0]);
    assert_eq!(&t.gnbs_v6[..], &[a, b]);
    let c: Ipv6Addr = "2001:db8:13::133".parse().unwrap();
    m.apply(&RuleChange::Installed(session_over_v6(3, Teid(8), c)));
    let t = m.snapshot().unwrap();
    assert_eq!(dl(&t, 3).unwrap().gnb, 2);
    assert_eq!(t.gnb_v6(2), Some(c));
}
