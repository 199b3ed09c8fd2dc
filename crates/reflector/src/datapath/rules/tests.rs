use std::net::Ipv4Addr;
use std::sync::Arc;

use upfbench_pfcp::ie::Fseid;
use upfbench_pfcp::node::{DownlinkRule, Tunnel, UplinkRule};
use upfbench_pfcp::{PdrId, Precedence, Qfi, Seid, Teid};

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
            precedence: Precedence(100),
            teid: ul_teid,
            address: Ipv4Addr::new(192, 168, 13, 151).into(),
            ue_address: Some(ue(i)),
            qfi,
            sdf_filters: Vec::new(),
            qer: None,
            remove_outer_header: true,
            forward: true,
        }],
        downlink: vec![DownlinkRule {
            up_seid: seid,
            pdr_id: PdrId(2),
            precedence: Precedence(100),
            ue_address: Some(ue(i)),
            ue_prefix: None,
            sdf_filters: Vec::new(),
            tunnel: Some(Tunnel {
                teid: dl_teid,
                address: gnb.into(),
            }),
            qfi,
            qer: None,
            forward: true,
        }],
        qers: Vec::new(),
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
            qfi: qfi(9),
            flows: false,
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
            qfi: None,
            flows: false,
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
        ue_address: Some(ue(0)),
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
            qfi: None,
            flows: false,
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

mod flows {
    use upfbench_pfcp::QerId;
    use upfbench_pfcp::ie::{BitRate, GateStatus};
    use upfbench_pfcp::node::QerRule;

    use super::*;
    use crate::datapath::flows::{Classified, Flow, classify};
    use crate::datapath::qer::{DOWNLINK, UPLINK};
    use upfbench_testkit::upf_frames::inner;

    const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);

    fn qer(id: u32, q: u8, mbr_kbps: Option<u64>) -> QerRule {
        QerRule {
            qer_id: QerId(id),
            qfi: qfi(q),
            gate: GateStatus::OPEN,
            mbr: mbr_kbps.map(|k| BitRate {
                ul_kbps: k,
                dl_kbps: k,
            }),
            gbr: None,
        }
    }

    /// Session 0 with three QoS flows: QFI 1 (QER 1, 8 Mbit/s, SDF port 5001), QFI 5 (QER 2,
    /// 80 Mbit/s, SDF port 5005) and the default flow (QER 9, no MBR, lowest precedence), its
    /// uplink PDRs on one TEID told apart by QFI, its downlink PDRs on one UE by SDF.
    fn three_flows() -> SessionRules {
        let mut s = session(0, Teid(1), Teid(2), GNB_A, None);
        let ul = s.uplink[0].clone();
        let dl = s.downlink[0].clone();
        s.uplink.clear();
        s.downlink.clear();
        for (i, (q, id, port, precedence)) in [
            (9, 9, None, 255),
            (1, 1, Some(5001), 10),
            (5, 2, Some(5005), 20),
        ]
        .into_iter()
        .enumerate()
        {
            let sdf: Vec<_> = port
                .map(|p: u16| {
                    format!("permit out 17 from any {p} to assigned")
                        .parse()
                        .unwrap()
                })
                .into_iter()
                .collect();
            s.uplink.push(UplinkRule {
                pdr_id: PdrId(10 + i as u16),
                precedence: Precedence(precedence),
                qfi: (q != 9).then(|| qfi(q)).flatten(),
                qer: Some(QerId(id)),
                ..ul.clone()
            });
            s.downlink.push(DownlinkRule {
                pdr_id: PdrId(20 + i as u16),
                precedence: Precedence(precedence),
                sdf_filters: sdf,
                qfi: qfi(q),
                qer: Some(QerId(id)),
                ..dl.clone()
            });
        }
        s.qers = vec![
            qer(1, 1, Some(8_000)),
            qer(2, 5, Some(80_000)),
            qer(9, 9, None),
        ];
        s
    }

    fn passed(c: Classified<'_>) -> &Flow {
        match c {
            Classified::Pass(f) => f,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn several_pdrs_on_a_key_are_classified_by_qfi_and_sdf() {
        let mut m = RulesMirror::default();
        m.apply(&RuleChange::Installed(three_flows()));
        let t = m.snapshot().unwrap();
        let u = *t.uplink.get(1).unwrap();
        assert!(u.flows && !u.forward, "{u:?}");
        assert!(dl(&t, 0).unwrap().flows());
        let ul_flows = t.uplink_flows.get(&1).unwrap();
        let precedences: Vec<u32> = ul_flows.iter().map(|f| f.precedence).collect();
        assert_eq!(precedences, [10, 20, 255], "by precedence");
        // Uplink: by the container's QFI; anything else falls to the default flow.
        let p = inner(ue(0), DN, (4000, 5001), &[0; 100]);
        for (q, want) in [(qfi(1), 10), (qfi(5), 20), (qfi(7), 255), (None, 255)] {
            let f = passed(classify(ul_flows, &p, p.len(), q, true, 0));
            assert_eq!(f.precedence, want, "QFI {q:?}");
        }
        // Downlink: by the SDF's port; each flow's G-PDU carries its QFI.
        let dl_flows = t.downlink_flows.get(&u32::from(ue(0))).unwrap();
        for (port, want, q) in [(5001, 10, 1), (5005, 20, 5), (80, 255, 9)] {
            let p = inner(DN, ue(0), (port, 4000), &[0; 100]);
            let f = passed(classify(dl_flows, &p, p.len(), None, false, 0));
            assert_eq!((f.precedence, f.container_qfi), (want, qfi(q)));
            assert_eq!(f.tunnel, Some((Teid(2), u32::from(GNB_A))));
        }
        // The uplink and downlink PDRs of a flow share its QER's cell.
        assert!(Arc::ptr_eq(
            ul_flows[0].qer.as_ref().unwrap(),
            dl_flows[0].qer.as_ref().unwrap()
        ));
        assert_eq!(&*t.gnbs, &[u32::from(GNB_A)], "the flows' gNB is resolved");
        // Deleted: nothing left, and what the QERs counted stays in the book per QFI.
        let s = three_flows();
        m.apply(&RuleChange::Removed(s));
        let t = m.snapshot().unwrap();
        assert!(t.uplink_flows.is_empty() && t.downlink_flows.is_empty());
        assert!(t.gnbs.is_empty());
        let by_qfi = m.qers.by_qfi();
        let q1 = by_qfi.iter().find(|(q, _)| *q == qfi(1)).unwrap().1;
        assert_eq!((q1[UPLINK].passed, q1[DOWNLINK].passed), (1, 1));
        assert!(m.qers.rows().is_empty());
    }

    #[test]
    fn a_one_pdr_key_stays_on_the_fast_path_unless_its_qer_polices_or_gates() {
        // A QER with no MBR and open gates: the entry forwards as before.
        let mut s = session(0, Teid(1), Teid(2), GNB_A, qfi(9));
        s.uplink[0].qer = Some(QerId(1));
        s.downlink[0].qer = Some(QerId(1));
        s.qers = vec![qer(1, 9, None)];
        let mut m = RulesMirror::default();
        m.apply(&RuleChange::Installed(s.clone()));
        let t = m.snapshot().unwrap();
        assert!(t.uplink.get(1).unwrap().forward);
        assert!(dl(&t, 0).unwrap().forward);
        assert!(t.uplink_flows.is_empty() && t.downlink_flows.is_empty());

        // An MBR: both keys are classified (and policed).
        let mut policed = s.clone();
        policed.qers = vec![qer(1, 9, Some(8))];
        m.apply(&RuleChange::Modified {
            previous: s.clone(),
            current: policed.clone(),
        });
        let t = m.snapshot().unwrap();
        assert!(t.uplink.get(1).unwrap().flows);
        assert_eq!(dl(&t, 0), Some(DownlinkEntry::FLOWS));
        let cell = m.qers.cell(s.up_seid, QerId(1)).unwrap();
        let p = inner(ue(0), DN, (1, 2), &[0; 1_000]);
        let flows = t.uplink_flows.get(&1).unwrap();
        // The PDR matches QFI 9: a G-PDU without it is no PDR's.
        assert_eq!(
            classify(flows, &p, p.len(), None, true, 0),
            Classified::NoFlow
        );
        assert!(matches!(
            classify(flows, &p, p.len(), qfi(9), true, 0),
            Classified::Pass(_)
        ));
        assert_eq!(
            classify(flows, &p, p.len(), qfi(9), true, 0),
            Classified::Policed
        );

        // The gate closed by an Update QER: the same cell, its counts kept.
        let mut closed = policed.clone();
        closed.qers[0].gate = GateStatus::CLOSED;
        m.apply(&RuleChange::Modified {
            previous: policed,
            current: closed.clone(),
        });
        let t = m.snapshot().unwrap();
        assert!(Arc::ptr_eq(
            &cell,
            &m.qers.cell(s.up_seid, QerId(1)).unwrap()
        ));
        let flows = t.downlink_flows.get(&u32::from(ue(0))).unwrap();
        let down = inner(DN, ue(0), (2, 1), &[0; 10]);
        assert_eq!(
            classify(flows, &down, down.len(), None, false, 5),
            Classified::Gated
        );
        let c = cell.counts(UPLINK);
        assert_eq!((c.passed, c.policed), (1, 1));
        assert_eq!(cell.counts(DOWNLINK).gated, 1);

        // Opened again, without an MBR: back to the fast path.
        m.apply(&RuleChange::Modified {
            previous: closed,
            current: s,
        });
        let t = m.snapshot().unwrap();
        assert!(t.uplink.get(1).unwrap().forward && dl(&t, 0).unwrap().forward);
        assert!(t.uplink_flows.is_empty() && t.downlink_flows.is_empty());
        // The held-back path of `far_update_delay` is for one-flow entries only.
        assert_eq!(&*t.gnbs, &[u32::from(GNB_A)]);
    }

    #[test]
    fn a_classified_ue_is_not_held_back() {
        let mut m = RulesMirror::default();
        m.apply(&RuleChange::Installed(three_flows()));
        assert_eq!(m.hold_downlink(u32::from(ue(0)), 5), None);
        let t = m.snapshot().unwrap();
        assert_eq!(dl(&t, 0), Some(DownlinkEntry::FLOWS));
        assert!(t.releases.is_empty());
    }
}

mod v6;
