use std::net::{IpAddr, Ipv4Addr};

use upfbench_net::Teid;

use super::*;

const SYSTEM: &str = include_str!("../../../../../deploy/systems/memif.yaml");

fn plan(profile: &str, payload: Option<u16>) -> Plan {
    let (system, profile) =
        config::run_from_str(SYSTEM, "memif.yaml", profile, "p.yaml").expect("valid");
    build(&system, &profile, payload, [Some(10e9), Some(10e9)]).expect("plan")
}

#[test]
fn the_quickstart_is_two_streams_of_one_flow_each() {
    let p = plan(
        include_str!("../../../../../profiles/quickstart.yaml"),
        None,
    );
    assert_eq!(p.streams.len(), 2);
    assert_eq!(p.flows, 2);
    let (ul, dl) = (&p.streams[0], &p.streams[1]);
    assert_eq!(
        (ul.direction, dl.direction),
        (Direction::Uplink, Direction::Downlink)
    );
    assert_eq!((ul.flow_base, dl.flow_base), (0, 1));
    assert_eq!(ul.rate_pps, 100_000.0);
    assert_eq!(ul.schedule, Schedule::Continuous { packets: 500_000 });
    assert_eq!(
        p.ues.first_address(),
        IpAddr::V4(Ipv4Addr::new(10, 45, 0, 2))
    );
    assert_eq!(p.ues.downlink_teid.get(0), Teid(2));
    assert_eq!(
        p.ues.uplink_teid,
        UplinkTeids::Sequence(TeidSequence {
            first: Teid(1),
            step: 2
        })
    );
    assert_eq!(p.qfi, Some(Qfi::new(1).unwrap()));
    assert!(ul.pdu_session_container && !dl.pdu_session_container);
    assert_eq!(p.workers.len(), 1);
    assert_eq!(p.workers[0].shares.len(), 2);
    assert_eq!(p.expected, Duration::from_secs(5));
    assert_eq!(p.warmup, Duration::from_secs(1));
    assert_eq!(p.packets(), 1_000_000);
}

#[test]
fn both_directions_make_two_streams_and_flows_follow_the_ues() {
    let p = plan(
        "name: b\nsessions: {count: 10}\nstreams:\n  - {name: x, direction: both, rate: 1kpps, payload: 10}\n  - {name: y, direction: uplink, rate: 1kpps, payload: 10, ues: {first: 4, count: 3}}\nduration: 1s\n",
        None,
    );
    let names: Vec<&str> = p.streams.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["x/uplink", "x/downlink", "y"]);
    assert_eq!(p.streams[1].flow_base, 10);
    assert_eq!(p.streams[2].flow_base, 20);
    assert_eq!(p.streams[2].ues, 4..7);
    assert_eq!(p.flows, 23);
}

#[test]
fn bit_rates_count_the_frames_on_the_sending_port() {
    // 1 Gbit/s at L1 of 300-byte payloads: uplink frames on N3 are 14+20+8+8+8+20+8+300+4 =
    // 390 bytes, 410 at L1; downlink on N6 14+20+8+300+4 = 346, 366 at L1.
    let p = plan(
        "name: r\nstreams:\n  - {name: x, direction: both, rate: 1Gbps L1, payload: 300}\nduration: 1s\n",
        None,
    );
    assert!((p.streams[0].rate_pps - 1e9 / (410.0 * 8.0)).abs() < 1e-6);
    assert!((p.streams[1].rate_pps - 1e9 / (366.0 * 8.0)).abs() < 1e-6);
    // A sweep step changes the payload, and with it a bit rate's packet rate.
    let p = plan(
        "name: r\nstreams:\n  - {name: x, direction: downlink, rate: 50%, payload: 300}\nduration: 1s\n",
        Some(10),
    );
    assert_eq!(p.streams[0].payload_len, 10);
    // 10-byte payloads: a 64-byte minimum frame, 84 at L1; half of 10 Gbit/s.
    assert!((p.streams[0].rate_pps - 5e9 / (84.0 * 8.0)).abs() < 1e-6);
}

#[test]
fn a_percentage_needs_a_line_rate() {
    let (system, profile) = config::run_from_str(
        SYSTEM,
        "memif.yaml",
        "name: r\nstreams:\n  - {name: x, direction: uplink, rate: 10%, payload: 10}\n",
        "p.yaml",
    )
    .unwrap();
    let e = build(&system, &profile, None, [None, Some(1e9)]).unwrap_err();
    assert!(
        matches!(
            e,
            PlanError::NoLineRate {
                port: PortName::N3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn burst_modes_plan_their_packets_and_duration() {
    let p = plan(
        "name: m\nstreams:\n  - {name: x, direction: uplink, rate: 1Mpps, payload: 10}\ntx_mode: {multi_burst: {packets: 1000, bursts: 5, gap: 1ms}}\n",
        None,
    );
    assert_eq!(
        p.streams[0].schedule,
        Schedule::Bursts {
            packets: 1000,
            bursts: 5,
            gap_ns: 1_000_000
        }
    );
    // 5 × (1 ms of sending + 1 ms of gap).
    assert_eq!(p.expected, Duration::from_millis(10));
    let p = plan(
        "name: s\nstreams:\n  - {name: x, direction: uplink, rate: 1Mpps, payload: 10}\ntx_mode: {single_burst: {packets: 77}}\n",
        None,
    );
    assert_eq!(p.packets(), 77);
}

#[test]
fn every_shipped_profile_plans_on_the_memif_system() {
    for name in [
        "quickstart",
        "published",
        "ues-10k",
        "uplink-only",
        "downlink-only",
        "imix",
    ] {
        let path = format!("{}/../../profiles/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let p = plan(&text, None);
        assert!(p.packets() > 0, "{name}");
        let flows: u32 = p.streams.iter().map(|s| s.ue_count()).sum();
        assert_eq!(flows, p.flows, "{name}");
    }
}

/// Two pairs of weight 1 and 3 over 8 UEs: pair a's workers send for UEs 0 and 1, pair b's one
/// worker for UEs 2 to 7, each worker on its queue within its pair; the packets add up.
#[test]
fn each_pair_s_workers_send_for_its_block_of_the_ues() {
    let system = "pairs:\n\
        - {name: a, workers: [1, 2], \
        n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}, \
        n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n\
        - {name: b, workers: [3], weight: 3, \
        n3: {device: net_null2, address: 192.168.23.131/24, peer: 192.168.23.151}, \
        n6: {device: net_null3, address: 192.168.26.152/24, peer: 192.168.26.151}}\n";
    let profile = "name: p\nsessions: {count: 8}\nduration: 1s\n\
        streams: [{name: ul, direction: uplink, rate: 8kpps, payload: 100}]\n";
    let (system, profile) =
        config::run_from_str(system, "s.yaml", profile, "p.yaml").expect("valid");
    let p = build(&system, &profile, None, [None, None]).expect("plan");
    let at: Vec<(u16, u16, u32)> = p
        .workers
        .iter()
        .map(|w| (w.pair, w.index, w.lcore))
        .collect();
    assert_eq!(at, [(0, 0, 1), (0, 1, 2), (1, 0, 3)]);
    let ues: Vec<Vec<u32>> = p
        .workers
        .iter()
        .map(|w| w.shares[0].local_ues().collect())
        .collect();
    assert_eq!(ues, [vec![0], vec![1], vec![2, 3, 4, 5, 6, 7]]);
    let packets: Vec<u64> = p
        .workers
        .iter()
        .map(|w| w.shares[0].schedule.total())
        .collect();
    assert_eq!(packets, [1000, 1000, 6000]);
}

/// The block 3..8 of 10 UEs on the two pairs of weight 1 and 3: pair a sends for UE 3 (a
/// quarter of the block's 5, rounded down: its second worker has none), pair b for 4 to 7;
/// the UEs keep their global indices and the block sends its share of the stream, the first
/// `total % n` UEs' extra packets where they fall.
#[test]
fn a_block_of_the_ues_sends_its_share_with_global_indices() {
    let system = "pairs:\n\
        - {name: a, workers: [1, 2], \
        n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}, \
        n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n\
        - {name: b, workers: [3], weight: 3, \
        n3: {device: net_null2, address: 192.168.23.131/24, peer: 192.168.23.151}, \
        n6: {device: net_null3, address: 192.168.26.152/24, peer: 192.168.26.151}}\n";
    let profile = "name: p\nsessions: {count: 10}\nduration: 1s\n\
        streams: [{name: ul, direction: uplink, rate: 10003pps, payload: 100}]\n";
    let (system, profile) =
        config::run_from_str(system, "s.yaml", profile, "p.yaml").expect("valid");
    let p = build_block(&system, &profile, None, &[], 3..8).expect("plan");
    let ues: Vec<Vec<u32>> = p
        .workers
        .iter()
        .map(|w| w.shares.iter().flat_map(|s| s.local_ues()).collect())
        .collect();
    assert_eq!(ues, [vec![3], vec![], vec![4, 5, 6, 7]]);
    let packets: Vec<u64> = p
        .workers
        .iter()
        .map(|w| w.shares.iter().map(|s| s.schedule.total()).sum())
        .collect();
    // 10,003 packets over 10 UEs: 1,000 each and UEs 0 to 2 one more, none of them here.
    assert_eq!(packets, [1000, 0, 4000]);
    assert_eq!(
        packets.iter().sum::<u64>(),
        crate::plan::segment::packets_of_block(10_003, 10, 3..8)
    );
    // The whole profile's UEs and streams: UE 3's address is UE 3's on one box.
    assert_eq!(p.ues.count, 10);
    assert_eq!(p.streams[0].ues, 0..10);
    assert_eq!(
        p.ues.address(3),
        build(&system, &profile, None, [None; 2])
            .unwrap()
            .ues
            .address(3)
    );
    // Fewer UEs than pairs cannot be cut.
    assert!(matches!(
        build_block(&system, &profile, None, &[], 9..10),
        Err(PlanError::Block(_))
    ));
}

/// Two pairs: a rate in % is of each pair's own ports, and must come out the same on both (it
/// is shared by UE count); in pps it does whatever the ports.
#[test]
fn each_pair_s_line_rate_is_its_own_and_a_rate_that_differs_between_pairs_is_refused() {
    let pairs = include_str!("../../../../../deploy/systems/memif-pairs.yaml");
    let run = |rate: &str| {
        config::run_from_str(
            pairs,
            "memif-pairs.yaml",
            &format!(
                "name: r\nsessions: {{count: 4}}\n\
                 streams:\n  - {{name: x, direction: uplink, rate: {rate}, payload: 100}}\n"
            ),
            "p.yaml",
        )
        .unwrap()
    };
    let (system, profile) = run("1%");
    let same = build_pairs(&system, &profile, None, &[[Some(1e9); 2], [Some(1e9); 2]]).unwrap();
    // 1 % of 1 Gbps at L1 in 200-odd-byte frames: some thousands a second, as `build` makes it
    // with the same links on every pair.
    let rate = same.streams[0].rate_pps;
    assert!((3_000.0..8_000.0).contains(&rate), "{rate}");
    let alike = build(&system, &profile, None, [Some(1e9); 2]).unwrap();
    assert_eq!(alike.streams[0].rate_pps, rate);
    assert_eq!(same.workers.len(), 2);
    let e = build_pairs(&system, &profile, None, &[[Some(1e9); 2], [Some(1e10); 2]]).unwrap_err();
    let PlanError::PairRates {
        first,
        other,
        first_pps,
        other_pps,
        ..
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!((first.as_str(), other.as_str()), ("a", "b"));
    assert!((other_pps / first_pps - 10.0).abs() < 1e-9, "{e}");
    // In pps the ports' speeds do not matter.
    let (system, profile) = run("1000pps");
    let p = build_pairs(&system, &profile, None, &[[Some(1e9); 2], [Some(1e10); 2]]).unwrap();
    assert_eq!(p.streams[0].rate_pps, 1000.0);
}
