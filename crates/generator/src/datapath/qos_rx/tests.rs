use std::sync::Arc;

use upfbench_run::plan::Plan;
use upfbench_stats::Direction;

use super::{QosLayout, QosRx};

const SYSTEM: &str = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
    n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n\
    pfcp: {local: 127.0.0.1, peer: 127.0.0.2}\n";

fn plan(profile: &str) -> Plan {
    let system = upfbench_config::system_from_str(SYSTEM, "s.yaml").unwrap();
    let profile = upfbench_config::profile_from_str(profile, "p.yaml").unwrap();
    upfbench_run::plan::build(&system, &profile, None, [None, None]).unwrap()
}

/// Two flows of which the second two share one QER, and a flow without an MBR.
const SHARED: &str = "name: p\nsessions:\n  count: 3\n  qos_flows:\n\
    \x20   - {qfi: 1, sdf: 'permit out 17 from any 5001 to assigned', mbr: {uplink: 10Mbps, downlink: 20Mbps}, gbr: {uplink: 10Mbps}}\n\
    \x20   - {qfi: 5, sdf: 'permit out 17 from any 5005 to assigned', mbr: {uplink: 50Mbps}, qer: agg}\n\
    \x20   - {qfi: 6, sdf: 'permit out 17 from any 5006 to assigned', mbr: {uplink: 50Mbps}, qer: agg}\n\
    \x20   - {qfi: 9}\n\
    streams:\n\
    \x20 - {name: a, direction: both, qfi: 1, rate: 150%mbr, payload: 100, src_port: 5001, dst_port: 5001}\n\
    \x20 - {name: b, direction: uplink, qfi: 5, rate: 1kpps, payload: 200, src_port: 5005, dst_port: 5005}\n\
    \x20 - {name: c, direction: uplink, qfi: 6, rate: 1kpps, payload: 300, src_port: 5006, dst_port: 5006}\n\
    \x20 - {name: d, direction: uplink, qfi: 9, rate: 1kpps, payload: 300, src_port: 5009, dst_port: 5009}\n\
    duration: 1s\n";

#[test]
fn a_group_per_qer_and_direction() {
    let plan = plan(SHARED);
    let layout = QosLayout::of(&plan).unwrap();
    let g: Vec<_> = layout
        .groups
        .iter()
        .map(|g| {
            (
                g.key.get(),
                g.direction,
                g.mbr_bps,
                g.gbr_bps,
                g.streams.clone(),
            )
        })
        .collect();
    // a/uplink, a/downlink; b and c under one QER (keyed by QFI 5); d has no MBR.
    assert_eq!(
        g,
        [
            (1, Direction::Uplink, 10_000_000, Some(10_000_000), vec![0]),
            (1, Direction::Downlink, 20_000_000, None, vec![1]),
            (5, Direction::Uplink, 50_000_000, None, vec![2, 3]),
        ]
    );
}

#[test]
fn records_ue_packet_bytes_of_each_flow_in_its_group() {
    let plan = plan(SHARED);
    let layout = Arc::new(QosLayout::of(&plan).unwrap());
    let mut rx = QosRx::new(layout, 1_000_000_000).unwrap();
    rx.start(1_000);
    // Stream b (payload 200: 228-byte IPv4 packets) and c (300: 328) of UE 1, in the first
    // window; stream a's uplink of UE 2 (128) in the third; d's flows are in no group.
    let flow = |stream: u16, ue: u32| plan.stream(stream).flows().start + ue;
    rx.record(flow(2, 1), 1_000, 1_000);
    rx.record(flow(3, 1), 9_999_999, 9_999_999);
    rx.record(flow(0, 2), 20_001_000, 20_001_000);
    rx.record(flow(4, 0), 1_000, 1_000);
    assert_eq!(rx.windows.group(2)[0], 228 + 328);
    assert_eq!(rx.windows.group(0)[2], 128);
    assert_eq!(rx.windows.group(0).iter().sum::<u64>(), 128);
    assert_eq!(rx.windows.outside(), (0, 0, 0));
    // Before the start: counted apart.
    rx.record(flow(2, 0), 999, 999);
    assert_eq!(rx.windows.outside(), (1, 0, 0));
}

#[test]
fn workers_tables_add_up_and_a_table_of_another_start_is_told() {
    let plan = plan(SHARED);
    let layout = Arc::new(QosLayout::of(&plan).unwrap());
    let flow = plan.stream(2).flows().start;
    let mut a = QosRx::new(layout.clone(), 1_000_000_000).unwrap();
    let mut b = a.clone();
    a.start(0);
    b.start(0);
    a.record(flow, 5, 5);
    b.record(flow, 15_000_000, 15_000_000);
    a.merge(&b);
    assert_eq!(&a.windows.group(2)[..2], [228, 228]);
    assert_eq!(a.unmerged, 0);
    let mut late = QosRx::new(layout, 1_000_000_000).unwrap();
    late.start(7);
    a.merge(&late);
    assert_eq!(a.unmerged, 1);
}

#[test]
fn no_layout_without_an_mbr() {
    let plan = plan(
        "name: p\nsessions: {count: 2}\nstreams: [{name: ul, direction: uplink, rate: 1kpps, payload: 100}]\nduration: 1s\n",
    );
    assert!(QosLayout::of(&plan).is_none());
}
