use std::net::Ipv4Addr;
use std::sync::Arc;

use upfbench_pfcp::ie::Fseid;
use upfbench_pfcp::node::{DownlinkRule, Tunnel, UplinkRule};
use upfbench_pfcp::{PdrId, Qfi, Seid, Teid};

use super::*;

const GNB_A: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const GNB_B: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 132);

fn ue(i: u32) -> Ipv4Addr {
    Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 45, 0, 2)) + i)
}

/// Session `i`: uplink TEID `ul_teid` (decapsulated, forwarded, QFI `qfi`), downlink to UE `i`
/// through (`dl_teid`, `gnb`) with QFI `qfi`.
fn session(i: u32, ul_teid: Teid, dl_teid: Teid, gnb: Ipv4Addr, qfi: Option<Qfi>) -> SessionRules {
    let seid = Seid(u64::from(i) + 1);
    SessionRules {
        up_seid: seid,
        cp_f_seid: Fseid {
            seid,
            ipv4: Some(Ipv4Addr::new(192, 168, 14, 111)),
            ipv6: None,
        },
        uplink: vec![UplinkRule {
            up_seid: seid,
            pdr_id: PdrId(1),
            teid: ul_teid,
            address: Ipv4Addr::new(192, 168, 13, 151),
            ue_address: Some(ue(i)),
            qfi,
            remove_outer_header: true,
            forward: true,
        }],
        downlink: vec![DownlinkRule {
            up_seid: seid,
            pdr_id: PdrId(2),
            ue_address: ue(i),
            tunnel: Some(Tunnel {
                teid: dl_teid,
                address: gnb,
            }),
            qfi,
            forward: true,
        }],
    }
}

fn qfi(v: u8) -> Option<Qfi> {
    Some(Qfi::new(v).unwrap())
}

fn dl(t: &ForwardingTable, i: u32) -> Option<DownlinkEntry> {
    t.downlink.get(u32::from(ue(i))).copied()
}

#[test]
fn an_establishment_installs_both_directions() {
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(session(
        0,
        Teid(1),
        Teid(2),
        GNB_A,
        qfi(9),
    )));
    let t = m.snapshot().expect("a new table");
    assert_eq!(t.sessions, 1);
    assert_eq!(
        t.uplink.get(1),
        Some(&UplinkEntry {
            forward: true,
            qfi: qfi(9)
        })
    );
    assert_eq!(
        dl(&t, 0),
        Some(DownlinkEntry {
            forward: true,
            teid: Teid(2),
            gnb: u32::from(GNB_A),
            qfi: qfi(9),
            held: false,
        })
    );
    assert_eq!(t.uplink.get(2), None, "the downlink TEID is the gNB's");
    assert_eq!(&*t.gnbs, &[u32::from(GNB_A)]);
}

#[test]
fn rules_that_do_not_forward_are_kept_as_drops_without_qfi() {
    let mut s = session(0, Teid(1), Teid(2), GNB_A, None);
    s.uplink[0].remove_outer_header = false;
    s.downlink[0].tunnel = None;
    let mut other = session(1, Teid(3), Teid(4), GNB_B, qfi(5));
    other.downlink[0].forward = false;
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(s));
    m.apply(&RuleChange::Installed(other));
    let t = m.snapshot().unwrap();
    assert_eq!(
        t.uplink.get(1),
        Some(&UplinkEntry {
            forward: false,
            qfi: None
        })
    );
    let dropped = DownlinkEntry::default();
    assert_eq!((dl(&t, 0), dl(&t, 1)), (Some(dropped), Some(dropped)));
    assert!(t.gnbs.is_empty(), "no forwarding tunnel: {:?}", t.gnbs);
}

#[test]
fn a_held_downlink_rule_drops_until_released_and_an_end_marker_changes_nothing() {
    let before = session(0, Teid(1), Teid(2), GNB_A, qfi(9));
    let after = session(0, Teid(1), Teid(6), GNB_B, qfi(9));
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(before.clone()));
    m.snapshot().unwrap();
    m.apply(&RuleChange::Modified {
        previous: before.clone(),
        current: after,
    });
    let target = m.hold_downlink(u32::from(ue(0)), 77).unwrap();
    assert_eq!((target.teid, target.gnb), (Teid(6), u32::from(GNB_B)));
    let t = m.snapshot().unwrap();
    let held = dl(&t, 0).unwrap();
    assert!(held.held && !held.forward, "{held:?}");
    // The held rule carries the new tunnel and its release tick; its gNB is resolved ahead.
    assert_eq!((held.teid, held.gnb), (Teid(6), u32::from(GNB_B)));
    assert_eq!(
        (t.release_at(u32::from(ue(0))), t.release_at(1)),
        (77, u64::MAX)
    );
    assert_eq!(&*t.gnbs, &[u32::from(GNB_B)]);
    assert_eq!(m.hold_downlink(u32::from(ue(5)), 77), None, "no such UE");
    // The End Marker's event leaves the table as it is.
    m.apply(&RuleChange::EndMarker {
        ue_address: ue(0),
        previous: before.downlink[0].tunnel.unwrap(),
    });
    assert!(m.snapshot().is_none());
    assert!(m.release_downlink(u32::from(ue(0)), target));
    let t = m.snapshot().unwrap();
    assert_eq!(dl(&t, 0), Some(target));
    assert!(t.releases.is_empty());
    assert!(
        !m.release_downlink(u32::from(ue(0)), target),
        "released already: a later rule is not overwritten"
    );
}

#[test]
fn a_modification_replaces_the_previous_rules() {
    let before = session(0, Teid(1), Teid(2), GNB_A, qfi(9));
    let after = session(0, Teid(5), Teid(6), GNB_B, None);
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(before.clone()));
    m.apply(&RuleChange::Installed(session(
        1,
        Teid(3),
        Teid(4),
        GNB_A,
        qfi(9),
    )));
    m.apply(&RuleChange::Modified {
        previous: before,
        current: after,
    });
    let t = m.snapshot().unwrap();
    assert_eq!((t.sessions, m.sessions()), (2, 2));
    assert_eq!(t.uplink.get(1), None, "the old TEID is gone");
    assert_eq!(
        t.uplink.get(5),
        Some(&UplinkEntry {
            forward: true,
            qfi: None
        })
    );
    assert_eq!(
        dl(&t, 0),
        Some(DownlinkEntry {
            forward: true,
            teid: Teid(6),
            gnb: u32::from(GNB_B),
            qfi: None,
            held: false,
        })
    );
    assert_eq!(
        dl(&t, 1).map(|d| d.teid),
        Some(Teid(4)),
        "the other session stays"
    );
    assert_eq!(&*t.gnbs, &[u32::from(GNB_A), u32::from(GNB_B)]);
}

#[test]
fn a_deletion_removes_only_that_session() {
    let (a, b) = (
        session(0, Teid(1), Teid(2), GNB_A, None),
        session(1, Teid(3), Teid(4), GNB_B, None),
    );
    let mut m = RulesMirror::default();
    m.apply(&RuleChange::Installed(a.clone()));
    m.apply(&RuleChange::Installed(b.clone()));
    m.apply(&RuleChange::Removed(a));
    let t = m.snapshot().unwrap();
    assert_eq!(t.sessions, 1);
    assert_eq!((t.uplink.get(1), dl(&t, 0)), (None, None));
    assert!(t.uplink.get(3).is_some() && dl(&t, 1).is_some());
    assert_eq!(&*t.gnbs, &[u32::from(GNB_B)]);
    m.apply(&RuleChange::Removed(b));
    let t = m.snapshot().unwrap();
    assert_eq!((t.sessions, t.uplink.len(), t.downlink.len()), (0, 0, 0));
    assert_eq!(t, ForwardingTable::empty());
}

#[test]
fn a_snapshot_comes_only_after_a_change() {
    let mut m = RulesMirror::default();
    assert_eq!(m.snapshot(), None);
    m.apply(&RuleChange::Installed(session(
        0,
        Teid(1),
        Teid(2),
        GNB_A,
        None,
    )));
    assert!(m.snapshot().is_some());
    assert_eq!(m.snapshot(), None, "nothing changed since");
    assert!(
        RulesMirror::from_table(&RulesTable::default())
            .snapshot()
            .is_some_and(|t| t == ForwardingTable::empty())
    );
}

fn table_of(sessions: u32) -> ForwardingTable {
    let mut m = RulesMirror::default();
    for i in 0..sessions {
        m.apply(&RuleChange::Installed(session(
            i,
            Teid(2 * i + 1),
            Teid(2 * i + 2),
            GNB_A,
            None,
        )));
    }
    m.snapshot().unwrap_or_else(ForwardingTable::empty)
}

#[test]
fn a_reader_sees_the_newest_table_after_refresh_and_the_publisher_frees_the_old_ones() {
    let (mut publisher, mut readers) = table_channels(2, ForwardingTable::empty());
    let initial = Arc::downgrade(&readers[0].current);
    assert!(!readers[0].refresh(), "nothing published yet");
    assert_eq!(readers[0].table().sessions, 0);

    assert_eq!(publisher.publish(table_of(1)), 2);
    assert_eq!(publisher.publish(table_of(3)), 2);
    assert_eq!(readers[0].table().sessions, 0, "not before refresh");
    assert!(readers[0].refresh());
    assert_eq!(
        readers[0].table().sessions,
        3,
        "the newest, the one between skipped"
    );
    assert!(readers[0].table().uplink.get(5).is_some());
    assert!(!readers[0].refresh());
    assert!(readers[1].refresh());
    assert_eq!(readers[1].table().sessions, 3);
    // Both readers moved on, but a worker never drops the last reference: the publisher does.
    assert!(initial.upgrade().is_some(), "freed by a reader");
    publisher.retire();
    assert!(
        initial.upgrade().is_none(),
        "the initial table was not freed"
    );
    // The newest is shared by the two readers and the publisher.
    assert_eq!(Arc::strong_count(&readers[0].current), 3);
    let current = Arc::downgrade(&readers[0].current);
    publisher.publish(table_of(0));
    readers.iter_mut().for_each(|r| assert!(r.refresh()));
    assert!(current.upgrade().is_some(), "freed by a reader");
    publisher.retire();
    assert!(
        current.upgrade().is_none(),
        "the replaced table was not freed"
    );

    drop(readers.pop());
    assert_eq!(publisher.publish(table_of(1)), 1, "one reader left");
}

#[test]
fn a_table_after_one_change_shares_every_other_shard_with_the_one_before() {
    let mut m = RulesMirror::default();
    for i in 0..100_000 {
        m.apply(&RuleChange::Installed(session(
            i,
            Teid(2 * i + 1),
            Teid(2 * i + 2),
            GNB_A,
            None,
        )));
    }
    let before = m.snapshot().unwrap();
    let s = session(100_000, Teid(200_001), Teid(200_002), GNB_B, None);
    m.apply(&RuleChange::Installed(s.clone()));
    let after = m.snapshot().unwrap();
    let shards = after.uplink.shards() + after.downlink.shards();
    let shared =
        after.uplink.shared_with(&before.uplink) + after.downlink.shared_with(&before.downlink);
    assert_eq!(
        (shards, shared),
        (2048, 2046),
        "one shard copied in each map"
    );
    assert_eq!(&*after.gnbs, &[u32::from(GNB_A), u32::from(GNB_B)]);
    assert!(Arc::ptr_eq(
        &before.gnbs,
        &m.snapshot().map_or(before.gnbs.clone(), |t| t.gnbs)
    ));
    m.apply(&RuleChange::Removed(s));
    let removed = m.snapshot().unwrap();
    assert_eq!(removed, before, "back to the same rules");
    assert_eq!(&*removed.gnbs, &[u32::from(GNB_A)]);
}

#[test]
fn a_reader_never_sees_a_table_in_the_making() {
    const TABLES: u32 = 200;
    let (mut publisher, mut readers) = table_channels(1, ForwardingTable::empty());
    let mut reader = readers.pop().unwrap();
    let writer = std::thread::spawn(move || {
        let mut m = RulesMirror::default();
        for i in 0..TABLES {
            m.apply(&RuleChange::Installed(session(
                i,
                Teid(2 * i + 1),
                Teid(2 * i + 2),
                GNB_A,
                None,
            )));
            publisher.publish(m.snapshot().unwrap());
        }
    });
    let mut last = 0;
    let mut seen = 0;
    while last < TABLES as usize {
        if reader.refresh() {
            seen += 1;
        }
        let t = reader.table();
        let n = t.sessions;
        assert!(n >= last, "went back from {last} to {n} sessions");
        assert_eq!(
            (t.uplink.len(), t.downlink.len()),
            (n, n),
            "a partial table"
        );
        for i in 0..n as u32 {
            assert_eq!(t.uplink.get(2 * i + 1).map(|u| u.forward), Some(true));
            assert_eq!(dl(t, i).map(|d| d.teid), Some(Teid(2 * i + 2)));
        }
        last = n;
    }
    writer.join().unwrap();
    assert!(seen >= 1);
}

#[test]
fn table_slots_stay_small() {
    // A lookup touches one slot: the shared types must not make them larger than the raw
    // numbers did (u32 key + 2 and 10 bytes of entry, padded).
    assert_eq!(size_of::<(u32, UplinkEntry)>(), 8);
    assert_eq!(size_of::<(u32, DownlinkEntry)>(), 16);
}
